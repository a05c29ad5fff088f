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
        Value::Str(s) => escaped(s),
        _ => f.display_value(),
    }
}

/// Text with control characters escaped as tshark's `-T fields` writes it.
fn escaped(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
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

/// Writes payloads as a pcap of Ethernet frames: DHCPv4 over IPv4 from port 68 to 67, DHCPv6
/// over IPv6 from 546 to 547 (UDP checksums zero: tshark does not check them by default).
pub fn write_pcap(path: &Path, payloads: &[(Kind, Vec<u8>)]) {
    let mut out = Vec::new();
    out.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&4u16.to_le_bytes());
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(&262_144u32.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    for (i, (k, p)) in payloads.iter().enumerate() {
        let (sport, dport): (u16, u16) = match k {
            Kind::V4 => (68, 67),
            Kind::V6 => (546, 547),
        };
        let mut udp = Vec::new();
        udp.extend_from_slice(&sport.to_be_bytes());
        udp.extend_from_slice(&dport.to_be_bytes());
        udp.extend_from_slice(&((8 + p.len()) as u16).to_be_bytes());
        udp.extend_from_slice(&[0, 0]);
        udp.extend_from_slice(p);
        let mut frame = vec![0x33, 0x33, 0, 1, 0, 2, 2, 0, 0, 0, 0, 1];
        match k {
            Kind::V4 => {
                frame.extend_from_slice(&[0x08, 0x00]);
                let total = (20 + udp.len()) as u16;
                let mut ip = vec![0x45, 0];
                ip.extend_from_slice(&total.to_be_bytes());
                ip.extend_from_slice(&[0, 0, 0, 0, 64, 17, 0, 0]);
                ip.extend_from_slice(&[0, 0, 0, 0, 255, 255, 255, 255]);
                let sum = ip_checksum(&ip);
                ip[10..12].copy_from_slice(&sum.to_be_bytes());
                frame.extend_from_slice(&ip);
            }
            Kind::V6 => {
                frame.extend_from_slice(&[0x86, 0xdd]);
                frame.extend_from_slice(&[0x60, 0, 0, 0]);
                frame.extend_from_slice(&(udp.len() as u16).to_be_bytes());
                frame.extend_from_slice(&[17, 1]);
                frame.extend_from_slice(&[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
                frame.extend_from_slice(&[0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2]);
            }
        }
        frame.extend_from_slice(&udp);
        out.extend_from_slice(&(i as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        out.extend_from_slice(&frame);
    }
    std::fs::write(path, out).expect("write pcap");
}

fn ip_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = h
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}
