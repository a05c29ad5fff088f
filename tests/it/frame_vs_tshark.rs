//! What a pcapng file says of a frame beyond its bytes: `frame.section_number`,
//! `frame.interface_id`, `.interface_name`, `.interface_description`, `frame.comment`,
//! `frame.packet_flags` and its parts, `frame.p2p_dir`, and `frame.encap_type` (pcap too), against
//! tshark's `-T fields`, `-Y` and `-V` on captures written for the purpose, in both byte orders.
//! The shared captures' pcapng files are compared with the other layer fields
//! (`layers_vs_tshark`).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use poolshark::base::{linktype, Timestamp};
use poolshark::generate::{IfOptions, PacketOptions, PcapNgWriter};

/// The fields compared, every occurrence.
const FIELDS: &[&str] = &[
    "frame.number",
    "frame.section_number",
    "frame.interface_id",
    "frame.interface_name",
    "frame.interface_description",
    "frame.comment",
    "frame.encap_type",
    "frame.p2p_dir",
    "frame.packet_flags",
    "frame.packet_flags_direction",
    "frame.packet_flags_reception_type",
    "frame.packet_flags_fcs_length",
    "frame.packet_flags_reserved",
    "frame.packet_flags_crc_error",
    "frame.packet_flags_packet_too_error",
    "frame.packet_flags_packet_too_short_error",
    "frame.packet_flags_wrong_inter_frame_gap_error",
    "frame.packet_flags_unaligned_frame_error",
    "frame.packet_flags_start_frame_delimiter_error",
    "frame.packet_flags_preamble_error",
    "frame.packet_flags_symbol_error",
    "frame.protocols",
];

/// An Ethernet + IPv4 + UDP frame from port `port`, and the same IPv4 packet without Ethernet.
fn udp_frame(port: u16) -> (Vec<u8>, Vec<u8>) {
    let mut ip = vec![
        0x45, 0, 0, 28, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
    ];
    ip.extend_from_slice(&port.to_be_bytes());
    ip.extend_from_slice(&[0x07, 0xd0, 0, 8, 0, 0]);
    let mut eth = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00];
    eth.extend_from_slice(&ip);
    (eth, ip)
}

/// One section: interfaces without names, with a name and a description, with a description
/// only (raw IP), and a Linux cooked one; packets with no options, comments (one, two, UTF-8),
/// and flags words of every direction, reception types, FCS lengths and error bits. With
/// `second`, a second section whose interfaces have names of their own.
pub(crate) fn crafted(big_endian: bool, second: bool) -> Vec<u8> {
    let mut w = PcapNgWriter::with_byte_order(Vec::new(), big_endian).expect("writer");
    let plain = w
        .add_interface(&IfOptions::new(linktype::ETHERNET))
        .expect("interface");
    let named = w
        .add_interface(
            &IfOptions::new(linktype::ETHERNET)
                .name("eth7")
                .description("the uplink"),
        )
        .expect("interface");
    let raw = w
        .add_interface(&IfOptions::new(linktype::RAW).description("tunnel end"))
        .expect("interface");
    let cooked = w
        .add_interface(&IfOptions::new(linktype::LINUX_SLL).name("any"))
        .expect("interface");
    let opts = |comments: &[&str], flags: Option<u32>| PacketOptions {
        comments: comments.iter().map(|c| c.to_string()).collect(),
        flags,
    };
    let packets: Vec<(u32, PacketOptions)> = vec![
        (plain, opts(&[], None)),
        (named, opts(&["one comment"], None)),
        (raw, opts(&["first", "second"], None)),
        (named, opts(&[], Some(1))),
        (named, opts(&[], Some(0x8100_02a6))),
        (plain, opts(&["grüße, 3 bytes: abc"], Some(0))),
        (named, opts(&[], Some(0x7e00_0013))),
        (cooked, opts(&["cooked"], Some(2 | (4 << 2) | (4 << 5)))),
        (plain, opts(&[], Some(3 | (3 << 2)))),
    ];
    for (i, (iface, o)) in packets.iter().enumerate() {
        let (eth, ip) = udp_frame(1000 + i as u16);
        let data = if *iface == raw {
            ip
        } else if *iface == cooked {
            // Linux cooked v1: packet type, ARPHRD_ETHER, address length 6, address, IPv4.
            let mut sll = vec![0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x08, 0x00];
            sll.extend_from_slice(&ip);
            sll
        } else {
            eth
        };
        let ts = Timestamp::new(1_700_000_000 + i as i64, 0);
        w.write_packet_options(*iface, ts, &data, data.len() as u32, o)
            .expect("packet");
    }
    if second {
        w.new_section(!big_endian).expect("section");
        let a = w
            .add_interface(&IfOptions::new(linktype::ETHERNET).name("sec2a"))
            .expect("interface");
        let b = w
            .add_interface(&IfOptions::new(linktype::ETHERNET).name("sec2b"))
            .expect("interface");
        for (i, iface) in [a, b].into_iter().enumerate() {
            let (eth, _) = udp_frame(2000 + i as u16);
            let ts = Timestamp::new(1_700_000_100 + i as i64, 0);
            let o = opts(&["in section 2"], Some(1));
            w.write_packet_options(iface, ts, &eth, eth.len() as u32, &o)
                .expect("packet");
        }
    }
    w.into_inner()
}

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let p = std::env::temp_dir().join(format!(
        "poolshark-frame-{name}-{}.pcapng",
        std::process::id()
    ));
    std::fs::write(&p, bytes).expect("write capture");
    p
}

