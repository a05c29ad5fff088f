//! Round trips through the traffic builder: build packets, write a capture, read it back,
//! dissect, and find the same payloads. tshark judges the built packets (checksums, reassembly)
//! where it can.

use crate::common;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};
use std::process::Command;

use poolshark::base::{linktype, Timestamp};
use poolshark::dissect::{Dissector, FrameSummary, Limits, Transport};
use poolshark::generate::ip::{fragment_ipv4, fragment_ipv6};
use poolshark::generate::packet::wrap;
use poolshark::generate::{IfOptions, Ip, Link, Packet, PcapNgWriter, PcapWriter, TsResolution};
use poolshark::source::file::FileSource;
use poolshark::source::FrameSource;
use poolshark::wire::sctp::build::{split_data, split_idata, Chunk, DataFlags};
use poolshark::wire::tcp::{self as tcp_flags, TcpHeader};
use poolshark::wire::vlan::VlanTag;

const A4: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 1);
const B4: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 2);

fn a6() -> Ipv6Addr {
    "2001:db8::1".parse().unwrap()
}

fn b6() -> Ipv6Addr {
    "2001:db8::2".parse().unwrap()
}

/// A payload as the tests compare them.
#[derive(Debug, Clone, PartialEq)]
struct Got {
    frame: u64,
    transport: Transport,
    ppid: Option<u32>,
    stream: Option<u16>,
    data: Vec<u8>,
    duplicate: bool,
    errors: usize,
    reassembled_from: Vec<u64>,
    from_frame: bool,
}

/// frame, PPID, stream, data, duplicate, errors.
type Brief = (u64, Option<u32>, Option<u16>, Vec<u8>, bool, usize);

struct Temp(PathBuf);

