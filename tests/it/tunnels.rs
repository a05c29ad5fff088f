//! Tunnels: real captures rewritten into every encapsulation poolshark decodes (IP in IP, GRE with
//! and without key, carrying IP, Ethernet with QinQ tags or MPLS, VXLAN, Geneve, outer IPv4
//! fragments, four nested) must read and check exactly as the originals do. The oracle is the
//! original capture, decoded before any tunnel code ran on it; read_vs_tshark.rs compares the
//! same tunnelled captures with tshark.

use crate::common;

use std::path::{Path, PathBuf};

/// The captures rewritten: the fixtures and every shared RSerPool and DHCP capture.
fn captures() -> Vec<PathBuf> {
    let mut caps: Vec<PathBuf> = poolshark::generate::fixtures::ALL
        .iter()
        .map(|f| common::fixture(f.name))
        .collect();
    if let Some(shared) = common::shared_dir() {
        for dir in ["rserpool", "dhcp", "dhcp-kea", "dhcp-failover"] {
            caps.extend(common::captures_under(&shared.join("captures").join(dir)));
        }
    }
    caps
}

/// Arguments a fixture needs to be read (its forced encoding).
fn read_args(capture: &Path) -> Vec<&'static str> {
    poolshark::generate::fixtures::ALL
        .iter()
        .find(|f| {
            capture.ends_with(f.name) && capture.parent().is_some_and(|p| p.ends_with("fixtures"))
        })
        .map(|f| f.read_args.to_vec())
        .unwrap_or_default()
}

/// `read --format jsonl`'s records, with what a tunnel may change left out: the byte offsets of
/// errors (the frame grew in front of them) and, when `renumbered` (outer fragments add frames),
/// the frame numbers.
fn records(capture: &Path, args: &[&str], renumbered: bool) -> Vec<serde_json::Value> {
    let out = common::poolshark()
        .args(["read", "--format", "jsonl"])
        .args(args)
        .arg(capture)
        .output()
        .expect("poolshark runs");
    assert!(out.status.success(), "read failed on {}", capture.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let mut r: serde_json::Value = serde_json::from_str(l).expect("JSON");
            if let Some(errs) = r["errors"].as_array_mut() {
                for e in errs {
                    e["offset"] = serde_json::Value::Null;
                }
            }
            if renumbered {
                r["frame"] = serde_json::Value::Null;
                r["reassembled_from"] = serde_json::Value::Null;
            }
            r
        })
        .collect()
}

/// Fails, showing the first record that differs, unless `tunnelled` holds `original`'s records.
fn assert_same_records(
    what: &str,
    original: &[serde_json::Value],
    tunnelled: &[serde_json::Value],
) {
    if let Some(i) =
        (0..original.len().max(tunnelled.len())).find(|&i| original.get(i) != tunnelled.get(i))
    {
        panic!(
            "{what}: record {i} differs ({} records against {}):\n  original  {}\n  tunnelled {}",
            original.len(),
            tunnelled.len(),
            original.get(i).map(|r| r.to_string()).unwrap_or_default(),
            tunnelled.get(i).map(|r| r.to_string()).unwrap_or_default(),
        );
    }
}

/// `check --format json ARGS CAPTURE`'s report, with the file's name left out.
fn check_report(capture: &Path, args: &[&str]) -> serde_json::Value {
    let out = common::poolshark()
        .args(["check", "--format", "json", "--jobs", "1", "--no-progress"])
        .args(args)
        .arg(capture)
        .output()
        .expect("poolshark runs");
    assert!(
        out.status.code().is_some_and(|c| c < 2),
        "check failed on {}",
        capture.display()
    );
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    if let Some(o) = v.as_object_mut() {
        o.remove("file");
    }
    v
}

/// Fails, showing both, unless the reports are the same.
fn assert_same_report(what: &str, original: &serde_json::Value, tunnelled: &serde_json::Value) {
    assert!(
        tunnelled == original,
        "{what}: check reports differ:\n  original  {}\n  tunnelled {}",
        original.to_string().chars().take(3000).collect::<String>(),
        tunnelled.to_string().chars().take(3000).collect::<String>(),
    );
}