fn fields_args() -> Vec<&'static str> {
    let mut args = vec!["-E", "occurrence=a"];
    args.extend(FIELDS.iter().flat_map(|f| ["-e", *f]));
    args
}

#[test]
fn pcapng_frame_fields_are_tsharks() {
    if !common::have_tshark() {
        return;
    }
    for big_endian in [false, true] {
        let cap = write(&format!("one-{big_endian}"), &crafted(big_endian, false));
        let (ours, theirs) = common::tshark::both_fields(&cap, &fields_args());
        std::fs::remove_file(&cap).ok();
        assert_eq!(ours.len(), 9);
        assert_eq!(ours, theirs, "big endian: {big_endian}");
        // The capture holds what the test means it to: the names, comments and flags.
        let all = ours.join("\n");
        for want in [
            "eth7\tthe uplink\tone comment",
            "tunnel end\ttunnel end\tfirst,second\t7",
            "\t0\t0x810002a6\t0x00000002\t1\t5\t1\t1\t0",
            "any\t\tcooked\t25\t0\t0x00000092",
            "grüße, 3 bytes: abc",
        ] {
            assert!(all.contains(want), "no {want:?} in\n{all}");
        }
    }
}

#[test]
fn pcap_frames_have_an_encapsulation_and_no_interface() {
    if !common::have_tshark() {
        return;
    }
    for cap in [
        common::fixture("demo.pcap"),
        common::fixture("rserpool-udp.pcap"),
    ] {
        let (ours, theirs) = common::tshark::both_fields(&cap, &fields_args());
        assert_eq!(ours, theirs, "{}", cap.display());
        assert!(ours.iter().all(|l| l.split('\t').nth(6) == Some("1")));
        assert!(ours.iter().all(|l| l.split('\t').nth(2) == Some("")));
    }
}

#[test]
fn a_later_sections_interfaces_have_their_own_names() {
    if !common::have_tshark() {
        return;
    }
    // tshark 4.0 names the interfaces of a section after the first by the first section's
    // interfaces of the same number ("unknown" and "eth7" here); poolshark by their own
    // description. Every other field agrees.
    let cap = write("two", &crafted(false, true));
    let (ours, theirs) = common::tshark::both_fields(&cap, &fields_args());
    std::fs::remove_file(&cap).ok();
    assert_eq!(ours.len(), 11);
    assert_eq!(ours[..9], theirs[..9]);
    let name = |l: &str| l.split('\t').nth(3).map(str::to_string);
    let described = |l: &str| l.split('\t').nth(4).map(str::to_string);
    let others = |l: &str| -> Vec<String> {
        l.split('\t')
            .enumerate()
            .filter(|(i, _)| *i != 3 && *i != 4)
            .map(|(_, c)| c.to_string())
            .collect()
    };
    for (i, (a, b)) in ours[9..].iter().zip(&theirs[9..]).enumerate() {
        assert_eq!(others(a), others(b), "frame {}", 10 + i);
        assert!(a.starts_with(&format!("{}\t2\t{i}\t", 10 + i)), "{a}");
        assert_eq!(name(a).as_deref(), Some(["sec2a", "sec2b"][i]));
        assert_eq!(described(a).as_deref(), Some(""));
        assert_eq!(name(b).as_deref(), Some(["unknown", "eth7"][i]));
    }
}

