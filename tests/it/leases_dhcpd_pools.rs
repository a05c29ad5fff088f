//! `poolshark leases --config CONF LEASES` against dhcpd-pools' own test suite
//! (../shared/peer/dhcpd-pools/v3.0, dhcpd-pools 3.0): each case's conf and leases read through
//! `--config`, and every count of the expected outputs (per range and shared network: max,
//! cur, touch, bu; the sums of all ranges; the mustach and JSON outputs' used, touched, defined,
//! free, backup counts) and every alarm verdict (the Nagios lines' crit/warn/ok/ignored counts
//! and exit code, the colours of the --skip runs, the mustach `status`) compared with poolshark's
//! JSON. The expected outputs are the oracle: nothing here restates their numbers.
//!
//! Where dhcpd-pools is not dhcpd the test follows dhcpd, as the suite's README
//! (peer/dhcpd-pools/README.md, "Where dhcpd-pools is not dhcpd") says to: dhcpd refuses the
//! confs of `one-ip` (a range outside any subnet), `one-line` (a pool outside any network),
//! `range4` (a v4 range written as a prefix) and `v6` (a range6 outside its subnet6), so those
//! cases, and `alarm-ignore` and `v6-perfdata` built on them, have no counts to agree on: poolshark
//! refuses the conf at the line dhcpd names, and `dhcpd -t` is asked to confirm that it refuses
//! them and accepts the others (when dhcpd is installed). The IPv6 case dhcpd reads is `range6`.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn suite() -> Option<PathBuf> {
    Some(common::shared_dir()?.join("peer/dhcpd-pools/v3.0"))
}

/// `poolshark leases --config CONF LEASES --format json ARGS`: the report and the exit code.
fn leases(dir: &Path, conf: &str, lease: &str, args: &[&str]) -> (Value, i32) {
    let out = common::poolshark()
        .arg("leases")
        .arg("--config")
        .arg(dir.join(conf))
        .arg(dir.join(lease))
        .args(["--format", "json", "--now", "0"])
        .args(args)
        .output()
        .expect("run poolshark");
    let code = out.status.code().expect("exit code");
    assert!(
        matches!(code, 0..=2),
        "{conf}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{conf} {lease} {args:?}: {e}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (v, code)
}

fn strip_ansi(s: &str) -> (String, Option<&'static str>) {
    let colour = if s.contains("\x1b[1;33m") {
        Some("warning")
    } else if s.contains("\x1b[1;31m") {
        Some("critical")
    } else if s.contains("\x1b[1;32m") {
        Some("ignored")
    } else if s.contains("\x1b[1;34m") {
        Some("suppressed")
    } else {
        None
    };
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    (out, colour)
}

/// One row of dhcpd-pools' text tables.
#[derive(Clone, Debug)]
struct Row {
    /// The shared network ("All networks" for none), or the row's name.
    name: String,
    /// First and last address, for a range.
    first: Option<IpAddr>,
    last: Option<IpAddr>,
    max: f64,
    cur: u64,
    touch: u64,
    bu: Option<u64>,
    /// From the row's colour: the status dhcpd-pools gave it (None: ok).
    status: Option<&'static str>,
}

#[derive(Debug, Default)]
struct Tables {
    ranges: Vec<Row>,
    shared: Vec<Row>,
    all: Option<Row>,
}

fn numbers(words: &[&str]) -> (f64, u64, u64, Option<u64>) {
    // max cur percent touch t+c t+c-perc [bu bu-perc]
    let n = |i: usize| words[i].parse::<u64>().expect("count");
    (
        words[0].parse::<f64>().expect("max"),
        n(1),
        n(3),
        words.get(6).map(|w| w.parse().expect("bu")),
    )
}

/// The tables of a text output (several runs' outputs may follow each other: one per run).
fn tables(text: &str) -> Vec<Tables> {
    let mut runs: Vec<Tables> = Vec::new();
    let mut section = "";
    for raw in text.lines() {
        let (line, status) = strip_ansi(raw);
        match line.as_str() {
            "Ranges:" => {
                runs.push(Tables::default());
                section = "ranges";
                continue;
            }
            "Shared networks:" => {
                section = "shared";
                continue;
            }
            "Sum of all ranges:" => {
                section = "all";
                continue;
            }
            "" => {
                section = "";
                continue;
            }
            // A run's title (`--- skip ok ---`).
            l if l.starts_with("--- ") => {
                section = "";
                continue;
            }
            _ => {}
        }
        if line.starts_with("shared net name") || line.starts_with("name ") || section.is_empty() {
            continue;
        }
        let Some(t) = runs.last_mut() else { continue };
        let name = line.get(..20).unwrap_or(&line).trim().to_string();
        let rest = line.get(20..).unwrap_or_default();
        if section == "ranges" {
            let (first, tail) = rest.split_once(" - ").expect("a range row");
            let words: Vec<&str> = tail.split_whitespace().collect();
            let (max, cur, touch, bu) = numbers(&words[1..]);
            t.ranges.push(Row {
                name,
                first: Some(first.trim().parse().expect("first ip")),
                last: Some(words[0].parse().expect("last ip")),
                max,
                cur,
                touch,
                bu,
                status,
            });
        } else {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let (max, cur, touch, bu) = numbers(&words);
            let row = Row {
                name,
                first: None,
                last: None,
                max,
                cur,
                touch,
                bu,
                status,
            };
            if section == "shared" {
                t.shared.push(row);
            } else {
                t.all = Some(row);
            }
        }
    }
    runs
}

/// `max` as dhcpd-pools prints it (`%g`: six significant digits) against poolshark's exact one.
fn same_max(expected: f64, ours: &Value) -> bool {
    let ours = ours.as_f64().expect("max");
    (expected - ours).abs() <= ours.abs() * 5e-6
}

/// Counts compared, for the summary line.
#[derive(Default)]
struct Tally {
    values: usize,
    verdicts: usize,
}

fn range_of(j: &Value, first: IpAddr, last: IpAddr) -> &Value {
    j["usage"]["ranges"]
        .as_array()
        .expect("ranges")
        .iter()
        .find(|r| {
            r["kind"] != "prefixes"
                && r["first"].as_str().and_then(|f| f.parse::<IpAddr>().ok()) == Some(first)
                && r["last"].as_str().and_then(|f| f.parse::<IpAddr>().ok()) == Some(last)
        })
        .unwrap_or_else(|| panic!("no range {first}-{last} in {}", j["usage"]))
}

fn shared_of<'a>(j: &'a Value, name: &str) -> &'a Value {
    j["usage"]["shared_networks"]
        .as_array()
        .expect("shared networks")
        .iter()
        .find(|n| n["name"] == name)
        .unwrap_or_else(|| panic!("no shared network {name}"))
}

