//! The lower layers' fields that depend on the frames before: `tcp.stream` and `udp.stream` (the
//! index of the frame's conversation, counted in order of first appearance from 0, TCP and UDP
//! apart), TCP's relative `tcp.seq`, `tcp.ack` and `tcp.nxtseq` and SCTP's relative `sctp.data_tsn`
//! and `sctp.sack_cumulative_tsn_ack`, worked out as tshark 4.0 does
//! with its default preferences, from the [`Transport`]s [`layers::decode`] notes in each frame.
//!
//! `read` feeds every frame's layers through one [`Streams`], in capture order, whenever it
//! decodes the lower layers at all (a filter, a column or `-V` names one of their fields);
//! `check`, `stats` and the dissector never build one.
//!
//! tshark's rules, learnt from its behaviour (the oracle tests hold poolshark to them):
//! - A conversation is its two ends (address and port), whichever sends: A→B and B→A are one.
//!   Tunnelled packets are the inner packet's conversation; an outer UDP header (VXLAN, Geneve,
//!   SCTP over UDP) has a conversation of its own.
//! - A SYN without ACK whose sequence number is not its sender's base starts a new conversation
//!   on the same ends (a port reused after a close, or a client retrying with a new ISN); a
//!   retransmitted SYN (the same number) does not.
//! - Each direction's base is learnt from the first segment that tells it: the sender's own
//!   sequence number (minus one unless it is a SYN, so that a capture started mid-stream shows 1
//!   for its first byte), or the acknowledgment number minus one of a segment with ACK from the
//!   other side. A SYN (with or without ACK) always resets its sender's base to its number. Bases
//!   never move otherwise, so an older segment seen later wraps below zero as tshark shows it.
//! - `tcp.ack` is relative only when the ACK flag is set, and is the raw number otherwise.
//!   `tcp.nxtseq` is the relative number plus the payload's length, plus one for SYN or FIN.
//! - A header quoted in an ICMP error is given its conversation's index (looked up, or a new one
//!   counted, as for any packet, and a quoted SYN may start one) but keeps the numbers on the
//!   wire, and teaches the conversation nothing. So does a segment shorter than its header
//!   length or in an IP fragment, where tshark does not know the payload's length.
//! - A header length below 20 (bogus) ends tshark's TCP tree after the sequence number: no
//!   `tcp.ack` and no `tcp.nxtseq`.
//! - SCTP's TSNs are relative per direction of an association, a direction being its source and
//!   destination ports and the verification tag its packets carry (not the addresses: a
//!   multi-homed peer's other path is the same direction). The first DATA chunk of a direction
//!   sets its base (an INIT's initial TSN does not: tshark 4.0 ignores it, and a DATA chunk of a
//!   new tag starts afresh). A packet with tag 0, or quoted in an ICMP error, has no relative
//!   TSNs at all. Directions are paired as tshark pairs them: a direction waits under its ports
//!   and source address until the first direction the other way whose ports and destination
//!   match. A SACK's relative cumulative TSN is relative to its direction's peer (to 0 while the
//!   peer has sent no DATA), and is not there while the direction has no peer.
//!
//! Memory is bounded by [`MAX_CONVERSATIONS`] per protocol (SCTP: directions and the directions
//! waiting for a peer), not by the capture: past it, the
//! least recently used conversations are forgotten, and one seen again afterwards is given a new
//! index (and learns its bases afresh) where tshark, which keeps every conversation, would give the
//! old one.
//!
//! [`layers::decode`]: super::layers::decode

use std::net::IpAddr;

use super::layers::{Layers, TcpHeader, Transport, TransportKind};
use super::lru::LruMap;
use crate::base::Timestamp;
use crate::field::{Field, Value};

/// The conversations kept per protocol (TCP and UDP apart) before the least recently used are
/// forgotten.
pub const MAX_CONVERSATIONS: usize = 65_536;

const FIN: u16 = 0x001;
const SYN: u16 = 0x002;
const ACK: u16 = 0x010;

/// A conversation's two ends (address and port), the lower first, so that both directions of a
/// conversation find the same entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    ends: [(IpAddr, u16); 2],
}

impl Key {
    /// The key of `t`'s conversation, and which end of it sent `t` (0 for the lower).
    fn of(t: &Transport) -> (Key, usize) {
        let (a, b) = ((t.src, t.sport), (t.dst, t.dport));
        if a <= b {
            (Key { ends: [a, b] }, 0)
        } else {
            (Key { ends: [b, a] }, 1)
        }
    }
}

