//! `poolshark check` over the shared DHCP captures, against what their READMEs say is true of
//! them; tshark supplies the frame times, types, secs and senders the assertions compare with.
//!
//! * dhcp/: single servers (README): no load-balancing pair, no finding, no error.
//! * dhcp-kea/: the Kea pair. In the load-balancing phases every answer came from the owner under
//!   `kea` and INFORMATION-REQUEST was answered by both: no wrong-server, double-answer,
//!   hba-conflict. Between server2's death and partner-down nobody answered server2's clients:
//!   33 SOLICITs, reported as no-answer (clients left unserved are what an operator must see);
//!   during partner-down server1 served server2's buckets: one takeover (info), no wrong-server.
//!   During the resync some requests went unanswered: no-answer there too. No other no-answer.
//! * dhcp-failover/: the ISC pair. With both NORMAL every DISCOVER with secs <= 3 was answered
//!   only by its owner (or by nobody, twice): no wrong-server or double-answer; secs >= 4 by
//!   both: a delayed-service info for each; INIT-REBOOT REQUESTs ACKed by both and SELECTING
//!   REQUESTs answered by the named server: no finding.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

fn check(file: &Path) -> serde_json::Value {
    let out = common::poolshark()
        .arg("check")
        .arg(file)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let code = out.status.code();
    assert!(
        code == Some(0) || code == Some(1),
        "{}: exit {code:?}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// tshark fields per frame number.
fn tshark_fields(file: &Path, filter: &str, fields: &[&str]) -> BTreeMap<u64, Vec<String>> {
    let mut c = Command::new("tshark");
    c.arg("-r")
        .arg(file)
        .args(["-Y", filter, "-T", "fields", "-E", "separator=|"]);
    c.args(["-e", "frame.number"]);
    for f in fields {
        c.args(["-e", f]);
    }
    let out = c.output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut it = l.split('|');
            let n = it.next()?.parse().ok()?;
            Some((n, it.map(str::to_string).collect()))
        })
        .collect()
}

fn by_rule<'a>(j: &'a serde_json::Value, rule: &str) -> Vec<&'a serde_json::Value> {
    j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect()
}

#[test]
fn single_server_captures_have_no_pair_and_no_finding() {
    let Some(dir) = common::shared_dir() else {
        return;
    };
    let mut n = 0;
    for e in std::fs::read_dir(dir.join("captures/dhcp")).unwrap() {
        let p = e.unwrap().path();
        if !p.extension().is_some_and(|x| x == "pcap" || x == "pcapng") {
            continue;
        }
        let j = check(&p);
        assert!(
            j["findings"].as_array().unwrap().is_empty(),
            "{}: {}",
            p.display(),
            j["findings"]
        );
        assert!(
            j["dhcp_lb"]["pairs"]
                .as_array()
                .is_none_or(|a| a.is_empty()),
            "{}",
            p.display()
        );
        n += 1;
    }
    assert!(n >= 30, "{n} captures");
}

/// 2026-11-30 UTC, 04:08:SS.sss as seconds since the epoch.
fn kea_time(s: f64) -> f64 {
    1_795_996_800.0 + (4 * 3600 + 8 * 60) as f64 + s
}

#[test]
fn kea_pair() {
    let Some(file) = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap") else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let j = check(&file);
    let s1 = "00:03:00:01:02:00:00:00:01:01";
    let s2 = "00:03:00:01:02:00:00:00:02:02";
    let pair = &j["dhcp_lb"]["pairs"][0];
    assert_eq!(pair["profile"], "kea", "{pair}");
    assert_eq!(j["hba"]["dhcpv6"]["spec"], "kea");
    assert_eq!(j["hba"]["dhcpv6"]["primary"], s1);
    for rule in [
        "dhcp.lb.wrong-server",
        "dhcp.lb.double-answer",
        "dhcp.lb.hba-conflict",
        "dhcp.lb.stid-truncated",
        "dhcp.lb.delayed-service",
        "dhcp.lb.directed-ignored",
    ] {
        assert!(
            by_rule(&j, rule).is_empty(),
            "{rule}: {:?}",
            by_rule(&j, rule)
        );
    }
    // README timeline.
    let (stopped, partner_down) = (kea_time(16.205), kea_time(23.775));
    let (restarted, resumed) = (kea_time(46.225), kea_time(50.39));
    let frames = tshark_fields(&file, "dhcpv6", &["frame.time_epoch", "dhcpv6.msgtype"]);
    let time = |f: u64| -> f64 { frames[&f][0].parse().unwrap() };
    let msgtype = |f: u64| -> &str { &frames[&f][1] };
    let no_answer = by_rule(&j, "dhcp.lb.no-answer");
    let mut dead_solicits_s2 = 0;
    for f in &no_answer {
        let n = f["frame"].as_u64().unwrap();
        let t = time(n);
        let in_death = (stopped..partner_down).contains(&t);
        let in_resync = (restarted..resumed).contains(&t);
        assert!(
            in_death || in_resync,
            "no-answer outside the failure phases: {f}"
        );
        if in_death && f["server"] == s2 {
            assert_eq!(msgtype(n), "1", "{f}");
            dead_solicits_s2 += 1;
        }
    }
    assert_eq!(dead_solicits_s2, 33, "README: 33 SOLICITs unanswered");
    // Each finding carries the time of its frame.
    for f in j["findings"].as_array().unwrap() {
        let n = f["frame"].as_u64().unwrap();
        let at = f["time"].as_f64().unwrap();
        assert!((at - time(n)).abs() < 1e-6, "{f}: tshark says {}", time(n));
    }
    let takeover = by_rule(&j, "dhcp.lb.takeover");
    assert_eq!(takeover.len(), 1, "{takeover:?}");
    assert_eq!(takeover[0]["server"], s2);
    let t = time(takeover[0]["frame"].as_u64().unwrap());
    assert!((partner_down..restarted).contains(&t), "{t}");
}

