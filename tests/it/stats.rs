//! `poolshark stats` end to end: message statistics against the counts the shared captures'
//! READMEs give, the failover pool's free/backup series, every registered member listed in the
//! pools' windows with the PEs counted at each window's start, end and most, a DHCP pair's
//! findings under its servers' entries, and the CSV layout the README documents.

use crate::common;

use std::collections::BTreeMap;

fn stats(args: &[&str]) -> std::process::Output {
    common::poolshark()
        .arg("stats")
        .args(args)
        .output()
        .expect("poolshark runs")
}

#[test]
fn failover_message_counts_are_the_readme_counts() {
    let Some(cap) = common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap") else {
        return;
    };
    let cap = cap.to_string_lossy().into_owned();
    let out = stats(&[
        "--format",
        "json",
        "--min-balance",
        "5",
        "--max-balance",
        "30",
        &cap,
    ]);
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let counts: BTreeMap<String, u64> = j["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["protocol"] == "dhcpfo")
        .map(|m| {
            (
                m["type"].as_str().unwrap_or("").to_string(),
                m["count"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let expected = common::isc_failover_messages();
    assert_eq!(counts, expected);
    let total: f64 = j["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["protocol"] == "dhcpfo")
        .map(|m| m["share"].as_f64().unwrap_or(0.0))
        .sum();
    assert!(
        (total - 1.0).abs() < 1e-9,
        "shares of a protocol add up to 1: {total}"
    );

    // Rates are over the span of the decoded messages, as tshark's statistics divide by the
    // capture's duration: here tshark's first and last DHCP or failover frame.
    if common::have_tshark() {
        let out = std::process::Command::new("tshark")
            .args(["-r", &cap, "-Y", "dhcp or dhcpfo", "-T", "fields", "-e"])
            .arg("frame.time_epoch")
            .output()
            .expect("tshark");
        let times: Vec<f64> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        let span = times.last().unwrap() - times.first().unwrap();
        assert!(span > 600.0, "13 minutes: {span}");
        for m in j["messages"].as_array().expect("messages") {
            let count = m["count"].as_f64().unwrap();
            let rate = m["rate"].as_f64().unwrap();
            assert!((rate - count / span).abs() < 1e-6 * rate.max(1.0), "{m}");
        }
    }

    let series = j["series"].as_array().expect("series");
    let pool = series
        .iter()
        .find(|s| s["failover_pool"] == "192.0.2.0/24")
        .expect("the failover pool's series");
    let windows = pool["windows"].as_array().expect("windows");
    assert!(windows.len() >= 10, "13 minutes in 60 s windows");
    for w in windows {
        let g = |k: &str| w["gauges"][k].as_f64().unwrap_or(0.0);
        // 60 addresses in the pool.
        assert!(g("free") + g("backup") + g("active") <= 60.0, "{w}");
    }
}

#[test]
fn csv_and_text_carry_the_same_rows() {
    let Some(cap) = common::shared_capture("rserpool/asap-enrp-coverage.pcap") else {
        return;
    };
    let cap = cap.to_string_lossy().into_owned();
    let csv = stats(&["--format", "csv", &cap]);
    assert!(csv.status.success());
    let csv = String::from_utf8(csv.stdout).expect("utf-8");
    let message_rows = csv.lines().filter(|l| l.starts_with("message,")).count();
    let text = stats(&[&cap]);
    let text = String::from_utf8(text.stdout).expect("utf-8");
    let text_rows = text
        .lines()
        .filter(|l| l.starts_with("asap ") || l.starts_with("enrp "))
        .count();
    assert_eq!(message_rows, text_rows);
    // The coverage capture holds every ASAP (14) and ENRP (10) type, and one unknown ENRP type.
    assert!(text_rows >= 24, "{text}");
    let bad = stats(&["--interval", "soon", &cap]);
    assert_eq!(bad.status.code(), Some(2));
}

fn json_of(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn series_named<'a>(j: &'a serde_json::Value, key: &str, name: &str) -> &'a serde_json::Value {
    j["series"]
        .as_array()
        .expect("series")
        .iter()
        .find(|s| s[key] == name)
        .unwrap_or_else(|| panic!("no series {key} {name}"))
}

fn windows(s: &serde_json::Value) -> &Vec<serde_json::Value> {
    s["windows"].as_array().expect("windows")
}

fn listed(w: &serde_json::Value) -> Vec<String> {
    w["members"]
        .as_object()
        .expect("members")
        .keys()
        .cloned()
        .collect()
}

/// PRIO-Pool's PE 0x00050004 (priority 5, under three of 20 and 10) is never chosen: it is still
/// listed in every window, with no answers and the reference's expectation of none; every
/// member registered during a window is listed in it, in JSON, text and CSV alike.
#[test]
fn every_registered_member_is_listed_in_its_windows_even_when_never_chosen() {
    let Some(cap) = common::shared_capture("rserpool/rsplib-multi-pe.pcap") else {
        return;
    };
    let cap = cap.to_string_lossy().into_owned();
    let j = json_of(&stats(&["--format", "json", "--interval", "10s", &cap]));
    let prio = series_named(&j, "pool", "PRIO-Pool");
    // The README's priorities 10/20/20/5, in registration order.
    let pes = ["0x00050001", "0x00050002", "0x00050003", "0x00050004"];
    let left = prio["members_left"].as_object().expect("members_left");
    for (pe, priority) in pes.iter().zip([10, 20, 20, 5]) {
        assert_eq!(
            left[*pe]["description"],
            format!("priority {priority}"),
            "{prio}"
        );
    }
    assert_eq!(left["0x00050004"]["expected_share"], 0.0);
    let ws = windows(prio);
    assert!(ws.len() >= 4, "{prio}");
    let mut answers = 0;
    for w in ws {
        // Registered from before the first answer to after the last: in every window.
        assert_eq!(listed(w), pes, "{w}");
        let starved = &w["members"]["0x00050004"];
        assert_eq!(starved["first"], 0, "{w}");
        assert_eq!(starved["any"], 0, "{w}");
        assert_eq!(
            starved["expected_first"], 0.0,
            "the policy predicts it: {w}"
        );
        assert_eq!(starved["expected_any"], 0.0, "{w}");
        answers += w["answers"].as_u64().expect("answers");
    }
    assert!(answers > 0);
    // 0x00050001 (priority 10) is in the 10-20 s window though it was never first there.
    let w10 = ws.iter().find(|w| w["start"] == 10.0).expect("[10s, 20s)");
    assert!(w10["answers"].as_u64() > Some(0), "{w10}");
    assert_eq!(w10["members"]["0x00050001"]["first"], 0);
    // PLU-Pool's [20s, 30s): all three, not only the one chosen.
    let plu = series_named(&j, "pool", "PLU-Pool");
    let w20 = windows(plu)
        .iter()
        .find(|w| w["start"] == 20.0)
        .expect("[20s, 30s)");
    assert_eq!(
        listed(w20),
        ["0x00080001", "0x00080002", "0x00080003"],
        "{w20}"
    );
    // Every pool lists as many members in each window as it held at most in it, and the
    // README's count in the windows where all were registered.
    for (pool, n) in common::MULTI_PE_POOLS {
        let s = series_named(&j, "pool", pool);
        let most = windows(s)
            .iter()
            .map(|w| w["pes"]["max"].as_u64().expect("pes.max"))
            .max();
        assert_eq!(most, Some(n), "{pool}");
        for w in windows(s) {
            assert!(listed(w).len() as u64 >= w["pes"]["max"].as_u64().unwrap_or(0));
        }
    }

    // The text lists the starved member under the pool and in the window.
    let text = String::from_utf8(stats(&["--interval", "10s", &cap]).stdout).expect("utf-8");
    let block = text
        .split("\npool ")
        .find(|b| b.starts_with("PRIO-Pool "))
        .expect("PRIO-Pool's block");
    assert!(
        block.contains("member 0x00050004: priority 5, not registered at the end (expected share 0.0% while registered); first in 0 and in 0 of 60 answers"),
        "{block}"
    );
    let in_window = block
        .split("\n  [")
        .find(|w| w.trim_start().starts_with("10s,"))
        .expect("[10s, 20s)");
    for pe in pes {
        assert!(in_window.contains(&format!("      {pe} ")), "{in_window}");
    }

    // The CSV has a member row for each of them in each window.
    let csv = String::from_utf8(stats(&["--format", "csv", "--interval", "10s", &cap]).stdout)
        .expect("utf-8");
    let rows = csv_rows(&csv);
    let members_at = |start: &str| -> Vec<String> {
        rows.iter()
            .filter(|r| {
                r["kind"] == "member" && r["subject"] == "PRIO-Pool" && r["start_s"] == start
            })
            .map(|r| r["member"].clone())
            .collect()
    };
    assert_eq!(members_at("10"), pes);
    assert_eq!(members_at("40"), pes);
}

/// `pes` is no longer the count at a window's end only: with the default 60 s window every pool
/// of the multi-PE capture reports the members it had (the README's counts) as the most, though
/// none is left at the end; windows follow each other, the end of one the start of the next.
#[test]
fn pes_are_counted_at_start_end_and_most() {
    let Some(cap) = common::shared_capture("rserpool/rsplib-multi-pe.pcap") else {
        return;
    };
    let cap = cap.to_string_lossy().into_owned();
    let j = json_of(&stats(&["--format", "json", &cap]));
    let mut answers = 0;
    for (pool, n) in common::MULTI_PE_POOLS {
        let s = series_named(&j, "pool", pool);
        let ws = windows(s);
        assert_eq!(ws.len(), 1, "the capture is under a minute: {s}");
        let w = &ws[0];
        assert_eq!(
            w["pes"],
            serde_json::json!({"start": 0, "end": 0, "max": n}),
            "{pool}"
        );
        assert_eq!(listed(w).len() as u64, n, "{pool}");
        answers += w["answers"].as_u64().expect("answers");
    }
    // The README's 3,020 handle resolutions, all answered.
    assert_eq!(answers, 3020);
    let text = String::from_utf8(stats(&[&cap]).stdout).expect("utf-8");
    assert!(
        text.contains("answers     60  findings    0  pes 0 at start, 0 at end, 4 at most"),
        "{text}"
    );
    assert!(!text.contains("pes 0\n"), "{text}");

    // In 10 s windows: RR-Pool's 0x00010005 deregisters late on (README), in the 30-40 s window;
    // it is listed there and not after.
    let j = json_of(&stats(&["--format", "json", "--interval", "10s", &cap]));
    for (pool, _) in common::MULTI_PE_POOLS {
        let ws = windows(series_named(&j, "pool", pool));
        for pair in ws.windows(2) {
            assert_eq!(
                pair[1]["start"].as_f64(),
                pair[0]["end"].as_f64(),
                "{pool}: no gap while members are registered"
            );
            assert_eq!(pair[1]["pes"]["start"], pair[0]["pes"]["end"], "{pool}");
        }
        for w in ws {
            let p = |k: &str| w["pes"][k].as_u64().expect("pes");
            assert!(p("max") >= p("start") && p("max") >= p("end"), "{w}");
            if w["answers"].as_u64() > Some(0) {
                assert!(p("max") > 0, "answers with no PE: {w}");
            }
        }
    }
    let rr = windows(series_named(&j, "pool", "RR-Pool"));
    let gone = rr
        .iter()
        .position(|w| w["pes"]["start"] == 5 && w["pes"]["end"] == 4)
        .expect("the window 0x00010005 left in");
    assert!(listed(&rr[gone]).contains(&"0x00010005".to_string()));
    for w in &rr[gone + 1..] {
        assert!(!listed(w).contains(&"0x00010005".to_string()), "{w}");
    }
}

/// The DUIDs of the servers answering ADVERTISE or REPLY to the Kea capture's balanced clients
/// (Information-request is not balanced), and how many times each, per tshark.
fn kea_answers_per_server(cap: &str) -> Option<BTreeMap<String, u64>> {
    if !common::have_tshark() {
        return None;
    }
    let fields = |filter: &str, field: &str| -> Vec<String> {
        let out = std::process::Command::new("tshark")
            .args([
                "-r",
                cap,
                "-Y",
                filter,
                "-T",
                "fields",
                "-E",
                "occurrence=l",
            ])
            .args(["-e", "dhcpv6.xid", "-e", field])
            .output()
            .expect("tshark runs");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect()
    };
    let info_xids: Vec<String> = fields("dhcpv6.msgtype == 11", "dhcpv6.msgtype")
        .iter()
        .filter_map(|l| l.split('\t').next().map(str::to_string))
        .collect();
    let mut per = BTreeMap::<String, u64>::new();
    for line in fields(
        "dhcpv6.msgtype == 2 || dhcpv6.msgtype == 7",
        "dhcpv6.duid.bytes",
    ) {
        let mut f = line.split('\t');
        let (Some(xid), Some(duid)) = (f.next(), f.next()) else {
            continue;
        };
        if info_xids.iter().any(|x| x == xid) {
            continue;
        }
        let hex: Vec<String> = duid
            .as_bytes()
            .chunks(2)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect();
        *per.entry(hex.join(":")).or_default() += 1;
    }
    Some(per)
}

/// A DHCP server's findings count under its own entry in its pair (beside its answers), not in
/// a separate block of a server with no answers; the pair's window counts them too.
#[test]
fn a_dhcp_servers_findings_count_under_its_entry_in_the_pair() {
    let Some(cap) = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap") else {
        return;
    };
    let cap = cap.to_string_lossy().into_owned();
    let j = json_of(&stats(&["--format", "json", &cap]));
    let series = j["series"].as_array().expect("series");
    // The README's pair; no series of a server alone.
    let (s1, s2) = (
        "00:03:00:01:02:00:00:00:01:01",
        "00:03:00:01:02:00:00:00:02:02",
    );
    assert_eq!(series.len(), 1, "{series:?}");
    let pair = series_named(&j, "server", &format!("{s1}+{s2}/dhcpv6"));
    let ws = windows(pair);
    let mut answers = BTreeMap::<String, u64>::new();
    let mut findings = BTreeMap::<String, u64>::new();
    for w in ws {
        let mut of_members = 0;
        for (m, c) in w["members"].as_object().expect("members") {
            *answers.entry(m.clone()).or_default() += c["any"].as_u64().expect("any");
            let n = c["findings"].as_u64().expect("findings");
            *findings.entry(m.clone()).or_default() += n;
            of_members += n;
        }
        // Every finding on this capture is about one of the servers.
        assert_eq!(w["findings"].as_u64(), Some(of_members), "{w}");
    }
    // Per server: the findings check reports about it.
    let check = common::poolshark()
        .args(["check", "--format", "json", &cap])
        .output()
        .expect("poolshark runs");
    let c: serde_json::Value = serde_json::from_slice(&check.stdout).expect("JSON");
    let mut by_server = BTreeMap::<String, u64>::new();
    for f in c["findings"].as_array().expect("findings") {
        *by_server
            .entry(f["server"].as_str().expect("a server's").to_string())
            .or_default() += 1;
    }
    assert_eq!(findings, by_server);
    assert_eq!(
        findings.values().sum::<u64>(),
        c["summary"]["findings"].as_u64().expect("summary.findings")
    );
    // Per server: its answers to balanced clients, as tshark counts them.
    if let Some(tshark) = kea_answers_per_server(&cap) {
        assert_eq!(answers, tshark);
        assert_eq!(tshark.get(s1), Some(&564), "{tshark:?}");
    }
    // The text: the findings on the server's member line, beside its answers.
    let text = String::from_utf8(stats(&[&cap]).stdout).expect("utf-8");
    assert!(!text.contains(&format!("\nserver {s1}:")), "{text}");
    assert!(!text.contains(" 0 answers"), "{text}");
    let total: u64 = answers.values().sum::<u64>();
    for (m, n) in &answers {
        // The expected share is check's: each answer against its episode's reference.
        let expected = c["servers"]
            .as_array()
            .expect("servers")
            .iter()
            .find(|s| s["server"] == m.as_str())
            .and_then(|s| s["expected_share"].as_f64())
            .expect("check's expected share");
        let line = format!(
            "  member {m}: {}, 128 buckets of kea, expected share {:.1}%; first in {n} and in {n} of {} answers, {} findings",
            if m == s1 { "primary" } else { "secondary" },
            expected * 100.0,
            pair["windows"].as_array().map_or(0, |ws| ws.iter().map(|w| w["answers"].as_u64().unwrap_or(0)).sum::<u64>()),
            findings[m]
        );
        assert!(text.contains(&line), "{line}\n{text}");
        assert!(*n < total);
    }
}

/// One CSV row's fields by column name.
fn csv_rows(csv: &str) -> Vec<BTreeMap<String, String>> {
    let mut lines = csv.lines();
    let header: Vec<String> = lines.next().map(split_csv).unwrap_or_default();
    lines
        .map(|l| {
            let f = split_csv(l);
            assert_eq!(f.len(), header.len(), "{l}");
            header.iter().cloned().zip(f).collect()
        })
        .collect()
}

/// A CSV line's fields (quoted ones unquoted).
fn split_csv(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().expect("a field").push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(String::new()),
            (c, _) => out.last_mut().expect("a field").push(c),
        }
    }
    out
}

/// The CSV is one table whose columns each mean one thing: the header the README gives, a
/// `kind` per row filling its own columns, times in seconds from the first frame (`start_s`) and
/// as Unix time (`start_epoch`) in every row alike, messages with their own count, share, bytes,
/// rate and malformed columns, as the text and JSON give them.
#[test]
fn csv_columns_mean_one_thing_per_kind() {
    let Some(fo) = common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap") else {
        return;
    };
    let header = "kind,subject_kind,subject,start_s,end_s,start_epoch,end_epoch,answers,findings,pes_start,pes_end,pes_max,member,first,any,expected_first,expected_any,gauge,end_value,protocol,type,count,share,bytes,rate_per_s,malformed,unjudged";
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/stats-and-tui.md"
    ))
    .expect("docs/stats-and-tui.md");
    assert!(
        readme.contains(header),
        "docs/stats-and-tui.md documents the header"
    );
    let filled: BTreeMap<&str, &str> = BTreeMap::from([
        ("message", "kind,start_s,end_s,start_epoch,end_epoch,protocol,type,count,share,bytes,rate_per_s,malformed"),
        ("window", "kind,subject_kind,subject,start_s,end_s,start_epoch,end_epoch,answers,findings,unjudged"),
        ("member", "kind,subject_kind,subject,start_s,end_s,start_epoch,end_epoch,findings,member,first,any,expected_first,expected_any"),
        ("gauge", "kind,subject_kind,subject,start_s,end_s,start_epoch,end_epoch,gauge,end_value"),
    ]);
    let multi = common::shared_capture("rserpool/rsplib-multi-pe.pcap");
    let demo = common::fixture("demo.pcap");
    let mut caps = vec![
        fo.to_string_lossy().into_owned(),
        demo.to_string_lossy().into_owned(),
    ];
    caps.extend(multi.map(|m| m.to_string_lossy().into_owned()));
    for cap in &caps {
        let out = stats(&["--format", "csv", cap]);
        assert!(out.status.success());
        let csv = String::from_utf8(out.stdout).expect("utf-8");
        assert_eq!(csv.lines().next(), Some(header));
        let rows = csv_rows(&csv);
        let j = json_of(&stats(&["--format", "json", cap]));
        let origin = j["start"].as_f64().expect("start");
        let mut kinds = BTreeMap::<String, usize>::new();
        for r in &rows {
            let kind = r["kind"].as_str();
            *kinds.entry(kind.to_string()).or_default() += 1;
            let mut want: Vec<&str> = filled[kind].split(',').collect();
            if kind == "window" && r["subject_kind"] == "pool" {
                want.extend(["pes_start", "pes_end", "pes_max"]);
            }
            let mut got: Vec<&str> = r
                .iter()
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, _)| k.as_str())
                .collect();
            want.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, want, "{r:?}");
            // One clock: the epoch is the capture's start plus the seconds from it.
            for (rel, abs) in [("start_s", "start_epoch"), ("end_s", "end_epoch")] {
                let rel: f64 = r[rel].parse().expect("seconds");
                let abs: f64 = r[abs].parse().expect("epoch");
                assert!((abs - rel - origin).abs() < 1e-5, "{r:?}");
                assert!(rel >= 0.0);
            }
        }
        // As many rows of each kind as the JSON has things.
        let series = j["series"].as_array().expect("series");
        let ws = || series.iter().flat_map(|s| windows(s).iter());
        assert_eq!(
            kinds.get("message").copied().unwrap_or(0),
            j["messages"].as_array().map_or(0, Vec::len)
        );
        assert_eq!(kinds.get("window").copied().unwrap_or(0), ws().count());
        assert_eq!(
            kinds.get("member").copied().unwrap_or(0),
            ws().map(|w| w["members"].as_object().map_or(0, |m| m.len()))
                .sum::<usize>()
        );
        assert_eq!(
            kinds.get("gauge").copied().unwrap_or(0),
            ws().map(|w| w["gauges"].as_object().map_or(0, |m| m.len()))
                .sum::<usize>()
        );
        // Message rows: the JSON's numbers in their own columns.
        for m in j["messages"].as_array().expect("messages") {
            let r = rows
                .iter()
                .find(|r| {
                    r["kind"] == "message"
                        && r["protocol"] == m["protocol"].as_str().unwrap_or("")
                        && r["type"] == m["type"].as_str().unwrap_or("")
                })
                .unwrap_or_else(|| panic!("no row for {m}"));
            assert_eq!(r["count"], m["count"].to_string());
            assert_eq!(r["bytes"], m["bytes"].to_string());
            assert_eq!(r["malformed"], m["malformed"].to_string());
            let near = |col: &str, key: &str| {
                let a: f64 = r[col].parse().expect("number");
                let b = m[key].as_f64().expect("number");
                assert!((a - b).abs() < 1e-5 * b.abs().max(1.0), "{col}: {r:?} {m}");
            };
            near("share", "share");
            near("rate_per_s", "rate");
            near("start_epoch", "first");
            near("end_epoch", "last");
        }
    }
}