/// Every count of `t` against poolshark's report; and each row's colour against its status.
fn compare_tables(case: &str, t: &Tables, j: &Value, tally: &mut Tally, colours: bool) {
    let ours_ranges: Vec<&Value> = j["usage"]["ranges"]
        .as_array()
        .expect("ranges")
        .iter()
        .filter(|r| r["kind"] != "prefixes")
        .collect();
    let mut seen = BTreeSet::new();
    for r in &t.ranges {
        let (first, last) = (r.first.expect("first"), r.last.expect("last"));
        let o = range_of(j, first, last);
        seen.insert(o["first"].as_str().unwrap_or_default().to_string());
        let net = o["shared_network"].as_str().unwrap_or("All networks");
        assert_eq!(net, r.name, "{case} {first}: shared network");
        assert!(
            same_max(r.max, &o["max"]),
            "{case} {first}: max {} {}",
            r.max,
            o["max"]
        );
        assert_eq!(o["cur"], r.cur, "{case} {first}: cur");
        assert_eq!(o["touch"], r.touch, "{case} {first}: touch");
        tally.values += 4;
        if let Some(bu) = r.bu {
            assert_eq!(o["bu"], bu, "{case} {first}: bu");
            tally.values += 1;
        }
        if colours {
            assert_eq!(
                o["status"],
                r.status.unwrap_or("ok"),
                "{case} {first}: status"
            );
            tally.verdicts += 1;
        }
    }
    if !colours {
        // Without --skip every range is printed: poolshark has no other.
        assert_eq!(ours_ranges.len(), t.ranges.len(), "{case}: ranges");
    }
    for n in &t.shared {
        let o = shared_of(j, &n.name);
        assert!(same_max(n.max, &o["max"]), "{case} {}: max", n.name);
        assert_eq!(o["cur"], n.cur, "{case} {}: cur", n.name);
        assert_eq!(o["touch"], n.touch, "{case} {}: touch", n.name);
        tally.values += 4;
        if let Some(bu) = n.bu {
            assert_eq!(o["bu"], bu, "{case} {}: bu", n.name);
            tally.values += 1;
        }
        if colours {
            assert_eq!(
                o["status"],
                n.status.unwrap_or("ok"),
                "{case} {}: status",
                n.name
            );
            tally.verdicts += 1;
        }
    }
    if let Some(a) = &t.all {
        let o = &j["usage"]["all"];
        assert!(same_max(a.max, &o["max"]), "{case}: all max");
        assert_eq!(o["cur"], a.cur, "{case}: all cur");
        assert_eq!(o["touch"], a.touch, "{case}: all touch");
        tally.values += 3;
        if let Some(bu) = a.bu {
            assert_eq!(o["bu"], bu, "{case}: all bu");
            tally.values += 1;
        }
    }
}

