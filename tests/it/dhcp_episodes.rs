//! A DHCP pair's episodes (normal, peer-silent, takeover, recovery) and the one expected share,
//! against what the shared captures' READMEs say happened; tshark supplies the frames, times,
//! DUIDs and senders, and the RFC 3074 hash is computed here from the shared Pearson table (not
//! with poolshark's own).
//!
//! * dhcp-kea/ (README timeline): server2 stopped at 04:08:16.205, server1 declared partner-down
//!   at 04:08:23.775 and served server2's clients (its first such answer at 04:08:24.03), server2
//!   resynced and both balanced again from 04:08:50.39; in the load-balancing phases every answer
//!   came from the owner under Kea's rule (even bucket: server1).
//! * dhcp-failover/ (README and phases.log): the phases A-F, each with its failover states.

use crate::common;
use crate::dhcp_support::tshark_fields;

use std::collections::BTreeMap;
use std::path::Path;

const S1: &str = "00:03:00:01:02:00:00:00:01:01";
const S2: &str = "00:03:00:01:02:00:00:00:02:02";

/// 2026-11-30 UTC, 04:08:SS.sss as seconds since the epoch (the Kea README's timeline).
fn kea_time(s: f64) -> f64 {
    1_795_996_800.0 + (4 * 3600 + 8 * 60) as f64 + s
}

fn run(args: &[&str], file: &Path) -> std::process::Output {
    let out = common::poolshark()
        .args(args)
        .arg(file)
        .output()
        .expect("poolshark runs");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(args: &[&str], file: &Path) -> serde_json::Value {
    serde_json::from_slice(&run(args, file).stdout).expect("JSON")
}

/// The RFC 3074 Pearson hash with the table of the shared specs (pearson-table.txt).
struct Pearson([u8; 256]);

impl Pearson {
    fn load() -> Option<Pearson> {
        let text = std::fs::read_to_string(common::shared_dir()?.join("specs/pearson-table.txt"))
            .expect("pearson-table.txt");
        let values: Vec<u8> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .filter_map(|l| l.split_once(':'))
            .flat_map(|(_, rest)| {
                rest.split_whitespace()
                    .map(|v| v.parse::<u8>().expect("a byte"))
            })
            .collect();
        Some(Pearson(values.try_into().expect("256 entries")))
    }

    /// State starts at the key's length mod 256; the key is read from its last byte to its first.
    fn bucket(&self, key: &[u8]) -> u8 {
        key.iter()
            .rev()
            .fold(key.len() as u8, |h, b| self.0[usize::from(h ^ b)])
    }
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// A client transmission of the Kea capture that some server answered, as tshark shows it.
#[derive(Debug)]
struct Answered {
    frame: u64,
    time: f64,
    client: Vec<u8>,
    /// The server whose answer came first, and the frame and time of that answer.
    server: String,
    answer_frame: u64,
    answer_time: f64,
}

/// The balanced transmissions (SOLICIT answered by ADVERTISE, REQUEST by REPLY; Kea does not
/// balance INFORMATION-REQUEST) that were answered: each answer goes to the latest request of
/// its xid, as a client's retry replaces its earlier transmission.
fn kea_answered(file: &Path) -> Vec<Answered> {
    let rows = tshark_fields(
        file,
        "dhcpv6",
        &[
            "frame.time_epoch",
            "dhcpv6.msgtype",
            "dhcpv6.xid",
            "dhcpv6.duid.bytes",
        ],
    );
    let mut latest: BTreeMap<String, (u64, f64, u8, Vec<u8>, bool)> = BTreeMap::new();
    let mut out = Vec::new();
    for (frame, v) in &rows {
        let time: f64 = v[0].parse().expect("time");
        let msgtype: u8 = v[1].parse().expect("msgtype");
        let xid = v[2].clone();
        // An answer carries the client's DUID then the server's.
        let duids: Vec<&str> = v[3].split('|').collect();
        match msgtype {
            1 | 3 => {
                latest.insert(xid, (*frame, time, msgtype, unhex(duids[0]), false));
            }
            2 | 7 => {
                let Some(req) = latest.get_mut(&xid) else {
                    continue;
                };
                let answers = if msgtype == 2 { 1 } else { 3 };
                if req.2 != answers || req.4 {
                    continue;
                }
                req.4 = true;
                let server: Vec<String> = unhex(duids.last().expect("server id"))
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                out.push(Answered {
                    frame: req.0,
                    time: req.1,
                    client: req.3.clone(),
                    server: server.join(":"),
                    answer_frame: *frame,
                    answer_time: time,
                });
            }
            _ => {}
        }
    }
    out
}

/// Kea's rule: the hash of the whole DUID, even buckets to server1 (README).
fn kea_owner(p: &Pearson, duid: &[u8]) -> &'static str {
    if p.bucket(duid) % 2 == 0 {
        S1
    } else {
        S2
    }
}

fn episodes_of<'a>(j: &'a serde_json::Value, pair: &str) -> Vec<&'a serde_json::Value> {
    j["episodes"]
        .as_array()
        .expect("episodes")
        .iter()
        .filter(|e| e["pair"] == pair)
        .collect()
}