/// A TCP conversation: its index and the base of each end's sequence numbers, once known.
struct TcpConversation {
    index: u32,
    base: [Option<u32>; 2],
}

/// One direction of an SCTP association, as tshark keys it: source port, destination port and
/// verification tag.
type SctpDirection = (u16, u16, u32);

/// What is known of an SCTP direction: the TSN its first DATA chunk carried, and the direction
/// it was paired with.
#[derive(Default)]
struct SctpHalf {
    first_tsn: Option<u32>,
    peer: Option<SctpDirection>,
}

/// A UDP conversation: its index, and the times of its first and latest frames.
struct UdpConversation {
    index: u32,
    first: Option<Timestamp>,
    prev: Option<Timestamp>,
}

/// `later - earlier` in seconds with nine decimals, as tshark's `-V` writes times.
fn seconds(earlier: Timestamp, later: Timestamp) -> String {
    let ns = |t: Timestamp| i128::from(t.secs) * 1_000_000_000 + i128::from(t.nanos);
    let d = ns(later) - ns(earlier);
    let sign = if d < 0 { "-" } else { "" };
    let d = d.unsigned_abs();
    format!("{sign}{}.{:09}", d / 1_000_000_000, d % 1_000_000_000)
}

/// The conversation tables of one capture read in order.
pub struct Streams {
    tcp: LruMap<Key, TcpConversation>,
    udp: LruMap<Key, UdpConversation>,
    next_tcp: u32,
    next_udp: u32,
    sctp: LruMap<SctpDirection, SctpHalf>,
    /// SCTP directions waiting for their peer, by source port, destination port and source
    /// address; `None` once the one waiting there was paired.
    sctp_waiting: LruMap<(u16, u16, IpAddr), Option<SctpDirection>>,
}

impl Default for Streams {
    fn default() -> Self {
        Streams::new(MAX_CONVERSATIONS)
    }
}

impl Streams {
    /// Tables that keep up to `capacity` conversations per protocol.
    pub fn new(capacity: usize) -> Self {
        Streams {
            tcp: LruMap::new(capacity),
            udp: LruMap::new(capacity),
            next_tcp: 0,
            next_udp: 0,
            sctp: LruMap::new(capacity),
            sctp_waiting: LruMap::new(capacity),
        }
    }

    /// Adds the stream fields to the TCP and UDP trees of `layers`, the next frame's, where
    /// tshark's `-V` shows them.
    pub fn annotate(&mut self, layers: &mut Layers) {
        self.annotate_at(layers, None);
    }

    /// [`Streams::annotate`] for a frame of time `ts`: the UDP trees with labels get tshark's
    /// `[Timestamps]` of their conversation too.
    pub fn annotate_at(&mut self, layers: &mut Layers, ts: Option<Timestamp>) {
        for t in &layers.transports {
            let Some(tree) = layers.trees.get_mut(t.tree) else {
                continue;
            };
            match &t.kind {
                TransportKind::Tcp(h) => {
                    let fields = self.tcp(t, h);
                    fields.place(tree, t, h);
                }
                TransportKind::Udp => {
                    let (index, times) = self.udp_index(t, ts);
                    // Before the payload's line of `-V`, where there is one.
                    let at = tree
                        .children
                        .iter()
                        .position(|c| c.name.is_empty() && c.label.starts_with("UDP payload"))
                        .unwrap_or(tree.children.len());
                    tree.children.insert(
                        at,
                        Field::uint("udp.stream", "Stream index", index, tree.offset, 0)
                            .generated(),
                    );
                    if let (Some((first, prev, now)), false) = (times, tree.label.is_empty()) {
                        let line = |what: &str, since: Timestamp| {
                            let text = format!("{what}: {} seconds", seconds(since, now));
                            Field::node("", text, tree.offset, 0).generated()
                        };
                        let stamps = Field::node("", "Timestamps", tree.offset, 0)
                            .generated()
                            .children(vec![
                                line("Time since first frame", first),
                                line("Time since previous frame", prev),
                            ]);
                        tree.children.insert(at + 1, stamps);
                    }
                }
                TransportKind::Sctp { vtag } => {
                    if *vtag != 0 && !t.quoted {
                        self.sctp_tsns(t, *vtag, tree);
                    }
                }
            }
        }
    }

