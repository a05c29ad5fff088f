//! `poolshark rules`: the finding rules `check` can report, against what `check` reports.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

/// `poolshark rules --format json` as (id, severities) pairs, in its order.
pub fn listed() -> Vec<(String, Vec<String>)> {
    let out = common::poolshark()
        .args(["rules", "--format", "json"])
        .output()
        .expect("poolshark runs");
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v.as_array()
        .expect("an array")
        .iter()
        .map(|r| {
            let id = r["rule"].as_str().expect("rule").to_string();
            assert!(!r["meaning"].as_str().unwrap_or_default().is_empty(), "{r}");
            let severities = r["severities"]
                .as_array()
                .expect("severities")
                .iter()
                .map(|s| s.as_str().expect("a name").to_string())
                .collect();
            (id, severities)
        })
        .collect()
}

/// Every finding `check` reports on the fixtures, the shared captures and a generated capture
/// with planted faults carries a rule and a severity `rules` lists; the text listing has one
/// line per rule.
#[test]
fn every_finding_check_reports_is_a_listed_rule() {
    let listed: BTreeMap<String, Vec<String>> = listed().into_iter().collect();
    let mut captures: Vec<std::path::PathBuf> = std::fs::read_dir(common::fixture(""))
        .expect("fixtures")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pcap"))
        .collect();
    match common::shared_dir() {
        Some(shared) => captures.extend(common::captures_under(&shared.join("captures"))),
        None => eprintln!("../shared is absent: the fixtures and a generated capture only"),
    }
    let planted = std::env::temp_dir().join(format!("poolshark-rules-{}.pcap", std::process::id()));
    let st = common::poolshark()
        .args([
            "generate", "--frames", "100000", "--seed", "3", "--faults", "2", "--out",
        ])
        .arg(&planted)
        .output()
        .expect("generate runs");
    assert!(st.status.success(), "{st:?}");
    captures.push(planted.clone());
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    for c in &captures {
        let out = common::poolshark()
            .args(["check", "--no-progress", "--format", "json"])
            .arg(c)
            .output()
            .expect("check runs");
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{}: {out:?}",
            c.display()
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        for f in v["findings"].as_array().into_iter().flatten() {
            let rule = f["rule"].as_str().expect("rule").to_string();
            let severity = f["severity"].as_str().expect("severity").to_string();
            seen.insert((rule, severity));
        }
    }
    let _ = std::fs::remove_file(&planted);
    let _ = std::fs::remove_file(planted.with_extension("pcap.faults.json"));
    for (rule, severity) in &seen {
        let severities = listed
            .get(rule)
            .unwrap_or_else(|| panic!("check reported {rule}, which `rules` does not list"));
        assert!(
            severities.contains(severity),
            "check reported {rule} as {severity}; `rules` lists {severities:?}"
        );
    }
    // Most rules appear somewhere in these captures (each family at least once).
    for family in ["rserpool.", "dhcp.lb.", "failover."] {
        assert!(
            seen.iter().any(|(r, _)| r.starts_with(family)),
            "no {family} finding in {seen:?}"
        );
    }
    let text = common::poolshark()
        .arg("rules")
        .output()
        .expect("poolshark runs");
    let text = String::from_utf8_lossy(&text.stdout);
    assert_eq!(text.lines().count(), listed.len(), "{text}");
    for (id, severities) in &listed {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .unwrap_or_else(|| panic!("{id} missing from\n{text}"));
        assert!(line.contains(&severities.join(",")), "{line}");
    }
}
