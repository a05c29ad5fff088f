//! `poolshark stats` end to end: message statistics against the counts the shared captures'
//! READMEs give, and the failover pool's free/backup series.

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

/// A DHCP server's findings are counted in its pair's windows as well as its own: the pair's
/// series holds the balance and the deviations from it together, window by window.
#[test]
fn a_dhcp_pair_counts_its_servers_findings() {
    let Some(cap) = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap") else {
        return;
    };
    let cap = cap.to_string_lossy().into_owned();
    let out = stats(&["--format", "json", &cap]);
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let series = j["series"].as_array().expect("series");
    let pair = series
        .iter()
        .find(|s| s["server"].as_str().is_some_and(|n| n.contains('+')))
        .expect("the pair's series");
    let members: Vec<&str> = pair["members"]
        .as_object()
        .expect("members")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(members.len(), 2, "{pair}");
    // Findings per window start: the pair's, and its two servers' together.
    let per_window = |s: &serde_json::Value| -> BTreeMap<String, u64> {
        s["windows"]
            .as_array()
            .expect("windows")
            .iter()
            .map(|w| (w["start"].to_string(), w["findings"].as_u64().unwrap_or(0)))
            .filter(|(_, n)| *n > 0)
            .collect()
    };
    let mut servers = BTreeMap::<String, u64>::new();
    for s in series
        .iter()
        .filter(|s| s["server"].as_str().is_some_and(|n| members.contains(&n)))
    {
        for (w, n) in per_window(s) {
            *servers.entry(w).or_default() += n;
        }
    }
    assert_eq!(per_window(pair), servers);
    // Every finding check makes on this capture is about one of the pair's servers (clients
    // left unanswered, a takeover).
    let check = common::poolshark()
        .args(["check", "--format", "json", &cap])
        .output()
        .expect("poolshark runs");
    let c: serde_json::Value = serde_json::from_slice(&check.stdout).expect("JSON");
    let total = c["summary"]["findings"].as_u64().expect("summary.findings");
    assert!(total > 0);
    assert_eq!(servers.values().sum::<u64>(), total);
    // The servers' own series have findings only: no empty description in the text.
    let text = stats(&[&cap]);
    let text = String::from_utf8(text.stdout).expect("utf-8");
    assert!(!text.contains(" ():"), "{text}");
    for m in &members {
        assert!(
            text.contains(&format!("\nserver {m}: 0 answers, ")),
            "{text}"
        );
    }
}
