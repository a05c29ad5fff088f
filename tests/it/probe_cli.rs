//! `poolshark probe` without servers. `--dry-run` against independent oracles: the packets it
//! would send, written to a capture and decoded by tshark, are a DISCOVER / SOLICIT that only
//! asks (secs / elapsed time 0, no Rapid Commit, no Server Identifier, no requested address),
//! and the key tshark reads in each, hashed with the RFC 3074 Pearson table of the shared specs
//! (not poolshark's hash module), falls in the bucket the probe states, one packet per bucket.
//! Mistakes and a missing CAP_NET_RAW are refused with exit 2 and a message saying what to do.
//! (The probe against real servers: tests/e2e.)

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::common::{self, poolshark, rfc3074_bucket, rfc3074_table};
use poolshark::base::Timestamp;
use poolshark::generate::{PcapWriter, TsResolution};

struct Temp(PathBuf);

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn dry_run(args: &[&str]) -> serde_json::Value {
    let out = poolshark()
        .args(["probe", "--dry-run", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| c.is_ascii_hexdigit()).collect();
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// The dry run's frames in a pcap, in order (frame n is packet n - 1).
fn capture_of(v: &serde_json::Value, name: &str) -> Temp {
    let path = std::env::temp_dir().join(format!(
        "poolshark-probe-dry-{name}-{}.pcap",
        std::process::id()
    ));
    let f = std::fs::File::create(&path).unwrap();
    let mut w = PcapWriter::new(f, 1, TsResolution::Micro).unwrap();
    for (i, p) in v["packets"].as_array().unwrap().iter().enumerate() {
        let frame = unhex(p["frame"].as_str().unwrap());
        w.write(Timestamp::new(1_800_000_000, i as u32 * 1000), &frame)
            .unwrap();
    }
    drop(w);
    Temp(path)
}

const FIELDS: [&str; 10] = [
    "dhcp.option.dhcp",
    "dhcp.secs",
    "dhcp.flags.bc",
    "dhcp.hw.mac_addr",
    "dhcp.option.type",
    "dhcp.option.value",
    "dhcpv6.msgtype",
    "dhcpv6.elapsed_time",
    "dhcpv6.duid.bytes",
    "dhcpv6.option.type",
];

/// tshark's values of [`FIELDS`], per frame, as tshark writes them (byte strings stay hex).
fn tshark_fields(capture: &std::path::Path) -> Vec<BTreeMap<String, Vec<String>>> {
    let mut cmd = std::process::Command::new("tshark");
    cmd.arg("-n").arg("-r").arg(capture);
    cmd.args(["-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"]);
    for f in FIELDS {
        cmd.args(["-e", f]);
    }
    common::tshark::lines(&mut cmd, "tshark")
        .iter()
        .map(|line| {
            FIELDS
                .iter()
                .zip(line.split('\t'))
                .filter(|(_, col)| !col.is_empty())
                .map(|(f, col)| (f.to_string(), col.split(',').map(str::to_string).collect()))
                .collect()
        })
        .collect()
}

fn first(r: &BTreeMap<String, Vec<String>>, f: &str) -> String {
    r.get(f)
        .and_then(|v| v.first().cloned())
        .unwrap_or_default()
}

#[test]
fn dry_run_lists_one_key_per_bucket_under_the_rfc3074_hash() {
    let Some(table) = rfc3074_table() else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    for (family, key) in [
        ("--dhcpv4", "chaddr"),
        ("--dhcpv4", "client-id"),
        ("--dhcpv6", "duid-ll"),
        ("--dhcpv6", "duid-en"),
    ] {
        let v = dry_run(&[family, "--buckets", "all", "--key", key]);
        let packets = v["packets"].as_array().unwrap();
        assert_eq!(packets.len(), 256, "{key}");
        let cap = capture_of(&v, key);
        let decoded = tshark_fields(&cap.0);
        assert_eq!(decoded.len(), 256, "{key}: tshark decodes every frame");
        for (i, p) in packets.iter().enumerate() {
            let r = &decoded[i];
            // One packet per bucket, in bucket order.
            assert_eq!(p["bucket"].as_u64(), Some(i as u64), "{key}");
            let key_from_tshark = if family == "--dhcpv4" {
                assert_eq!(first(r, "dhcp.option.dhcp"), "1", "DISCOVER");
                assert_eq!(first(r, "dhcp.secs"), "0");
                assert_eq!(
                    first(r, "dhcp.flags.bc"),
                    "1",
                    "asks for a broadcast answer"
                );
                let types = &r["dhcp.option.type"];
                for never in ["50", "54", "80"] {
                    assert!(!types.contains(&never.to_string()), "option {never}");
                }
                // Option 61's whole payload when present, else chaddr (NOTES.md section 2).
                let values = &r["dhcp.option.value"];
                let id = types
                    .iter()
                    .filter(|t| *t != "0" && *t != "255")
                    .zip(values)
                    .find(|(t, _)| *t == "61")
                    .map(|(_, v)| unhex(v));
                assert_eq!(id.is_some(), key == "client-id");
                id.unwrap_or_else(|| unhex(&first(r, "dhcp.hw.mac_addr")))
            } else {
                assert_eq!(first(r, "dhcpv6.msgtype"), "1", "SOLICIT");
                assert_eq!(first(r, "dhcpv6.elapsed_time"), "0");
                let types = &r["dhcpv6.option.type"];
                for never in ["2", "14"] {
                    assert!(!types.contains(&never.to_string()), "option {never}");
                }
                unhex(&first(r, "dhcpv6.duid.bytes"))
            };
            assert_eq!(
                unhex(p["key"].as_str().unwrap()),
                key_from_tshark,
                "{key}: the stated key is the one on the wire"
            );
            assert_eq!(
                u64::from(rfc3074_bucket(&table, &key_from_tshark)),
                p["bucket"].as_u64().unwrap(),
                "{key}: key {} hashes to the bucket stated",
                p["key"]
            );
        }
    }
}

#[test]
fn dry_run_takes_a_subset_and_a_profile() {
    let v = dry_run(&["--dhcpv4", "--buckets", "0-3,200", "--profile", "isc"]);
    let buckets: Vec<u64> = v["packets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["bucket"].as_u64().unwrap())
        .collect();
    assert_eq!(buckets, [0, 1, 2, 3, 200]);
    assert_eq!(v["profiles"], serde_json::json!(["isc"]));
    // Text: a line per packet.
    let out = poolshark()
        .args(["probe", "--dry-run", "--dhcpv6", "--buckets", "7"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("bucket")).count(),
        1,
        "{text}"
    );
    assert!(text.contains("SOLICIT"), "{text}");
}

#[test]
fn mistakes_are_refused_with_exit_2() {
    for (args, says) in [
        (
            &["--dhcpv6", "--profile", "isc"][..],
            "does not balance DHCPv6",
        ),
        (&["--dhcpv4", "--buckets", "300"][..], "not a bucket"),
        (&["--dhcpv4", "--rate", "1000"][..], "--force"),
        (&["--dhcpv4", "--key", "duid-ll"][..], "DHCPv6 key"),
        (&["--dhcpv4", "--hba", "split:999"][..], "out of range"),
    ] {
        let out = poolshark()
            .args(["probe", "--dry-run"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// Without CAP_NET_RAW the probe says what it needs. As root the test drops root for the
/// probe with setpriv (util-linux); otherwise the test's own user lacks it already.
#[cfg(target_os = "linux")]
#[test]
fn without_cap_net_raw_the_probe_says_what_it_needs() {
    let root = unsafe_euid() == 0;
    let mut cmd = if root {
        let mut c = std::process::Command::new("setpriv");
        c.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
        ])
        .arg(env!("CARGO_BIN_EXE_poolshark"));
        c
    } else {
        poolshark()
    };
    cmd.args(["probe", "-i", "lo", "--dhcpv4", "--buckets", "0"]);
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => {
            poolshark::test_support::skip(format_args!("setpriv cannot run: {e}"));
            return;
        }
    };
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("CAP_NET_RAW") && err.contains("--dry-run"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[cfg(target_os = "linux")]
fn unsafe_euid() -> u32 {
    // SAFETY: geteuid has no arguments and cannot fail.
    unsafe { libc::geteuid() }
}
