//! GRE (RFC 2784, with RFC 2890's key and sequence number): the checked parse and the emit.

use super::bytes::{be16, be32, set_be16};
use super::ethernet::{ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use super::ip::internet_checksum;
use super::mpls::ETHERTYPE_MPLS;
use super::tunnel::ETHERTYPE_TEB;
use super::view::{hex, Next, Span, View};
use crate::error::DecodeError;
use crate::field::Field;

/// A decoded GRE header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gre {
    /// What follows, an EtherType.
    pub protocol: u16,
    pub checksum: Option<u16>,
    pub key: Option<u32>,
    pub sequence: Option<u32>,
    /// Where the encapsulated packet starts.
    pub header_len: usize,
}

/// Decodes a GRE header. Version 1 (PPTP's enhanced GRE) and the source routes of RFC 1701 are
/// refused with an error: what they carry is not decoded further.
pub fn parse(data: &[u8]) -> Result<Gre, DecodeError> {
    let Some(h) = data.get(..4) else {
        return Err(DecodeError::truncated(0, "GRE header", 4, data.len()));
    };
    let (flags, version) = (h[0], h[1] & 0x07);
    let protocol = u16::from_be_bytes([h[2], h[3]]);
    if version != 0 {
        let what = if version == 1 {
            "GRE version 1 (PPTP enhanced GRE) is not decoded further".to_string()
        } else {
            format!("GRE version {version} is not defined (0 expected): not decoded further")
        };
        return Err(DecodeError::new(1, what));
    }
    let (c, r, k, s) = (
        flags & 0x80 != 0,
        flags & 0x40 != 0,
        flags & 0x20 != 0,
        flags & 0x10 != 0,
    );
    if r {
        return Err(DecodeError::new(
            0,
            "GRE routing present (RFC 1701 source routes, deprecated by RFC 2784): not decoded further",
        ));
    }
    let needed = 4 + 4 * (usize::from(c) + usize::from(k) + usize::from(s));
    if data.len() < needed {
        return Err(DecodeError::truncated(0, "GRE header", needed, data.len()));
    }
    let word = |at: usize| {
        data.get(at..at + 4)
            .map_or(0, |w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
    };
    let mut at = 4;
    let mut field = |present: bool| {
        present.then(|| {
            let v = word(at);
            at += 4;
            v
        })
    };
    let checksum = field(c).map(|w| (w >> 16) as u16);
    let key = field(k);
    let sequence = field(s);
    Ok(Gre {
        protocol,
        checksum,
        key,
        sequence,
        header_len: needed,
    })
}

/// Appends a GRE header of `protocol` (an EtherType) with the optional fields asked for, then
/// `inner`; the checksum, when asked for, covers header and payload.
pub fn emit(
    out: &mut Vec<u8>,
    protocol: u16,
    checksum: bool,
    key: Option<u32>,
    sequence: Option<u32>,
    inner: &[u8],
) {
    let start = out.len();
    let flags =
        u8::from(checksum) << 7 | u8::from(key.is_some()) << 5 | u8::from(sequence.is_some()) << 4;
    out.extend_from_slice(&[flags, 0]);
    be16(out, protocol);
    if checksum {
        be32(out, 0);
    }
    if let Some(k) = key {
        be32(out, k);
    }
    if let Some(s) = sequence {
        be32(out, s);
    }
    out.extend_from_slice(inner);
    if checksum {
        let sum = internet_checksum(0, &out[start..]);
        set_be16(out, start + 4, sum);
    }
}

/// The display fields of a GRE header (`gre`) and what it carries; `None` when its first four
/// bytes are cut short.
pub fn fields(v: &View, s: Span) -> Option<(Field, Next)> {
    let a = s.at;
    let (Some(fv), Some(proto)) = (v.be16(a, s), v.be16(a + 2, s)) else {
        return None;
    };
    let what = match proto {
        ETHERTYPE_IPV4 => "IP",
        ETHERTYPE_IPV6 => "IPv6",
        ETHERTYPE_TEB => "Transparent Ethernet bridging",
        ETHERTYPE_MPLS => "MPLS label switched packet",
        _ => "Unknown",
    };
    let mut tree = Field::node(
        "gre",
        v.label(|| format!("Generic Routing Encapsulation ({what})")),
        a,
        4,
    )
    .children(vec![
        hex(
            Field::uint("gre.flags_and_version", "Flags and Version", fv, a, 2),
            4,
        ),
        hex(
            Field::uint("gre.proto", "Protocol Type", proto, a + 2, 2),
            4,
        ),
    ]);
    let (c, r, k, sq, version) = (
        fv & 0x8000 != 0,
        fv & 0x4000 != 0,
        fv & 0x2000 != 0,
        fv & 0x1000 != 0,
        fv & 7,
    );
    let mut at = a + 4;
    let mut whole = true;
    if c {
        match v.be16(at, s) {
            Some(sum) => {
                tree = tree.child(hex(Field::uint("gre.checksum", "Checksum", sum, at, 2), 4))
            }
            None => whole = false,
        }
        at += 4;
    }
    if k {
        match v.be32(at, s) {
            Some(key) => tree = tree.child(hex(Field::uint("gre.key", "Key", key, at, 4), 8)),
            None => whole = false,
        }
        at += 4;
    }
    if sq {
        match v.be32(at, s) {
            Some(n) => {
                tree = tree.child(Field::uint(
                    "gre.sequence_number",
                    "Sequence Number",
                    n,
                    at,
                    4,
                ))
            }
            None => whole = false,
        }
        at += 4;
    }
    tree.len = at - a;
    // Version 1 (PPTP) and source routes are not decoded further, as the dissector does.
    let next = if whole && !r && version == 0 {
        Next::Ethertype(proto, s.from(at - a))
    } else {
        Next::End
    };
    Some((tree, next))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gre_flags_give_the_header_length() {
        assert_eq!(
            parse(&[0, 0, 0x08, 0x00]).unwrap(),
            Gre {
                protocol: 0x0800,
                checksum: None,
                key: None,
                sequence: None,
                header_len: 4
            }
        );
        let all = [
            0xb0, 0, 0x65, 0x58, 0xab, 0xcd, 0, 0, 0, 0, 0, 7, 0, 0, 1, 0,
        ];
        let g = parse(&all).unwrap();
        assert_eq!(
            (g.protocol, g.checksum, g.key, g.sequence, g.header_len),
            (0x6558, Some(0xabcd), Some(7), Some(256), 16)
        );
        // Key only: the key is the first optional word.
        let g = parse(&[0x20, 0, 0x86, 0xdd, 0, 0, 0, 9]).unwrap();
        assert_eq!((g.key, g.header_len), (Some(9), 8));
    }

    #[test]
    fn gre_truncated_with_the_key_flag_and_other_versions_are_errors() {
        let e = parse(&[0x20, 0, 0x08, 0x00, 0, 0]).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.what.contains("needs 8 bytes, only 6 left"), "{}", e.what);
        assert!(parse(&[0, 0, 8]).unwrap_err().what.contains("needs 4"));
        let e = parse(&[0x30, 0x01, 0x88, 0x0b, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap_err();
        assert_eq!(e.offset, 1);
        assert!(e.what.contains("version 1 (PPTP"), "{}", e.what);
        assert!(parse(&[0, 0x05, 8, 0])
            .unwrap_err()
            .what
            .contains("version 5"));
        assert!(parse(&[0x40, 0, 8, 0, 0, 0, 0, 0])
            .unwrap_err()
            .what
            .contains("routing"));
    }

    /// Emit then parse gives the emitted fields; the checksum sums to zero; every cut is an
    /// error at the header (the inner packet is not GRE's to check).
    #[test]
    fn emit_then_parse_round_trips() {
        let mut b = Vec::new();
        emit(&mut b, 0x6558, true, Some(7), Some(9), &[1, 2, 3]);
        let g = parse(&b).unwrap();
        assert_eq!(
            (g.protocol, g.key, g.sequence, g.header_len),
            (0x6558, Some(7), Some(9), 16)
        );
        assert_eq!(g.checksum, Some(u16::from_be_bytes([b[4], b[5]])));
        assert_eq!(internet_checksum(0, &b), 0);
        for n in 0..16 {
            assert_eq!(parse(&b[..n]).unwrap_err().offset, 0, "cut at {n}");
        }
    }

    #[test]
    fn fields_of_an_emitted_header() {
        use crate::wire::view::tests::{value, views};
        let mut b = Vec::new();
        emit(&mut b, 0x0800, false, Some(5), None, &[0x45]);
        for (v, s) in views(&b) {
            let (tree, next) = fields(&v, s).unwrap();
            assert_eq!(value(&tree, "gre.proto"), "0x0800");
            assert_eq!(value(&tree, "gre.key"), "0x00000005");
            assert_eq!(next, Next::Ethertype(0x0800, s.from(8)));
            // Cut in the key: the tree, but nothing after it.
            assert_eq!(fields(&v, Span { at: 0, end: 6 }).unwrap().1, Next::End);
        }
    }
}
