//! Support for the DHCP integration tests: a minimal capture reader, tshark runs, and our decoders'
//! values in tshark's `-T fields` form.
#![allow(dead_code)]

pub mod pcap;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use poolshark::field::{find_all, Field, Value};
use poolshark::proto::{dhcpv4, dhcpv6};

/// tshark's values of `fields` for every frame matching `filter`: frame number -> one string per
/// field, repeated occurrences joined by `|`.
pub fn tshark_fields(path: &Path, filter: &str, fields: &[&str]) -> BTreeMap<u64, Vec<String>> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-r")
        .arg(path)
        .args(["-Y", filter, "-T", "fields", "-E", "occurrence=a", "-E"])
        .arg("aggregator=|")
        .args(["-E", "separator=/t", "-e", "frame.number"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("tshark runs");
    assert!(
        out.status.success(),
        "tshark failed on {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut map = BTreeMap::new();
    for line in text.lines() {
        let mut cols = line.split('\t');
        let n: u64 = cols
            .next()
            .and_then(|s| s.parse().ok())
            .expect("frame number");
        let vals: Vec<String> = cols.map(str::to_string).collect();
        map.insert(n, vals);
    }
    map
}

/// A value as `tshark -T fields` prints it.
pub fn tshark_text(f: &Field) -> String {
    match &f.value {
        Value::Bool(b) => if *b { "1" } else { "0" }.to_string(),
        _ => f.display_value(),
    }
}

/// Every value of `name` in the tree, in order, joined by `|`.
pub fn values(tree: &[Field], name: &str) -> String {
    find_all(tree, name)
        .into_iter()
        .map(tshark_text)
        .collect::<Vec<_>>()
        .join("|")
}

/// Which decoder a UDP datagram goes to, by port, as Wireshark registers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    V4,
    V6,
}

pub fn kind(sport: u16, dport: u16) -> Option<Kind> {
    let is = |p: &[u16]| p.contains(&sport) || p.contains(&dport);
    if is(&[67, 68]) {
        Some(Kind::V4)
    } else if is(&[546, 547]) {
        Some(Kind::V6)
    } else {
        None
    }
}

/// The display tree, info text and error count of one payload.
pub fn decode(kind: Kind, payload: &[u8]) -> (Vec<Field>, String, usize) {
    match kind {
        Kind::V4 => {
            let (m, e) = dhcpv4::parse(payload);
            (m.fields(), m.info(), e.len())
        }
        Kind::V6 => {
            let (m, e) = dhcpv6::parse(payload);
            (m.fields(), m.info(), e.len())
        }
    }
}
