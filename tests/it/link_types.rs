//! Every link type's payload through the same EtherType dispatch: VLAN tags, QinQ and MPLS after
//! a Linux cooked header (SLL and SLL2) as after Ethernet, Cisco FabricPath around a frame, PPP,
//! LINKTYPE_IPV4 and LINKTYPE_IPV6 (no "raw" layer), IEEE 802.3 length frames and Linux's
//! pseudo-protocols (`eth.len`, `vlan.len`, `sll.ltype`) and Teredo, in a pcapng of one
//! interface per link type crafted here, against tshark: the layers' fields, the listing's
//! protocol column and the frames `-Y` keeps. Then the capture of issue 40.1 (802.1Q inside SLL):
//! `-Y sctp` keeps the frames tshark keeps.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use poolshark::base::{linktype, Timestamp};
use poolshark::generate::{IfOptions, PcapNgWriter};

/// A UDP datagram without payload (so that tshark decodes nothing after it) in IPv4.
fn ipv4_udp(sport: u16) -> Vec<u8> {
    let mut p = vec![
        0x45, 0, 0, 28, 0, 1, 0, 0, 64, 17, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2,
    ];
    p.extend_from_slice(&sport.to_be_bytes());
    p.extend_from_slice(&[0x27, 0x0f, 0, 8, 0, 0]);
    p
}

