//! The dissector on every shared capture, against tshark: SCTP DATA chunks per frame (TSN, PPID,
//! stream), retransmitted TSNs, UDP/TCP/SCTP ports, the deepest protocol, the Info column of the
//! lower layers, and the TCP byte streams as `tshark -z follow,tcp,raw` gives them.

use crate::common;

use std::collections::{BTreeMap, HashMap};
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
    /// (first TSN, PPID, stream, the frames of its fragments) of the SCTP user messages this
    /// frame completed from fragments.
    reassembled: Vec<(u32, u32, u16, Vec<u64>)>,
    /// The capture cut the frame short (snap length).
    cut: bool,
}

fn dissect_all(path: &Path) -> Vec<Ours> {
    let mut src = FileSource::open(path).unwrap();
    let mut d = Dissector::new(Limits::default());
    let mut out = Vec::new();
    while let Some(f) = src.next_frame().unwrap() {
        let (mut sctp, mut reassembled) = (Vec::new(), Vec::new());
        let cut = (f.orig_len as usize) > f.data.len();
        let summary = d.dissect(&f, &mut |p| {
            if p.transport != Transport::Sctp {
                return;
            }
            let (tsn, ppid, sid) = (
                p.tsn.unwrap_or(0),
                p.ppid.unwrap_or(0),
                p.stream.unwrap_or(0),
            );
            if p.frame_offset.is_some() {
                sctp.push((tsn, ppid, sid, p.duplicate));
            } else {
                reassembled.push((tsn, ppid, sid, p.reassembled_from.clone()));
            }
        });
        out.push(Ours {
            summary,
            sctp,
            reassembled,
            cut,
        });
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
    let mut fragments = 0;
    let mut infos = 0;
    let mut held_by_others = 0;
    let mut analysed = 0;
    let mut bad_checksums_seen = 0;
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
                "sctp.data_b_bit",
                "sctp.data_e_bit",
                "_ws.col.Info",
            ],
        );
        assert_eq!(ours.len(), theirs.len(), "{}", path.display());
        // The frames whose SCTP checksum is neither a CRC32c nor an Adler-32, by tshark's
        // "automatic" check (asked only of a capture where poolshark finds one).
        let checksum_error = |o: &Ours| {
            !o.summary.errors.is_empty()
                && o.summary
                    .errors
                    .iter()
                    .all(|e| e.what.starts_with("SCTP checksum"))
        };
        let bad_checksums: Vec<u64> = if ours.iter().any(checksum_error) {
            tshark_fields(
                &path,
                &[
                    "-o",
                    "sctp.checksum:automatic",
                    "-Y",
                    "sctp.checksum.status == 0",
                ],
                &["frame.number"],
            )
            .iter()
            .filter_map(|r| r[0].parse().ok())
            .collect()
        } else {
            Vec::new()
        };
        // The fragments of SCTP user messages, by frame: (TSN, B bit, PPID, stream).
        let mut fragmented: BTreeMap<u64, Vec<(u32, bool, u32, u16)>> = BTreeMap::new();
        for (n, (o, t)) in ours.iter().zip(&theirs).enumerate() {
            let at = format!("{} frame {}", path.display(), n + 1);
            // The shared captures are well formed but for frames the capture cut short and the
            // wrong SCTP checksums tshark finds too.
            let n1 = n as u64 + 1;
            assert!(
                o.summary.errors.is_empty()
                    || o.cut
                    || (checksum_error(o) && bad_checksums.contains(&n1)),
                "{at}: {:?}",
                o.summary.errors
            );
            bad_checksums_seen += usize::from(checksum_error(o));
            let protocols: Vec<&str> = t[0].split(':').collect();
            let tsns: Vec<u32> = list(&t[1], false);
            let ppids: Vec<u32> = list(&t[2], false);
            let sids: Vec<u16> = list(&t[3], true);
            let retrans = t[4].split(',').filter(|x| !x.is_empty()).count();
            let (b, e): (Vec<u8>, Vec<u8>) = (list(&t[11], false), list(&t[12], false));
            sctp_chunks += tsns.len();
            // A whole message is delivered from the frame's own chunk; a fragment is held until
            // its message is complete (compared below).
            let whole: Vec<bool> = b.iter().zip(&e).map(|(b, e)| *b == 1 && *e == 1).collect();
            assert_eq!(
                whole.len(),
                tsns.len(),
                "{at}: B and E bits of each DATA chunk"
            );
            for (i, _) in whole.iter().enumerate().filter(|(_, w)| !**w) {
                fragmented.entry(n as u64 + 1).or_default().push((
                    tsns[i],
                    b[i] == 1,
                    ppids[i],
                    sids[i],
                ));
                fragments += 1;
            }
            let (tsns, ppids, sids) = (
                only(&tsns, &whole),
                only(&ppids, &whole),
                only(&sids, &whole),
            );
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
            // tshark's FabricPath dissector takes a frame's last 4 bytes for an FCS, which the
            // capture does not have, and finds every packet inside malformed (its Info says so).
            let fcs_misread = protocols.contains(&"cfp");
            if ["tcp", "udp", "sctp", "arp", "icmpv6"].contains(&deepest) && !fcs_misread {
                let info = t[13..].join("|");
                let (info, marked) = without_tcp_analysis(info.trim_end());
                analysed += usize::from(marked);
                // A protocol poolshark does not decode (HTTP) may hold the segment to reassemble
                // a message: tshark's Info is then TCP's with a mark after it, or that protocol's.
                let expected = match tcp_text_of_held_segment(info, o.summary.src_port) {
                    Some(tcp) => tcp,
                    None => Some(info),
                };
                match expected {
                    Some(e) => {
                        assert_eq!(o.summary.info, e, "{at}: info");
                        infos += 1;
                    }
                    None => held_by_others += 1,
                }
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
            // tshark's first occurrence is the outermost layer's: a tunnel's UDP datagram
            // (Teredo's) before what it carries.
            let outer_udp = o.summary.outer.as_slice().first().and_then(|l| l.udp);
            let our_ports = outer_udp.or(o.summary.src_port.zip(o.summary.dst_port));
            // (tshark's SCTP header inside FabricPath is cut short by the FCS it takes off: no
            // ports.)
            if !(fcs_misread && theirs_ports.is_none()) {
                assert_eq!(our_ports, theirs_ports, "{at}");
            }
            let ours_name = match o.summary.protocol {
                "IPv4" => "ip".to_string(),
                // A pcapng custom block: tshark's Protocol column says PCAPNG, its protocols
                // "data".
                "PCAPNG" => "data".to_string(),
                // An EtherType not decoded: tshark's column says Ethernet too.
                "Ethernet" => "eth".to_string(),
                p => p.to_ascii_lowercase(),
            };
            assert!(
                protocols.contains(&ours_name.as_str()),
                "{at}: we say {}, tshark {}",
                o.summary.protocol,
                t[0]
            );
        }
        // Each message reassembled from fragments: its first TSN is the one of a fragment with
        // the B bit in its first frame, with that fragment's PPID and stream; together they are
        // made of every frame that holds a fragment.
        let mut made_of = BTreeMap::new();
        for (tsn, ppid, sid, frames) in ours.iter().flat_map(|o| &o.reassembled) {
            let first = frames.first().and_then(|f| fragmented.get(f));
            assert!(
                first.is_some_and(|c| c.contains(&(*tsn, true, *ppid, *sid))),
                "{}: a message reassembled from frames {frames:?} starts at TSN {tsn}, not a \
                 first fragment there ({first:?})",
                path.display()
            );
            made_of.extend(frames.iter().map(|f| (*f, ())));
        }
        let held: Vec<&u64> = fragmented.keys().collect();
        assert_eq!(
            made_of.keys().collect::<Vec<_>>(),
            held,
            "{}: frames of fragments",
            path.display()
        );
    }
    assert!(sctp_chunks > 9000, "only {sctp_chunks} DATA chunks seen");
    assert!(
        fragments > 20,
        "only {fragments} fragments of SCTP messages seen"
    );
    // pcap4j's SCTP test packet has a wrong CRC32c (its README).
    assert!(bad_checksums_seen >= 1, "no wrong SCTP checksum seen");
    assert!(infos > 10_000, "only {infos} info columns compared");
    eprintln!(
        "{infos} info columns as tshark's ({analysed} after tshark's TCP sequence analysis marks, \
         which poolshark does not make); {held_by_others} frames whose Info another protocol \
         wrote while it held the segment"
    );
}

