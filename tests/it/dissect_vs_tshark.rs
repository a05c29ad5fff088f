//! The dissector on every shared capture, against tshark: SCTP DATA chunks per frame (TSN, PPID,
//! stream), retransmitted TSNs, UDP/TCP/SCTP ports, the deepest protocol, the Info column of the
//! lower layers, and the TCP byte streams as `tshark -z follow,tcp,raw` gives them.

use crate::common;

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::Path;
use std::process::Command;

use poolshark::dissect::{Dissector, FrameSummary, Limits, Transport};
use poolshark::source::file::FileSource;
use poolshark::source::FrameSource;

fn tshark_fields(path: &Path, opts: &[&str], fields: &[&str]) -> Vec<Vec<String>> {
    let mut cmd = Command::new("tshark");
    cmd.args(["-n", "-r"]).arg(path).args(opts);
    cmd.args(["-T", "fields", "-E", "separator=|"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("run tshark");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split('|').map(str::to_string).collect())
        .collect()
}

/// What we found in one frame.
#[derive(Default, Debug)]
struct Ours {
    summary: FrameSummary,
    /// (TSN, PPID, stream, duplicate) of SCTP payloads delivered from this frame's own chunks.
    sctp: Vec<(u32, u32, u16, bool)>,
    /// The capture cut the frame short (snap length).
    cut: bool,
}

fn dissect_all(path: &Path) -> Vec<Ours> {
    let mut src = FileSource::open(path).unwrap();
    let mut d = Dissector::new(Limits::default());
    let mut out = Vec::new();
    while let Some(f) = src.next_frame().unwrap() {
        let mut sctp = Vec::new();
        let cut = (f.orig_len as usize) > f.data.len();
        let summary = d.dissect(&f, &mut |p| {
            if p.transport == Transport::Sctp && p.frame_offset.is_some() {
                sctp.push((
                    p.tsn.unwrap_or(0),
                    p.ppid.unwrap_or(0),
                    p.stream.unwrap_or(0),
                    p.duplicate,
                ));
            }
        });
        out.push(Ours { summary, sctp, cut });
    }
    out
}

fn list<T: TryFrom<u64>>(s: &str, hex: bool) -> Vec<T> {
    s.split(',')
        .filter(|x| !x.is_empty())
        .map(|x| {
            let v = if hex {
                u64::from_str_radix(x.trim_start_matches("0x"), 16).unwrap()
            } else {
                x.parse::<u64>().unwrap()
            };
            T::try_from(v).ok().unwrap()
        })
        .collect()
}

#[test]
fn sctp_chunks_ports_and_protocols_match_tshark() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let mut sctp_chunks = 0;
    let mut infos = 0;
    for path in common::captures_under(&shared.join("captures")) {
        let ours = dissect_all(&path);
        let theirs = tshark_fields(
            &path,
            &["-o", "sctp.tsn_analysis:TRUE"],
            &[
                "frame.protocols",
                "sctp.data_tsn_raw",
                "sctp.data_payload_proto_id",
                "sctp.data_sid",
                "sctp.retransmission",
                "udp.srcport",
                "udp.dstport",
                "tcp.srcport",
                "tcp.dstport",
                "sctp.srcport",
                "sctp.dstport",
                "_ws.col.Info",
            ],
        );
        assert_eq!(ours.len(), theirs.len(), "{}", path.display());
        for (n, (o, t)) in ours.iter().zip(&theirs).enumerate() {
            let at = format!("{} frame {}", path.display(), n + 1);
            // The shared captures are well formed but for frames the capture cut short.
            assert!(
                o.summary.errors.is_empty() || o.cut,
                "{at}: {:?}",
                o.summary.errors
            );
            let protocols: Vec<&str> = t[0].split(':').collect();
            let tsns: Vec<u32> = list(&t[1], false);
            let ppids: Vec<u32> = list(&t[2], false);
            let sids: Vec<u16> = list(&t[3], true);
            let retrans = t[4].split(',').filter(|x| !x.is_empty()).count();
            sctp_chunks += tsns.len();
            let got_tsns: Vec<u32> = o.sctp.iter().map(|x| x.0).collect();
            let got_ppids: Vec<u32> = o.sctp.iter().map(|x| x.1).collect();
            let got_sids: Vec<u16> = o.sctp.iter().map(|x| x.2).collect();
            assert_eq!(got_tsns, tsns, "{at}");
            assert_eq!(got_ppids, ppids, "{at}");
            assert_eq!(got_sids, sids, "{at}");
            let dups = o.sctp.iter().filter(|x| x.3).count();
            assert_eq!(dups, retrans, "{at}: duplicate TSNs");
            // For frames whose deepest layer is one of ours, the info is tshark's Info column
            // word for word: TCP flags, relative sequence numbers, scaled windows and options;
            // SCTP chunk names with relative TSNs and retransmission marks; neighbour
            // discovery; ARP announcements.
            let deepest = protocols.last().copied().unwrap_or("");
            if ["tcp", "udp", "sctp", "arp", "icmpv6"].contains(&deepest) {
                let info = t[11..].join("|");
                assert_eq!(o.summary.info, info.trim_end(), "{at}: info");
                infos += 1;
            }
            // ICMP errors quote the datagram they concern: tshark decodes the quoted ports.
            if protocols.contains(&"icmp") || protocols.contains(&"icmpv6") {
                continue;
            }
            let ports = |a: &str, b: &str| -> Option<(u16, u16)> {
                Some((
                    a.split(',').next()?.parse().ok()?,
                    b.split(',').next()?.parse().ok()?,
                ))
            };
            let theirs_ports = ports(&t[5], &t[6])
                .or_else(|| ports(&t[7], &t[8]))
                .or_else(|| ports(&t[9], &t[10]));
            let our_ports = o.summary.src_port.zip(o.summary.dst_port);
            assert_eq!(our_ports, theirs_ports, "{at}");
            let ours_name = match o.summary.protocol {
                "IPv4" => "ip".to_string(),
                p => p.to_ascii_lowercase(),
            };
            assert!(
                protocols.contains(&ours_name.as_str()),
                "{at}: we say {}, tshark {}",
                o.summary.protocol,
                t[0]
            );
        }
    }
    assert!(sctp_chunks > 9000, "only {sctp_chunks} DATA chunks seen");
    assert!(infos > 10_000, "only {infos} info columns compared");
}