/// dhcpd-pools' Nagios lines: (ranges crit/warn/ok/ignored, shared nets the same, exit code).
type Alarm = (Option<[u64; 4]>, Option<[u64; 4]>, Option<i32>);

fn alarm_counts(line: &str, what: &str) -> Option<[u64; 4]> {
    let at = line.find(&format!("{what} - crit:"))?;
    let words: Vec<&str> = line[at..].split(';').next()?.split_whitespace().collect();
    let after = |key: &str| -> u64 {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1))
            .map_or(0, |v| v.parse().expect("count"))
    };
    Some([
        after("crit:"),
        after("warn:"),
        after("ok:"),
        after("ignored:"),
    ])
}

/// The Nagios outputs of a file (one per run, as `== name ==` sections or alone).
fn alarms(text: &str) -> Vec<Alarm> {
    let mut out: Vec<Alarm> = Vec::new();
    let mut current: Option<Alarm> = None;
    for line in text.lines() {
        if line.starts_with("CRITICAL:") || line.starts_with("WARNING:") || line.starts_with("OK:")
        {
            out.extend(current.take());
            current = Some((
                alarm_counts(line, "Ranges"),
                alarm_counts(line, "Shared nets"),
                None,
            ));
        } else if line.starts_with("Shared nets - ") {
            if let Some(c) = &mut current {
                c.1 = alarm_counts(line, "Shared nets");
            }
        } else if let Ok(code) = line.trim().parse::<i32>() {
            if let Some(c) = &mut current {
                c.2 = Some(code);
            }
        }
    }
    out.extend(current);
    out
}

fn ours_alarm(j: &Value) -> ([u64; 4], [u64; 4]) {
    let t = |v: &Value| {
        [
            v["critical"].as_u64().expect("critical"),
            v["warning"].as_u64().expect("warning"),
            v["ok"].as_u64().expect("ok"),
            v["ignored"].as_u64().expect("ignored"),
        ]
    };
    (
        t(&j["alarms"]["ranges"]),
        t(&j["alarms"]["shared_networks"]),
    )
}

fn compare_alarm(case: &str, e: &Alarm, j: &Value, code: i32, tally: &mut Tally) {
    let (r, s) = ours_alarm(j);
    if let Some(er) = e.0 {
        assert_eq!(r, er, "{case}: ranges crit/warn/ok/ignored");
        tally.verdicts += 4;
    }
    if let Some(es) = e.1 {
        assert_eq!(s, es, "{case}: shared nets crit/warn/ok/ignored");
        tally.verdicts += 4;
    }
    if let Some(ec) = e.2 {
        assert_eq!(code, ec, "{case}: exit code");
        assert_eq!(j["alarms"]["exit"], ec);
        tally.verdicts += 1;
    }
}

