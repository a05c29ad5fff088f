//! The capture filters poolshark compiles itself, against libpcap's compiler through tcpdump:
//! for every expression of the subset, the packets poolshark's program keeps (run by the
//! interpreter with the kernel's semantics) must be exactly those `tcpdump -r FILE -w OUT EXPR`
//! keeps. The default filter is compared with the same selection written out in libpcap's
//! language from the list of ports it promises. Both framings are covered: Ethernet (EtherType in
//! the frame) and network-first (EtherType from the kernel's metadata, as on `-i any`).

use std::collections::BTreeSet;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::Path;
use std::process::Command;

use poolshark::base::{linktype, Timestamp};
use poolshark::filter::capture::bpf::{self, Meta};
use poolshark::filter::capture::{self as filter, Framing};
use poolshark::generate::ip::{fragment_ipv4, fragment_ipv6};
use poolshark::generate::packet::{Ip, Link, Packet, Transport};
use poolshark::generate::{PcapWriter, TsResolution};
use poolshark::source::file::FileSource;
use poolshark::source::live::bpf::Insn;
use poolshark::source::FrameSource;
use poolshark::wire::ipv6::ipv6_options_header;
use poolshark::wire::sctp::build::{Chunk, DataFlags};
use poolshark::wire::tcp::TcpHeader;

fn have_tcpdump() -> bool {
    let ok = Command::new("tcpdump")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        if std::env::var_os("POOLSHARK_REQUIRE_TSHARK").is_some() {
            panic!("tcpdump cannot be run (.ci/run installs it)");
        }
        poolshark::test_support::skip("tcpdump is not installed (apt-get install tcpdump)");
    }
    ok
}

const A4: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 1);
const B4: Ipv4Addr = Ipv4Addr::new(198, 51, 100, 7);

fn a6() -> Ipv6Addr {
    "2001:db8::1".parse().unwrap()
}
fn b6() -> Ipv6Addr {
    "2001:db8::2".parse().unwrap()
}

/// IP packets (no link header) covering what the filters tell apart.
fn ip_packets() -> Vec<Vec<u8>> {
    let payload = [0x5au8; 40];
    let big = [0xa5u8; 600];
    let mut out = Vec::new();
    let ip_of = |p: Packet<'_>| {
        let mut v = Vec::new();
        p.build_ip(&mut v);
        v
    };
    let v4 = |s, d| Ip::v4(s, d);
    let v6 = |s, d| Ip::v6(s, d);
    // UDP over IPv4 and IPv6 on many ports, in both directions.
    for (s, d) in [
        (68, 67),
        (67, 68),
        (5000, 67),
        (5000, 547),
        (546, 547),
        (5000, 3863),
        (3863, 5000),
        (5000, 9901),
        (5000, 9899),
        (5000, 2001),
        (5000, 5001),
        (647, 5000),
        // VXLAN, Geneve, and Linux's old VXLAN port (only with a decode-as rule).
        (40000, 4789),
        (40000, 6081),
        (40000, 8472),
    ] {
        out.push(ip_of(Packet::udp(v4(A4, B4), s, d, &payload)));
        out.push(ip_of(Packet::udp(v6(b6(), a6()), s, d, &payload)));
    }
    // TCP.
    for (s, d) in [
        (40000, 647),
        (847, 40000),
        (40000, 3863),
        (40000, 9901),
        (40000, 80),
        (67, 40000),
    ] {
        let h = TcpHeader::new(s, d, 1000, 0, 0x18);
        out.push(ip_of(Packet::tcp(v4(B4, A4), h.clone(), &payload)));
        out.push(ip_of(Packet::tcp(v6(a6(), b6()), h, &payload)));
    }
    // SCTP.
    for (s, d) in [(3863, 3863), (5000, 5001), (9901, 40000)] {
        let chunks = vec![Chunk::Data {
            tsn: 1,
            stream: 0,
            ssn: 0,
            ppid: 11,
            flags: DataFlags::WHOLE,
            data: &payload,
        }];
        out.push(ip_of(Packet::sctp(v4(A4, B4), s, d, 7, chunks.clone())));
        out.push(ip_of(Packet::sctp(v6(b6(), a6()), s, d, 7, chunks)));
    }
    // IPv4 fragments: the first carries the ports, the others do not.
    for d in [67, 5001] {
        let whole = ip_of(Packet::udp(v4(A4, B4), 5000, d, &big));
        out.extend(fragment_ipv4(&whole, 256));
    }
    // IPv6 fragments (fragment header before UDP).
    for d in [547, 5001] {
        let whole = ip_of(Packet::udp(v6(a6(), b6()), 5000, d, &big));
        out.extend(fragment_ipv6(&whole, 256, 99));
    }
    // IPv4 with options (a 24-byte header) before UDP 67 and UDP 5001.
    for d in [67, 5001] {
        let mut h = poolshark::wire::ipv4::Ipv4Header::new(A4, B4, 0);
        h.options = vec![1, 1, 1, 0];
        let p = Packet {
            link: Link::Raw,
            ip: Ip::V4(h),
            transport: Transport::Udp {
                sport: 5000,
                dport: d,
            },
            payload: &payload,
        };
        out.push(ip_of(p));
    }
    // IPv6 with a hop-by-hop header before UDP 547.
    {
        let udp = ip_of(Packet::udp(v6(a6(), b6()), 546, 547, &payload));
        let mut p = udp[..40].to_vec();
        p[6] = 0;
        let mut ext = Vec::new();
        ipv6_options_header(&mut ext, 17, &[1, 2, 0, 0]);
        p.extend_from_slice(&ext);
        p.extend_from_slice(&udp[40..]);
        let len = (p.len() - 40) as u16;
        p[4..6].copy_from_slice(&len.to_be_bytes());
        out.push(p);
    }
    // IP in IP, IPv6 in IP, GRE (kept: tunnels), and ESP (not), over IPv4 and IPv6.
    for protocol in [4, 41, 47, 50] {
        for ip in [v4(A4, B4), v6(a6(), b6())] {
            out.push(ip_of(Packet {
                link: Link::Raw,
                ip,
                transport: Transport::Raw { protocol },
                payload: &payload,
            }));
        }
    }
    // Truncated: an IPv4 header whose transport is cut off, and a bare 10 bytes of IPv6.
    let udp = ip_of(Packet::udp(v4(A4, B4), 5000, 67, &payload));
    out.push(udp[..22].to_vec());
    let udp6 = ip_of(Packet::udp(v6(a6(), b6()), 5000, 547, &payload));
    out.push(udp6[..10].to_vec());
    out
}

