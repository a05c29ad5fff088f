//! `poolshark check` on the real ISC DHCP failover pair: the failover analyser through the whole
//! pipeline. The README of the capture is the oracle: under ISC's code no balance run deviates;
//! the man page's skip rule (isc-doc) would have skipped 26 runs that moved leases.

use crate::common;

fn check(profile: &str) -> (i32, serde_json::Value) {
    let cap = common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap")
        .expect("checked by the caller");
    // The pair's settings (common.inc): min-balance 5, max-balance 30; misbalance and ownership
    // are dhcpd's defaults, 15 and 10.
    let out = common::poolshark()
        .args([
            "check",
            "--format",
            "json",
            "--min-balance",
            "5",
            "--max-balance",
            "30",
        ])
        .args(["--profile", profile])
        .arg(&cap)
        .output()
        .expect("poolshark runs");
    let json = serde_json::from_slice(&out.stdout).expect("JSON report");
    (out.status.code().unwrap_or(-1), json)
}

#[test]
fn isc_code_finds_nothing_and_reports_the_pool() {
    if common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap").is_none() {
        return;
    }
    let (code, j) = check("isc-code");
    let failover_findings: Vec<_> = j["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| {
            f["rule"]
                .as_str()
                .is_some_and(|r| r.starts_with("failover."))
        })
        .collect();
    assert!(failover_findings.is_empty(), "{failover_findings:?}");
    assert_eq!(j["failover"]["primary"], "192.0.2.1");
    assert_eq!(j["failover"]["secondary"], "192.0.2.2");
    let pools = j["failover"]["pools"].as_array().expect("pools");
    assert_eq!(pools.len(), 1);
    assert_eq!(pools[0]["pool"], "192.0.2.0/24");
    // 60 addresses in the pool (192.0.2.100-159): every one is free, backup or active at the end.
    let n = |k: &str| pools[0][k].as_u64().unwrap_or(0);
    assert!(n("free") + n("backup") + n("active") <= 60);
    assert!(n("free") + n("backup") >= 50, "{}", pools[0]);
    if j["findings"].as_array().is_some_and(|f| f.is_empty()) {
        assert_eq!(code, 0);
    }
}

#[test]
fn isc_doc_reports_the_runs_the_man_page_would_skip() {
    if common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap").is_none() {
        return;
    }
    let (code, j) = check("isc-doc");
    let fo: Vec<&serde_json::Value> = j["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| {
            f["rule"]
                .as_str()
                .is_some_and(|r| r.starts_with("failover."))
        })
        .collect();
    // README: 26 runs moved leases while lts was below misbalance x (free + backup).
    let skipped = fo
        .iter()
        .filter(|f| {
            f["message"]
                .as_str()
                .is_some_and(|m| m.contains("skips a run"))
        })
        .count();
    assert_eq!(skipped, 26, "{fo:#?}");
    assert!(fo.iter().all(|f| f["failover_pool"] == "192.0.2.0/24"));
    assert_eq!(code, 1, "warnings fail the default --fail-on warning");
}