/// The text report folds the 33 unanswered SOLICITs of server2's outage into their first
/// finding and a line counting the other 32; `--all-findings` lists each finding.
#[test]
fn a_profile_without_the_family_says_so_and_replays_nothing() {
    let Some(file) = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap") else {
        return;
    };
    // ISC DHCP balances only DHCPv4: asked to judge the Kea pair by it, check says why it
    // does not, rather than that the servers answered too little.
    let out = common::poolshark()
        .arg("check")
        .arg(&file)
        .args(["--profile", "isc", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["dhcp_lb"]["pairs"], serde_json::json!([]));
    assert_eq!(
        j["dhcp_lb"]["no_pair"],
        serde_json::json!([{
            "family": "dhcpv6",
            "why": "--profile isc does not balance dhcpv6 (the server it models balances only dhcpv4): these servers are not replayed; --profile kea or draft does"
        }])
    );
    assert_eq!(by_rule(&j, "dhcp.lb.no-answer").len(), 0);
}

#[test]
fn kea_outage_folds_in_the_text_report() {
    let Some(file) = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap") else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let j = check(&file);
    let s2 = "00:03:00:01:02:00:00:00:02:02";
    let frames = tshark_fields(&file, "dhcpv6", &["frame.time_epoch"]);
    let time = |f: u64| -> f64 { frames[&f][0].parse().unwrap() };
    let (stopped, partner_down) = (kea_time(16.205), kea_time(23.775));
    let dead: Vec<u64> = by_rule(&j, "dhcp.lb.no-answer")
        .iter()
        .filter(|f| f["server"] == s2)
        .map(|f| f["frame"].as_u64().unwrap())
        .filter(|&n| (stopped..partner_down).contains(&time(n)))
        .collect();
    assert_eq!(dead.len(), 33, "README: 33 SOLICITs unanswered");
    let text = |all: bool| -> String {
        let mut c = common::poolshark();
        c.arg("check").arg(&file);
        if all {
            c.arg("--all-findings");
        }
        String::from_utf8(c.output().unwrap().stdout).unwrap()
    };
    let folded = text(false);
    let lines: Vec<&str> = folded.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.starts_with(&format!("frame {:>6}  ", dead[0])))
        .expect("the outage's first finding is listed");
    let span = time(dead[32]) - time(dead[0]);
    assert_eq!(
        lines[first + 1].trim_start(),
        format!(
            "... and 32 more like it, the last in frame {}, {span:.1} s later (--all-findings lists each)",
            dead[32]
        ),
        "{folded}"
    );
    for n in &dead[1..] {
        assert!(
            !folded.contains(&format!("frame {n:>6}  ")),
            "frame {n} folded, yet listed:\n{folded}"
        );
    }
    // Every finding is either listed or counted in a fold.
    let listed = lines.iter().filter(|l| l.starts_with("frame ")).count();
    let counted: usize = lines
        .iter()
        .filter_map(|l| l.trim_start().strip_prefix("... and "))
        .filter_map(|l| l.split(' ').next()?.parse::<usize>().ok())
        .sum();
    let total = j["findings"].as_array().unwrap().len();
    assert_eq!(listed + counted, total, "{folded}");
    assert!(listed < total - 30, "{folded}");
    // --all-findings: a line per finding, in the JSON's order.
    let all = text(true);
    let all_frames: Vec<u64> = all
        .lines()
        .filter_map(|l| {
            l.strip_prefix("frame ")?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .collect();
    let json_frames: Vec<u64> = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["frame"].as_u64().unwrap())
        .collect();
    assert_eq!(all_frames, json_frames);
    assert!(!all.contains("more like it"), "{all}");
}