/// Bytes of each TCP stream direction, keyed by the sender.
type Streams = HashMap<(IpAddr, u16, IpAddr, u16), Vec<u8>>;

#[test]
fn tcp_streams_match_tshark_follow() {
    let Some(path) = common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap") else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let mut src = FileSource::open(&path).unwrap();
    let mut d = Dissector::new(Limits::default());
    let mut ours: Streams = HashMap::new();
    let mut gaps = 0;
    while let Some(f) = src.next_frame().unwrap() {
        d.dissect(&f, &mut |p| {
            if p.transport == Transport::Tcp {
                gaps += usize::from(p.gap_before);
                ours.entry((p.src, p.src_port, p.dst, p.dst_port))
                    .or_default()
                    .extend_from_slice(p.data);
            }
        });
    }
    assert_eq!(gaps, 0);
    let streams: Vec<u32> = {
        let mut v: Vec<u32> = tshark_fields(&path, &["-Y", "tcp.len > 0"], &["tcp.stream"])
            .into_iter()
            .filter_map(|r| r[0].parse().ok())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    assert!(!streams.is_empty());
    let mut total = 0;
    for s in streams {
        let out = Command::new("tshark")
            .args(["-n", "-r"])
            .arg(&path)
            .args(["-q", "-z", &format!("follow,tcp,raw,{s}")])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let mut nodes: Vec<(IpAddr, u16)> = Vec::new();
        let mut data: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("Node ") {
                let addr = rest.split_once(": ").unwrap().1;
                let (ip, port) = addr.rsplit_once(':').unwrap();
                nodes.push((ip.parse().unwrap(), port.parse().unwrap()));
            } else if nodes.len() == 2 && !line.starts_with('=') && !line.is_empty() {
                let (i, hex) = match line.strip_prefix('\t') {
                    Some(h) => (1, h),
                    None => (0, line),
                };
                for k in (0..hex.len()).step_by(2) {
                    data[i].push(u8::from_str_radix(&hex[k..k + 2], 16).unwrap());
                }
            }
        }
        for i in 0..2 {
            let (a, b) = (nodes[i], nodes[1 - i]);
            let got = ours.get(&(a.0, a.1, b.0, b.1)).cloned().unwrap_or_default();
            assert_eq!(got.len(), data[i].len(), "stream {s} node {i}");
            assert!(got == data[i], "stream {s} node {i}: bytes differ");
            total += got.len();
        }
    }
    assert!(total > 100_000, "{total}");
}