    /// The index of `t`'s UDP conversation, a new one if it is the first of its ends.
    /// With `ts`, the times of the conversation's first and previous frames, and `ts`.
    fn udp_index(
        &mut self,
        t: &Transport,
        ts: Option<Timestamp>,
    ) -> (u32, Option<(Timestamp, Timestamp, Timestamp)>) {
        let (key, _) = Key::of(t);
        let next = &mut self.next_udp;
        let c = self.udp.get_or_insert_with(
            &key,
            || {
                let i = *next;
                *next = next.wrapping_add(1);
                UdpConversation {
                    index: i,
                    first: ts,
                    prev: ts,
                }
            },
            |_| {},
        );
        let times = ts.map(|now| {
            let first = *c.first.get_or_insert(now);
            let prev = c.prev.replace(now).unwrap_or(now);
            (first, prev, now)
        });
        (c.index, times)
    }

    /// The direction of an SCTP packet from `t` with tag `vtag`, paired with its peer if one is
    /// waiting (tshark's pairing).
    fn sctp_direction(&mut self, t: &Transport, vtag: u32) -> SctpDirection {
        let dir = (t.sport, t.dport, vtag);
        let half = self
            .sctp
            .get_or_insert_with(&dir, SctpHalf::default, |_| {});
        if half.peer.is_some() {
            return dir;
        }
        match self.sctp_waiting.get_mut(&(t.dport, t.sport, t.dst)) {
            Some(slot) => match slot.take() {
                None => *slot = Some(dir),
                Some(other) => {
                    if let Some(h) = self.sctp.get_mut(&dir) {
                        h.peer = Some(other);
                    }
                    if let Some(h) = self.sctp.get_mut(&other) {
                        h.peer = Some(dir);
                    }
                }
            },
            // tshark replaces a slot left empty under the same key.
            None => {
                *self.sctp_waiting.get_or_insert_with(
                    &(t.sport, t.dport, t.src),
                    || None,
                    |_| {},
                ) = Some(dir);
            }
        }
        dir
    }

    /// Adds the relative TSNs before the absolute ones of the DATA, I-DATA and SACK chunks of
    /// the SCTP tree `tree`, learning each direction's base from its first DATA chunk.
    fn sctp_tsns(&mut self, t: &Transport, vtag: u32, tree: &mut Field) {
        let dir = self.sctp_direction(t, vtag);
        for chunk in tree.children.iter_mut() {
            let Some((i, raw)) = chunk.children.iter().enumerate().find(|(_, f)| {
                f.name == "sctp.data_tsn_raw" || f.name == "sctp.sack_cumulative_tsn_ack_raw"
            }) else {
                continue;
            };
            let Value::Uint(n) = raw.value else {
                continue;
            };
            let (n, offset) = (n as u32, raw.offset);
            let field = if raw.name == "sctp.data_tsn_raw" {
                let Some(half) = self.sctp.get_mut(&dir) else {
                    continue;
                };
                let base = *half.first_tsn.get_or_insert(n);
                let label = "Transmission sequence number (relative)";
                Field::uint("sctp.data_tsn", label, n.wrapping_sub(base), offset, 4)
            } else {
                let Some(peer) = self.sctp.get_mut(&dir).and_then(|h| h.peer) else {
                    continue;
                };
                let base = self
                    .sctp
                    .get_mut(&peer)
                    .and_then(|h| h.first_tsn)
                    .unwrap_or(0);
                let label = "Cumulative TSN ACK (relative)";
                let name = "sctp.sack_cumulative_tsn_ack";
                Field::uint(name, label, n.wrapping_sub(base), offset, 4)
            };
            // The chunk's title (`-V`) gives the relative number too.
            // (tshark's SACK title keeps the absolute cumulative TSN).
            let data = field.name == "sctp.data_tsn";
            if let (Value::Uint(rel), false, true) =
                (field.value.clone(), chunk.label.is_empty(), data)
            {
                let raw_text = format!("TSN: {n},");
                if chunk.label.contains(&raw_text) {
                    chunk.label = chunk
                        .label
                        .replacen(&raw_text, &format!("TSN: {rel},"), 1)
                        .into();
                }
            }
            chunk.children.insert(i, field);
        }
    }

