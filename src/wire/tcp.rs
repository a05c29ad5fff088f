//! TCP: the header's checked parse (ports, numbers, flags, options; the payload after them), the
//! flag and option texts of the one-line summary, and the header's emit with its checksum. The
//! connection state (streams, reassembly) is [`crate::dissect::tcp`]'s.

use std::fmt::Write as _;

use etherparse::err::tcp::{HeaderError, HeaderSliceError};
use etherparse::TcpHeaderSlice;

use super::bytes::{be16, be32, set_be16};
use super::ip::internet_checksum;
use super::view::{hex, Span, View};
use crate::error::DecodeError;
use crate::field::Field;

pub const FIN: u8 = 0x01;
pub const SYN: u8 = 0x02;
pub const RST: u8 = 0x04;
pub const PSH: u8 = 0x08;
pub const ACK: u8 = 0x10;
pub const URG: u8 = 0x20;
pub const ECE: u8 = 0x40;
pub const CWR: u8 = 0x80;

/// A decoded TCP header and the payload it carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpSegment<'a> {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    pub options: &'a [u8],
    pub payload: &'a [u8],
    /// Offset of the payload relative to the start of the TCP header.
    pub payload_offset: usize,
}

/// Decodes a TCP segment filling `data` (errors relative to `data`).
pub fn parse_segment(data: &[u8]) -> Result<TcpSegment<'_>, DecodeError> {
    let h = TcpHeaderSlice::from_slice(data).map_err(|e| match e {
        HeaderSliceError::Len(l) => DecodeError::truncated(0, "TCP header", l.required_len, l.len),
        HeaderSliceError::Content(HeaderError::DataOffsetTooSmall { data_offset }) => {
            DecodeError::new(
                12,
                format!(
                    "TCP header length {} is below the 20-byte minimum",
                    u32::from(data_offset) * 4
                ),
            )
        }
    })?;
    let hl = h.slice().len();
    Ok(TcpSegment {
        sport: h.source_port(),
        dport: h.destination_port(),
        seq: h.sequence_number(),
        ack: h.acknowledgment_number(),
        flags: data.get(13).copied().unwrap_or(0),
        window: h.window_size(),
        options: data.get(20..hl).unwrap_or(&[]),
        payload: data.get(hl..).unwrap_or(&[]),
        payload_offset: hl,
    })
}

/// tshark's flag list, e.g. `SYN, ACK`.
pub fn flags_text(flags: u8) -> String {
    const NAMES: [(u8, &str); 8] = [
        (FIN, "FIN"),
        (SYN, "SYN"),
        (RST, "RST"),
        (PSH, "PSH"),
        (ACK, "ACK"),
        (URG, "URG"),
        (ECE, "ECE"),
        (CWR, "CWR"),
    ];
    let mut s = String::new();
    for (bit, name) in NAMES {
        if flags & bit != 0 {
            if !s.is_empty() {
                s.push_str(", ");
            }
            s.push_str(name);
        }
    }
    if s.is_empty() {
        s.push_str("<None>");
    }
    s
}

/// The options tshark lists after `Len=` (in packet order), and the window scale shift if any.
/// SACK blocks' edges are the peer's sequence numbers, relative to `peer_base` (the peer's first
/// byte after its SYN, which is 1) when it is known, as tshark shows them.
pub fn options_text(
    options: &[u8],
    mut out: Option<&mut String>,
    peer_base: Option<u32>,
) -> Option<u8> {
    let mut wscale = None;
    let mut i = 0;
    while let Some(&kind) = options.get(i) {
        match kind {
            0 => break,
            1 => {
                i += 1;
                continue;
            }
            _ => {}
        }
        let Some(&len) = options.get(i + 1) else {
            break;
        };
        let len = usize::from(len);
        let Some(v) = options.get(i + 2..i + len.max(2)) else {
            break;
        };
        match (kind, v) {
            (3, [shift]) => {
                let s = (*shift).min(14);
                wscale = Some(s);
                if let Some(out) = out.as_deref_mut() {
                    let _ = write!(out, " WS={}", 1u32 << s);
                }
            }
            // The rest only for the text, when there is one.
            _ if out.is_none() => {}
            (2, [a, b]) => {
                if let Some(out) = out.as_deref_mut() {
                    let _ = write!(out, " MSS={}", u16::from_be_bytes([*a, *b]));
                }
            }
            (4, []) => {
                if let Some(out) = out.as_deref_mut() {
                    out.push_str(" SACK_PERM");
                }
            }
            (5, blocks) if blocks.len() % 8 == 0 => {
                if let Some(out) = out.as_deref_mut() {
                    let rel = |e: &[u8]| {
                        let n = u32::from_be_bytes([e[0], e[1], e[2], e[3]]);
                        peer_base.map_or(n, |b| n.wrapping_sub(b).wrapping_add(1))
                    };
                    for b in blocks.chunks_exact(8) {
                        let _ = write!(out, " SLE={} SRE={}", rel(&b[..4]), rel(&b[4..]));
                    }
                }
            }
            (8, [a, b, c, d, e, f, g, h]) => {
                if let Some(out) = out.as_deref_mut() {
                    let _ = write!(
                        out,
                        " TSval={} TSecr={}",
                        u32::from_be_bytes([*a, *b, *c, *d]),
                        u32::from_be_bytes([*e, *f, *g, *h])
                    );
                }
            }
            _ => {}
        }
        if len < 2 {
            break;
        }
        i += len;
    }
    wscale
}

