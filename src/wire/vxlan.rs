//! VXLAN (RFC 7348): the 8-byte header before an Ethernet frame; the checked parse and the emit.

use super::bytes::be32;
use super::tunnel::{vni, Overlay, ETHERTYPE_TEB};
use super::view::{hex, Next, Span, View};
use crate::error::DecodeError;
use crate::field::Field;

/// Decodes a VXLAN header (8 bytes; the inner packet is an Ethernet frame). A clear I flag is
/// not fatal (the frame is still decoded, as tshark does): the VNI is then taken as absent.
pub fn parse(data: &[u8]) -> Result<Overlay, DecodeError> {
    let Some(h) = data.get(..8) else {
        return Err(DecodeError::truncated(0, "VXLAN header", 8, data.len()));
    };
    Ok(Overlay {
        vni: (h[0] & 0x08 != 0).then(|| vni(&h[4..7])),
        protocol: ETHERTYPE_TEB,
        header_len: 8,
    })
}

/// Appends a VXLAN header with its I flag set and `vni` (24 bits).
pub fn emit(out: &mut Vec<u8>, vni: u32) {
    out.extend_from_slice(&[0x08, 0, 0, 0]);
    be32(out, (vni & 0xff_ffff) << 8);
}

/// The display fields of a VXLAN header (`vxlan`) and the Ethernet frame after it; `None` when
/// the header is cut short.
pub fn fields(v: &View, s: Span) -> Option<(Field, Next)> {
    let a = s.at;
    let (Some(flags), Some(vni)) = (v.be16(a, s), v.be24(a + 4, s)) else {
        return None;
    };
    let tree = Field::node("vxlan", "Virtual eXtensible Local Area Network", a, 8).children(vec![
        hex(Field::uint("vxlan.flags", "Flags", flags, a, 2), 4),
        Field::uint("vxlan.vni", "VXLAN Network Identifier (VNI)", vni, a + 4, 3),
    ]);
    let next = if s.len() >= 8 {
        Next::Ethernet(s.from(8))
    } else {
        Next::End
    };
    Some((tree, next))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vxlan_i_flag_and_length() {
        let o = parse(&[0x08, 0, 0, 0, 0x12, 0x34, 0x56, 0]).unwrap();
        assert_eq!(
            (o.vni, o.protocol, o.header_len),
            (Some(0x123456), 0x6558, 8)
        );
        assert_eq!(parse(&[0, 0, 0, 0, 0x12, 0x34, 0x56, 0]).unwrap().vni, None);
        assert!(parse(&[0x08; 7]).unwrap_err().what.contains("needs 8"));
    }

    #[test]
    fn emit_then_parse_round_trips() {
        let mut b = Vec::new();
        emit(&mut b, 0xabcdef);
        let o = parse(&b).unwrap();
        assert_eq!(
            (o.vni, o.protocol, o.header_len),
            (Some(0xabcdef), ETHERTYPE_TEB, 8)
        );
        for n in 0..8 {
            assert_eq!(parse(&b[..n]).unwrap_err().offset, 0, "cut at {n}");
        }
    }

    #[test]
    fn fields_of_an_emitted_header() {
        use crate::wire::view::tests::{value, views};
        let mut b = Vec::new();
        emit(&mut b, 4242);
        for (v, s) in views(&b) {
            let (tree, next) = fields(&v, s).unwrap();
            assert_eq!(value(&tree, "vxlan.vni"), "4242");
            assert_eq!(value(&tree, "vxlan.flags"), "0x0800");
            assert_eq!(next, Next::Ethernet(s.from(8)));
            for n in 0..7 {
                assert!(fields(&v, Span { at: 0, end: n }).is_none());
            }
        }
    }
}