#[test]
fn tunnelled_captures_read_as_the_originals() {
    let mut compared = 0usize;
    let mut messages = 0usize;
    for cap in captures() {
        let args = read_args(&cap);
        for (name, layers, fragment) in common::encapsulations() {
            let t = common::tunnelled(&cap, &layers, fragment, name);
            let original = records(&cap, &args, fragment.is_some());
            let tunnelled = records(&t, &args, fragment.is_some());
            std::fs::remove_file(&t).ok();
            assert_same_records(
                &format!("{} in {name}", cap.display()),
                &original,
                &tunnelled,
            );
            compared += 1;
            messages += original.len();
        }
    }
    assert!(messages > 1000, "only {messages} records compared");
    eprintln!("{compared} tunnelled captures, {messages} records, read as the originals");
}

/// `check`'s report (findings with their frames, the summary, the profile verdicts) is the
/// original's, with the file's name left out.
#[test]
fn tunnelled_captures_check_as_the_originals() {
    let mut caps = vec![common::fixture("demo.pcap")];
    if let Some(shared) = common::shared_dir() {
        let c = shared.join("captures");
        caps.push(c.join("rserpool/rsplib-multi-pe.pcap"));
        caps.push(c.join("rserpool/rsplib-rfc-scenario.pcap"));
        caps.push(c.join("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap"));
        caps.push(c.join("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap"));
    }
    for cap in caps {
        let original = check_report(&cap, &[]);
        assert!(original["findings"].is_array(), "{}", cap.display());
        for (name, layers, fragment) in common::encapsulations() {
            if fragment.is_some() {
                // Frame numbers move: the read test compares those captures' messages.
                continue;
            }
            let t = common::tunnelled(&cap, &layers, fragment, name);
            let got = check_report(&t, &[]);
            std::fs::remove_file(&t).ok();
            assert_same_report(&format!("{} in {name}", cap.display()), &original, &got);
        }
    }
}

/// VXLAN and Geneve on ports of their own: Linux's old VXLAN port 8472, and Geneve moved onto
/// VXLAN's 4789. With the decode-as rules tshark takes for them (`-d udp.port==8472,vxlan`, in
/// either spelling) every capture reads as the original and `check` reports what it reports on the
/// original; without the rule nothing inside the tunnel on 8472 is decoded, as in tshark.
#[test]
fn tunnels_on_other_ports_decode_with_decode_as_rules() {
    // A tunnel is given a UDP port only: anything else is a usage error that says so.
    let out = common::poolshark()
        .args(["read", "-d", "tcp.port==8472:vxlan"])
        .arg(common::fixture("demo.pcap"))
        .output()
        .expect("poolshark runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("VXLAN is carried over UDP: use udp.port==N:vxlan"),
        "{err}"
    );
    let mut messages = 0usize;
    for cap in captures() {
        let args = read_args(&cap);
        let original = records(&cap, &args, false);
        for (name, layer, rule) in common::tunnels_on_decode_as_ports() {
            let t = common::tunnelled(&cap, std::slice::from_ref(&layer), None, name);
            let with_rule: Vec<&str> = args.iter().copied().chain(["-d", rule]).collect();
            let tunnelled = records(&t, &with_rule, false);
            assert_same_records(
                &format!("{} in {name} with -d {rule}", cap.display()),
                &original,
                &tunnelled,
            );
            if name == "vxlan-8472" {
                let without = records(&t, &args, false);
                assert!(
                    without.is_empty(),
                    "{} in {name} without a rule: {} messages decoded, e.g. {}",
                    cap.display(),
                    without.len(),
                    without[0]
                );
            }
            if cap.ends_with("demo.pcap") || cap.ends_with("kea-2.2-ha-load-balancing-v6.pcap") {
                let want = check_report(&cap, &args);
                let got = check_report(&t, &with_rule);
                assert_same_report(&format!("{} in {name}", cap.display()), &want, &got);
            }
            std::fs::remove_file(&t).ok();
            messages += original.len();
        }
    }
    assert!(messages > 1000, "only {messages} records compared");
}