fn ethernet_frames(ip: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = ip
        .iter()
        .map(|p| {
            let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1];
            let ethertype: u16 = if p.first().is_some_and(|b| b >> 4 == 6) {
                0x86dd
            } else {
                0x0800
            };
            f.extend_from_slice(&ethertype.to_be_bytes());
            f.extend_from_slice(p);
            f
        })
        .collect();
    // ARP requests: one about A4, one about another address.
    for target in [A4, Ipv4Addr::new(203, 0, 113, 9)] {
        let mut f = vec![0xff; 6];
        f.extend_from_slice(&[2, 0, 0, 0, 0, 1, 0x08, 0x06]);
        f.extend_from_slice(&[0, 1, 0x08, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1]);
        f.extend_from_slice(&B4.octets());
        f.extend_from_slice(&[0; 6]);
        f.extend_from_slice(&target.octets());
        out.push(f);
    }
    out
}

fn write_pcap(path: &Path, lt: u32, frames: &[Vec<u8>]) {
    let f = std::fs::File::create(path).unwrap();
    let mut w = PcapWriter::new(f, lt, TsResolution::Micro).unwrap();
    for (i, fr) in frames.iter().enumerate() {
        w.write(Timestamp::new(i as i64 + 1, 0), fr).unwrap();
    }
    w.flush().unwrap();
}

/// The frames (0-based) tcpdump keeps.
fn tcpdump_keeps(input: &Path, expr: &str, dir: &Path) -> BTreeSet<usize> {
    let out = dir.join("kept.pcap");
    let o = Command::new("tcpdump")
        .args(["-r"])
        .arg(input)
        .arg("-w")
        .arg(&out)
        .arg(expr)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "tcpdump {expr:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut src = FileSource::open(out.to_str().unwrap()).unwrap();
    let mut kept = BTreeSet::new();
    while let Some(f) = src.next_frame().unwrap() {
        kept.insert(f.ts.secs as usize - 1);
    }
    kept
}

fn meta_of(framing: Framing, frame: &[u8]) -> Meta {
    let protocol = match framing {
        Framing::Ethernet => u16::from_be_bytes([frame[12], frame[13]]),
        Framing::Network => match frame.first().map(|b| b >> 4) {
            Some(6) => 0x86dd,
            _ => 0x0800,
        },
    };
    Meta {
        protocol,
        ..Meta::default()
    }
}

fn ours_keeps(prog: &[Insn], framing: Framing, frames: &[Vec<u8>]) -> BTreeSet<usize> {
    frames
        .iter()
        .enumerate()
        .filter(|(_, f)| bpf::run(prog, f, &meta_of(framing, f)) != 0)
        .map(|(i, _)| i)
        .collect()
}