#[test]
fn jobs_help_describes_stats() {
    let out = common::poolshark()
        .args(["stats", "--help"])
        .output()
        .expect("poolshark runs");
    let help = String::from_utf8_lossy(&out.stdout);
    let jobs = help
        .split("-j, --jobs")
        .nth(1)
        .and_then(|h| h.split("\n  -").next())
        .expect("--jobs");
    assert!(!jobs.contains("check"), "{jobs}");
    assert!(jobs.contains("files analysed at once"), "{jobs}");
}

/// At a fine --interval most of a pool's windows have no answers: the text gives a run of them one
/// line, and their PEs one more, instead of a line per PE and window each saying 0 (RR-Pool's
/// five PEs over 338 windows of 1 s were 1083 such lines). Every window of the JSON is still
/// accounted for, and the windows with answers are listed member by member as before.
#[test]
fn quiet_windows_are_folded_in_the_text() {
    let Some(cap) = common::shared_capture("rserpool/rsplib-multi-pe.pcap") else {
        return;
    };
    let cap = cap.to_string_lossy().into_owned();
    let text = String::from_utf8(stats(&["--interval", "1s", &cap]).stdout).expect("utf-8");
    assert!(
        !text.contains("first      0 (     - exp      -)"),
        "a member line of a window without answers:\n{text}"
    );
    let block = text
        .split("\npool ")
        .find(|b| b.starts_with("RR-Pool "))
        .expect("RR-Pool's block");
    assert!(
        block.contains(
            "\n  [       1s,       14s) answers      0  findings    0  pes 0 at start, 5 at end, 5 at most  (13 windows)\n      no answers; registered: 0x00010001, 0x00010002, 0x00010003, 0x00010004, 0x00010005\n  [      14s,       15s) answers     40 "
        ),
        "{block}"
    );
    // Every pool: the windows the text covers are the JSON's, and so are the answers.
    let j = json_of(&stats(&["--format", "json", "--interval", "1s", &cap]));
    for (pool, _) in common::MULTI_PE_POOLS {
        let block = text
            .split("\npool ")
            .find(|b| b.starts_with(&format!("{pool} ")))
            .expect("the pool's block");
        let (mut covered, mut answers) = (0u64, 0u64);
        for line in block.lines().filter(|l| l.starts_with("  [")) {
            covered += line
                .rsplit_once("  (")
                .and_then(|(_, n)| n.strip_suffix(" windows)"))
                .map_or(1, |n| n.parse().expect("a count"));
            let a = line
                .split("answers")
                .nth(1)
                .and_then(|r| r.split_whitespace().next());
            answers += a.and_then(|a| a.parse::<u64>().ok()).expect("answers");
        }
        let ws = windows(series_named(&j, "pool", pool));
        assert_eq!(covered, ws.len() as u64, "{pool}");
        let json_answers: u64 = ws.iter().filter_map(|w| w["answers"].as_u64()).sum();
        assert_eq!(answers, json_answers, "{pool}");
    }
}

/// One answer is `1 answer`, one finding `1 finding` (they read `1 answers`, `1 findings`).
#[test]
fn one_answer_and_one_finding_are_singular() {
    let Some(cap) = common::shared_capture("rserpool/rsplib-rfc-scenario.pcap") else {
        return;
    };
    let cap = cap.to_string_lossy().into_owned();
    let text = String::from_utf8(stats(&[&cap]).stdout).expect("utf-8");
    // (TcpPool has two answers, the second negative: tshark sees both, frames 1328 and 1630.)
    assert!(
        text.contains("pool UdpPool (RSerPool pool (policy WRR)): 1 answer, 0 findings,"),
        "{text}"
    );
    assert!(text.contains("first in 1 and in 1 of 1 answer\n"), "{text}");
    assert!(
        !text.contains(" 1 answers") && !text.contains(" 1 findings"),
        "{text}"
    );
    let demo = common::fixture("demo.pcap");
    let text = String::from_utf8(stats(&[&demo.to_string_lossy()]).stdout).expect("utf-8");
    assert!(text.contains("9 answers, 1 finding,"), "{text}");
    assert!(text.contains("of 43 answers, 1 finding\n"), "{text}");
}
