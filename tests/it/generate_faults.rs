//! `generate --faults K` against `check` and tshark: at several seeds, `check` reports exactly
//! the findings the generator lists in OUT.faults.json (each at its frame, under its rule) and
//! nothing else at warning or above, and without `--faults` it exits 0. tshark, not poolshark,
//! says what each planted frame is: an ASAP Handle Resolution Response for the RSerPool kinds
//! (listing a PE twice for `duplicate-pe`, a PE no registration in the capture names for
//! `unknown-pe`), a DHCP server's answer for `wrong-server` and `double-answer`, a client's
//! request for `no-answer`, a failover BNDUPD for the balance kinds.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Faults of each kind planted per run.
const K: usize = 3;
/// The kinds the default mix plants (`generate --help`), as `check` names them.
const KINDS: [&str; 9] = [
    "rserpool.duplicate-pe",
    "rserpool.unknown-pe",
    "rserpool.order",
    "rserpool.rr-head-stuck",
    "dhcp.lb.wrong-server",
    "dhcp.lb.double-answer",
    "dhcp.lb.no-answer",
    "failover.affinity",
    "failover.overbalance",
];

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Self {
        let d = std::env::temp_dir().join(format!(
            "poolshark-generate-faults-{}-{tag}",
            std::process::id()
        ));
        std::fs::create_dir_all(&d).expect("temp dir");
        Dir(d)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// 100,000 frames at 100 a second: 1,000 s of traffic, room for the failover pair's balance
/// runs (about one a minute per server) to take their faults.
fn generate(out: &Path, seed: u64, faults: usize) {
    let o = common::poolshark()
        .args(["generate", "--frames", "100000", "--rate", "100", "--out"])
        .arg(out)
        .args(["--seed", &seed.to_string(), "--faults", &faults.to_string()])
        .output()
        .expect("poolshark runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "generate --seed {seed}: {err}");
    assert!(
        !err.contains("ended before"),
        "generate --seed {seed}: every fault must find a place: {err}"
    );
}

/// `check --format json`: its exit code and its findings at warning or above, (frame, rule).
fn check(cap: &Path) -> (i32, BTreeSet<(u64, String)>) {
    let o = common::poolshark()
        .args(["check", "--format", "json"])
        .arg(cap)
        .output()
        .expect("poolshark runs");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "check --format json: {e}: {}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    let found = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| matches!(f["severity"].as_str(), Some("warning" | "error")))
        .map(|f| {
            (
                f["frame"].as_u64().expect("frame"),
                f["rule"].as_str().expect("rule").to_string(),
            )
        })
        .collect();
    (o.status.code().unwrap_or(-1), found)
}

/// tshark's view of the planted frames, and every PE identifier the capture's registrations
/// name.
fn tshark_view(
    cap: &Path,
    frames: &BTreeSet<u64>,
) -> (BTreeMap<u64, Vec<String>>, BTreeSet<String>) {
    let planted: Vec<String> = frames.iter().map(u64::to_string).collect();
    let filter = format!(
        "asap.message_type == 1 || frame.number in {{{}}}",
        planted.join(", ")
    );
    let fields = [
        "frame.number",
        "asap.message_type",
        "asap.pool_element_pe_identifier",
        "udp.srcport",
        "udp.dstport",
        "dhcp.option.dhcp",
        "dhcpv6.msgtype",
        "dhcpfo.type",
    ];
    let mut cmd = Command::new("tshark");
    cmd.args(["-n", "-r"]).arg(cap).args(["-Y", &filter]);
    cmd.args(["-T", "fields", "-E", "occurrence=a", "-E", "aggregator=|"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let o = cmd.output().expect("tshark runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut rows = BTreeMap::new();
    let mut registered = BTreeSet::new();
    for line in String::from_utf8_lossy(&o.stdout).lines() {
        let cols: Vec<String> = line.split('\t').map(str::to_string).collect();
        let n: u64 = cols[0].parse().expect("frame number");
        if cols[1] == "1" {
            registered.extend(cols[2].split('|').map(str::to_string));
        }
        if frames.contains(&n) {
            rows.insert(n, cols);
        }
    }
    (rows, registered)
}

/// What tshark must show at a frame planted under `rule`.
fn assert_frame_is(rule: &str, cols: &[String], registered: &BTreeSet<String>) {
    let [_, asap, pes, sport, dport, v4, v6, fo] = cols else {
        panic!("tshark columns: {cols:?}");
    };
    let ids: Vec<&str> = pes.split('|').filter(|s| !s.is_empty()).collect();
    let server_port = |p: &str| p == "67" || p == "547";
    match rule {
        r if r.starts_with("rserpool.") => {
            assert_eq!(asap, "6", "{rule}: a Handle Resolution Response: {cols:?}");
            let distinct: BTreeSet<&str> = ids.iter().copied().collect();
            match r {
                "rserpool.duplicate-pe" => assert!(distinct.len() < ids.len(), "{cols:?}"),
                "rserpool.unknown-pe" => {
                    assert!(ids.iter().any(|id| !registered.contains(*id)), "{cols:?}")
                }
                _ => assert_eq!(distinct.len(), ids.len(), "{rule}: {cols:?}"),
            }
        }
        "dhcp.lb.wrong-server" | "dhcp.lb.double-answer" => {
            // OFFER or ACK; ADVERTISE or REPLY.
            assert!(server_port(sport), "{rule}: from a server: {cols:?}");
            assert!(
                matches!(v4.as_str(), "2" | "5") || matches!(v6.as_str(), "2" | "7"),
                "{rule}: an answer: {cols:?}"
            );
        }
        "dhcp.lb.no-answer" => {
            assert!(server_port(dport), "{rule}: to a server: {cols:?}");
            assert!(!server_port(sport) || sport == "67", "{rule}: {cols:?}");
        }
        // BNDUPD.
        r if r.starts_with("failover.") => assert_eq!(fo, "3", "{rule}: {cols:?}"),
        _ => panic!("unexpected rule {rule}"),
    }
}

#[test]
fn check_finds_exactly_the_planted_faults_at_every_seed() {
    for seed in [1u64, 2, 3, 4] {
        let dir = Dir::new(&seed.to_string());
        let clean = dir.0.join("clean.pcap");
        generate(&clean, seed, 0);
        let (code, found) = check(&clean);
        assert_eq!(
            (code, &found),
            (0, &BTreeSet::new()),
            "seed {seed}: the generator's own traffic follows the references"
        );
        assert!(
            !dir.0.join("clean.pcap.faults.json").exists(),
            "no faults file without --faults"
        );

        let cap = dir.0.join("faults.pcap");
        generate(&cap, seed, K);
        let text = std::fs::read_to_string(dir.0.join("faults.pcap.faults.json"))
            .expect("OUT.faults.json");
        let list: serde_json::Value = serde_json::from_str(&text).expect("faults JSON");
        let planted: BTreeSet<(u64, String)> = list
            .as_array()
            .expect("a list")
            .iter()
            .map(|p| {
                (
                    p["frame"].as_u64().expect("frame"),
                    p["rule"].as_str().expect("rule").to_string(),
                )
            })
            .collect();
        // K of each kind, each on a frame of its own (the default Kea pair balances REQUEST,
        // so a wrong server is one finding, not two).
        for kind in KINDS {
            let n = planted.iter().filter(|(_, r)| r == kind).count();
            assert_eq!(n, K, "seed {seed}: {kind} planted {n} times: {text}");
        }
        assert_eq!(planted.len(), K * KINDS.len(), "seed {seed}: {text}");

        let (code, found) = check(&cap);
        assert_eq!(code, 1, "seed {seed}: check reports findings");
        let missing: Vec<_> = planted.difference(&found).collect();
        let extra: Vec<_> = found.difference(&planted).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "seed {seed}: planted but not found {missing:?}; found but not planted {extra:?}"
        );

        if common::have_tshark() {
            let frames: BTreeSet<u64> = planted.iter().map(|(f, _)| *f).collect();
            let (rows, registered) = tshark_view(&cap, &frames);
            assert!(!registered.is_empty(), "seed {seed}: registrations seen");
            for (frame, rule) in &planted {
                let cols = rows
                    .get(frame)
                    .unwrap_or_else(|| panic!("seed {seed}: tshark lacks frame {frame}"));
                assert_frame_is(rule, cols, &registered);
            }
        }
    }
}

#[test]
fn same_seed_and_faults_same_bytes_and_list() {
    let dir = Dir::new("same");
    let a = dir.0.join("a.pcap");
    let b = dir.0.join("b.pcap");
    generate(&a, 9, 1);
    generate(&b, 9, 1);
    let read = |p: &Path| std::fs::read(p).expect("read");
    assert!(read(&a) == read(&b), "same seed and --faults, same bytes");
    let list = |p: &Path| {
        let mut s = p.as_os_str().to_owned();
        s.push(".faults.json");
        std::fs::read(PathBuf::from(s)).expect("faults file")
    };
    assert_eq!(list(&a), list(&b));
    // --faults needs a file to write the list beside.
    let o = common::poolshark()
        .args(["generate", "--out", "-", "--faults", "1", "--frames", "10"])
        .output()
        .expect("poolshark runs");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("faults.json"));
}
