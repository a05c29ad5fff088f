//! Ethernet II (and IEEE 802.3 length frames, recognised and left alone): addresses and the
//! EtherType, then the VLAN tags ([`super::vlan`]) and what they carry.

use etherparse::Ethernet2HeaderSlice;

use super::fabricpath::{fabricpath, ETHERTYPE_FABRICPATH};
use super::link::LinkLayer;
use super::vlan::{tagged, VlanTag};
use crate::error::DecodeError;

pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_ARP: u16 = 0x0806;
pub const ETHERTYPE_IPV6: u16 = 0x86dd;

/// Decodes an Ethernet II header and its VLAN tags (a frame's, or one carried in a tunnel).
// Inlined into `parse` as it was when it had one caller (tunnels call it too).
#[inline(always)]
pub fn ethernet(data: &[u8]) -> Result<LinkLayer, DecodeError> {
    let eth = Ethernet2HeaderSlice::from_slice(data)
        .map_err(|_| DecodeError::truncated(0, "Ethernet header", 14, data.len()))?;
    let ethertype = eth.ether_type().0;
    if ethertype == ETHERTYPE_FABRICPATH {
        return fabricpath(data);
    }
    let (network, offset, vlan_tags) = tagged(data, 14, ethertype)?;
    Ok(LinkLayer {
        src_mac: Some(eth.source()),
        dst_mac: Some(eth.destination()),
        network,
        offset,
        vlan_tags,
    })
}

/// Appends an Ethernet II header with `vlans` (outermost first), ending in `ethertype`.
pub fn emit(out: &mut Vec<u8>, dst: [u8; 6], src: [u8; 6], vlans: &[VlanTag], ethertype: u16) {
    out.extend_from_slice(&dst);
    out.extend_from_slice(&src);
    for v in vlans {
        v.emit(out);
    }
    super::bytes::be16(out, ethertype);
}