    /// The stream fields of the TCP header `h`, learning from it what tshark learns.
    fn tcp(&mut self, t: &Transport, h: &TcpHeader) -> TcpFields {
        let (key, side) = Key::of(t);
        let next = &mut self.next_tcp;
        let mut new_index = || {
            let i = *next;
            *next = next.wrapping_add(1);
            i
        };
        let conv = self.tcp.get_or_insert_with(
            &key,
            || TcpConversation {
                index: new_index(),
                base: [None, None],
            },
            |_| {},
        );
        // A SYN that is not a retransmission of the one that set its sender's base: a new
        // connection on the same ends.
        if h.flags & (SYN | ACK) == SYN && conv.base[side].is_some_and(|b| b != h.seq) {
            *conv = TcpConversation {
                index: new_index(),
                base: [None, None],
            };
        }
        let bogus = h.hdr_len < 20;
        let mut f = TcpFields {
            stream: conv.index,
            seq: h.seq,
            ack: (!bogus).then_some(h.ack),
            nxtseq: None,
            relative: false,
        };
        let Some(seg_len) = h.seg_len.filter(|_| !t.quoted) else {
            return f;
        };
        if h.flags & SYN != 0 {
            conv.base[side] = Some(h.seq);
        }
        let base = *conv.base[side].get_or_insert(h.seq.wrapping_sub(1));
        let other = &mut conv.base[1 - side];
        if h.flags & ACK != 0 && other.is_none() {
            *other = Some(h.ack.wrapping_sub(1));
        }
        f.relative = true;
        f.seq = h.seq.wrapping_sub(base);
        if h.flags & ACK != 0 {
            if let (Some(ack), Some(b)) = (&mut f.ack, *other) {
                *ack = ack.wrapping_sub(b);
            }
        }
        if !bogus {
            let flag = u32::from(h.flags & (SYN | FIN) != 0);
            f.nxtseq = Some(f.seq.wrapping_add(seg_len).wrapping_add(flag));
        }
        f
    }
}

/// A TCP header's stream fields.
struct TcpFields {
    stream: u32,
    seq: u32,
    /// `None` after a bogus header length.
    ack: Option<u32>,
    nxtseq: Option<u32>,
    /// Whether `seq`, `nxtseq` (and `ack` with ACK) are relative to the conversation's bases.
    relative: bool,
}

