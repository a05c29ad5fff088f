//! `poolshark read -Y FILTER -w FILE` against `tshark -2 -Y FILTER -w FILE`: the same frames,
//! in the same order, with the same bytes, times, link layers, interface names, comments and
//! flags, read back by tshark. A frame kept brings the frames its reassembled messages began in,
//! as tshark's two passes do.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What tshark sees in a capture: per frame its time, lengths, protocol stack and bytes, and with
/// `pcapng` its interface's names, its comments and its flags (a pcap has none of them).
fn tshark_view(capture: &Path, pcapng: bool) -> String {
    let mut tshark = Command::new("tshark");
    tshark
        .args(["-n", "-r"])
        .arg(capture)
        .args(["-T", "fields", "-e", "frame.time_epoch", "-e", "frame.len"])
        .args(["-e", "frame.cap_len", "-e", "frame.protocols"]);
    if pcapng {
        tshark
            .args([
                "-e",
                "frame.interface_name",
                "-e",
                "frame.interface_description",
            ])
            .args(["-e", "frame.comment", "-e", "frame.packet_flags"]);
    }
    let fields = tshark.output().expect("tshark runs");
    assert!(
        fields.status.success(),
        "{}",
        String::from_utf8_lossy(&fields.stderr)
    );
    let hex = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(capture)
        .arg("-x")
        .output()
        .expect("tshark runs");
    assert!(
        hex.status.success(),
        "{}",
        String::from_utf8_lossy(&hex.stderr)
    );
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&fields.stdout),
        String::from_utf8_lossy(&hex.stdout)
    )
}

fn out_path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("read_write");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir.join(name)
}

/// `poolshark read CAPTURE -Y FILTER -w OUT`: succeeds and lists nothing; returns the frames it
/// wrote (from its summary line).
pub(crate) fn poolshark_write(capture: &Path, filter: &str, out_file: &Path) -> u64 {
    let out = common::poolshark()
        .arg("read")
        .arg(capture)
        .args(["-Y", filter, "-w"])
        .arg(out_file)
        .output()
        .expect("run poolshark");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(out.stdout.is_empty(), "-w without -P lists nothing");
    stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix("poolshark: wrote ")?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no 'wrote N frames' line: {stderr}"))
}

/// Writes `capture`'s frames that pass `filter` with poolshark and with tshark; returns the
/// frames poolshark wrote (from its summary line).
fn both_write(capture: &Path, filter: &str, tag: &str) -> u64 {
    let ours = out_path(&format!("{tag}.poolshark.pcapng"));
    let theirs = out_path(&format!("{tag}.tshark.pcapng"));
    let written = poolshark_write(capture, filter, &ours);
    let t = Command::new("tshark")
        .args(["-n", "-2", "-r"])
        .arg(capture)
        .args(["-Y", filter, "-w"])
        .arg(&theirs)
        .output()
        .expect("tshark runs");
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
    let (a, b) = (tshark_view(&ours, true), tshark_view(&theirs, true));
    assert!(
        a == b,
        "{} -Y '{filter}': poolshark wrote\n{a}\ntshark -2 wrote\n{b}",
        capture.display()
    );
    written
}

#[test]
fn a_kept_frame_brings_the_fragments_of_its_message() {
    if !common::have_tshark() {
        return;
    }
    let cap = common::fixture("rserpool-sctp-chunks.pcap");
    // Frames 8 and 13 complete ASAP messages sent in three and four DATA / I-DATA fragments.
    let n = both_write(
        &cap,
        "frame.number == 8 || frame.number == 13",
        "sctp-chunks",
    );
    assert_eq!(n, 8, "the two frames and the six that began their messages");
    // A frame kept for itself and as a fragment is written once.
    let n = both_write(
        &cap,
        "frame.number >= 6 && frame.number <= 8",
        "sctp-chunks-2",
    );
    assert_eq!(n, 4);
}