#[test]
fn isc_pair() {
    let Some(file) = common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap") else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let j = check(&file);
    let pair = &j["dhcp_lb"]["pairs"][0];
    assert_eq!(pair["profile"], "isc", "{pair}");
    assert_eq!(pair["threshold_seconds"], 3, "load balance max seconds 3");
    assert_eq!(j["hba"]["dhcpv4"]["spec"], "split:128");
    assert_eq!(j["hba"]["dhcpv4"]["primary"], "192.0.2.1");
    // The text names each candidate map by its kind: here each bucket's majority is the best
    // split itself, and without its kind it read as one candidate listed twice.
    let out = common::poolshark()
        .arg("check")
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("map candidates"))
        .expect("the map candidates line");
    for (kind, label) in [
        ("split", "best split "),
        ("majority", "each bucket's majority "),
    ] {
        let c = j["hba"]["dhcpv4"]["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["kind"] == kind)
            .unwrap_or_else(|| panic!("no {kind} candidate: {j}"));
        let want = format!(
            "{label}{} with {} primary explains {}",
            c["spec"].as_str().unwrap(),
            c["primary"].as_str().unwrap(),
            c["explains"]
        );
        assert!(line.contains(&want), "{want:?} not in {line}");
    }
    for rule in [
        "dhcp.lb.wrong-server",
        "dhcp.lb.double-answer",
        "dhcp.lb.hba-conflict",
        "dhcp.lb.directed-ignored",
    ] {
        assert!(
            by_rule(&j, rule).is_empty(),
            "{rule}: {:?}",
            by_rule(&j, rule)
        );
    }
    let dhcp = tshark_fields(
        &file,
        "dhcp",
        &["dhcp.option.dhcp", "dhcp.id", "dhcp.secs", "ip.src"],
    );
    // README phases with both servers NORMAL: A (frames 49-1896) and C (2252-3280).
    let normal = |f: u64| (49..=1896).contains(&f) || (2252..=3280).contains(&f);
    // Offers per (xid, DISCOVER frame): the servers that offered before the next DISCOVER.
    let mut both_offered: BTreeSet<u64> = BTreeSet::new();
    let mut offers_to: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    let mut latest: BTreeMap<String, u64> = BTreeMap::new();
    for (n, v) in &dhcp {
        match v[0].as_str() {
            "1" => {
                latest.insert(v[1].clone(), *n);
            }
            "2" => {
                if let Some(d) = latest.get(&v[1]) {
                    offers_to.entry(*d).or_default().insert(v[3].clone());
                }
            }
            _ => {}
        }
    }
    for (d, servers) in &offers_to {
        let secs: u32 = dhcp[d][2].parse().unwrap();
        if servers.len() == 2 && normal(*d) && secs >= 4 {
            both_offered.insert(*d);
        }
    }
    let delayed: BTreeSet<u64> = by_rule(&j, "dhcp.lb.delayed-service")
        .iter()
        .map(|f| f["observed"]["request_frame"].as_u64().unwrap())
        .collect();
    assert_eq!(delayed, both_offered);
    assert_eq!(delayed.len(), 10);
    // Every no-answer is a DISCOVER nobody offered to; twice in phase A (README).
    let no_answer = by_rule(&j, "dhcp.lb.no-answer");
    for f in &no_answer {
        let n = f["frame"].as_u64().unwrap();
        assert_eq!(dhcp[&n][0], "1", "{f}");
        assert!(!offers_to.contains_key(&n), "{f}");
    }
    let in_a = no_answer
        .iter()
        .filter(|f| (49..=1896).contains(&f["frame"].as_u64().unwrap()))
        .count();
    assert_eq!(in_a, 2);
    // Takeovers only where a server was down or cut off: phases B, D, E, F, never A or C.
    let takeover = by_rule(&j, "dhcp.lb.takeover");
    for f in &takeover {
        assert!(!normal(f["frame"].as_u64().unwrap()), "{f}");
    }
    for (lo, hi) in [(1897, 2251), (3281, 3674), (4249, 4347)] {
        assert!(
            takeover
                .iter()
                .any(|f| (lo..=hi).contains(&f["frame"].as_u64().unwrap())),
            "no takeover in frames {lo}-{hi}"
        );
    }
}