/// A TCP header as built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpHeader {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    /// Options, padded here to a multiple of 4.
    pub options: Vec<u8>,
}

impl TcpHeader {
    pub fn new(sport: u16, dport: u16, seq: u32, ack: u32, flags: u8) -> Self {
        TcpHeader {
            sport,
            dport,
            seq,
            ack,
            flags,
            window: 65535,
            options: Vec::new(),
        }
    }

    pub fn header_len(&self) -> usize {
        20 + self.options.len().div_ceil(4) * 4
    }

    /// Appends the segment (header and payload) with its checksum.
    pub fn emit(&self, out: &mut Vec<u8>, payload: &[u8], pseudo: u32) {
        let start = out.len();
        let hl = self.header_len();
        be16(out, self.sport);
        be16(out, self.dport);
        be32(out, self.seq);
        be32(out, self.ack);
        out.push(((hl / 4) as u8) << 4);
        out.push(self.flags);
        be16(out, self.window);
        be16(out, 0);
        be16(out, 0);
        out.extend_from_slice(&self.options);
        while out.len() - start < hl {
            out.push(0);
        }
        out.extend_from_slice(payload);
        let sum = internet_checksum(pseudo, &out[start..]);
        set_be16(out, start + 16, sum);
    }
}

/// What a TCP header's display gives the walk beside its tree: the ports, and what the
/// stateful fields (stream, relative sequence numbers) are made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Numbers {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    /// The 12 bits of flags (SYN 0x002, ACK 0x010, FIN 0x001, ...).
    pub flags: u16,
    /// The header length in bytes (the data offset times four), which may be bogus (below 20).
    pub hdr_len: usize,
    /// The payload's length, `None` when it is not known: when the packet is shorter than its
    /// header says, or is an IP fragment or quoted by an ICMP error (tshark then shows the
    /// numbers on the wire).
    pub seg_len: Option<u32>,
}