#[test]
fn the_frames_kept_are_tsharks_on_the_shared_captures() {
    if !common::have_tshark() {
        return;
    }
    let cases = [
        ("rserpool/rsplib-2007-legacy-draft.pcap", "enrp", 545),
        ("rserpool/rsplib-multi-pe.pcap", "asap.message_type == 3", 0),
        (
            "rserpool/rsplib-multi-pe.pcap",
            "asap.pool_handle_pool_handle == \"LU-Pool\"",
            246,
        ),
        (
            "dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap",
            "dhcpv6.msgtype == 1",
            0,
        ),
        ("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap", "dhcpfo", 0),
        ("dhcp/zeek_dhcp.pcap", "dhcp", 0),
        ("dhcp/tcpdump_dhcp-option-108.pcapng", "dhcp", 0),
        (
            "rserpool/asap-enrp-coverage.pcap",
            "asap.message_type == 99",
            0,
        ),
    ];
    for (name, filter, expected) in cases {
        let Some(cap) = common::shared_capture(name) else {
            return;
        };
        let tag = name.replace('/', "_");
        let n = both_write(&cap, filter, &tag);
        if expected > 0 {
            assert_eq!(n, expected, "{name} -Y {filter}");
        }
        let none = name.ends_with("coverage.pcap");
        assert_eq!(n == 0, none, "{name} -Y {filter}: {n} frames");
    }
}

/// Named and unnamed interfaces of several link types, packets with comments and flags
/// (frame_vs_tshark's crafted file): what is kept of each frame is what tshark keeps, with a
/// filter and without. Two differences are kept apart: tshark 4.0 takes the FCS length of a
/// packet's flags off an Ethernet frame (frame 5's 5 bytes), which poolshark does not, so no
/// filter here decides on frame 5's UDP header; and it names the interfaces of a second section
/// after the first section's (frame_vs_tshark), so a second section is checked by name.
#[test]
fn names_comments_and_flags_go_with_the_frames() {
    if !common::have_tshark() {
        return;
    }
    for big_endian in [false, true] {
        let cap = out_path(&format!("crafted-{big_endian}.pcapng"));
        std::fs::write(&cap, crate::frame_vs_tshark::crafted(big_endian, false)).expect("write");
        for (filter, tag) in [
            ("udp.srcport > 1004", "later"),
            ("frame.comment || udp.srcport == 1000", "commented"),
            ("frame", "all"),
        ] {
            let n = both_write(&cap, filter, &format!("crafted-{big_endian}-{tag}"));
            assert!(n > 1, "-Y {filter}: {n} frames");
        }
    }
    let cap = out_path("crafted-sections.pcapng");
    std::fs::write(&cap, crate::frame_vs_tshark::crafted(false, true)).expect("write");
    let ours = out_path("crafted-sections.poolshark.pcapng");
    let filter = "frame.section_number == 2 || frame.number == 2";
    assert_eq!(poolshark_write(&cap, filter, &ours), 3);
    let (_, names) = common::tshark::both_fields(
        &ours,
        &["-e", "frame.interface_name", "-e", "frame.comment"],
    );
    assert_eq!(
        names,
        [
            "eth7\tone comment",
            "sec2a\tin section 2",
            "sec2b\tin section 2"
        ]
    );
}

#[test]
fn without_a_filter_every_frame_is_copied() {
    if !common::have_tshark() {
        return;
    }
    for cap in [
        common::fixture("demo.pcap"),
        common::fixture("malformed.pcap"),
        common::fixture("rserpool-tcp.pcap"),
    ] {
        let ours = out_path("copy.pcapng");
        let out = common::poolshark()
            .arg("read")
            .arg(&cap)
            .arg("-w")
            .arg(&ours)
            .output()
            .expect("run poolshark");
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            tshark_view(&ours, false),
            tshark_view(&cap, false),
            "{}",
            cap.display()
        );
    }
}

