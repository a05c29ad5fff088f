//! SCTP checksums: a CRC32c (RFC 3309, RFC 9260) or, from stacks of RFC 2960's time, an Adler-32
//! is accepted where it matches, as tshark's `sctp.checksum` preference "automatic" accepts
//! either. The frames poolshark finds a wrong checksum in are those tshark finds one in, on the
//! external captures with Adler-32 (nDPI's, tcpdump's ISUP test) and with a wrong CRC32c
//! (pcap4j's), and on copies of them with a checksum byte changed.

use crate::common;

use std::path::Path;
use std::process::Command;

/// The frames whose SCTP checksum is wrong, by tshark with "automatic".
fn tshark_bad(cap: &Path) -> Vec<u64> {
    common::tshark::lines(
        Command::new("tshark")
            .arg("-r")
            .arg(cap)
            .args([
                "-o",
                "sctp.checksum:automatic",
                "-Y",
                "sctp.checksum.status == 0",
            ])
            .args(["-T", "fields", "-e", "frame.number"]),
        "tshark",
    )
    .iter()
    .filter_map(|l| l.parse().ok())
    .collect()
}

/// The frames whose SCTP checksum poolshark reports wrong (`read` lists the error under them),
/// and the frames with SCTP.
fn ours(cap: &Path) -> (Vec<u64>, usize) {
    let out = common::poolshark()
        .args(["read", "--no-progress"])
        .arg(cap)
        .output()
        .expect("poolshark read");
    let text = String::from_utf8_lossy(&out.stdout);
    let (mut bad, mut frame, mut sctp) = (Vec::new(), 0, 0);
    for line in text.lines() {
        if let Some(n) = line.get(..5).and_then(|n| n.trim().parse().ok()) {
            frame = n;
            sctp += usize::from(line.contains(" SCTP ") || line.contains("M3UA"));
        } else if line.contains("SCTP checksum") && bad.last() != Some(&frame) {
            bad.push(frame);
        }
    }
    (bad, sctp)
}

#[test]
fn adler32_and_crc32c_checksums_are_judged_as_tshark_judges_them() {
    if !common::have_tshark() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("poolshark-sctp-sums-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut compared = 0;
    for (name, adler) in [
        ("external/ntop_nDPI_sctp.cap", true),
        ("external/the-tcpdump-group_tcpdump_isup.pcap", true),
        ("external/kaitoy_pcap4j_SctpPacketTest.pcap", false),
    ] {
        let Some(cap) = common::shared_capture(name) else {
            continue;
        };
        let (bad, frames) = ours(&cap);
        assert_eq!(bad, tshark_bad(&cap), "{name}");
        assert!(frames > 0, "{name}: no SCTP frame listed");
        // The README: Adler-32 everywhere in two of them, a wrong CRC32c in pcap4j's.
        assert_eq!(bad.is_empty(), adler, "{name}: {bad:?}");
        // The last byte of every frame changed (its last chunk's): no checksum matches.
        let mut bytes = std::fs::read(&cap).expect("read the capture");
        if bytes.starts_with(&[0xd4, 0xc3, 0xb2, 0xa1]) {
            let mut at = 24;
            while let Some(len) = bytes.get(at + 8..at + 12) {
                let len = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
                if let Some(b) = bytes.get_mut(at + 16 + len - 1) {
                    *b ^= 0x5a;
                }
                at += 16 + len;
            }
            let changed = dir.join(common::file_name(&cap));
            std::fs::write(&changed, &bytes).expect("write");
            let (bad, _) = ours(&changed);
            assert_eq!(bad, tshark_bad(&changed), "{name} changed");
            assert_eq!(bad.len(), frames, "{name} changed: every frame wrong");
        }
        compared += 1;
    }
    std::fs::remove_dir_all(&dir).ok();
    if common::shared_dir().is_some() {
        assert_eq!(compared, 3);
    }
}
