//! Cisco FabricPath ("DCE"): outer addresses, its EtherType, FTag and TTL, then the Ethernet
//! frame it carries.

use etherparse::Ethernet2HeaderSlice;

use super::link::LinkLayer;
use super::vlan::tagged;
use crate::error::DecodeError;

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