/// The same in IPv6.
fn ipv6_udp(sport: u16) -> Vec<u8> {
    let mut p = vec![0x60, 0, 0, 0, 0, 8, 17, 64];
    p.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    p.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    p.extend_from_slice(&sport.to_be_bytes());
    p.extend_from_slice(&[0x27, 0x0f, 0, 8, 0, 0]);
    p
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

const MACS: [u8; 12] = [2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1];

/// A Linux cooked v1 header: packet type, ARPHRD type, address length, address, protocol.
fn sll(hatype: u16, protocol: u16) -> Vec<u8> {
    let mut h = vec![0, 0];
    h.extend_from_slice(&hatype.to_be_bytes());
    h.extend_from_slice(&[0, 6, 0x02, 0, 0, 0, 0, 1, 0, 0]);
    h.extend_from_slice(&protocol.to_be_bytes());
    h
}

/// A Linux cooked v2 header: protocol, reserved, interface, ARPHRD type, packet type, address.
fn sll2(protocol: u16) -> Vec<u8> {
    let mut h = protocol.to_be_bytes().to_vec();
    h.extend_from_slice(&[0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 0x02, 0, 0, 0, 0, 1, 0, 0]);
    h
}

/// An 802.1Q (or 802.1ad) tag: TPID, then VLAN `id` and what follows.
fn tag(tpid: u16, id: u16, next: u16) -> Vec<u8> {
    cat(&[&tpid.to_be_bytes(), &id.to_be_bytes(), &next.to_be_bytes()])
}

/// The crafted frames, by link type.
fn frames() -> Vec<(u32, Vec<Vec<u8>>)> {
    let v4 = ipv4_udp(1001);
    let v6 = ipv6_udp(1002);
    let llc = [0x42, 0x42, 0x03, 0, 0, 0, 0, 0];
    let mpls = [0x00, 0x01, 0x41, 0x40];
    // Teredo: origin indication, then IPv6.
    let teredo = {
        let mut u = vec![
            0x45, 0, 0, 0, 0, 1, 0, 0, 64, 17, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2,
        ];
        let inner = cat(&[&[0, 0, 0xf3, 0xfd, 1, 2, 3, 4], &v6]);
        let total = (20 + 8 + inner.len()) as u16;
        u[2..4].copy_from_slice(&total.to_be_bytes());
        u.extend_from_slice(&[0x0d, 0xd8, 0x0c, 0x02]);
        u.extend_from_slice(&((8 + inner.len()) as u16).to_be_bytes());
        u.extend_from_slice(&[0, 0]);
        u.extend_from_slice(&inner);
        u
    };
    let eth = |t: u16, rest: &[u8]| cat(&[&MACS, &t.to_be_bytes(), rest]);
    vec![
        (
            linktype::LINUX_SLL,
            vec![
                cat(&[&sll(1, 0x8100), &tag(0x8100, 100, 0x0800)[2..], &v4]),
                cat(&[
                    &sll(1, 0x88a8),
                    &tag(0x88a8, 10, 0x8100)[2..],
                    &tag(0x8100, 20, 0x86dd)[2..],
                    &v6,
                ]),
                cat(&[&sll(1, 0x8847), &mpls, &v4]),
                cat(&[&sll(1, 0x0004), &llc]),
                cat(&[&sll(772, 0x0800), &v4]),
            ],
        ),
        (
            linktype::LINUX_SLL2,
            vec![
                cat(&[&sll2(0x8100), &tag(0x8100, 7, 0x0800)[2..], &v4]),
                cat(&[&sll2(0x0004), &llc]),
            ],
        ),
        (
            linktype::ETHERNET,
            vec![
                eth(llc.len() as u16, &llc),
                eth(
                    0x8100,
                    &cat(&[&tag(0x8100, 5, llc.len() as u16)[2..], &llc]),
                ),
                // Cisco FabricPath around a frame; 4 bytes after the packet, which Wireshark
                // takes for an FCS.
                cat(&[
                    &MACS,
                    &[0x89, 0x03, 0x00, 0x45],
                    &eth(0x0800, &v4),
                    &[0xde, 0xad, 0xbe, 0xef],
                ]),
                eth(0x0800, &teredo),
            ],
        ),
        (
            linktype::PPP,
            vec![
                cat(&[&[0xff, 0x03, 0x00, 0x21], &v4]),
                cat(&[&[0x00, 0x57], &v6]),
            ],
        ),
        (
            linktype::PPP_HDLC,
            vec![cat(&[&[0xff, 0x03, 0x00, 0x57], &v6])],
        ),
        (linktype::IPV4, vec![v4.clone()]),
        (linktype::IPV6, vec![v6.clone()]),
        (linktype::RAW, vec![v4]),
    ]
}

fn crafted(dir: &Path) -> PathBuf {
    let mut w = PcapNgWriter::new(Vec::new()).expect("pcapng header");
    let mut n = 0;
    for (lt, frames) in frames() {
        let id = w.add_interface(&IfOptions::new(lt)).expect("interface");
        for f in frames {
            n += 1;
            w.write_packet(id, Timestamp::new(1_700_000_000 + n, 0), &f, f.len() as u32)
                .expect("packet");
        }
    }
    let path = dir.join("link-types.pcapng");
    std::fs::write(&path, w.into_inner()).expect("write the capture");
    path
}

/// The fields compared: the link layers' and the addresses and ports inside.
const FIELDS: &[&str] = &[
    "frame.encap_type",
    "eth.type",
    "eth.len",
    "vlan.id",
    "vlan.etype",
    "vlan.len",
    "ieee8021ad.id",
    "sll.hatype",
    "sll.src.eth",
    "sll.etype",
    "sll.ltype",
    "cfp.etype",
    "cfp.ftag",
    "cfp.ttl",
    "ppp.address",
    "ppp.control",
    "ppp.protocol",
    "mpls.label",
    "ip.src",
    "ipv6.dst",
    "udp.srcport",
    "udp.dstport",
    "frame.protocols",
];

#[test]
fn every_link_type_goes_through_the_ethertype_dispatch() {
    if !common::have_tshark() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("poolshark-link-types-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cap = crafted(&dir);
    let args: Vec<&str> = FIELDS.iter().flat_map(|f| ["-e", f]).collect();
    let (ours, theirs) = common::tshark::both_fields(&cap, &args);
    let total: usize = frames().iter().map(|(_, f)| f.len()).sum();
    assert_eq!((ours.len(), theirs.len()), (total, total), "lines");
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        let (a, b): (Vec<&str>, Vec<&str>) = (a.split('\t').collect(), b.split('\t').collect());
        for ((name, x), y) in FIELDS.iter().zip(&a).zip(&b) {
            // LLC is not decoded: tshark's protocols go on after poolshark's ("eth:llc").
            let further = *name == "frame.protocols"
                && y.strip_prefix(*x).is_some_and(|r| r.starts_with(":llc"));
            assert!(
                x == y || further,
                "frame {}: {name} ours {x:?}, tshark {y:?}",
                i + 1
            );
        }
    }
    // The listing names what tshark's Protocol column names for the IP frames.
    let out = common::poolshark()
        .args(["read", "--no-progress", "-Y", "udp"])
        .arg(&cap)
        .output()
        .expect("poolshark read");
    let listed = String::from_utf8_lossy(&out.stdout);
    let ours: Vec<u64> = listed
        .lines()
        .filter(|l| l.contains(" UDP "))
        .filter_map(|l| l.get(..5)?.trim().parse().ok())
        .collect();
    let theirs = common::tshark::lines(
        Command::new("tshark").arg("-r").arg(&cap).args([
            "-Y",
            "udp",
            "-T",
            "fields",
            "-e",
            "frame.number",
        ]),
        "tshark",
    );
    let theirs: Vec<u64> = theirs.iter().filter_map(|l| l.parse().ok()).collect();
    assert_eq!(ours, theirs, "frames listed as UDP and kept by -Y udp");
    assert!(ours.len() >= 12, "{ours:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 40.1: netperfmeter's capture (Linux cooked, 802.1Q inside for 5,487 frames) has 3,730
/// frames carrying SCTP (its README); `-Y sctp` keeps tshark's, and frame 2 is VLAN 1102's SCTP.
#[test]
fn vlan_tags_inside_linux_cooked_frames_are_decoded() {
    let Some(cap) = common::shared_capture("external/dreibh_netperfmeter_multi.pcap.gz") else {
        return;
    };
    let kept = |cmd: &mut Command, who| {
        common::tshark::lines(cmd, who)
            .iter()
            .filter_map(|l| l.parse().ok())
            .collect::<Vec<u64>>()
    };
    let ours = kept(
        common::poolshark()
            .args([
                "read",
                "--no-progress",
                "-Y",
                "sctp",
                "-T",
                "fields",
                "-e",
                "frame.number",
            ])
            .arg(&cap),
        "poolshark read",
    );
    assert_eq!(ours.len(), 3730, "the README's count");
    if common::have_tshark() {
        let theirs = kept(
            Command::new("tshark").arg("-r").arg(&cap).args([
                "-Y",
                "sctp",
                "-T",
                "fields",
                "-e",
                "frame.number",
            ]),
            "tshark",
        );
        assert_eq!(ours, theirs);
    }
    let out = common::poolshark()
        .args(["read", "--no-progress", "-c", "2", "-T", "fields"])
        .args(["-e", "vlan.id", "-e", "ip.src", "-e", "sctp.srcport"])
        .arg(&cap)
        .output()
        .expect("poolshark read");
    let second = String::from_utf8_lossy(&out.stdout)
        .lines()
        .nth(1)
        .map(str::to_string);
    assert_eq!(second.as_deref(), Some("1102\t172.31.0.2\t9001"));
}