impl Temp {
    fn new(name: &str, bytes: &[u8]) -> Self {
        let dir = std::env::temp_dir().join(format!("poolshark-rt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        Temp(p)
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if std::env::var_os("POOLSHARK_KEEP_TEMP").is_none() {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

fn read_and_dissect(path: &Path, limits: Limits) -> (Vec<Got>, Vec<FrameSummary>, Dissector) {
    let mut src = FileSource::open(path).unwrap();
    let mut d = Dissector::new(limits);
    let mut got = Vec::new();
    let mut sums = Vec::new();
    while let Some(f) = src.next_frame().unwrap() {
        let n = f.number;
        sums.push(d.dissect(&f, &mut |p| {
            got.push(Got {
                frame: n,
                transport: p.transport,
                ppid: p.ppid,
                stream: p.stream,
                data: p.data.to_vec(),
                duplicate: p.duplicate,
                errors: p.errors.len(),
                reassembled_from: p.reassembled_from.clone(),
                from_frame: p.frame_offset.is_some(),
            })
        }));
    }
    (got, sums, d)
}

fn pcap(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut w = PcapWriter::new(Vec::new(), linktype::ETHERNET, TsResolution::Nano).unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write(Timestamp::new(1_700_000_000 + i as i64, 0), f)
            .unwrap();
    }
    w.into_inner()
}

fn data(tsn: u32, ssn: u16, ppid: u32, d: &[u8]) -> Chunk<'_> {
    Chunk::Data {
        tsn,
        stream: 3,
        ssn,
        ppid,
        flags: DataFlags::WHOLE,
        data: d,
    }
}

/// The SCTP scenario of the round trip: handshake, bundling, a message split over three packets
/// (DATA) and one over two (I-DATA, interleaved with a whole message), a retransmission, a
/// corrupt checksum, IPv6 behind two VLAN tags, and SCTP over UDP.
fn sctp_frames() -> Vec<Vec<u8>> {
    let big: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8).collect();
    let ip = || Ip::v4(A4, B4);
    let mut frames = Vec::new();
    let mut buf = Vec::new();
    let init = |ack, tsn| Chunk::Init {
        ack,
        initiate_tag: 0x1234,
        a_rwnd: 65536,
        out_streams: 10,
        in_streams: 10,
        initial_tsn: tsn,
    };
    frames.push(
        Packet::sctp(ip(), 3863, 3863, 0, vec![init(false, 100)])
            .frame(&mut buf)
            .to_vec(),
    );
    let split = split_data(&big, 1200, 101, 3, 1, 11, false);
    // 1: whole message TSN 100 bundled with the first fragment.
    let mut c = vec![data(100, 0, 11, b"whole one")];
    c.push(split[0].clone());
    frames.push(
        Packet::sctp(ip(), 3863, 3863, 7, c)
            .frame(&mut buf)
            .to_vec(),
    );
    // 2: SACK + last fragment (out of order), 3: middle fragment.
    let c = vec![
        Chunk::Sack {
            cum_tsn: 5,
            a_rwnd: 1000,
        },
        split[2].clone(),
    ];
    frames.push(
        Packet::sctp(ip(), 3863, 3863, 7, c)
            .frame(&mut buf)
            .to_vec(),
    );
    frames.push(
        Packet::sctp(ip(), 3863, 3863, 7, vec![split[1].clone()])
            .frame(&mut buf)
            .to_vec(),
    );
    // 4: retransmission of TSN 100.
    frames.push(
        Packet::sctp(ip(), 3863, 3863, 7, vec![data(100, 0, 11, b"whole one")])
            .frame(&mut buf)
            .to_vec(),
    );
    // 5: corrupt checksum, still decoded.
    let mut bad = Packet::sctp(ip(), 3863, 3863, 7, vec![data(104, 2, 11, b"bad crc")])
        .frame(&mut buf)
        .to_vec();
    let len = bad.len();
    bad[14 + 20 + 8] ^= 0xff;
    assert_eq!(len, bad.len());
    frames.push(bad);
    // 6, 7: I-DATA split in two, a whole I-DATA message between.
    let idata = split_idata(b"interleaved message", 10, 200, 5, 9, 12, false);
    let whole = Chunk::IData {
        tsn: 202,
        stream: 6,
        mid: 1,
        ppid_or_fsn: 12,
        flags: DataFlags::WHOLE,
        data: b"i-whole",
    };
    frames.push(
        Packet::sctp(ip(), 9901, 9902, 7, vec![idata[1].clone(), whole])
            .frame(&mut buf)
            .to_vec(),
    );
    frames.push(
        Packet::sctp(ip(), 9901, 9902, 7, vec![idata[0].clone()])
            .frame(&mut buf)
            .to_vec(),
    );
    // 8: IPv6 behind QinQ.
    let mut p = Packet::sctp(
        Ip::v6(a6(), b6()),
        3863,
        3864,
        7,
        vec![data(1, 0, 11, b"over v6")],
    );
    p.link = Link::Ethernet {
        src: [2, 0, 0, 0, 0, 1],
        dst: [2, 0, 0, 0, 0, 2],
        vlans: vec![
            VlanTag {
                tpid: 0x88a8,
                tci: 100,
            },
            VlanTag::dot1q(200),
        ],
    };
    frames.push(p.frame(&mut buf).to_vec());
    // 9: SCTP over UDP.
    let p = Packet {
        link: Link::ethernet(),
        ip: ip(),
        transport: poolshark::generate::Transport::SctpOverUdp {
            sport: 5000,
            dport: 5001,
            vtag: 9,
            chunks: vec![data(7, 0, 11, b"in udp")],
        },
        payload: &[],
    };
    frames.push(p.frame(&mut buf).to_vec());
    frames
}

#[test]
fn sctp_round_trip() {
    let frames = sctp_frames();
    let t = Temp::new("sctp.pcap", &pcap(&frames));
    let (got, sums, d) = read_and_dissect(&t.0, Limits::default());
    let big: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8).collect();
    assert_eq!(got[1].data, big);
    let short = |d: &[u8]| {
        if d.len() > 40 {
            b"(big)".to_vec()
        } else {
            d.to_vec()
        }
    };
    let brief: Vec<Brief> = got
        .iter()
        .map(|g| {
            (
                g.frame,
                g.ppid,
                g.stream,
                short(&g.data),
                g.duplicate,
                g.errors,
            )
        })
        .collect();
    assert_eq!(
        brief,
        vec![
            (2, Some(11), Some(3), b"whole one".to_vec(), false, 0),
            (4, Some(11), Some(3), b"(big)".to_vec(), false, 0),
            (5, Some(11), Some(3), b"whole one".to_vec(), true, 0),
            (6, Some(11), Some(3), b"bad crc".to_vec(), false, 1),
            (7, Some(12), Some(6), b"i-whole".to_vec(), false, 0),
            (
                8,
                Some(12),
                Some(5),
                b"interleaved message".to_vec(),
                false,
                0
            ),
            (9, Some(11), Some(3), b"over v6".to_vec(), false, 0),
            (10, Some(11), Some(3), b"in udp".to_vec(), false, 0),
        ]
    );
    assert!(got.iter().all(|g| g.transport == Transport::Sctp));
    assert_eq!(got[1].reassembled_from, vec![2, 3, 4]);
    assert!(!got[1].from_frame && got[0].from_frame);
    assert_eq!(got[5].reassembled_from, vec![7, 8]);
    // TSNs relative to the INIT's initial TSN 100, as tshark shows them; the peer's start is
    // unknown, so the SACK's cumulative TSN stays absolute.
    assert_eq!(
        sums[2].info,
        "SACK (Ack=5, Arwnd=1000) DATA (TSN=3) (Message Fragment)"
    );
    assert_eq!(sums[4].info, "DATA (TSN=0) (retransmission)");
    assert_eq!(sums[0].info, "INIT");
    assert_eq!(sums[5].errors.len(), 1);
    assert_eq!(sums[5].errors[0].offset, 14 + 20 + 8);
    assert_eq!(sums[8].protocol, "SCTP");
    assert_eq!(sums[9].protocol, "SCTP");
    let c = d.counters();
    assert_eq!(
        (
            c.sctp_bad_checksums,
            c.sctp_duplicate_chunks,
            c.sctp_messages_reassembled
        ),
        (1, 1, 2)
    );
}

/// tshark verifies every checksum of the built frames (the one corrupted on purpose aside) and
/// reads the same DATA chunks.
#[test]
fn built_frames_pass_tshark_checksums() {
    if !common::have_tshark() {
        return;
    }
    let mut frames = sctp_frames();
    let mut buf = Vec::new();
    let tcp = TcpHeader::new(40000, 647, 1, 1, tcp_flags::ACK | tcp_flags::PSH);
    frames.push(
        Packet::tcp(Ip::v4(A4, B4), tcp.clone(), b"failover")
            .frame(&mut buf)
            .to_vec(),
    );
    frames.push(
        Packet::tcp(Ip::v6(a6(), b6()), tcp, b"failover6")
            .frame(&mut buf)
            .to_vec(),
    );
    frames.push(
        Packet::udp(Ip::v6(a6(), b6()), 546, 547, b"dhcpv6")
            .frame(&mut buf)
            .to_vec(),
    );
    frames.push(
        Packet::udp(Ip::v4(A4, B4), 68, 67, b"dhcpv4")
            .frame(&mut buf)
            .to_vec(),
    );
    let t = Temp::new("checksums.pcap", &pcap(&frames));
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(&t.0)
        .args([
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "udp.check_checksum:TRUE",
            "-o",
            "tcp.check_checksum:TRUE",
            "-o",
            "sctp.checksum:CRC-32C",
            "-d",
            "udp.port==9899,sctp",
            "-T",
            "fields",
            "-E",
            "separator=|",
            "-e",
            "ip.checksum.status",
            "-e",
            "udp.checksum.status",
            "-e",
            "tcp.checksum.status",
            "-e",
            "sctp.checksum.status",
            "-e",
            "sctp.data_tsn_raw",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('|').collect()).collect();
    assert_eq!(rows.len(), frames.len());
    for (i, r) in rows.iter().enumerate() {
        let statuses: Vec<&str> = r[..4].iter().copied().filter(|s| !s.is_empty()).collect();
        assert!(!statuses.is_empty(), "frame {}", i + 1);
        // Frame 6 has the corrupted SCTP checksum (status 0 = Bad).
        let want = if i == 5 {
            vec!["1", "0"]
        } else {
            vec!["1"; statuses.len()]
        };
        assert_eq!(statuses, want, "frame {}: {r:?}", i + 1);
    }
    assert_eq!(rows[1][4], "100,101");
    assert_eq!(rows[9][4], "7");
}

#[test]
fn ip_fragments_round_trip_and_tshark_reassembles_them_too() {
    let msg: Vec<u8> = (0..4000u32).map(|i| (i * 7) as u8).collect();
    let mut buf = Vec::new();
    let mut ip_packet = Vec::new();
    let mut v4 = Ip::v4(A4, B4);
    if let Ip::V4(h) = &mut v4 {
        h.id = 0x4242;
    }
    Packet::udp(v4, 67, 68, &msg).build_ip(&mut ip_packet);
    let mut frags4 = fragment_ipv4(&ip_packet, 1480);
    frags4.swap(0, 2);
    let mut v6 = Vec::new();
    Packet::sctp(
        Ip::v6(a6(), b6()),
        3863,
        3863,
        1,
        vec![Chunk::Data {
            tsn: 1,
            stream: 0,
            ssn: 0,
            ppid: 11,
            flags: DataFlags::WHOLE,
            data: &msg,
        }],
    )
    .build_ip(&mut v6);
    let frags6 = fragment_ipv6(&v6, 1400, 0xabcdef);
    let mut frames = Vec::new();
    for (i, f) in frags4.iter().enumerate() {
        buf.clear();
        wrap(&Link::ethernet(), 0x0800, f, &mut buf);
        frames.push(buf.clone());
        if i == 0 {
            // An IPv6 fragment in between.
            buf.clear();
            wrap(&Link::ethernet(), 0x86dd, &frags6[1], &mut buf);
            frames.push(buf.clone());
        }
    }
    for f in [&frags6[0], &frags6[2]] {
        buf.clear();
        wrap(&Link::ethernet(), 0x86dd, f, &mut buf);
        frames.push(buf.clone());
    }
    assert_eq!(frames.len(), 6);
    let t = Temp::new("frags.pcap", &pcap(&frames));
    let (got, sums, d) = read_and_dissect(&t.0, Limits::default());
    assert_eq!(got.len(), 2);
    assert_eq!((got[0].frame, got[0].transport), (4, Transport::Udp));
    assert_eq!(got[0].data, msg);
    assert_eq!(got[0].reassembled_from, vec![1, 3, 4]);
    assert_eq!(
        (got[1].frame, got[1].transport, got[1].ppid),
        (6, Transport::Sctp, Some(11))
    );
    assert_eq!(got[1].data, msg);
    assert_eq!(got[1].reassembled_from, vec![2, 5, 6]);
    assert!(
        sums[0]
            .info
            .starts_with("Fragmented IP protocol (proto=UDP 17, off=2960"),
        "{}",
        sums[0].info
    );
    assert!(sums.iter().all(|s| s.errors.is_empty()));
    assert_eq!(d.counters().ip_datagrams_reassembled, 2);
    if common::have_tshark() {
        let out = Command::new("tshark")
            .args(["-n", "-r"])
            .arg(&t.0)
            .args([
                "-T",
                "fields",
                "-e",
                "udp.length",
                "-e",
                "sctp.data_tsn_raw",
            ])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let found: Vec<&str> = text.lines().filter(|l| l.trim() != "").collect();
        assert_eq!(
            found,
            vec!["4008\t", "\t1"],
            "tshark reassembles the same two datagrams"
        );
    }
}

#[test]
fn tcp_round_trip_with_reordering() {
    let mut frames = Vec::new();
    let mut buf = Vec::new();
    let seg = |seq: u32, flags: u8, payload: &[u8], buf: &mut Vec<u8>| {
        Packet::tcp(
            Ip::v4(A4, B4),
            TcpHeader::new(40000, 647, seq, 1, flags),
            payload,
        )
        .frame(buf)
        .to_vec()
    };
    frames.push(seg(99, tcp_flags::SYN, b"", &mut buf));
    frames.push(seg(100, tcp_flags::ACK, b"0123", &mut buf));
    frames.push(seg(108, tcp_flags::ACK, b"89", &mut buf));
    frames.push(seg(104, tcp_flags::ACK, b"4567", &mut buf));
    frames.push(seg(100, tcp_flags::ACK, b"0123", &mut buf));
    let t = Temp::new("tcp.pcap", &pcap(&frames));
    let (got, sums, _) = read_and_dissect(&t.0, Limits::default());
    let stream: Vec<u8> = got.iter().flat_map(|g| g.data.clone()).collect();
    assert_eq!(stream, b"0123456789");
    assert_eq!(
        got.iter().map(|g| g.frame).collect::<Vec<_>>(),
        vec![2, 4, 4]
    );
    assert_eq!(sums[0].info, "40000 → 647 [SYN] Seq=0 Win=65535 Len=0");
    assert_eq!(sums[3].src_port, Some(40000));
}

#[test]
fn pcapng_with_interfaces_of_different_link_types() {
    let mut w = PcapNgWriter::new(Vec::new()).unwrap();
    let eth = w
        .add_interface(&IfOptions::new(linktype::ETHERNET))
        .unwrap();
    let raw = w
        .add_interface(&IfOptions::new(linktype::RAW).tsresol(9))
        .unwrap();
    let sll = w
        .add_interface(&IfOptions::new(linktype::LINUX_SLL))
        .unwrap();
    let null = w.add_interface(&IfOptions::new(linktype::NULL)).unwrap();
    let mut buf = Vec::new();
    let mut p = Packet::udp(Ip::v4(A4, B4), 68, 67, b"on ethernet");
    w.write(eth, Timestamp::new(10, 0), p.frame(&mut buf))
        .unwrap();
    p.link = Link::Raw;
    p.payload = b"raw ip";
    w.write(raw, Timestamp::new(11, 1), p.frame(&mut buf))
        .unwrap();
    p.link = Link::Sll {
        packet_type: 0,
        src: [1, 2, 3, 4, 5, 6],
    };
    p.payload = b"cooked";
    w.write(sll, Timestamp::new(12, 0), p.frame(&mut buf))
        .unwrap();
    let mut q = Packet::udp(Ip::v6(a6(), b6()), 547, 546, b"loopback v6");
    q.link = Link::Null { big_endian: false };
    w.write(null, Timestamp::new(13, 0), q.frame(&mut buf))
        .unwrap();
    let t = Temp::new("ifaces.pcapng", &w.into_inner());
    let (got, sums, _) = read_and_dissect(&t.0, Limits::default());
    let datas: Vec<&[u8]> = got.iter().map(|g| g.data.as_slice()).collect();
    assert_eq!(
        datas,
        vec![&b"on ethernet"[..], b"raw ip", b"cooked", b"loopback v6"]
    );
    assert!(sums.iter().all(|s| s.protocol == "UDP"));
    assert_eq!(
        sums[3].src,
        Some(poolshark::dissect::Address::Ip(IpAddr::V6(a6())))
    );
}

/// Conversations built with `TcpFlow` and `SctpAssociation`: the dissector gets the messages
/// back, and tshark's Info column for the transport-only frames is ours word for word (relative
/// sequence numbers and TSNs, SACKs).
#[test]
fn flows_round_trip_and_read_as_tshark_reads_them() {
    use poolshark::generate::{SctpAssociation, TcpFlow};
    let mut frames: Vec<Vec<u8>> = Vec::new();
    let big: Vec<u8> = (0..5000u32).map(|i| (i % 13) as u8).collect();
    {
        let mut out = |f: &[u8]| frames.push(f.to_vec());
        let mut tcp = TcpFlow::new(
            "192.0.2.1:45000".parse().unwrap(),
            "192.0.2.2:5999".parse().unwrap(),
            [1000, 2_000_000_000],
        );
        tcp.handshake(&mut out);
        tcp.send(true, b"hello", &mut out);
        tcp.ack(false, &mut out);
        tcp.send(false, &big, &mut out);
        tcp.ack(true, &mut out);
        tcp.close(&mut out);
        let mut sctp = SctpAssociation::new(
            "[2001:db8::1]:5998".parse().unwrap(),
            "[2001:db8::2]:5997".parse().unwrap(),
            [0xaaaa, 0xbbbb],
            [7, 4_000_000_000],
        );
        sctp.handshake(&mut out);
        sctp.send(true, 1, 4242, b"first", &mut out);
        sctp.sack(false, &mut out);
        sctp.send(false, 2, 4243, &big, &mut out);
        sctp.sack(true, &mut out);
        sctp.send(true, 1, 4242, b"second", &mut out);
    }
    let t = Temp::new("flows.pcap", &pcap(&frames));
    let (got, sums, _) = read_and_dissect(&t.0, Limits::default());
    let tcp_server: Vec<u8> = got
        .iter()
        .filter(|g| g.transport == Transport::Tcp && g.data != b"hello")
        .flat_map(|g| g.data.clone())
        .collect();
    assert_eq!(tcp_server, big);
    let sctp: Vec<(Option<u32>, Option<u16>, usize)> = got
        .iter()
        .filter(|g| g.transport == Transport::Sctp)
        .map(|g| (g.ppid, g.stream, g.data.len()))
        .collect();
    assert_eq!(
        sctp,
        vec![
            (Some(4242), Some(1), 5),
            (Some(4243), Some(2), 5000),
            (Some(4242), Some(1), 6)
        ]
    );
    assert!(sums.iter().all(|s| s.errors.is_empty()));
    if !common::have_tshark() {
        return;
    }
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(&t.0)
        .args([
            "-T",
            "fields",
            "-e",
            "frame.protocols",
            "-e",
            "_ws.col.Info",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut compared = 0;
    for (n, line) in text.lines().enumerate() {
        let (protocols, info) = line.split_once('\t').unwrap();
        if protocols.ends_with(":tcp") || protocols.ends_with(":sctp") {
            assert_eq!(sums[n].info, info.trim_end(), "frame {}", n + 1);
            compared += 1;
        }
    }
    assert!(compared >= 15, "{compared}");
}
