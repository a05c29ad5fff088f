//! Cisco FabricPath ("DCE"): outer addresses, its EtherType, FTag and TTL, then the Ethernet
//! frame it carries.

use etherparse::Ethernet2HeaderSlice;

use super::link::LinkLayer;
use super::view::{hex, Next, Span, View};
use super::vlan::tagged;
use crate::error::DecodeError;
use crate::field::Field;

/// FabricPath's EtherType, where an Ethernet header has its type.
pub const ETHERTYPE_FABRICPATH: u16 = 0x8903;
/// The FabricPath header's length.
pub const FABRICPATH_HEADER: usize = 16;

/// Cisco FabricPath: its 16-byte header, then the Ethernet frame it carries, whose addresses are
/// the frame's (as tshark shows them). Once: a FabricPath header inside is not followed. No FCS
/// is taken off the end (Wireshark takes the last 4 bytes for one; captures have none).
#[cold]
pub(crate) fn fabricpath(data: &[u8]) -> Result<LinkLayer, DecodeError> {
    let inner = data.get(FABRICPATH_HEADER..).unwrap_or(&[]);
    let eth = Ethernet2HeaderSlice::from_slice(inner).map_err(|_| {
        DecodeError::truncated(
            FABRICPATH_HEADER,
            "Ethernet header in FabricPath",
            14,
            inner.len(),
        )
    })?;
    let (network, offset, vlan_tags) = tagged(data, FABRICPATH_HEADER + 14, eth.ether_type().0)?;
    Ok(LinkLayer {
        src_mac: Some(eth.source()),
        dst_mac: Some(eth.destination()),
        network,
        offset,
        vlan_tags,
    })
}

/// Appends a FabricPath header: the outer (switch) addresses, the EtherType, the FTag (10 bits)
/// and the TTL (6 bits); the Ethernet frame it carries goes after it ([`super::ethernet::emit`]).
pub fn emit(out: &mut Vec<u8>, outer_dst: [u8; 6], outer_src: [u8; 6], ftag: u16, ttl: u8) {
    out.extend_from_slice(&outer_dst);
    out.extend_from_slice(&outer_src);
    super::bytes::be16(out, ETHERTYPE_FABRICPATH);
    super::bytes::be16(out, (ftag & 0x3ff) << 6 | u16::from(ttl & 0x3f));
}

/// The display fields of Cisco FabricPath (`cfp`): tshark decodes its 16-byte header in place of the Ethernet one (naming
/// "eth" in `frame.protocols` but giving none of its fields), then the frame inside. No FCS
/// is taken off the end, where Wireshark takes the last 4 bytes for one.
pub fn fields(v: &View, s: Span) -> Option<(Field, Next)> {
    let a = s.at;
    let (Some(etype), Some(w)) = (v.be16(a + 12, s), v.be16(a + 14, s)) else {
        return None;
    };
    let tree = Field::node("cfp", "Cisco FabricPath", a, FABRICPATH_HEADER).children(vec![
        hex(
            Field::uint("cfp.etype", "FP Ethertype", etype, a + 12, 2),
            4,
        ),
        Field::uint("cfp.ftag", "FTAG", w >> 6, a + 14, 2),
        Field::uint("cfp.ttl", "TTL", w & 0x3f, a + 14, 2),
    ]);
    Some((tree, Next::EthernetFrame(s.from(FABRICPATH_HEADER))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::ethernet::{self, ETHERTYPE_IPV4};
    use crate::wire::link::Network;

    /// A FabricPath header around an Ethernet frame carrying (the start of) an IPv4 packet.
    fn frame() -> Vec<u8> {
        let mut b = Vec::new();
        emit(&mut b, [2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2], 0x2a5, 0x21);
        ethernet::emit(
            &mut b,
            [0, 1, 2, 3, 4, 5],
            [6, 7, 8, 9, 10, 11],
            &[],
            ETHERTYPE_IPV4,
        );
        b.extend_from_slice(&[0x45, 0, 0, 20]);
        b
    }

    #[test]
    fn emit_then_parse_gives_the_inner_frame() {
        let b = frame();
        assert_eq!(b[12..14], ETHERTYPE_FABRICPATH.to_be_bytes());
        let l = fabricpath(&b).unwrap();
        assert_eq!(l.dst_mac, Some([0, 1, 2, 3, 4, 5]));
        assert_eq!(l.src_mac, Some([6, 7, 8, 9, 10, 11]));
        assert_eq!((l.network, l.offset, l.vlan_tags), (Network::Ipv4, 30, 0));
        // Cut inside the inner Ethernet header: an error at the inner header, never a panic.
        for n in 0..FABRICPATH_HEADER + 14 {
            let e = fabricpath(&b[..n]).unwrap_err();
            assert_eq!(e.offset, FABRICPATH_HEADER, "cut at {n}");
        }
    }

    #[test]
    fn fields_of_an_emitted_header() {
        use crate::wire::view::tests::{value, views};
        let b = frame();
        for (v, s) in views(&b) {
            let (tree, next) = fields(&v, s).unwrap();
            assert_eq!(value(&tree, "cfp.etype"), "0x8903");
            assert_eq!(value(&tree, "cfp.ftag"), "677");
            assert_eq!(value(&tree, "cfp.ttl"), "33");
            assert_eq!(next, Next::EthernetFrame(s.from(FABRICPATH_HEADER)));
            for n in 0..FABRICPATH_HEADER {
                assert!(fields(&v, Span { at: 0, end: n }).is_none(), "cut at {n}");
            }
        }
    }
}
