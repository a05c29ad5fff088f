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
