//! Geneve (RFC 8926): the 8-byte header and its options; the checked parse and the emit.

use super::bytes::{be16, be32};
use super::tunnel::{vni, Overlay};
use super::view::{hex, Next, Span, View};
use crate::error::DecodeError;
use crate::field::Field;

/// Decodes a Geneve header (8 bytes and its options).
pub fn parse(data: &[u8]) -> Result<Overlay, DecodeError> {
    let Some(h) = data.get(..8) else {
        return Err(DecodeError::truncated(0, "Geneve header", 8, data.len()));
    };
    let version = h[0] >> 6;
    if version != 0 {
        return Err(DecodeError::new(
            0,
            format!("Geneve version {version} is not defined (0 expected): not decoded further"),
        ));
    }
    let header_len = 8 + usize::from(h[0] & 0x3f) * 4;
    if data.len() < header_len {
        return Err(DecodeError::truncated(
            0,
            "Geneve header with its options",
            header_len,
            data.len(),
        ));
    }
    Ok(Overlay {
        vni: Some(vni(&h[4..7])),
        protocol: u16::from_be_bytes([h[2], h[3]]),
        header_len,
    })
}

/// Appends a Geneve header (version 0) of `protocol` (an EtherType) and `vni`, with `options`
/// (a multiple of 4 bytes, at most 252).
pub fn emit(out: &mut Vec<u8>, protocol: u16, vni: u32, options: &[u8]) {
    out.push((options.len() / 4).min(0x3f) as u8);
    out.push(0);
    be16(out, protocol);
    be32(out, (vni & 0xff_ffff) << 8);
    out.extend_from_slice(options);
}

/// The display fields of a Geneve header (`geneve`) and what it carries; `None` when the
/// header is cut short.
pub fn fields(v: &View, s: Span) -> Option<(Field, Next)> {
    let a = s.at;
    let (Some(b0), Some(proto), Some(vni)) = (v.u8(a, s), v.be16(a + 2, s), v.be24(a + 4, s))
    else {
        return None;
    };
    let header = 8 + usize::from(b0 & 0x3f) * 4;
    let tree = Field::node(
        "geneve",
        "Generic Network Virtualization Encapsulation",
        a,
        header,
    )
    .children(vec![
        Field::uint("geneve.version", "Version", b0 >> 6, a, 1),
        hex(
            Field::uint("geneve.proto_type", "Protocol Type", proto, a + 2, 2),
            4,
        ),
        hex(
            Field::uint(
                "geneve.vni",
                "Virtual Network Identifier (VNI)",
                vni,
                a + 4,
                3,
            ),
            6,
        ),
    ]);
    let next = if b0 >> 6 == 0 && s.len() >= header {
        Next::Ethertype(proto, s.from(header))
    } else {
        Next::End
    };
    Some((tree, next))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geneve_options_and_version() {
        let mut h = vec![0x01, 0, 0x08, 0x00, 0, 0, 5, 0, 1, 2, 3, 4];
        let o = parse(&h).unwrap();
        assert_eq!((o.vni, o.protocol, o.header_len), (Some(5), 0x0800, 12));
        h.pop();
        assert!(parse(&h).unwrap_err().what.contains("needs 12"));
        assert!(parse(&[0x40, 0, 8, 0, 0, 0, 0, 0])
            .unwrap_err()
            .what
            .contains("version 1"));
    }

    #[test]
    fn emit_then_parse_round_trips() {
        let mut b = Vec::new();
        emit(&mut b, 0x0800, 77, &[1, 2, 3, 1, 0xde, 0xad, 0xbe, 0xef]);
        let o = parse(&b).unwrap();
        assert_eq!((o.vni, o.protocol, o.header_len), (Some(77), 0x0800, 16));
        for n in 0..16 {
            assert_eq!(parse(&b[..n]).unwrap_err().offset, 0, "cut at {n}");
        }
    }

    #[test]
    fn fields_of_an_emitted_header() {
        use crate::wire::view::tests::{value, views};
        let mut b = Vec::new();
        emit(&mut b, 0x6558, 99, &[1, 2, 3, 0]);
        for (v, s) in views(&b) {
            let (tree, next) = fields(&v, s).unwrap();
            assert_eq!(value(&tree, "geneve.vni"), "0x000063");
            assert_eq!(value(&tree, "geneve.proto_type"), "0x6558");
            assert_eq!(next, Next::Ethertype(0x6558, s.from(12)));
            for n in 0..7 {
                assert!(fields(&v, Span { at: 0, end: n }).is_none());
            }
        }
    }
}