#[test]
fn standard_output_takes_the_file_and_p_lists_too() {
    let cap = common::fixture("rserpool-sctp-chunks.pcap");
    // -w -: the file on standard output, read back by poolshark from its standard input.
    let mut write = common::poolshark()
        .arg("read")
        .arg(&cap)
        .args(["-Y", "frame.number == 13", "-w", "-"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run poolshark");
    let back = common::poolshark()
        .args(["read", "-"])
        .stdin(write.stdout.take().expect("stdout"))
        .output()
        .expect("run poolshark");
    assert!(write.wait().expect("wait").success());
    let listing = String::from_utf8_lossy(&back.stdout);
    assert_eq!(listing.lines().count(), 4, "{listing}");
    assert!(
        listing
            .lines()
            .nth(3)
            .unwrap()
            .contains("ASAP Business Card"),
        "{listing}"
    );

    // -P: the listing as without -w, and the file as without -P.
    let file = out_path("listed.pcapng");
    let listed = common::poolshark()
        .arg("read")
        .arg(&cap)
        .args(["-Y", "asap", "-P", "-w"])
        .arg(&file)
        .output()
        .expect("run poolshark");
    let plain = common::poolshark()
        .arg("read")
        .arg(&cap)
        .args(["-Y", "asap"])
        .output()
        .expect("run poolshark");
    assert_eq!(listed.stdout, plain.stdout);
    // Frames 8, 13, 14 and 15 hold ASAP messages; 5-7 and 10-12 began those of 8 and 13.
    let stderr = String::from_utf8_lossy(&listed.stderr);
    assert!(stderr.contains("poolshark: wrote 10 frames"), "{stderr}");
}

#[test]
fn the_input_is_never_overwritten() {
    let copy = out_path("input.pcap");
    std::fs::copy(common::fixture("demo.pcap"), &copy).expect("copy");
    let before = std::fs::read(&copy).expect("read");
    let out = common::poolshark()
        .arg("read")
        .arg(&copy)
        .arg("-w")
        .arg(&copy)
        .output()
        .expect("run poolshark");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("that is the capture being read"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&copy).expect("read"), before);
    // -P with -w -: both on standard output.
    let out = common::poolshark()
        .arg("read")
        .arg(&copy)
        .args(["-P", "-w", "-"])
        .output()
        .expect("run poolshark");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    // -P needs -w.
    let out = common::poolshark()
        .arg("read")
        .arg(&copy)
        .arg("-P")
        .output()
        .expect("run poolshark");
    assert_eq!(out.status.code(), Some(2));
}

/// `read -w - | head -c N`: the reader closing the pipe ends the run quietly with 0, as it does
/// for the listing (`read F | head`). It used to print "cannot write standard output: Broken
/// pipe" and exit 0, or exit 2 when the pipe closed before the file's end was written.
#[test]
fn a_closed_pipe_on_standard_output_stops_quietly() {
    // Larger than a pipe's buffer: the writer is still writing when the reader goes.
    let cap = out_path("closed-pipe-input.pcap");
    let made = common::poolshark()
        .args(["generate", "--frames", "3000", "--seed", "5", "--out"])
        .arg(&cap)
        .output()
        .expect("run poolshark");
    assert!(made.status.success());
    for filter in [None, Some("frame.number > 0")] {
        let mut cmd = common::poolshark();
        cmd.arg("read").arg(&cap).args(["-w", "-"]);
        if let Some(f) = filter {
            cmd.args(["-Y", f]);
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run poolshark");
        let mut head = [0u8; 16];
        std::io::Read::read_exact(&mut child.stdout.take().expect("stdout"), &mut head)
            .expect("the file's first bytes");
        // The pipe's read end is closed here (dropped above).
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{filter:?}: {stderr}");
        assert!(!stderr.contains("cannot write"), "{filter:?}: {stderr}");
        assert_eq!(
            &head[..4],
            &[0x0a, 0x0d, 0x0d, 0x0a],
            "a pcapng section header"
        );
    }
}
