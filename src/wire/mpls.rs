//! MPLS label stacks (RFC 3032): the checked walk to the bottom of the stack and the emit.

use super::bytes::be32;
use super::view::{Next, Span, View};
use crate::error::DecodeError;
use crate::field::Field;

pub const ETHERTYPE_MPLS: u16 = 0x8847;
pub const ETHERTYPE_MPLS_MULTICAST: u16 = 0x8848;

/// Walks an MPLS label stack to its bottom; returns where the payload starts and the labels.
pub fn parse(data: &[u8]) -> Result<(usize, u32), DecodeError> {
    let mut at = 0;
    let mut labels = 0u32;
    loop {
        let Some(e) = data.get(at..at + 4) else {
            let what = if at == 0 {
                "MPLS label stack entry"
            } else {
                "MPLS label stack entry (no bottom of stack before it)"
            };
            return Err(DecodeError::truncated(
                at,
                what,
                4,
                data.len().saturating_sub(at),
            ));
        };
        labels += 1;
        at += 4;
        if e[2] & 0x01 != 0 {
            return Ok((at, labels));
        }
    }
}

/// Appends a label stack of `labels` (20 bits each, outermost first; the last has the bottom of
/// stack bit), each with `ttl`.
pub fn emit(out: &mut Vec<u8>, labels: &[u32], ttl: u8) {
    for (i, l) in labels.iter().enumerate() {
        let bottom = u32::from(i + 1 == labels.len());
        be32(out, (l & 0xfffff) << 12 | bottom << 8 | u32::from(ttl));
    }
}

/// Labels beyond this many are taken for garbage.
const MAX_LABELS: usize = 16;

/// The display fields of an MPLS label stack (`mpls`, a tree per label), then IPv4 or IPv6 by the first nibble after it, as tshark guesses.
pub fn fields(v: &View, s: Span) -> (Vec<Field>, Next) {
    let mut trees = Vec::new();
    let mut at = s.at;
    for _ in 0..MAX_LABELS {
        let Some(w) = v.be32(at, s) else {
            return (trees, Next::End);
        };
        let (label, exp, bottom, ttl) = (w >> 12, (w >> 9) & 7, (w >> 8) & 1, w & 0xff);
        let tree = Field::node(
            "mpls",
            v.label(|| {
                format!(
                    "MultiProtocol Label Switching Header, Label: {label}, Exp: {exp}, S: \
                     {bottom}, TTL: {ttl}"
                )
            }),
            at,
            4,
        )
        .children(vec![
            Field::uint("mpls.label", "MPLS Label", label, at, 4),
            Field::uint("mpls.exp", "MPLS Experimental Bits", exp, at, 4),
            Field::uint("mpls.bottom", "MPLS Bottom Of Label Stack", bottom, at, 4),
            Field::uint("mpls.ttl", "MPLS TTL", ttl, at, 4),
        ]);
        trees.push(tree);
        at += 4;
        if bottom == 1 {
            let rest = s.from(at - s.at);
            let next = match v.u8(at, s).map(|b| b >> 4) {
                Some(4) => Next::Ipv4(rest),
                Some(6) => Next::Ipv6(rest),
                _ => Next::End,
            };
            return (trees, next);
        }
    }
    (trees, Next::End)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpls_walks_to_the_bottom_of_the_stack() {
        let two = [0, 0x01, 0x40, 0x40, 0, 0x02, 0x01, 0x40, 0x45];
        assert_eq!(parse(&two).unwrap(), (8, 2));
        let e = parse(&two[..6]).unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(e.what.contains("no bottom of stack"), "{}", e.what);
        assert_eq!(parse(&[]).unwrap_err().offset, 0);
    }

    #[test]
    fn emit_then_parse_round_trips() {
        let mut b = Vec::new();
        emit(&mut b, &[16, 0xfffff, 3], 64);
        assert_eq!(parse(&b).unwrap(), (12, 3));
        assert_eq!(u32::from_be_bytes([b[4], b[5], b[6], b[7]]) >> 12, 0xfffff);
        for n in 0..12 {
            assert!(parse(&b[..n]).is_err(), "cut at {n}");
        }
    }

    #[test]
    fn fields_of_an_emitted_stack() {
        use crate::wire::view::tests::{value, views};
        let mut b = Vec::new();
        emit(&mut b, &[100, 200], 5);
        b.push(0x45);
        for (v, s) in views(&b) {
            let (trees, next) = fields(&v, s);
            assert_eq!(trees.len(), 2);
            assert_eq!(value(&trees[0], "mpls.label"), "100");
            assert_eq!(value(&trees[1], "mpls.label"), "200");
            assert_eq!(value(&trees[1], "mpls.bottom"), "1");
            assert_eq!(value(&trees[1], "mpls.ttl"), "5");
            assert_eq!(next, Next::Ipv4(s.from(8)));
            for n in 0..8 {
                assert!(fields(&v, Span { at: 0, end: n }).0.len() <= n / 4);
            }
        }
    }
}