/// Filters on the pcapng fields keep the frames tshark keeps.
const FILTERS: &[&str] = &[
    "frame.interface_id == 1",
    "frame.interface_id != 0",
    "frame.interface_name == \"eth7\"",
    "frame.interface_name contains \"unk\"",
    "frame.interface_description",
    "frame.interface_description == \"tunnel end\"",
    "frame.comment",
    "frame.comment == \"second\"",
    "frame.comment matches \"^gr\"",
    "count(frame.comment) == 2",
    "frame.encap_type == 7",
    "frame.encap_type == 25 || frame.encap_type == 7",
    "frame.section_number == 1 && udp.srcport > 1004",
    "frame.packet_flags",
    "frame.packet_flags == 0",
    "frame.packet_flags & 0x01000000",
    "frame.packet_flags_direction == 2",
    "frame.packet_flags_direction == 0x1",
    "frame.packet_flags_reception_type == 4",
    "frame.packet_flags_fcs_length > 3",
    "frame.packet_flags_reserved != 0",
    "frame.packet_flags_crc_error",
    "frame.packet_flags_crc_error == 1",
    "frame.packet_flags_symbol_error == 0",
    "frame.p2p_dir == 0",
    "frame.p2p_dir == 1",
    "frame.p2p_dir",
    "!frame.p2p_dir",
];

#[test]
fn filters_on_pcapng_fields_keep_tsharks_frames() {
    if !common::have_tshark() {
        return;
    }
    let cap = write("filters", &crafted(true, false));
    let mut selective = 0;
    for (filter, theirs) in FILTERS.iter().zip(common::tshark::kept(&cap, FILTERS, &[])) {
        let ours: Vec<u64> = common::tshark::lines(
            common::read_fields()
                .args(["-Y", filter, "-e", "frame.number"])
                .arg(&cap),
            "poolshark read",
        )
        .iter()
        .map(|l| l.parse().expect("a frame number"))
        .collect();
        assert_eq!(Ok(ours.clone()), theirs, "-Y '{filter}'");
        if !ours.is_empty() && ours.len() < 9 {
            selective += 1;
        }
    }
    std::fs::remove_file(&cap).ok();
    assert_eq!(
        selective,
        FILTERS.len(),
        "every filter keeps some frames, not all"
    );
}

/// The first line of each frame's tree in `-V`: tshark's "Frame N: ... on interface X, id N
/// (inbound)".
fn frame_titles(cmd: &mut Command, who: &str) -> Vec<String> {
    common::tshark::lines(cmd, who)
        .into_iter()
        .map(|l| l.trim().to_string())
        .filter(|l| l.starts_with("Frame ") && l.contains(" bytes on wire"))
        .collect()
}

#[test]
fn verbose_names_the_interface_and_direction_as_tshark_does() {
    if !common::have_tshark() {
        return;
    }
    let cap: &Path = &write("verbose", &crafted(false, false));
    let ours = frame_titles(
        common::poolshark()
            .args(["read", "--no-progress", "-V"])
            .arg(cap),
        "poolshark read -V",
    );
    let theirs = frame_titles(
        Command::new("tshark").arg("-r").arg(cap).arg("-V"),
        "tshark",
    );
    let comments = common::tshark::lines(
        common::poolshark()
            .args(["read", "--no-progress", "-V"])
            .arg(cap),
        "poolshark read -V",
    );
    std::fs::remove_file(cap).ok();
    assert_eq!(ours.len(), 9);
    assert_eq!(ours, theirs);
    assert!(
        ours[3].ends_with("on interface eth7, id 1 (inbound)"),
        "{}",
        ours[3]
    );
    assert!(ours[4].ends_with("(outbound)"), "{}", ours[4]);
    // The comments come before the frame's tree, in one of their own, as in tshark.
    let at = |s: &str| comments.iter().position(|l| l.trim() == s);
    let first = at("Comment: first").expect("frame 3's first comment");
    assert_eq!(
        comments[first - 1].trim(),
        "Packet comments",
        "{comments:#?}"
    );
    assert_eq!(
        comments[first + 1].trim(),
        "Comment: second",
        "{comments:#?}"
    );
    assert!(
        comments[first + 2].trim().starts_with("Frame 3:"),
        "{comments:#?}"
    );
}