/// The episode holding a request frame.
fn episode_at<'a>(eps: &[&'a serde_json::Value], frame: u64) -> Option<&'a serde_json::Value> {
    eps.iter().copied().find(|e| {
        e["start_frame"].as_u64().is_some_and(|a| a <= frame)
            && e["end_frame"].as_u64().is_some_and(|b| frame <= b)
    })
}

/// Episodes in time order, each starting where the one before ended (the frame after its last,
/// at its end time), covering the frames from `first` to `last`.
fn assert_contiguous(eps: &[&serde_json::Value], first: u64, last: u64) {
    assert!(!eps.is_empty());
    for w in eps.windows(2) {
        assert_eq!(
            w[0]["end_frame"].as_u64().map(|f| f + 1),
            w[1]["start_frame"].as_u64(),
            "{} then {}",
            w[0],
            w[1]
        );
        assert_eq!(
            w[0]["end_time"], w[1]["start_time"],
            "{} then {}",
            w[0], w[1]
        );
        assert!(w[0]["start_time"].as_f64() <= w[1]["start_time"].as_f64());
    }
    assert!(eps[0]["start_frame"].as_u64().is_some_and(|f| f <= first));
    assert!(eps[eps.len() - 1]["end_frame"]
        .as_u64()
        .is_some_and(|f| f >= last));
}

/// `04:08:24.028`: how the text reports write a capture time.
fn clock(epoch: f64) -> String {
    let ms = (epoch * 1000.0).floor() as i64;
    let day_ms = ms.rem_euclid(86_400_000);
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        day_ms / 3_600_000,
        day_ms / 60_000 % 60,
        day_ms / 1000 % 60,
        day_ms % 1000
    )
}