/// The display fields of a TCP header (`tcp`) at `s.at`, within a packet an ICMPv4 error of
/// type `icmp4` quotes (`quoting`: any ICMP error), or the first fragment of a datagram
/// (`fragment`); with its [`Numbers`], but none in an ICMPv4 redirect's quote (which tshark
/// cuts after the sequence number). `None` when the fixed header is cut short.
pub fn fields(
    v: &View,
    s: Span,
    icmp4: Option<u8>,
    fragment: bool,
    quoting: bool,
) -> Option<(Field, Option<Numbers>)> {
    let a = s.at;
    let (Some(sport), Some(dport), Some(seq), Some(ack), Some(off), Some(win)) = (
        v.be16(a, s),
        v.be16(a + 2, s),
        v.be32(a + 4, s),
        v.be32(a + 8, s),
        v.be16(a + 12, s),
        v.be16(a + 14, s),
    ) else {
        return None;
    };
    let (Some(sum), Some(urg)) = (v.be16(a + 16, s), v.be16(a + 18, s)) else {
        return None;
    };
    // In an ICMPv4 redirect, tshark's TCP tree ends after the sequence number (on the wire),
    // and the quoted header has no stream.
    if icmp4 == Some(5) {
        let tree = Field::node(
            "tcp",
            v.label(|| {
                format!("Transmission Control Protocol, Src Port: {sport}, Dst Port: {dport}")
            }),
            a,
            20,
        )
        .children(vec![
            Field::uint("tcp.srcport", "Source Port", sport, a, 2),
            Field::uint("tcp.dstport", "Destination Port", dport, a + 2, 2),
            Field::uint("tcp.seq", "Sequence Number", seq, a + 4, 4),
        ]);
        return Some((tree, None));
    }
    let hdr_len = usize::from(off >> 12) * 4;
    let flags = off & 0x0fff;
    let seg_len = s.len().saturating_sub(hdr_len);
    // tshark shows the payload's length only when it knows it: not in a packet shorter than
    // its header says, an IP fragment or a packet an ICMP error quotes.
    let known_len = (s.len() >= hdr_len && !fragment && !quoting)
        .then(|| u32::try_from(seg_len).unwrap_or(u32::MAX));
    let bit = |name, label, mask: u16| Field::boolean(name, label, flags & mask != 0, a + 12, 2);
    let mut tree = Field::node(
        "tcp",
        v.label(|| {
            format!(
                "Transmission Control Protocol, Src Port: {sport}, Dst Port: {dport}, Len: \
                 {seg_len}"
            )
        }),
        a,
        hdr_len.max(20),
    )
    .children(vec![
        Field::uint("tcp.srcport", "Source Port", sport, a, 2),
        Field::uint("tcp.dstport", "Destination Port", dport, a + 2, 2),
    ]);
    if let Some(len) = known_len {
        tree = tree.child(Field::uint("tcp.len", "TCP Segment Len", len, a, 0).generated());
    }
    // Quoted by ICMPv4, the sequence number is only the one on the wire (`tcp.seq`).
    if icmp4.is_none() {
        tree = tree.child(Field::uint(
            "tcp.seq_raw",
            "Sequence Number (raw)",
            seq,
            a + 4,
            4,
        ));
    }
    tree.children.extend([
        Field::uint("tcp.ack_raw", "Acknowledgment number (raw)", ack, a + 8, 4),
        Field::uint("tcp.hdr_len", "Header Length", hdr_len as u64, a + 12, 1).unit(" bytes"),
        hex(Field::uint("tcp.flags", "Flags", flags, a + 12, 2), 4).children(vec![
            bit("tcp.flags.urg", "Urgent", 0x20),
            bit("tcp.flags.ack", "Acknowledgment", 0x10),
            bit("tcp.flags.push", "Push", 0x08),
            bit("tcp.flags.reset", "Reset", 0x04),
            bit("tcp.flags.syn", "Syn", 0x02),
            bit("tcp.flags.fin", "Fin", 0x01),
        ]),
        Field::uint("tcp.window_size_value", "Window", win, a + 14, 2),
        hex(Field::uint("tcp.checksum", "Checksum", sum, a + 16, 2), 4),
        Field::uint("tcp.urgent_pointer", "Urgent Pointer", urg, a + 18, 2),
    ]);
    let numbers = Numbers {
        sport,
        dport,
        seq,
        ack,
        flags,
        hdr_len,
        seg_len: known_len,
    };
    Some((tree, Some(numbers)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Emit then parse gives the emitted header (options padded to a multiple of 4), and the
    /// checksum makes the sum over pseudo-header and segment zero (RFC 9293's check).
    #[test]
    fn emit_then_parse_round_trips() {
        let mut h = TcpHeader::new(1234, 647, 0x01020304, 0x0a0b0c0d, SYN | ACK);
        h.window = 1000;
        h.options = vec![2, 4, 5, 0xb4, 3, 3, 7];
        let pseudo = super::super::ip::pseudo_header_sum(&[10, 0, 0, 1], &[10, 0, 0, 2], 6, 30);
        let mut b = Vec::new();
        h.emit(&mut b, &[1, 2], pseudo);
        let t = parse_segment(&b).unwrap();
        assert_eq!(
            (t.sport, t.dport, t.seq, t.ack, t.flags, t.window),
            (1234, 647, 0x01020304, 0x0a0b0c0d, SYN | ACK, 1000)
        );
        assert_eq!(
            (t.options, t.payload_offset),
            (&[2, 4, 5, 0xb4, 3, 3, 7, 0][..], 28)
        );
        assert_eq!(t.payload, &[1, 2]);
        assert_eq!(internet_checksum(pseudo, &b), 0);
        let mut s = String::new();
        assert_eq!(options_text(t.options, Some(&mut s), None), Some(7));
        assert_eq!(s, " MSS=1460 WS=128");
        // Every cut: an error at the header, or (past it) a shorter payload.
        for n in 0..b.len() {
            match parse_segment(&b[..n]) {
                Err(e) => assert!(n < 28 && e.offset == 0, "cut at {n}"),
                Ok(t) => assert!(t.payload.len() < 2, "cut at {n}"),
            }
        }
    }

    #[test]
    fn fields_of_an_emitted_header() {
        use crate::wire::view::tests::{value, views};
        let h = TcpHeader::new(1234, 647, 77, 88, PSH | ACK);
        let mut b = Vec::new();
        h.emit(&mut b, &[1, 2, 3], 0);
        for (v, s) in views(&b) {
            let (tree, numbers) = fields(&v, s, None, false, false).unwrap();
            assert_eq!(value(&tree, "tcp.srcport"), "1234");
            assert_eq!(value(&tree, "tcp.seq_raw"), "77");
            assert_eq!(value(&tree, "tcp.ack_raw"), "88");
            assert_eq!(value(&tree, "tcp.flags"), "0x0018");
            assert_eq!(value(&tree, "tcp.len"), "3");
            let n = numbers.unwrap();
            assert_eq!((n.sport, n.dport, n.seq, n.ack), (1234, 647, 77, 88));
            assert_eq!((n.flags, n.hdr_len, n.seg_len), (0x18, 20, Some(3)));
            for n in 0..20 {
                assert!(fields(&v, Span { at: 0, end: n }, None, false, false).is_none());
            }
        }
    }
}