const EXPRESSIONS: &[&str] = &[
    "ip",
    "ip6",
    "udp",
    "tcp",
    "sctp",
    "udp port 67",
    "port 3863",
    "tcp port 647",
    "sctp port 3863",
    "src port 68",
    "dst port 67",
    "udp dst port 547",
    "tcp src port 847",
    "host 192.0.2.1",
    "src host 192.0.2.1",
    "dst host 192.0.2.1",
    "host 2001:db8::1",
    "dst host 2001:db8::1",
    "not udp",
    "!ip",
    "udp and not port 67",
    "(tcp or sctp) and ip6",
    "ip6 && (udp port 547 || tcp port 647)",
    "not (port 67 or port 68) and ip",
    "udp port 67 or udp port 68 or udp port 546 or udp port 547 or udp port 3863",
];

/// The default filter as the brief states it, in libpcap's language (with the tunnels whose
/// inside poolshark decodes: IP in IP, GRE, VXLAN, Geneve).
const DEFAULT_AS_LIBPCAP: &str = "sctp or (ip and ip[6:2] & 0x1fff != 0) \
    or (ip6 and (ip6[6] == 0 or ip6[6] == 43 or ip6[6] == 44 or ip6[6] == 60)) \
    or ip proto 4 or ip proto 41 or ip proto 47 or ip6 proto 4 or ip6 proto 41 or ip6 proto 47 \
    or udp port 67 or udp port 68 or udp port 546 or udp port 547 or udp port 3863 \
    or udp port 9901 or udp port 9899 or udp port 4789 or udp port 6081 \
    or tcp port 647 or tcp port 847 or tcp port 3863 or tcp port 9901";

fn compare(framing: Framing, lt: u32, frames: &[Vec<u8>]) {
    let dir = tempdir();
    let input = dir.join("in.pcap");
    write_pcap(&input, lt, frames);
    let mut checked = 0;
    for expr in EXPRESSIONS {
        let e = filter::parse(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
        let prog = filter::compile(&e, framing).unwrap();
        let ours = ours_keeps(&prog, framing, frames);
        let theirs = tcpdump_keeps(&input, expr, &dir);
        assert_eq!(
            ours,
            theirs,
            "{expr:?} ({framing:?}): poolshark keeps the left frames, libpcap the right\n{}",
            bpf::disassemble(&prog)
        );
        // Every expression must tell some packets apart, or the comparison proves little.
        assert!(
            !ours.is_empty() && ours.len() < frames.len(),
            "{expr:?} keeps {ours:?}"
        );
        checked += 1;
    }
    let prog = filter::compile(&filter::default_filter(&[]), framing).unwrap();
    let ours = ours_keeps(&prog, framing, frames);
    let theirs = tcpdump_keeps(&input, DEFAULT_AS_LIBPCAP, &dir);
    assert_eq!(
        ours,
        theirs,
        "default filter ({framing:?})\n{}",
        bpf::disassemble(&prog)
    );
    assert!(ours.len() < frames.len());
    assert_eq!(checked, EXPRESSIONS.len());
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempdir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "poolshark-filter-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn ethernet_framing_agrees_with_libpcap() {
    if !have_tcpdump() {
        return;
    }
    let frames = ethernet_frames(&ip_packets());
    compare(Framing::Ethernet, linktype::ETHERNET, &frames);
}

#[test]
fn network_framing_agrees_with_libpcap_on_raw_ip() {
    if !have_tcpdump() {
        return;
    }
    compare(Framing::Network, linktype::RAW, &ip_packets());
}

#[test]
fn decode_as_ports_join_the_default_filter() {
    if !have_tcpdump() {
        return;
    }
    let frames = ethernet_frames(&ip_packets());
    let dir = tempdir();
    let input = dir.join("in.pcap");
    write_pcap(&input, linktype::ETHERNET, &frames);
    let rules = vec![
        "udp.port==2001:asap".parse().unwrap(),
        "port==80:dhcpfo".parse().unwrap(),
        "udp.port==8472,vxlan".parse().unwrap(),
    ];
    let prog = filter::compile(&filter::default_filter(&rules), Framing::Ethernet).unwrap();
    let ours = ours_keeps(&prog, Framing::Ethernet, &frames);
    let theirs = tcpdump_keeps(
        &input,
        &format!(
            "{DEFAULT_AS_LIBPCAP} or udp port 2001 or udp port 80 or tcp port 80 or udp port 8472"
        ),
        &dir,
    );
    assert_eq!(ours, theirs);
    let _ = std::fs::remove_dir_all(&dir);
}