#[test]
fn the_table_cases_count_as_dhcpd_pools_counts() {
    let Some(dir) = suite() else { return };
    let mut tally = Tally::default();
    // (case, the expected output it is held to). `leading0`'s conf writes its range
    // `10.0.0.001 10.0.0.010`: dhcpd reads the numbers in decimal (10.0.0.1-10.0.0.10), where
    // dhcpd-pools' inet_aton reads 010 as octal 8 (README: "10.0.0.010 is decimal 10"). Under
    // dhcpd's reading the case is `simple` (the same range, and its leases file is a copy of
    // `simple`'s, README: "tests/leases/leading0 -> leases/simple"), so it is held to
    // `simple`'s expected output.
    for (case, expected) in [
        ("big-small", "big-small"),
        ("bootp", "bootp"),
        ("complete", "complete"),
        ("empty", "empty"),
        ("leading0", "simple"),
        ("same-twice", "same-twice"),
        ("simple", "simple"),
        ("range6", "range6"),
    ] {
        let expected = std::fs::read_to_string(dir.join("tests/expected").join(expected)).unwrap();
        let t = tables(&expected);
        assert_eq!(t.len(), 1, "{case}");
        let (j, code) = leases(
            &dir,
            &format!("tests/confs/{case}"),
            &format!("tests/leases/{case}"),
            &[],
        );
        assert_eq!(code, 0, "{case}: no alarm asked");
        compare_tables(case, &t[0], &j, &mut tally, false);
    }
    // The JSON and mustach outputs: same-twice's subnet, and samples/ (the one case with
    // backup leases) under two alarm settings with each location's status.
    let json: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("tests/expected/same-twice-json")).unwrap(),
    )
    .unwrap();
    let (j, _) = leases(
        &dir,
        "tests/confs/same-twice",
        "tests/leases/same-twice",
        &[],
    );
    let s = &json["subnets"][0];
    let o = &j["usage"]["ranges"][0];
    assert_eq!(
        (&o["max"], &o["cur"], &o["touch"], &o["free"]),
        (&s["defined"], &s["used"], &s["touched"], &s["free"])
    );
    tally.values += 4;
    let mustach = std::fs::read_to_string(dir.join("tests/expected/mustach")).unwrap();
    let (plain, ok_skipped) = mustach.split_once("--- skip ok ---").unwrap();
    for (text, args) in [(plain, &[][..]), (ok_skipped, &["--warning", "44"][..])] {
        let (j, _) = leases(&dir, "samples/dhcpd.conf", "samples/dhcpd.leases", args);
        compare_mustach(text, &j, &mut tally);
    }
    eprintln!(
        "dhcpd-pools table cases: {} counts and {} statuses compared",
        tally.values, tally.verdicts
    );
    assert!(tally.values >= 100, "{}", tally.values);
}

/// The mustach output's blocks (`key: value` lines, blank-separated) under `Subnets:`,
/// `Shared-networks:` and `Summary:`, against the same counts and statuses.
fn compare_mustach(text: &str, j: &Value, tally: &mut Tally) {
    let mut section = "";
    let mut block: BTreeMap<String, String> = BTreeMap::new();
    let statuses = ["ok", "warning", "critical", "ignored", "suppressed"];
    let mut flush = |section: &str, block: &mut BTreeMap<String, String>| {
        if block.is_empty() {
            return;
        }
        let n = |k: &str| block[k].parse::<u64>().expect(k);
        let o = match section {
            "Subnets:" => range_of(
                j,
                block["first_ip"].parse().unwrap(),
                block["last_ip"].parse().unwrap(),
            ),
            "Shared-networks:" => shared_of(j, &block["location"]),
            _ => &j["usage"]["all"],
        };
        assert_eq!(o["max"], n("defined"), "{block:?}");
        assert_eq!(o["cur"], n("used"), "{block:?}");
        assert_eq!(o["touch"], n("touched"), "{block:?}");
        assert_eq!(o["free"], n("free"), "{block:?}");
        assert_eq!(o["bu"], n("backup_count"), "{block:?}");
        tally.values += 5;
        if section != "Summary:" {
            let st = statuses[usize::try_from(n("status")).unwrap()];
            assert_eq!(o["status"], st, "{block:?}");
            tally.verdicts += 1;
        }
        block.clear();
    };
    for line in text.lines() {
        let l = line.trim();
        if matches!(l, "Subnets:" | "Shared-networks:" | "Summary:") {
            flush(section, &mut block);
            section = match l {
                "Subnets:" => "Subnets:",
                "Shared-networks:" => "Shared-networks:",
                _ => "Summary:",
            };
        } else if l.is_empty() {
            flush(section, &mut block);
        } else if l.starts_with("number_of_") {
            // The trailing totals, outside any block.
            flush(section, &mut block);
            section = "";
        } else if let Some((k, v)) = l.split_once(": ") {
            if !section.is_empty() {
                block.insert(k.to_string(), v.to_string());
            }
        } else {
            flush(section, &mut block);
            section = "";
        }
    }
    flush(section, &mut block);
}

