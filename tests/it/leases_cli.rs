//! `poolshark leases FILE` and `poolshark check --leases`, through the real binary.
//!
//! Oracles: the hand-written fixtures (every count, bucket and level worked out in their
//! comments), the shared ISC DHCP 4.4.3 pair's real lease files (binding states counted by awk,
//! the FREE and BACKUP counts held against each server's own last `balancing pool` log line and
//! what the log shows after it, the levels computed here from the formula of NOTES.md section 3
//! and compared with the log's `max-own` and `max-misbal`), and captures built here with the
//! project's emitters whose balance runs follow the seed file's numbers.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use poolshark::analyse::dhcp_lb::Hba;
use poolshark::base::Timestamp;
use poolshark::generate::{PcapWriter, TcpFlow, TsResolution};
use poolshark::proto::failover::{BindingStatus, FoOption, Message, MessageType, ServerState};
use poolshark::source::leases::{self, LeaseTime};
use serde_json::Value;

fn run(args: &[&str]) -> Output {
    common::poolshark()
        .args(args)
        .output()
        .expect("run poolshark")
}

/// `poolshark leases ARGS --format json`, which must succeed.
fn leases_json(args: &[&str]) -> (Value, String) {
    let out = common::poolshark()
        .arg("leases")
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("run poolshark");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    (serde_json::from_slice(&out.stdout).expect("json"), stderr)
}

fn fixture(name: &str) -> String {
    common::fixture(&format!("leases/{name}"))
        .display()
        .to_string()
}

fn counts(pool: &Value) -> BTreeMap<String, u64> {
    pool["counts"]
        .as_object()
        .expect("counts")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().expect("count")))
        .collect()
}

fn moves(pool: &Value) -> Vec<(String, u64)> {
    pool["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| {
            (
                m["address"].as_str().expect("address").to_string(),
                m["pass"].as_u64().expect("pass"),
            )
        })
        .collect()
}