#[test]
fn kea_episodes_follow_the_readme_timeline() {
    let Some(file) = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap") else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let pearson = Pearson::load().expect("the shared specs");
    let j = json(&["check", "--format", "json"], &file);
    let pair = format!("{S1}+{S2}/dhcpv6");
    let eps = episodes_of(&j, &pair);
    let answered = kea_answered(&file);
    let last_answer = answered.iter().map(|a| a.answer_frame).max().unwrap_or(0);
    assert_contiguous(&eps, answered[0].frame, last_answer);
    let kinds: Vec<&str> = eps.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["normal", "peer-silent", "takeover", "recovery", "normal"],
        "{eps:#?}"
    );
    let servers: Vec<&serde_json::Value> = eps.iter().map(|e| &e["server"]).collect();
    assert_eq!(
        servers,
        [
            &serde_json::Value::Null,
            &S2.into(),
            &S1.into(),
            &S2.into(),
            &serde_json::Value::Null
        ]
    );
    let at = |i: usize, k: &str| eps[i][k].as_f64().unwrap();
    // server2 stopped at 04:08:16.205: the peer-silent episode starts within 2 s of it.
    assert!(
        (at(1, "start_time") - kea_time(16.2)).abs() <= 2.0,
        "{}",
        eps[1]
    );
    // The takeover starts with server1's first answer to a client of server2's (tshark and the
    // Pearson table say which), 04:08:24.03 by the README, and ends within 3 s of 04:08:50.
    let stopped = kea_time(16.205);
    let first = answered
        .iter()
        .filter(|a| a.time > stopped && a.server == S1)
        .find(|a| kea_owner(&pearson, &a.client) == S2)
        .expect("a takeover answer");
    assert!(
        (first.answer_time - kea_time(24.03)).abs() < 0.01,
        "{first:?}"
    );
    assert_eq!(eps[2]["start_frame"].as_u64(), Some(first.frame));
    assert!(first.answer_time - at(2, "start_time") < 0.1, "{}", eps[2]);
    assert!(
        (at(2, "end_time") - kea_time(50.0)).abs() <= 3.0,
        "{}",
        eps[2]
    );
    // In the normal episodes every answer came from the owner (README): the expected share is
    // the hash ownership of the clients answered there, and the share the same.
    let normal: Vec<&Answered> = answered
        .iter()
        .filter(|a| episode_at(&eps, a.frame).is_some_and(|e| e["kind"] == "normal"))
        .collect();
    assert!(normal.len() > 700, "{}", normal.len());
    let owned = |s: &str| {
        normal
            .iter()
            .filter(|a| kea_owner(&pearson, &a.client) == s)
            .count() as f64
            / normal.len() as f64
    };
    let by_kind = |server: &str, kind: &str| -> serde_json::Value {
        j["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["server"] == server)
            .and_then(|s| {
                s["by_episode"]
                    .as_array()?
                    .iter()
                    .find(|e| e["kind"] == kind)
                    .cloned()
            })
            .unwrap_or_else(|| panic!("{server} {kind}: {}", j["servers"]))
    };
    for s in [S1, S2] {
        let n = by_kind(s, "normal");
        let expected = n["expected_share"].as_f64().unwrap();
        assert!(
            (expected - owned(s)).abs() < 0.01,
            "{s}: {n} vs {}",
            owned(s)
        );
        assert!(
            (n["share"].as_f64().unwrap() - owned(s)).abs() < 0.01,
            "{n}"
        );
        let answers = normal.iter().filter(|a| a.server == s).count() as u64;
        assert_eq!(n["answers"].as_u64(), Some(answers), "{n}");
    }
    // The taker was expected to answer every balanced message of the takeover.
    assert_eq!(by_kind(S1, "takeover")["expected_share"], 1.0);
    assert_eq!(by_kind(S2, "takeover")["expected_share"], 0.0);
    // No "while balancing" for a silence inside a non-normal episode; each names its episode.
    let findings = j["findings"].as_array().unwrap();
    let mut seen = BTreeMap::<&str, usize>::new();
    for f in findings.iter().filter(|f| f["rule"] == "dhcp.lb.no-answer") {
        let frame = f["frame"].as_u64().unwrap();
        let kind = episode_at(&eps, frame).expect("in an episode")["kind"]
            .as_str()
            .unwrap();
        *seen.entry(kind).or_default() += 1;
        let m = f["message"].as_str().unwrap();
        let names = match kind {
            "peer-silent" => "had not taken over",
            "recovery" => "resync",
            "normal" => "while balancing",
            other => panic!("a no-answer in a {other} episode: {f}"),
        };
        assert!(m.contains(names), "{kind}: {m}");
        assert_eq!(kind == "normal", m.contains("while balancing"), "{m}");
        assert_eq!(f["expected"]["episode"], kind, "{f}");
    }
    // README: 33 SOLICITs of server2 left unanswered before partner-down (and the one REQUEST of
    // server1's that went unanswered then); the resync's.
    assert_eq!(seen.get("peer-silent"), Some(&34), "{seen:?}");
    assert_eq!(seen.get("recovery"), Some(&7), "{seen:?}");
    assert_eq!(seen.get("normal"), None, "{seen:?}");
    // The text lists the episodes with their times and frames, and the takeover finding says
    // when it ended; every finding gives its request's capture time.
    let text = String::from_utf8(run(&["check"], &file).stdout).unwrap();
    for e in &eps {
        let line = format!(
            "    {:<11} {} - {}  frames {:>6}-{:<6}",
            e["kind"].as_str().unwrap(),
            clock(e["start_time"].as_f64().unwrap()),
            clock(e["end_time"].as_f64().unwrap()),
            e["start_frame"].as_u64().unwrap(),
            e["end_frame"].as_u64().unwrap()
        );
        assert!(text.contains(&line), "{line:?} not in\n{text}");
    }
    let takeover = text
        .lines()
        .find(|l| l.contains("dhcp.lb.takeover"))
        .expect("the takeover finding");
    assert!(
        takeover.contains(&format!(
            "until {} (frame {})",
            clock(at(2, "end_time")),
            eps[2]["end_frame"]
        )),
        "{takeover}"
    );
    let times = tshark_fields(&file, "dhcpv6", &["frame.time_epoch"]);
    for f in findings.iter().filter(|f| f["rule"] == "dhcp.lb.no-answer") {
        let frame = f["frame"].as_u64().unwrap();
        let t: f64 = times[&frame][0].parse().unwrap();
        let m = f["message"].as_str().unwrap();
        assert!(m.contains(&format!("frame {frame} ({}", clock(t))), "{m}");
    }
}