#[test]
fn the_alarm_cases_give_dhcpd_pools_verdicts_and_exit_codes() {
    let Some(dir) = suite() else { return };
    let mut tally = Tally::default();
    // Each case: dhcpd-pools' options as its script gives them, in poolshark's words
    // (-L 11: ranges only, -L 22 and -L 66: shared networks only).
    let cases: &[(&str, &str, &[&[&str]])] = &[
        ("alarm-critical", "complete", &[&["--critical", "50"]]),
        (
            "alarm-critical-ranges",
            "complete",
            &[&["--critical", "50", "--alarm-on", "ranges"]],
        ),
        (
            "alarm-critical-snets",
            "complete",
            &[&["--critical", "50", "--alarm-on", "shared-networks"]],
        ),
        ("alarm-ok", "complete", &[&["--critical", "100"]]),
        (
            "alarm-shared-ok",
            "complete",
            &[&["--critical", "54", "--alarm-on", "shared-networks"]],
        ),
        ("alarm-warning", "complete", &[&["--warning", "50"]]),
        (
            "alarm-warning-ranges",
            "complete",
            &[&["--warning", "50", "--alarm-on", "ranges"]],
        ),
        (
            "alarm-warning-snets",
            "complete",
            &[&["--warning", "50", "--alarm-on", "shared-networks"]],
        ),
        (
            "alarm-count-option",
            "complete",
            &[
                &["--warning", "40", "--warn-count", "20"],
                &["--critical", "40", "--crit-count", "20"],
                &["--warning", "40", "--warn-count", "20", "--minsize", "40"],
                &["--warning", "40", "--snet-alarms"],
            ],
        ),
        ("shnet-alarm", "shnet-alarm", &[&["--critical", "30"]]),
        ("complete-perfdata", "complete", &[&["--warning", "80"]]),
    ];
    for (case, data, runs) in cases {
        let expected = std::fs::read_to_string(dir.join("tests/expected").join(case)).unwrap();
        let verdicts = alarms(&expected);
        assert_eq!(verdicts.len(), runs.len(), "{case}: {verdicts:?}");
        for (e, args) in verdicts.iter().zip(runs.iter()) {
            let (j, code) = leases(
                &dir,
                &format!("tests/confs/{data}"),
                &format!("tests/leases/{data}"),
                args,
            );
            compare_alarm(&format!("{case} {args:?}"), e, &j, code, &mut tally);
        }
        if *case == "complete-perfdata" {
            // Nagios performance data: IP_r=cur;warn;crit;0;max and IP_rt=touch per range.
            let (j, _) = leases(
                &dir,
                "tests/confs/complete",
                "tests/leases/complete",
                runs[0],
            );
            for item in expected.split_whitespace() {
                let Some((key, value)) = item.split_once('=') else {
                    continue;
                };
                if let Some(ip) = key.strip_suffix("_rt") {
                    let r = ranges_starting(&j, ip);
                    assert_eq!(r["touch"].to_string(), value, "{item}");
                    tally.values += 1;
                } else if let Some(ip) = key.strip_suffix("_r") {
                    let parts: Vec<&str> = value.split(';').collect();
                    let r = ranges_starting(&j, ip);
                    assert_eq!(r["cur"].to_string(), parts[0], "{item}");
                    assert_eq!(r["max"].to_string(), parts[4], "{item}");
                    tally.values += 2;
                }
            }
        }
    }
    // The --skip runs of samples/: the rows a run prints are those not in the skipped
    // statuses, each coloured by its status.
    let skip = std::fs::read_to_string(dir.join("tests/expected/skip")).unwrap();
    let runs: &[(&[&str], &[&str])] = &[
        (&["--warning", "44"], &["ok"]),
        (&["--warning", "44", "--critical", "50"], &["warning"]),
        (
            &["--warning", "44", "--critical", "50"],
            &["ok", "critical"],
        ),
        (&["--critical", "1", "--snet-alarms"], &["suppressed"]),
        (&["--critical", "1", "--minsize", "20"], &["ignored"]),
        (
            &[
                "--critical",
                "1",
                "--crit-count",
                "12",
                "--warning",
                "1",
                "--warn-count",
                "15",
            ],
            &["ok"],
        ),
    ];
    let printed = tables(&skip);
    assert_eq!(printed.len(), runs.len());
    for (t, (args, skipped)) in printed.iter().zip(runs) {
        let (j, _) = leases(&dir, "samples/dhcpd.conf", "samples/dhcpd.leases", args);
        compare_tables(&format!("skip {args:?}"), t, &j, &mut tally, true);
        // What was not printed is in a skipped status.
        let shown: BTreeSet<String> = t
            .ranges
            .iter()
            .filter_map(|r| r.first.map(|f| f.to_string()))
            .collect();
        for r in j["usage"]["ranges"].as_array().unwrap() {
            if !shown.contains(r["first"].as_str().unwrap()) {
                assert!(
                    skipped.contains(&r["status"].as_str().unwrap()),
                    "skip {args:?}: {} is {} and was not printed",
                    r["first"],
                    r["status"]
                );
                tally.verdicts += 1;
            }
        }
        let names: BTreeSet<&str> = t.shared.iter().map(|n| n.name.as_str()).collect();
        for n in j["usage"]["shared_networks"].as_array().unwrap() {
            if !names.contains(n["name"].as_str().unwrap()) {
                assert!(
                    skipped.contains(&n["status"].as_str().unwrap()),
                    "skip {args:?}: {n}"
                );
                tally.verdicts += 1;
            }
        }
    }
    eprintln!(
        "dhcpd-pools alarm cases: {} verdicts and {} counts compared",
        tally.verdicts, tally.values
    );
    assert!(tally.verdicts >= 100, "{}", tally.verdicts);
}