fn map(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

// ---------------------------------------------------------------------------------------------
// The hand-written fixtures.

/// 5 2024/03/01 12:00:00 UTC.
const NOON: i64 = 1_709_294_400;

#[test]
fn the_handwritten_file_counted_by_state() {
    let (j, stderr) = leases_json(&[&fixture("handwritten.leases")]);
    // One lease per state (.10's second block, expired, replaces its first; .15's old
    // `abandoned;` flag is the state).
    let pool = &j["pools"][0];
    assert_eq!(j["pools"].as_array().unwrap().len(), 1);
    assert_eq!(pool["name"], "198.51.100.0/24");
    assert_eq!(pool["range"], "198.51.100.10-198.51.100.16");
    assert_eq!(pool["range_configured"], false);
    assert_eq!(
        counts(pool),
        map(&[
            ("abandoned", 1),
            ("active", 1),
            ("backup", 1),
            ("expired", 1),
            ("free", 1),
            ("released", 1),
            ("reset", 1)
        ])
    );
    assert_eq!(
        (j["lease_blocks"].as_u64(), j["addresses"].as_u64()),
        (Some(8), Some(7))
    );
    assert_eq!(j["errors"], serde_json::json!([]));
    // Free 1, backup 1: lts 0, and 2 x 15 % = 0.3 rounds to a misbalance level of 0.
    assert_eq!(pool["lts"], 0);
    assert_eq!(pool["levels"]["thresh"], 0);
    assert_eq!(pool["levels"]["panic"], -1);
    assert_eq!(pool["balanced"], true);
    // pair-a's block has an mclt (the secondary's), pair-b's none (the primary's): the file
    // does not tell, so the default applies and the user is told.
    assert_eq!(
        (j["role"].as_str(), j["role_from"].as_str()),
        (Some("primary"), Some("default"))
    );
    assert!(stderr.contains("disagree"), "{stderr}");
    // pair-b is in recover: no balancing.
    assert_eq!(j["balancing"], false);
    assert_eq!(j["peers"][1]["my"]["state"], "recover");
    assert_eq!(j["peers"][0]["mclt"], 3600);
    // The latest past time: pair-a's partner state `at epoch 1709294410` (every lease starts
    // earlier, the last at 11:58:20).
    assert_eq!(j["now"], NOON + 10);

    let (j, _) = leases_json(&[&fixture("handwritten.leases"), "--role", "secondary"]);
    assert_eq!(
        (j["role"].as_str(), j["role_from"].as_str()),
        (Some("secondary"), Some("option"))
    );
}

const LAB: &str = "lab=198.51.100.32-198.51.100.47";

#[test]
fn the_balance_fixture_isc_code() {
    let now = NOON.to_string();
    let (j, _) = leases_json(&[
        &fixture("balance.leases"),
        "--failover-pool",
        LAB,
        "--hba",
        "split:128",
        "--now",
        &now,
    ]);
    assert_eq!(j["role_from"], "default");
    assert_eq!(j["balancing"], true, "no failover state: taken as normal");
    assert_eq!(j["outside"], 1, ".10 lies outside the pool");
    let p = &j["pools"][0];
    assert_eq!(
        (p["name"].as_str(), p["range_configured"].as_bool()),
        (Some("lab"), Some(true))
    );
    assert_eq!(counts(p), map(&[("backup", 2), ("free", 14)]));
    // lts (14 - 2) / 2 = 6; 16 free-state leases: misbalance 2.4 -> 2, ownership 1.6 -> 2,
    // panic below -4.
    assert_eq!(p["lts"], 6);
    assert_eq!(
        (
            &p["levels"]["thresh"],
            &p["levels"]["hold"],
            &p["levels"]["panic"]
        ),
        (&Value::from(2), &Value::from(2), &Value::from(-4))
    );
    assert_eq!(
        p["balanced"], false,
        "lts 6 is above the misbalance level 2"
    );
    // Pass 1 walks .32 (no client), .33 (A), .34 (C: give), .35 (B), .36 (G: give), .37-.39,
    // .40 (I: give), .41-.45: lts 3, the queue ended above -2. Pass 2 from the oldest: .32 was
    // never used and lts 3 > 0: give (lts 2); .33 was used and lts 2 <= +2: stop.
    assert_eq!(
        moves(p),
        [
            ("198.51.100.34".to_string(), 1),
            ("198.51.100.36".to_string(), 1),
            ("198.51.100.40".to_string(), 1),
            ("198.51.100.32".to_string(), 2)
        ]
    );
    assert_eq!(p["lts_after"], 2);
    assert_eq!(
        (p["due"].as_bool(), p["panic_due"].as_bool()),
        (Some(true), Some(false))
    );
    // Ages at noon: .32 never used; the oldest BACKUP lease (.46) ended at 11:59:00, 60 s ago.
    assert_eq!(
        p["oldest_free"],
        serde_json::json!({"ends": 0, "age": null})
    );
    assert_eq!(
        p["oldest_backup"],
        serde_json::json!({"ends": NOON - 60, "age": 60})
    );
    // Next run: the smaller of the two queue ages scaled by 15 %: 60 s -> 9 s (the never-used
    // FREE head counts as aged since the epoch), then 0-4 s of jitter.
    assert_eq!(
        p["next_check"],
        serde_json::json!({"earliest": NOON + 9, "latest": NOON + 13})
    );
}

#[test]
fn the_balance_fixture_isc_doc_and_without_a_bucket_map() {
    let (j, _) = leases_json(&[
        &fixture("balance.leases"),
        "--failover-pool",
        LAB,
        "--hba",
        "split:128",
        "--profile",
        "isc-doc",
    ]);
    let p = &j["pools"][0];
    // The man page takes the percentages as they are: 2.4 and 1.6, panic below -4.8.
    assert_eq!(p["levels"]["thresh"].as_f64(), Some(2.4));
    assert_eq!(p["levels"]["hold"].as_f64(), Some(1.6));
    assert_eq!(p["levels"]["panic"].as_f64(), Some(-4.8));
    assert_eq!(p["skipped"], false, "lts 6 is not below 2.4");
    // Pass 1 as before (lts 3); pass 2 while lts is not under 1.6: .32 (lts 2), .33 (lts 1).
    assert_eq!(
        moves(p),
        [
            ("198.51.100.34".to_string(), 1),
            ("198.51.100.36".to_string(), 1),
            ("198.51.100.40".to_string(), 1),
            ("198.51.100.32".to_string(), 2),
            ("198.51.100.33".to_string(), 2)
        ]
    );

    // Without a bucket map nothing goes by affinity: pass 2 alone, from the oldest, .32 (never
    // used, lts 6 -> 5), .33 (5 > 2), .34 (4 > 2), .35 (3 > 2), and .36 finds lts 2 = +hold.
    let (j, _) = leases_json(&[&fixture("balance.leases"), "--failover-pool", LAB]);
    let p = &j["pools"][0];
    assert_eq!(j["hba"], Value::Null);
    assert_eq!(
        moves(p),
        [32, 33, 34, 35]
            .map(|i| (format!("198.51.100.{i}"), 2))
            .to_vec()
    );
}

#[test]
fn the_balance_fixture_as_the_secondary_panics() {
    let (j, _) = leases_json(&[
        &fixture("balance.leases"),
        "--failover-pool",
        LAB,
        "--hba",
        "split:128",
        "--role",
        "secondary",
    ]);
    assert_eq!(
        (j["role"].as_str(), j["role_from"].as_str()),
        (Some("secondary"), Some("option"))
    );
    let p = &j["pools"][0];
    // lts (2 - 14) / 2 = -6, below the panic level -2 x 2 = -4: a POOLREQ; the secondary gives
    // nothing, being at or below -hold (-2) already.
    assert_eq!(p["lts"], -6);
    assert_eq!(
        (p["poolreq"].as_bool(), p["panic_due"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(moves(p), []);
    assert_eq!(p["due"], false);
    // The text says so too.
    let out = run(&[
        "leases",
        &fixture("balance.leases"),
        "--failover-pool",
        LAB,
        "--role",
        "secondary",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("lts -6 (secondary), thresh 2, hold 2, POOLREQ below -4"),
        "{text}"
    );
    assert!(text.contains("sends a POOLREQ"), "{text}");
}

#[test]
fn the_broken_file_errors_by_line_and_the_rest_counted() {
    let path = fixture("broken.leases");
    let out = run(&["leases", &path, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let at: Vec<(u64, u64)> = j["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["line"].as_u64().unwrap(), e["column"].as_u64().unwrap()))
        .collect();
    // One mistake per line the fixture's comment numbers, at the column its statement starts
    // (for the block and the string never closed: their '{' and '"').
    assert_eq!(
        at,
        [
            (4, 3),
            (8, 3),
            (11, 1),
            (15, 3),
            (16, 3),
            (18, 3),
            (19, 3),
            (22, 3),
            (23, 3),
            (25, 1),
            (26, 1),
            (27, 19),
            (29, 19)
        ]
    );
    // Each also on stderr as FILE:LINE:COLUMN, as compilers write it.
    let stderr = String::from_utf8_lossy(&out.stderr);
    for (l, c) in &at {
        assert!(
            stderr.contains(&format!("{path}:{l}:{c}: ")),
            "line {l} column {c}: {stderr}"
        );
    }
    // What is still read: .1 free (its bad start dropped), .2 without a state ("lost" is
    // none), .3 backup, .4 active; 203.0.113.300 is no address.
    let p = &j["pools"][0];
    assert_eq!(
        counts(p),
        map(&[("active", 1), ("backup", 1), ("free", 1), ("none", 1)])
    );
    assert_eq!(p["leases"], 4);
    // The text form lists them the same way.
    let out = run(&["leases", &path]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("13 errors"), "{text}");
    assert!(
        text.contains("by binding state: active 1, backup 1, free 1, none 1"),
        "{text}"
    );
}

#[test]
fn a_file_that_cannot_be_read_is_a_usage_error() {
    let missing = common::fixture("leases/no-such.leases");
    let out = run(&["leases", &missing.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
    let out = run(&["leases", &fixture("balance.leases"), "--hba", "split:999"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["leases", &fixture("balance.leases"), "--profile", "kea"]);
    assert_eq!(out.status.code(), Some(2));
}

// ---------------------------------------------------------------------------------------------
// The shared pair's real lease files, against awk and against the servers' own logs.

fn shared() -> Option<PathBuf> {
    Some(common::shared_dir()?.join("captures/dhcp-failover"))
}

/// Address -> binding state of its last block, by awk: independent of the reader.
fn awk_states(path: &Path) -> BTreeMap<String, String> {
    let out = Command::new("awk")
        .arg(
            r#"/^lease /{a=$2} /^  binding state /{s[a]=$3}
               END{for(a in s){sub(";","",s[a]); print a, s[a]}}"#,
        )
        .arg(path)
        .output()
        .expect("awk");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(a, s)| (a.to_string(), s.to_string()))
        .collect()
}

fn tally(states: &BTreeMap<String, String>) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for s in states.values() {
        *m.entry(s.clone()).or_default() += 1;
    }
    m
}

/// The last `balancing pool` line of a server's log: (time, total, free, backup, lts, max-own),
/// and the next line (ISC's verdict after the run) as (free, backup, max-misbal).
struct LastRun {
    time: f64,
    total: i64,
    free: i64,
    backup: i64,
    lts: i64,
    max_own: i64,
    after: (i64, i64, i64),
}

fn number_after(words: &[&str], key: &str) -> i64 {
    let i = words.iter().position(|w| *w == key).expect(key);
    words[i + 1].trim_start_matches("(+/-)").parse().expect(key)
}

fn last_run(log: &str) -> LastRun {
    let lines: Vec<&str> = log.lines().collect();
    let i = lines
        .iter()
        .rposition(|l| l.contains(" balancing pool "))
        .expect("a balancing line");
    let w: Vec<&str> = lines[i].split_whitespace().collect();
    let next: Vec<&str> = lines[i + 1].split_whitespace().collect();
    assert!(
        lines[i + 1].contains("balanced pool") || lines[i + 1].contains("IMBALANCED pool"),
        "{}",
        lines[i + 1]
    );
    LastRun {
        time: w[0].parse().unwrap(),
        total: number_after(&w, "total"),
        free: number_after(&w, "free"),
        backup: number_after(&w, "backup"),
        lts: number_after(&w, "lts"),
        max_own: number_after(&w, "max-own"),
        after: (
            number_after(&next, "free"),
            number_after(&next, "backup"),
            number_after(&next, "max-misbal"),
        ),
    }
}

/// The shared run's pool balance settings (primary.conf, secondary.conf).
const SHARED_PARAMS: [&str; 10] = [
    "--hba",
    "split:128",
    "--max-lease-misbalance",
    "15",
    "--max-lease-ownership",
    "10",
    "--min-balance",
    "5",
    "--max-balance",
    "30",
];

/// NOTES.md section 3 with ISC's integer arithmetic: lts, thresh, hold, panic level.
fn by_hand(primary: bool, free: i64, backup: i64) -> (i64, i64, i64, i64) {
    // C's division truncates toward zero, as Rust's does.
    let lts = if primary {
        (free - backup) / 2
    } else {
        (backup - free) / 2
    };
    let total = free + backup;
    let thresh = (total * 15 + 50) / 100;
    let hold = (total * 10 + 50) / 100;
    let panic = if thresh == 0 { -1 } else { -2 * thresh };
    (lts, thresh, hold, panic)
}

#[test]
fn the_shared_secondarys_file_against_awk_and_its_log() {
    let Some(dir) = shared() else { return };
    let path = dir.join("secondary.dhcpd.leases");
    let mut args = vec![path.to_str().unwrap()];
    args.extend(SHARED_PARAMS);
    let (j, stderr) = leases_json(&args);
    assert!(stderr.is_empty(), "{stderr}");
    let p = &j["pools"][0];
    let awk = tally(&awk_states(&path));
    assert_eq!(counts(p), awk);
    assert_eq!(awk, map(&[("active", 1), ("backup", 36), ("free", 23)]));
    // The file's failover state has an mclt: the secondary's, as the README says.
    assert_eq!(
        (j["role"].as_str(), j["role_from"].as_str()),
        (Some("secondary"), Some("file"))
    );
    assert_eq!(j["peers"][0]["mclt"], 60);
    assert_eq!(j["peers"][0]["my"]["state"], "communications-interrupted");
    assert_eq!(j["balancing"], false);

    // The secondary's last balancing line (04:34:41) has the file's very counts: after it the
    // server went to communications-interrupted and served nothing more (its log's last lines).
    let log = std::fs::read_to_string(dir.join("secondary.log")).unwrap();
    let run = last_run(&log);
    assert_eq!((run.total, run.free, run.backup), (60, 23, 36));
    assert!(!log
        .lines()
        .filter(|l| l
            .split_whitespace()
            .next()
            .and_then(|t| t.parse::<f64>().ok())
            > Some(run.time))
        .any(|l| l.contains("DHCPACK") || l.contains("DHCPRELEASE")));
    // The levels by hand: lts (36 - 23) / 2 = 6, thresh (59 x 15 + 50) / 100 = 9, hold
    // (59 x 10 + 50) / 100 = 6, panic -18; the log printed the same lts, max-own and max-misbal.
    let (lts, thresh, hold, panic) = by_hand(false, 23, 36);
    assert_eq!((lts, thresh, hold, panic), (6, 9, 6, -18));
    assert_eq!((run.lts, run.max_own, run.after.2), (lts, hold, thresh));
    assert_eq!(p["lts"], lts);
    assert_eq!(p["levels"]["thresh"], thresh);
    assert_eq!(p["levels"]["hold"], hold);
    assert_eq!(p["levels"]["panic"], panic);
    // That run moved nothing (its verdict line still says free 23 backup 36); from the same
    // state the reference moves nothing either: no BACKUP lease's client hashes to the primary
    // under split 128, and pass 2 stops at the first used lease with lts 6 = +hold. lts 6 is
    // within the misbalance level 9 and far from the panic level.
    assert_eq!(run.after, (23, 36, 9));
    assert_eq!(moves(p), []);
    assert_eq!(p["balanced"], true);
    assert_eq!(p["poolreq"], false);
    assert_eq!(
        (p["due"].as_bool(), p["panic_due"].as_bool()),
        (Some(false), Some(false))
    );

    // The man page would skip the run outright: lts 6 < 59 x 15 % = 8.85.
    args.extend(["--profile", "isc-doc"]);
    let (j, _) = leases_json(&args);
    let p = &j["pools"][0];
    assert_eq!(p["levels"]["thresh"].as_f64(), Some(8.85));
    assert_eq!(p["skipped"], true);
}

#[test]
fn the_shared_primarys_file_against_awk_and_its_log() {
    let Some(dir) = shared() else { return };
    let path = dir.join("primary.dhcpd.leases");
    let mut args = vec![path.to_str().unwrap()];
    args.extend(SHARED_PARAMS);
    let (j, _) = leases_json(&args);
    let p = &j["pools"][0];
    let states = awk_states(&path);
    assert_eq!(counts(p), tally(&states));
    assert_eq!(
        tally(&states),
        map(&[("active", 3), ("backup", 36), ("expired", 1), ("free", 20)])
    );
    assert_eq!(
        (j["role"].as_str(), j["role_from"].as_str()),
        (Some("primary"), Some("file"))
    );
    assert_eq!(j["peers"][0]["mclt"], Value::Null);

    // The primary's last balancing line (04:34:42) says free 23 backup 36, so one lease was
    // neither. The primary went on alone (communications-interrupted, then clients-F): every
    // lease the log ACKs after that line and does not see released again is ACTIVE in the file,
    // and those are exactly the FREE leases the file lacks; BACKUP leases were not touched (the
    // primary cannot allocate them).
    let log = std::fs::read_to_string(dir.join("primary.log")).unwrap();
    let run = last_run(&log);
    assert_eq!((run.total, run.free, run.backup), (60, 23, 36));
    let mut last_event: BTreeMap<String, &str> = BTreeMap::new();
    for l in log.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.first().and_then(|t| t.parse::<f64>().ok()) <= Some(run.time) {
            continue;
        }
        match (w.get(1), w.get(2), w.get(3)) {
            (Some(&"DHCPACK"), Some(&"on"), Some(a)) => {
                last_event.insert(a.to_string(), "ack");
            }
            (Some(&"DHCPRELEASE"), Some(&"of"), Some(a)) => {
                last_event.insert(a.to_string(), "release");
            }
            _ => {}
        }
    }
    let still_bound: BTreeSet<&String> = last_event
        .iter()
        .filter(|(_, e)| **e == "ack")
        .map(|(a, _)| a)
        .collect();
    let active: BTreeSet<&String> = states
        .iter()
        .filter(|(_, s)| *s == "active")
        .map(|(a, _)| a)
        .collect();
    assert_eq!(still_bound, active);
    let file_free = counts(p)["free"] as i64;
    assert_eq!(file_free + still_bound.len() as i64, run.free);
    assert_eq!(counts(p)["backup"] as i64, run.backup);
    // The one lease neither FREE nor BACKUP at the line is the file's EXPIRED lease: the log
    // does not touch it after the line, and it ran out after the line, in the file's lifetime.
    let (expired, _) = states.iter().find(|(_, s)| *s == "expired").unwrap();
    assert_eq!(run.total - run.free - run.backup, 1);
    assert!(!last_event.contains_key(expired));
    let file = leases::read_path(&path).unwrap();
    let ends = file
        .leases
        .iter()
        .find(|e| e.address.map(|a| a.to_string()).as_ref() == Some(expired))
        .and_then(|e| e.ends)
        .and_then(LeaseTime::epoch)
        .unwrap();
    assert!(ends as f64 > run.time && ends <= j["now"].as_i64().unwrap());

    // The verdict by hand at the file's state: lts (20 - 36) / 2 = -8, thresh (56 x 15 + 50) /
    // 100 = 8, hold 6, panic -16. lts is already at or below -hold: pass 1 gives nothing and
    // pass 2 never starts; -8 is not below -16: no POOLREQ.
    let (lts, thresh, hold, panic) = by_hand(true, 20, 36);
    assert_eq!((lts, thresh, hold, panic), (-8, 8, 6, -16));
    assert_eq!(p["lts"], lts);
    assert_eq!(p["levels"]["thresh"], thresh);
    assert_eq!(p["levels"]["hold"], hold);
    assert_eq!(p["levels"]["panic"], panic);
    assert_eq!(moves(p), []);
    assert_eq!(p["poolreq"], false);
    assert_eq!(p["balanced"], true, "|lts| 8 is not above thresh 8");
    // At the log line's own counts the levels are the log's: max-own 6, max-misbal 9, lts -6;
    // the run then moved nothing.
    let (lts, thresh, hold, _) = by_hand(true, run.free, run.backup);
    assert_eq!((lts, hold, thresh), (run.lts, run.max_own, run.after.2));
    assert_eq!(run.after, (23, 36, 9));

    // The text: the state in the file is the primary's own ("my state") towards its peer, not
    // the peer's (the peer's is "partner state normal"); so no run starts, whatever is planned.
    let out = self::run(&[&["leases"], &args[..]].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("this server is in communications-interrupted with peer \"iscfo\""),
        "{text}"
    );
    assert!(
        text.contains("sends no POOLREQ; no run starts while this server is not in normal"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------------
// check --leases.

#[test]
fn the_shared_files_do_not_seed_the_shared_capture() {
    let Some(dir) = shared() else { return };
    let cap = dir.join("isc-dhcpd-4.4.3-failover.pcap");
    let p = dir.join("primary.dhcpd.leases");
    let s = dir.join("secondary.dhcpd.leases");
    let out = common::poolshark()
        .arg("check")
        .arg(&cap)
        .args(["--format", "json", "--fail-on", "error"])
        .arg("--leases")
        .arg(&p)
        .arg("--leases")
        .arg(format!("secondary={}", s.display()))
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let seeds = j["failover"]["lease_seeds"].as_array().unwrap();
    assert_eq!(seeds.len(), 2);
    // Both were saved at the end (the README), and show times long after the first message.
    for (seed, role) in seeds.iter().zip(["primary", "secondary"]) {
        assert_eq!(seed["role"], role);
        assert_eq!(seed["used"], false);
        let late = seed["latest_time"].as_f64().unwrap() - seed["capture_start"].as_f64().unwrap();
        assert!(late > 700.0, "{seed}");
    }
}

/// 5 2027/01/15 08:00:00 UTC: the seed fixture's capture starts here.
const T0: i64 = 1_800_000_000;

/// A failover conversation written frame by frame, a tenth of a second apart.
struct Conversation {
    w: PcapWriter<std::fs::File>,
    flow: TcpFlow,
    tick: i64,
    frames: u64,
    xid: u32,
}

impl Conversation {
    fn new(path: &Path) -> Conversation {
        let f = std::fs::File::create(path).unwrap();
        let mut c = Conversation {
            w: PcapWriter::new(f, 1, TsResolution::Micro).unwrap(),
            flow: TcpFlow::new(
                SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), 41_000),
                SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)), 647),
                [1000, 5000],
            ),
            tick: 0,
            frames: 0,
            xid: 0,
        };
        let mut hs = Vec::new();
        c.flow.handshake(&mut |f| hs.push(f.to_vec()));
        for f in hs {
            c.frame(&f);
        }
        c
    }

    fn secs(&self) -> u32 {
        (T0 + self.tick / 10) as u32
    }

    fn frame(&mut self, f: &[u8]) -> u64 {
        let ts = Timestamp::new(T0 + self.tick / 10, (self.tick % 10) as u32 * 100_000_000);
        self.w.write(ts, f).unwrap();
        self.tick += 1;
        self.frames += 1;
        self.frames
    }

    /// Sends `m`; returns its first frame.
    fn send(&mut self, from_primary: bool, t: MessageType, opts: Vec<FoOption>) -> u64 {
        self.xid += 1;
        let bytes = Message::new(t, self.secs(), self.xid, opts).emit().unwrap();
        let mut frames = Vec::new();
        self.flow
            .send(from_primary, &bytes, &mut |f| frames.push(f.to_vec()));
        let first = self.frames + 1;
        for f in frames {
            self.frame(&f);
        }
        first
    }

    /// CONNECT with `split 128`, CONNECTACK, both servers NORMAL; then 10 s pass.
    fn start(&mut self) {
        let hba = Hba::split(128).unwrap();
        self.send(
            true,
            MessageType::Connect,
            vec![
                FoOption::Mclt(60),
                FoOption::HashBucketAssignment(hba.bytes().to_vec()),
            ],
        );
        self.send(false, MessageType::ConnectAck, vec![]);
        for from_primary in [false, true] {
            let since = self.secs();
            self.send(
                from_primary,
                MessageType::State,
                vec![
                    FoOption::ServerState(ServerState::Normal),
                    FoOption::StartTimeOfState(since),
                ],
            );
        }
        self.tick += 100;
    }

    /// The primary gives lease `last` (client identifier `uid`) to the secondary, in a run
    /// started at `stos`; the secondary acknowledges. Returns the BNDUPD's frame.
    fn give(&mut self, last: u8, uid: &[u8], stos: u32) -> u64 {
        let addr = Ipv4Addr::new(10, 0, 0, last);
        let frame = self.send(
            true,
            MessageType::BndUpd,
            vec![
                FoOption::AssignedIpAddress(addr),
                FoOption::BindingStatus(BindingStatus::Backup),
                FoOption::ClientIdentifier(uid.to_vec()),
                FoOption::ClientHardwareAddress {
                    htype: 1,
                    address: vec![2, 0, 0, 0, 1, last - 100],
                },
                FoOption::LeaseExpirationTime(stos),
                FoOption::StartTimeOfState(stos),
            ],
        );
        self.send(
            false,
            MessageType::BndAck,
            vec![FoOption::AssignedIpAddress(addr)],
        );
        frame
    }

    fn finish(mut self) {
        self.w.flush().unwrap();
    }
}

fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn check(cap: &Path, extra: &[&str]) -> Value {
    let out = common::poolshark()
        .arg("check")
        .arg(cap)
        .args(["--format", "json", "--fail-on", "error"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn failover_findings(j: &Value) -> Vec<(u64, String)> {
    j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["rule"]
                .as_str()
                .is_some_and(|r| r.starts_with("failover."))
        })
        .map(|f| {
            (
                f["frame"].as_u64().unwrap(),
                f["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_seed_from_before_the_capture_lets_the_replay_judge_its_first_run() {
    // The primary's run as the seed fixture works it out: .101 and .103, by affinity.
    let cap = tmp("leases-seed-run.pcap");
    let mut c = Conversation::new(&cap);
    c.start();
    let stos = c.secs();
    c.give(101, b"C", stos);
    c.give(103, b"G", stos);
    c.finish();
    let seed = fixture("seed-primary.leases");

    let j = check(&cap, &["--leases", &seed]);
    let s = &j["failover"]["lease_seeds"][0];
    assert_eq!(
        (s["used"].as_bool(), s["leases"].as_u64()),
        (Some(true), Some(10))
    );
    assert_eq!(s["role"], "primary", "told by the file: no mclt");
    let pool = &j["failover"]["pools"][0];
    assert_eq!(pool["pool"], "10.0.0.0/24");
    assert_eq!(pool["runs"], serde_json::json!([1, 0]));
    assert_eq!(pool["moved"], serde_json::json!([2, 0]));
    assert_eq!(pool["runs_matching"], serde_json::json!([1, 0]));
    // The state after: .101 and .103 went to BACKUP.
    assert_eq!(
        (pool["free"].as_u64(), pool["backup"].as_u64()),
        (Some(6), Some(4))
    );
    assert_eq!(failover_findings(&j), []);

    // Without the seed the replay does not know the leases were FREE: no run is seen.
    let j = check(&cap, &[]);
    let pool = &j["failover"]["pools"][0];
    assert_eq!(pool["runs"], serde_json::json!([0, 0]));
    assert_eq!(pool["backup"], 2);
}

#[test]
fn a_seed_shows_a_run_against_affinity() {
    // The primary gives .100 first, whose client "A" hashes to the primary itself, while .101
    // ("C", the secondary's) stays: failover.affinity at that BNDUPD, seen only with the seed.
    let cap = tmp("leases-seed-affinity.pcap");
    let mut c = Conversation::new(&cap);
    c.start();
    let stos = c.secs();
    let wrong = c.give(100, b"A", stos);
    c.give(101, b"C", stos);
    c.finish();
    let seed = fixture("seed-primary.leases");

    let j = check(&cap, &["--leases", &format!("primary={seed}")]);
    assert_eq!(
        failover_findings(&j),
        [(wrong, "failover.affinity".to_string())]
    );
    let f = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "failover.affinity")
        .unwrap();
    assert_eq!(f["observed"]["gave"], "10.0.0.100");
    assert_eq!(f["observed"]["bucket"], 40);
    assert_eq!(f["expected"]["give"], "10.0.0.101");
    // Two leases moved, as many as the reference: the count alone raises nothing.
    assert_eq!(
        j["failover"]["pools"][0]["runs_matching"],
        serde_json::json!([1, 0])
    );

    assert_eq!(failover_findings(&check(&cap, &[])), []);
}

#[test]
fn a_seed_written_after_the_capture_started_is_not_used() {
    let cap = tmp("leases-seed-late.pcap");
    let mut c = Conversation::new(&cap);
    c.start();
    let stos = c.secs();
    c.give(101, b"C", stos);
    c.finish();
    // The fixture with one more lease, which started 100 s into the capture.
    let text = std::fs::read_to_string(common::fixture("leases/seed-primary.leases")).unwrap();
    let late = tmp("leases-seed-late.leases");
    std::fs::write(
        &late,
        format!(
            "{text}lease 10.0.0.110 {{\n  starts epoch {};\n  binding state free;\n}}\n",
            T0 + 100
        ),
    )
    .unwrap();
    let j = check(&cap, &["--leases", late.to_str().unwrap()]);
    let s = &j["failover"]["lease_seeds"][0];
    assert_eq!(s["used"], false);
    assert_eq!(s["latest_time"], T0 + 100);
    // The first message is the CONNECT, in the capture's first second.
    assert_eq!(s["capture_start"].as_f64().map(f64::floor), Some(T0 as f64));
    // Nothing was loaded: the run goes unseen, as without a seed.
    assert_eq!(j["failover"]["pools"][0]["runs"], serde_json::json!([0, 0]));
    // The text report says why.
    let out = common::poolshark()
        .arg("check")
        .arg(&cap)
        .args(["--leases", late.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("not used: it shows time 1800000100"),
        "{text}"
    );
}

#[test]
fn two_seeds_for_one_server_are_refused() {
    let cap = tmp("leases-seed-two.pcap");
    let mut c = Conversation::new(&cap);
    c.start();
    c.finish();
    let seed = fixture("seed-primary.leases");
    let out = run(&[
        "check",
        cap.to_str().unwrap(),
        "--leases",
        &seed,
        "--leases",
        &format!("secondary={seed}"),
    ]);
    // The second names the secondary, but the file says primary: two primaries.
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("taken as the primary's"), "{stderr}");
    assert!(stderr.contains("two files for the primary"), "{stderr}");
    let out = run(&[
        "check",
        cap.to_str().unwrap(),
        "--leases",
        "primary=/no/such/file",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

// ---------------------------------------------------------------------------------------------
// One verdict, one meaning: the JSON and the text agree on what is due now (issue 43, item 4).

#[test]
fn json_and_text_agree_on_whether_a_poolreq_is_due_in_every_state() {
    let base = std::fs::read_to_string(common::fixture("leases/balance.leases")).unwrap();
    // The fixture's pool as the secondary sees it is short of leases (lts -6, below -4): a
    // run in normal sends a POOLREQ. The state block says which server wrote the file (mclt:
    // the secondary) and whether it balances.
    let states: &[(&str, &str, bool)] = &[
        ("none", "", true),
        (
            "secondary-normal",
            "failover peer \"p\" state {\n  my state normal at epoch 1709290000;\n  mclt 3600;\n}\n",
            true,
        ),
        (
            "secondary-interrupted",
            "failover peer \"p\" state {\n  my state communications-interrupted at epoch 1709290000;\n  mclt 3600;\n}\n",
            true,
        ),
        (
            "secondary-recover",
            "failover peer \"p\" state {\n  my state recover at epoch 1709290000;\n  mclt 3600;\n}\n",
            true,
        ),
        (
            "primary-normal",
            "failover peer \"p\" state {\n  my state normal at epoch 1709290000;\n}\n",
            false,
        ),
    ];
    let mut seen = BTreeSet::new();
    for (name, block, short) in states {
        let path = tmp(&format!("poolreq-{name}.leases"));
        std::fs::write(&path, format!("{block}{base}")).unwrap();
        let mut args = vec![
            path.to_str().unwrap().to_string(),
            "--failover-pool".into(),
            LAB.into(),
            "--now".into(),
            NOON.to_string(),
        ];
        if *name == "none" {
            args.extend(["--role".to_string(), "secondary".to_string()]);
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (j, _) = leases_json(&refs);
        let p = &j["pools"][0];
        let balancing = j["balancing"].as_bool().unwrap();
        // What a run would do in normal does not depend on the state.
        assert_eq!(p["poolreq_in_normal"], *short, "{name}");
        // Due now: only while balancing, and then exactly the plan; panic_due says the same.
        let due = p["poolreq"].as_bool().unwrap();
        assert_eq!(due, *short && balancing, "{name}");
        assert_eq!(p["panic_due"], p["poolreq"], "{name}");
        let out = run(&[&["leases"], &refs[..]].concat());
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with("due now:"))
            .unwrap_or_else(|| panic!("{name}: {text}"));
        assert!(
            line.ends_with(if due { "POOLREQ yes" } else { "POOLREQ no" }),
            "{name}: {line}"
        );
        let moves = p["due"].as_bool().unwrap();
        assert!(
            line.contains(if moves {
                "lease moves yes"
            } else {
                "lease moves no"
            }),
            "{name}: {line}"
        );
        seen.insert((balancing, due));
    }
    // Both verdicts met in both kinds of state.
    assert!(
        seen.contains(&(true, true)) && seen.contains(&(false, false)),
        "{seen:?}"
    );
}

#[test]
fn a_file_that_is_no_lease_file_is_refused_with_what_it_is() {
    let dir = tmp("not-leases");
    std::fs::create_dir_all(&dir).unwrap();
    let conf = dir.join("dhcpd.conf");
    std::fs::write(
        &conf,
        "subnet 10.0.0.0 netmask 255.255.255.0 {\n  range 10.0.0.1 10.0.0.9;\n}\n",
    )
    .unwrap();
    let json = dir.join("report.json");
    std::fs::write(&json, "{\"findings\": []}\n").unwrap();
    let kea = dir.join("kea-dhcp4.conf");
    std::fs::write(&kea, "// Kea\n{ \"Dhcp4\": { } }\n").unwrap();
    let binary = dir.join("blob");
    std::fs::write(&binary, [0u8, 1, 2, 0xff, 0xfe, 0, 9]).unwrap();
    let capture = common::fixture("demo.pcap");
    for (path, says) in [
        (&capture, "is not a lease file: it is a pcap capture"),
        (&json, "is not a lease file: it is JSON"),
        (
            &kea,
            "is not a lease file: it is a Kea configuration (JSON): give it as --config",
        ),
        (&binary, "is not a lease file: it is binary data"),
        (
            &conf,
            "is not a lease file: none of its statements declares a lease",
        ),
    ] {
        let out = run(&["leases", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{}", path.display());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{}: {stderr}", path.display());
        assert!(out.stdout.is_empty());
    }
    // A lease file with errors is still read, its errors listed by line (see the broken
    // fixture's test), and so is an empty one.
    let empty = dir.join("empty.leases");
    std::fs::write(&empty, "").unwrap();
    assert_eq!(
        run(&["leases", empty.to_str().unwrap()]).status.code(),
        Some(0)
    );
}
