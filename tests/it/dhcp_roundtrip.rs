//! Round trips and malformed input over the shared DHCP captures: every payload that decodes
//! without error is emitted back to exactly its bytes; parse(emit(m)) == m for every payload; the
//! malformed captures give errors; cut and mutated payloads never panic and report offsets inside
//! the buffer.

use crate::common::{self, Rng};
use crate::dhcp_support;

use std::path::PathBuf;

use dhcp_support::{kind, pcap, Kind};
use poolshark::proto::{dhcpv4, dhcpv6};

/// One DHCP payload: file, frame, decoder, bytes.
type Payload = (String, u64, Kind, Vec<u8>);

/// Every DHCP payload of the shared captures.
fn payloads() -> Option<Vec<Payload>> {
    let shared = common::shared_dir()?;
    let mut out = Vec::new();
    for dir in ["dhcp", "dhcp-kea", "dhcp-failover"] {
        let d = shared.join("captures").join(dir);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let n = p.to_string_lossy();
                n.ends_with(".pcap") || n.ends_with(".pcapng")
            })
            .collect();
        files.sort();
        for f in files {
            let name = f.file_name()?.to_string_lossy().into_owned();
            let bytes = std::fs::read(&f).ok()?;
            for u in pcap::udp_datagrams(&bytes) {
                if let Some(k) = kind(u.sport, u.dport) {
                    out.push((name.clone(), u.frame, k, u.payload));
                }
            }
        }
    }
    Some(out)
}

/// Decodes, checks the error offsets, emits; returns (error count, emitted bytes, re-parse equal).
fn round(k: Kind, b: &[u8]) -> (usize, Vec<u8>, bool) {
    match k {
        Kind::V4 => {
            let (m, e) = dhcpv4::parse(b);
            for x in &e {
                assert!(
                    x.offset <= b.len(),
                    "error offset {} past {}",
                    x.offset,
                    b.len()
                );
            }
            let out = m.emit();
            let equal = dhcpv4::parse(&out).0 == m;
            let _ = (m.fields(), m.info());
            (e.len(), out, equal)
        }
        Kind::V6 => {
            let (m, e) = dhcpv6::parse(b);
            for x in &e {
                assert!(
                    x.offset <= b.len(),
                    "error offset {} past {}",
                    x.offset,
                    b.len()
                );
            }
            let out = m.emit();
            let equal = dhcpv6::parse(&out).0 == m;
            let _ = (m.fields(), m.info());
            (e.len(), out, equal)
        }
    }
}

#[test]
fn captures_round_trip_exactly() {
    let Some(all) = payloads() else {
        return;
    };
    let mut exact = 0;
    let mut with_errors = Vec::new();
    for (file, frame, k, b) in &all {
        let (errors, out, reparsed_equal) = round(*k, b);
        if errors == 0 {
            assert_eq!(&out, b, "{file} frame {frame}: emit differs from the wire");
            exact += 1;
        } else {
            with_errors.push(format!("{file}:{frame}"));
        }
        // Malformed or not, what was decoded survives a round trip through bytes.
        if errors == 0 {
            assert!(reparsed_equal, "{file} frame {frame}: parse(emit(m)) != m");
        }
    }
    // The shared captures hold 8,000+ DHCP payloads; the malformed ones are the nine frames the
    // tshark test lists.
    assert!(exact > 5000, "only {exact} exact round trips");
    assert_eq!(with_errors.len(), 9, "{with_errors:?}");
}

#[test]
fn malformed_captures_give_errors() {
    let Some(all) = payloads() else {
        return;
    };
    for (file, _, k, b) in &all {
        if file.contains("asan")
            || file.contains("bad_cookie") && b.get(236..240) != Some(&[99, 130, 83, 99])
        {
            let (errors, _, _) = round(*k, b);
            assert!(errors > 0, "{file}: no error");
        }
    }
}

#[test]
fn cut_and_mutated_payloads_never_panic() {
    let Some(all) = payloads() else {
        return;
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut runs = 0usize;
    // Every cut of a sample of payloads, and random byte changes, insertions and deletions.
    for (i, (_, _, k, b)) in all.iter().enumerate() {
        if i % 16 == 0 {
            for n in 0..b.len() {
                round(*k, &b[..n]);
                runs += 1;
            }
        }
        for _ in 0..8 {
            let mut m = b.clone();
            for _ in 0..=rng.below(4) {
                let at = rng.below(m.len() + 1);
                match rng.below(4) {
                    0 if at < m.len() => m[at] = rng.next() as u8,
                    1 if at < m.len() => {
                        m.remove(at);
                    }
                    2 => m.insert(at, rng.next() as u8),
                    // Lengths and types are where parsers go wrong: aim at small values.
                    _ if at < m.len() => m[at] = [0, 1, 2, 3, 4, 9, 12, 13, 0xff][rng.below(9)],
                    _ => {}
                }
            }
            round(*k, &m);
            runs += 1;
        }
    }
    assert!(runs > 50_000, "{runs}");
}