fn ranges_starting<'a>(j: &'a Value, first: &str) -> &'a Value {
    j["usage"]["ranges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["first"] == first)
        .unwrap_or_else(|| panic!("no range from {first}"))
}

/// The confs dhcpd refuses: poolshark refuses them too (exit 2, each error at its line), and
/// where dhcpd is installed `dhcpd -t` (with -6 for the DHCPv6 ones) confirms the verdicts on
/// every conf of the suite and names the same line.
#[test]
fn the_confs_dhcpd_refuses_are_refused_where_dhcpd_says() {
    let Some(dir) = suite() else { return };
    // conf, the line dhcpd names first (from its own output when it is here).
    let refused = [("one-ip", 1), ("one-line", 1), ("range4", 4), ("v6", 7)];
    for (conf, line) in refused {
        let out = common::poolshark()
            .arg("leases")
            .arg("--config")
            .arg(dir.join("tests/confs").join(conf))
            .arg(dir.join("tests/leases").join(conf))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{conf}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let at = format!("tests/confs/{conf}:{line}:");
        assert!(stderr.contains(&at), "{conf}: {stderr}");
        assert!(
            stderr.contains("no --config file could be used"),
            "{stderr}"
        );
    }
    let Some(dhcpd) = dhcpd() else { return };
    let confs = std::fs::read_dir(dir.join("tests/confs")).unwrap();
    let mut checked = 0;
    for c in confs.flatten() {
        let path = c.path();
        let name = common::file_name(&path).to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let mode = if text.contains("subnet6") { "-6" } else { "-4" };
        let run = Command::new(&dhcpd)
            .args([mode, "-t", "-cf"])
            .arg(&path)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&run.stderr).into_owned();
        let first_line = said.lines().find_map(|l| {
            l.split(" line ")
                .nth(1)?
                .split(':')
                .next()?
                .parse::<usize>()
                .ok()
        });
        let ours = common::poolshark()
            .arg("leases")
            .arg("--config")
            .arg(&path)
            .arg(dir.join("tests/leases/simple"))
            .output()
            .unwrap();
        let refused_by_us = ours.status.code() == Some(2);
        assert_eq!(
            !run.status.success(),
            refused_by_us,
            "{name}: dhcpd says {said}; poolshark {}",
            String::from_utf8_lossy(&ours.stderr)
        );
        if let (true, Some(l)) = (refused_by_us, first_line) {
            let stderr = String::from_utf8_lossy(&ours.stderr);
            assert!(
                stderr.contains(&format!("{name}:{l}:")),
                "{name}: dhcpd line {l}; {stderr}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 13, "{checked}");
}

/// dhcpd, when installed (isc-dhcp-server); the test says that it skips otherwise.
fn dhcpd() -> Option<PathBuf> {
    for p in ["/usr/sbin/dhcpd", "/usr/local/sbin/dhcpd"] {
        if Path::new(p).is_file() {
            return Some(PathBuf::from(p));
        }
    }
    poolshark::test_support::skip(
        "dhcpd (isc-dhcp-server) is not installed: its -t verdicts are not asked",
    );
    None
}