/// The items of `v` whose `keep` is true.
fn only<T: Copy>(v: &[T], keep: &[bool]) -> Vec<T> {
    v.iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .map(|(x, _)| *x)
        .collect()
}

/// The marks tshark's TCP sequence analysis puts before TCP's Info (`[TCP Dup ACK 9#1] `, ...).
/// poolshark does no sequence analysis (README, "What is decoded"): a known difference, counted.
const TCP_ANALYSIS: &[&str] = &[
    "[TCP Dup ACK ",
    "[TCP Retransmission]",
    "[TCP Fast Retransmission]",
    "[TCP Spurious Retransmission]",
    "[TCP Out-Of-Order]",
    "[TCP Previous segment not captured]",
    "[TCP ACKed unseen segment]",
    "[TCP Keep-Alive]",
    "[TCP Keep-Alive ACK]",
    "[TCP Window Update]",
    "[TCP Window Full]",
    "[TCP ZeroWindow]",
    "[TCP ZeroWindowProbe]",
    "[TCP ZeroWindowProbeAck]",
    "[TCP Port numbers reused]",
];

/// tshark's Info without the marks of its TCP sequence analysis before it, and whether it had
/// one.
fn without_tcp_analysis(mut info: &str) -> (&str, bool) {
    let mut marked = false;
    while let Some(mark) = TCP_ANALYSIS.iter().find(|m| info.starts_with(**m)) {
        let Some(end) = info[mark.len() - 1..].find("] ") else {
            break;
        };
        info = &info[mark.len() - 1 + end + 2..];
        marked = true;
    }
    (info, marked)
}

/// What tshark marks a TCP segment with when a protocol above holds it to reassemble a message,
/// or finds it overlapping what it holds.
const HELD: &str = " [TCP segment of a reassembled PDU]";
const OVERLAP: &str =
    "[Reassembly error, protocol TCP: New fragment overlaps old data (retransmission?)]";

/// For tshark's Info of a TCP segment that a protocol above (one poolshark does not decode:
/// HTTP, TLS) holds or reassembles (ending in [`HELD`] or [`OVERLAP`]): TCP's own text without
/// the mark (`Some(Some(..))`), or `Some(None)` when that protocol wrote its own text in place of
/// TCP's (HTTP's status line: "HTTP/1.0 200 OK  [TCP segment ...]"). `None` when the segment is
/// not one of those. TCP's text starts with the source port and an arrow.
fn tcp_text_of_held_segment(info: &str, sport: Option<u16>) -> Option<Option<&str>> {
    let tcp = info
        .strip_suffix(HELD)
        .or_else(|| info.strip_suffix(OVERLAP))?;
    let ours = sport.is_some_and(|p| tcp.starts_with(&format!("{p} → ")));
    Some(ours.then_some(tcp))
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