/// The map is inferred from the normal episodes only: the buckets server1 answered only during
/// partner-down are not read as its own.
#[test]
fn kea_map_comes_from_normal_episodes_only() {
    let Some(file) = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap") else {
        return;
    };
    let j = json(&["check", "--format", "json"], &file);
    let majority = j["hba"]["dhcpv6"]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "majority")
        .expect("the majority candidate");
    assert_eq!(majority["spec"], "kea", "{majority}");
    assert_eq!(majority["primary"], S1);
    let text = String::from_utf8(run(&["check"], &file).stdout).unwrap();
    let line = text.lines().find(|l| l.contains("map candidates")).unwrap();
    assert!(!line.contains("except"), "{line}");
}

/// `check` and `stats` count the same answers and shares, and each `stats` window's expected
/// share is the one the episodes' references give its answers: recomputed here from tshark's
/// frames, check's episodes and the Pearson table.
#[test]
fn kea_check_and_stats_agree() {
    let Some(file) = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap") else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let pearson = Pearson::load().expect("the shared specs");
    let c = json(&["check", "--format", "json"], &file);
    let pair = format!("{S1}+{S2}/dhcpv6");
    let server = |s: &str| {
        c["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["server"] == s)
            .cloned()
            .unwrap()
    };
    // One window over the whole capture: the same answers and shares as check's.
    let st = json(&["stats", "--format", "json", "--interval", "1h"], &file);
    let series = st["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["server"] == pair.as_str())
        .expect("the pair's series");
    let windows = series["windows"].as_array().unwrap();
    assert_eq!(windows.len(), 1);
    for s in [S1, S2] {
        let m = &windows[0]["members"][s];
        let chk = server(s);
        assert_eq!(m["any"], chk["balanced_answers"], "{s}");
        for k in ["share", "expected_share"] {
            let (a, b) = (m[k].as_f64().unwrap(), chk[k].as_f64().unwrap());
            assert!((a - b).abs() < 0.0005, "{s} {k}: stats {a}, check {b}");
        }
        assert!(
            (series["expected_share"][s].as_f64().unwrap()
                - chk["expected_share"].as_f64().unwrap())
            .abs()
                < 0.0005
        );
    }
    assert_eq!(series["episodes"].as_array().map(Vec::len), Some(5));
    // Windows of 10 s: each one's expected share, from the reference of each answer's episode.
    let eps = episodes_of(&c, &pair);
    let answered = kea_answered(&file);
    let st = json(&["stats", "--format", "json", "--interval", "10s"], &file);
    let origin = st["start"].as_f64().unwrap();
    let series = st["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["server"] == pair.as_str())
        .unwrap();
    let mut compared = 0;
    for w in series["windows"].as_array().unwrap() {
        let (a, b) = (
            origin + w["start"].as_f64().unwrap(),
            origin + w["end"].as_f64().unwrap(),
        );
        let inside: Vec<&Answered> = answered
            .iter()
            .filter(|x| a <= x.time && x.time < b)
            .collect();
        if inside.is_empty() {
            continue;
        }
        let expected_s1 = inside
            .iter()
            .filter(|x| {
                let e = episode_at(&eps, x.frame).expect("in an episode");
                let partner = |s: &serde_json::Value| if s == S1 { S2 } else { S1 };
                let reference = match e["kind"].as_str().unwrap() {
                    "normal" => kea_owner(&pearson, &x.client),
                    "takeover" => e["server"].as_str().unwrap(),
                    _ => partner(&e["server"]),
                };
                reference == S1
            })
            .count() as f64
            / inside.len() as f64;
        assert_eq!(w["answers"].as_u64(), Some(inside.len() as u64), "{w}");
        let got = w["members"][S1]["expected_share"].as_f64().unwrap();
        assert!((got - expected_s1).abs() < 1e-9, "{w}: want {expected_s1}");
        compared += 1;
    }
    assert!(compared >= 12, "{compared} windows");
}

/// phases.log: `EPOCH what ...` per line, in the file's order.
fn phases(dir: &Path) -> Vec<(f64, String)> {
    std::fs::read_to_string(dir.join("phases.log"))
        .expect("phases.log")
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let t: f64 = it.next()?.parse().ok()?;
            Some((t, it.collect::<Vec<_>>().join(" ")))
        })
        .collect()
}

#[test]
fn isc_episodes_follow_the_phases() {
    let Some(file) = common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap") else {
        return;
    };
    let dir = file.parent().unwrap();
    let ph = phases(dir);
    // The first line of phases.log saying `name`, at or after the line saying `after`.
    let t_after = |after: &str, name: &str| {
        let from = ph
            .iter()
            .position(|(_, k)| k.starts_with(after))
            .unwrap_or_else(|| panic!("{after} in phases.log"));
        ph[from..]
            .iter()
            .find(|(_, k)| k.starts_with(name))
            .unwrap_or_else(|| panic!("{name} after {after} in phases.log"))
            .0
    };
    let t = |name: &str| t_after(name, name);
    let j = json(&["check", "--format", "json"], &file);
    let eps = episodes_of(&j, "192.0.2.1+192.0.2.2/dhcpv4");
    let first = eps[0]["start_frame"].as_u64().unwrap();
    let last = eps[eps.len() - 1]["end_frame"].as_u64().unwrap();
    assert_contiguous(&eps, first, last);
    let span = |e: &serde_json::Value| {
        (
            e["start_time"].as_f64().unwrap(),
            e["end_time"].as_f64().unwrap(),
        )
    };
    // The episodes overlapping [a, b].
    let within = |a: f64, b: f64| -> Vec<&serde_json::Value> {
        eps.iter()
            .copied()
            .filter(|e| {
                let (s, x) = span(e);
                s < b && x > a
            })
            .collect()
    };
    let kinds = |v: &[&serde_json::Value]| -> Vec<(String, String)> {
        v.iter()
            .map(|e| {
                (
                    e["kind"].as_str().unwrap().to_string(),
                    e["server"].as_str().unwrap_or("-").to_string(),
                )
            })
            .collect()
    };
    let has = |v: &[&serde_json::Value], kind: &str, server: &str| {
        kinds(v).contains(&(kind.to_string(), server.to_string()))
    };
    // A: both NORMAL throughout.
    let a = within(t("phaseA-normal begin"), t("phaseA-normal end"));
    assert!(a.iter().all(|e| e["kind"] == "normal"), "{:?}", kinds(&a));
    // B: the secondary killed, the primary alone (communications-interrupted) serving its
    // buckets too; no normal episode until the secondary is back (the first clients of the
    // phase come 2 s after the kill: until then nothing says it).
    let b = within(
        t_after("phaseB", "secondary-killed") + 5.0,
        t("phaseB-secondary-down end"),
    );
    assert!(has(&b, "takeover", "192.0.2.1"), "{:?}", kinds(&b));
    assert!(b.iter().all(|e| e["kind"] != "normal"), "{:?}", kinds(&b));
    // C: normal again, both serving.
    let c = within(t("both-normal-after-resync") + 5.0, t("phaseC-resync end"));
    assert!(c.iter().all(|e| e["kind"] == "normal"), "{:?}", kinds(&c));
    // D: the secondary recovers, the primary in partner-down serves everything, then normal.
    let d = within(t("phaseD-recover begin"), t("both-normal-after-recover"));
    assert!(has(&d, "takeover", "192.0.2.1"), "{:?}", kinds(&d));
    let after_d = within(
        t("both-normal-after-recover") + 5.0,
        t("phaseD-recover end"),
    );
    assert!(
        after_d.iter().all(|e| e["kind"] == "normal"),
        "{:?}",
        kinds(&after_d)
    );
    // E: cut apart, both communications-interrupted and each answering every client; the
    // secondary served the primary's buckets while the primary was silent; conflict
    // resolution (a resync) before both are normal.
    // (From when both servers noticed, and the first clients after it came.)
    let e = within(
        t_after("phaseE", "secondary-comms-interrupted") + 5.0,
        t("both-normal-after-conflict-resolution"),
    );
    assert!(e.iter().all(|x| x["kind"] != "normal"), "{:?}", kinds(&e));
    assert!(has(&e, "peer-silent", "-"), "{:?}", kinds(&e));
    assert!(has(&e, "takeover", "192.0.2.2"), "{:?}", kinds(&e));
    let resync = within(
        t("partition-off"),
        t("both-normal-after-conflict-resolution"),
    );
    assert!(
        resync.iter().any(|x| x["kind"] == "recovery"),
        "{:?}",
        kinds(&resync)
    );
    let after_e = within(
        t("both-normal-after-conflict-resolution") + 5.0,
        t("phaseE-partition end"),
    );
    assert!(
        after_e.iter().all(|x| x["kind"] == "normal"),
        "{:?}",
        kinds(&after_e)
    );
    // F: the secondary shut down; the primary serves its clients.
    let f = within(t("clients-F start"), t("capture-stop"));
    assert!(has(&f, "takeover", "192.0.2.1"), "{:?}", kinds(&f));
    // No "while balancing" for a silence outside a normal episode.
    for x in j["findings"].as_array().unwrap() {
        if x["rule"] != "dhcp.lb.no-answer" {
            continue;
        }
        let frame = x["frame"].as_u64().unwrap();
        let ep = episode_at(&eps, frame).expect("in an episode");
        assert_eq!(
            ep["kind"] == "normal",
            x["message"].as_str().unwrap().contains("while balancing"),
            "{x}"
        );
    }
}