impl TcpFields {
    /// Puts the fields into the TCP tree in tshark's order: the stream index after the ports,
    /// the sequence number after the segment's length, then (after the raw sequence number) the
    /// next sequence number and the acknowledgment number.
    fn place(self, tree: &mut Field, t: &Transport, h: &TcpHeader) {
        let a = tree.offset;
        let rel_seq = if self.relative {
            "    (relative sequence number)"
        } else {
            ""
        };
        let kids = &mut tree.children;
        let pos = |kids: &[Field], name: &str| kids.iter().position(|f| f.name == name);
        let mut at = pos(kids, "tcp.dstport").map_or(kids.len(), |i| i + 1);
        kids.insert(
            at,
            Field::uint("tcp.stream", "Stream index", self.stream, a, 0).generated(),
        );
        at += 1;
        if let Some(i) = pos(kids, "tcp.len") {
            at = i + 1;
        }
        kids.insert(
            at,
            Field::uint("tcp.seq", "Sequence Number", self.seq, a + 4, 4).unit(rel_seq),
        );
        at += 1;
        if pos(kids, "tcp.seq_raw") == Some(at) {
            at += 1;
        }
        if let Some(n) = self.nxtseq {
            kids.insert(
                at,
                Field::uint("tcp.nxtseq", "Next Sequence Number", n, a, 0)
                    .unit(rel_seq)
                    .generated(),
            );
            at += 1;
        }
        if let Some(ack) = self.ack {
            let note = if self.relative && h.flags & ACK != 0 {
                "    (relative ack number)"
            } else {
                ""
            };
            kids.insert(
                at,
                Field::uint("tcp.ack", "Acknowledgment Number", ack, a + 8, 4).unit(note),
            );
        }
        // tshark's title gives the numbers too: the acknowledgment with ACK, the length when
        // it is known.
        let mut title = format!(
            "Transmission Control Protocol, Src Port: {}, Dst Port: {}, Seq: {}",
            t.sport, t.dport, self.seq
        );
        if let (Some(ack), true) = (self.ack, h.flags & ACK != 0) {
            title.push_str(&format!(", Ack: {ack}"));
        }
        if let (Some(len), false) = (h.seg_len, t.quoted) {
            title.push_str(&format!(", Len: {len}"));
        }
        tree.label = title.into();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn udp(src: [u8; 4], sport: u16, dst: [u8; 4], dport: u16) -> Transport {
        Transport {
            tree: 0,
            src: Ipv4Addr::from(src).into(),
            dst: Ipv4Addr::from(dst).into(),
            sport,
            dport,
            quoted: false,
            kind: TransportKind::Udp,
        }
    }

    fn tcp(forward: bool, seq: u32, ack: u32, flags: u16, len: u32) -> Transport {
        let (a, b) = (([10, 0, 0, 1], 40000), ([10, 0, 0, 2], 80));
        let ((src, sport), (dst, dport)) = if forward { (a, b) } else { (b, a) };
        Transport {
            kind: TransportKind::Tcp(TcpHeader {
                seq,
                ack,
                flags,
                hdr_len: 20,
                seg_len: Some(len),
            }),
            ..udp(src, sport, dst, dport)
        }
    }

    /// (stream, seq, ack, nxtseq) of one TCP header.
    fn numbers(s: &mut Streams, t: &Transport) -> (u32, u32, Option<u32>, Option<u32>) {
        let TransportKind::Tcp(h) = t.kind else {
            panic!("a TCP header");
        };
        let f = s.tcp(t, &h);
        (f.stream, f.seq, f.ack, f.nxtseq)
    }

    #[test]
    fn indices_count_conversations_in_order_and_both_directions_are_one() {
        let mut s = Streams::default();
        let ab = udp([10, 0, 0, 1], 68, [10, 0, 0, 2], 67);
        let ba = udp([10, 0, 0, 2], 67, [10, 0, 0, 1], 68);
        let other = udp([10, 0, 0, 3], 68, [10, 0, 0, 2], 67);
        assert_eq!(s.udp_index(&ab, None).0, 0);
        assert_eq!(s.udp_index(&other, None).0, 1);
        assert_eq!(s.udp_index(&ba, None).0, 0);
        assert_eq!(s.udp_index(&other, None).0, 1);
        // The times of a conversation's first and previous frames (tshark's [Timestamps]).
        let (t1, t2, t3) = (
            Timestamp::new(100, 0),
            Timestamp::new(101, 5),
            Timestamp::new(103, 0),
        );
        let times = |s: &mut Streams, t: &Transport, ts| s.udp_index(t, Some(ts)).1;
        assert_eq!(times(&mut s, &ab, t1), Some((t1, t1, t1)));
        assert_eq!(times(&mut s, &ba, t2), Some((t1, t1, t2)));
        assert_eq!(times(&mut s, &ab, t3), Some((t1, t2, t3)));
        assert_eq!(times(&mut s, &other, t3), Some((t3, t3, t3)));
        assert_eq!(seconds(t2, t3), "1.999999995");
        // TCP counts apart from UDP.
        assert_eq!(numbers(&mut s, &tcp(false, 7, 0, ACK, 0)).0, 0);
    }

    #[test]
    fn the_table_is_bounded_and_a_forgotten_conversation_gets_a_new_index() {
        let mut s = Streams::new(64);
        let t = |i: u16| udp([10, 0, 0, 1], i, [10, 0, 0, 2], 53);
        for i in 0..1000 {
            assert_eq!(s.udp_index(&t(i), None).0, u32::from(i));
            assert!(s.udp.len() <= 64);
        }
        // The most recent are still known; the first was forgotten long ago.
        assert_eq!(s.udp_index(&t(999), None).0, 999);
        assert_eq!(s.udp_index(&t(0), None).0, 1000);
    }

    #[test]
    fn relative_numbers_from_the_handshake() {
        let mut s = Streams::default();
        let isn_a = u32::MAX - 1; // wraps within the connection
        let isn_b = 5000;
        assert_eq!(
            numbers(&mut s, &tcp(true, isn_a, 0, SYN, 0)),
            (0, 0, Some(0), Some(1))
        );
        assert_eq!(
            numbers(
                &mut s,
                &tcp(false, isn_b, isn_a.wrapping_add(1), SYN | ACK, 0)
            ),
            (0, 0, Some(1), Some(1))
        );
        assert_eq!(
            numbers(
                &mut s,
                &tcp(true, isn_a.wrapping_add(1), isn_b + 1, ACK, 10)
            ),
            (0, 1, Some(1), Some(11))
        );
        assert_eq!(
            numbers(
                &mut s,
                &tcp(true, isn_a.wrapping_add(11), isn_b + 1, ACK | FIN, 0)
            ),
            (0, 11, Some(1), Some(12))
        );
        // A retransmitted SYN is the same connection; one with a new ISN is a new one.
        assert_eq!(numbers(&mut s, &tcp(true, isn_a, 0, SYN, 0)).0, 0);
        assert_eq!(
            numbers(&mut s, &tcp(true, 42, 0, SYN, 0)),
            (1, 0, Some(0), Some(1))
        );
    }

    #[test]
    fn mid_stream_the_first_byte_seen_is_one_and_ack_without_the_flag_is_raw() {
        let mut s = Streams::default();
        assert_eq!(
            numbers(&mut s, &tcp(true, 5000, 9000, ACK, 10)),
            (0, 1, Some(1), Some(11))
        );
        assert_eq!(
            numbers(&mut s, &tcp(false, 9000, 5010, ACK, 5)),
            (0, 1, Some(11), Some(6))
        );
        // An older segment wraps below the base, as in tshark.
        assert_eq!(numbers(&mut s, &tcp(true, 4998, 9000, ACK, 0)).1, u32::MAX);
        // RST without ACK: the acknowledgment field as it is.
        assert_eq!(
            numbers(&mut s, &tcp(true, 5010, 555, 0x004, 0)),
            (0, 11, Some(555), Some(11))
        );
    }

    #[test]
    fn quoted_headers_get_an_index_but_keep_their_numbers() {
        let mut s = Streams::default();
        let mut q = tcp(true, 1234, 99, ACK, 0);
        q.quoted = true;
        assert_eq!(numbers(&mut s, &q), (0, 1234, Some(99), None));
        // It taught the conversation nothing: the next segment is the first.
        assert_eq!(numbers(&mut s, &tcp(true, 777, 99, ACK, 0)).1, 1);
    }

    #[test]
    fn every_cut_of_a_frame_is_annotated_without_panicking() {
        use crate::dissect::layers;
        // Ethernet, IPv4, an ICMP error quoting IPv4 and TCP, so both a quoted and a bogus header
        // are met as the frame is cut, and a UDP datagram.
        let mut tcp = vec![0, 3, 0, 4, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0x40, 0x12];
        tcp.extend_from_slice(&[0xff, 0xff, 0, 0, 0, 0]);
        let mut quoted = vec![
            0x45, 0, 0, 40, 0, 1, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        ];
        quoted.extend_from_slice(&tcp);
        let mut icmp = vec![3, 3, 0, 0, 0, 0, 0, 0];
        icmp.extend_from_slice(&quoted);
        let mut frame = vec![0u8; 12];
        frame.extend_from_slice(&[0x08, 0x00, 0x45, 0, 0, 76, 0, 1, 0, 0, 64, 1, 0, 0]);
        frame.extend_from_slice(&[10, 0, 0, 2, 10, 0, 0, 1]);
        frame.extend_from_slice(&icmp);
        let mut s = Streams::new(4);
        for cut in 0..=frame.len() {
            let mut l = layers::decode(
                crate::base::linktype::ETHERNET,
                &frame[..cut],
                &crate::wire::tunnel::TunnelPorts::default(),
            );
            s.annotate(&mut l);
            let mut tcp_frame = frame[..cut].to_vec();
            // The same bytes as a TCP segment of its own (IP protocol 6), whose header length
            // (16) is bogus.
            if let Some(p) = tcp_frame.get_mut(23) {
                *p = 6;
            }
            let mut l = layers::decode(
                crate::base::linktype::ETHERNET,
                &tcp_frame,
                &crate::wire::tunnel::TunnelPorts::default(),
            );
            s.annotate(&mut l);
        }
    }

    /// An SCTP transport from `src`:`sport` to `dst`:`dport` with tag `vtag`.
    fn sctp_from(src: u8, sport: u16, dst: u8, dport: u16, vtag: u32) -> Transport {
        Transport {
            kind: TransportKind::Sctp { vtag },
            ..udp([10, 0, 0, src], sport, [10, 0, 0, dst], dport)
        }
    }

    /// An SCTP tree with a chunk per `(raw field, number)`.
    fn sctp_tree(chunks: &[(&'static str, u32)]) -> Field {
        let kids = chunks
            .iter()
            .map(|(name, n)| Field::node("", "chunk", 0, 4).child(Field::uint(name, "", *n, 4, 4)))
            .collect();
        Field::node("sctp", "", 0, 12).children(kids)
    }

    /// The relative numbers the tables add to a packet from `t` with `chunks` (`None` where a
    /// chunk gets none).
    fn relative(
        s: &mut Streams,
        t: &Transport,
        chunks: &[(&'static str, u32)],
    ) -> Vec<Option<u64>> {
        let mut l = Layers {
            trees: vec![sctp_tree(chunks)],
            protocols: vec!["sctp"],
            transports: vec![t.clone()],
        };
        s.annotate(&mut l);
        l.trees[0]
            .children
            .iter()
            .map(|c| match (c.children.len(), &c.children[0].value) {
                (2, Value::Uint(n)) => Some(*n),
                _ => None,
            })
            .collect()
    }

    const DATA: &str = "sctp.data_tsn_raw";
    const SACK: &str = "sctp.sack_cumulative_tsn_ack_raw";

    #[test]
    fn sctp_tsns_are_relative_per_direction_and_tag() {
        let mut s = Streams::default();
        let a = sctp_from(1, 5000, 2, 6000, 0x11);
        let b = sctp_from(2, 6000, 1, 5000, 0x22);
        // A SACK before the peer's paired direction has a base: relative to 0, whole.
        assert_eq!(relative(&mut s, &a, &[(DATA, 1000)]), [Some(0)]);
        assert_eq!(relative(&mut s, &b, &[(SACK, 1000)]), [Some(0)]);
        assert_eq!(
            relative(&mut s, &a, &[(DATA, 999)]),
            [Some(u64::from(u32::MAX))]
        );
        assert_eq!(relative(&mut s, &a, &[(SACK, 5000)]), [Some(5000)]);
        assert_eq!(
            relative(&mut s, &b, &[(DATA, 70000), (SACK, 1001)]),
            [Some(0), Some(1)]
        );
        // Another tag: a direction of its own; another address, same ports and tag: the same.
        let other_tag = sctp_from(1, 5000, 2, 6000, 0x12);
        assert_eq!(relative(&mut s, &other_tag, &[(DATA, 7)]), [Some(0)]);
        let other_path = sctp_from(3, 5000, 2, 6000, 0x11);
        assert_eq!(relative(&mut s, &other_path, &[(DATA, 1005)]), [Some(5)]);
        // Tag 0 and a quoted packet: nothing relative, nothing learnt.
        let zero = sctp_from(1, 7000, 2, 8000, 0);
        assert_eq!(
            relative(&mut s, &zero, &[(DATA, 3), (SACK, 3)]),
            [None, None]
        );
        let quoted = Transport {
            quoted: true,
            ..sctp_from(1, 7001, 2, 8001, 0x31)
        };
        assert_eq!(relative(&mut s, &quoted, &[(DATA, 60)]), [None]);
        let after = sctp_from(1, 7001, 2, 8001, 0x31);
        assert_eq!(relative(&mut s, &after, &[(DATA, 61)]), [Some(0)]);
    }

    #[test]
    fn an_sctp_sack_without_a_peer_has_no_relative_number() {
        let mut s = Streams::default();
        let a = sctp_from(1, 7001, 2, 8001, 0x31);
        let b = sctp_from(2, 8001, 1, 7001, 0x32);
        assert_eq!(relative(&mut s, &a, &[(SACK, 456)]), [None]);
        assert_eq!(relative(&mut s, &b, &[(DATA, 10)]), [Some(0)]);
        assert_eq!(relative(&mut s, &a, &[(SACK, 10)]), [Some(0)]);
        // A new tag the other way after the pairing waits in the emptied slot's place and is
        // paired with the next new direction this way.
        let b2 = sctp_from(2, 8001, 1, 7001, 0x55);
        let a2 = sctp_from(1, 7001, 2, 8001, 0x66);
        assert_eq!(relative(&mut s, &b2, &[(SACK, 1)]), [None]);
        assert_eq!(relative(&mut s, &a2, &[(DATA, 9000)]), [Some(0)]);
        assert_eq!(relative(&mut s, &b2, &[(SACK, 9000)]), [Some(0)]);
    }

    #[test]
    fn the_sctp_tables_are_bounded() {
        let mut s = Streams::new(16);
        for i in 0..1000u32 {
            let t = sctp_from(1, 1, 2, 2, i + 1);
            relative(&mut s, &t, &[(DATA, i)]);
            assert!(s.sctp.len() <= 16 && s.sctp_waiting.len() <= 16);
        }
    }
}
