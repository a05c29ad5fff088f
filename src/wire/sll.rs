//! Linux cooked captures: SLL (LINKTYPE_LINUX_SLL) and SLL2 (LINKTYPE_LINUX_SLL2), whose
//! protocol field is an EtherType (VLAN tags included) or one of Linux's pseudo-protocols.

use super::bytes::{be16 as put16, be32 as put32};
use super::link::{be16, LinkLayer, Network};
use super::vlan::tagged;
use crate::error::DecodeError;

fn mac_at(data: &[u8], at: usize, len: u16) -> Option<[u8; 6]> {
    if len != 6 {
        return None;
    }
    data.get(at..at + 6)?.try_into().ok()
}

/// Linux cooked v1: packet type, ARPHRD type, address length, address (8), protocol.
pub(crate) fn sll(data: &[u8]) -> Result<LinkLayer, DecodeError> {
    if data.len() < 16 {
        return Err(DecodeError::truncated(
            0,
            "Linux cooked header",
            16,
            data.len(),
        ));
    }
    let addr_len = be16(data, 4).unwrap_or(0);
    let protocol = be16(data, 14).unwrap_or(0);
    cooked(data, mac_at(data, 6, addr_len), protocol, 16)
}

/// Linux cooked v2: protocol, reserved, interface index, ARPHRD type, packet type, address
/// length, address (8).
pub(crate) fn sll2(data: &[u8]) -> Result<LinkLayer, DecodeError> {
    if data.len() < 20 {
        return Err(DecodeError::truncated(
            0,
            "Linux cooked v2 header",
            20,
            data.len(),
        ));
    }
    let protocol = be16(data, 0).unwrap_or(0);
    let addr_len = u16::from(data.get(11).copied().unwrap_or(0));
    cooked(data, mac_at(data, 12, addr_len), protocol, 20)
}

/// What a cooked header of `len` bytes carries: its protocol field is an EtherType (VLAN tags
/// included, as on Ethernet), or below 0x0600 one of Linux's pseudo-protocols (802.2 LLC, Novell
/// raw 802.3, ...).
fn cooked(
    data: &[u8],
    src_mac: Option<[u8; 6]>,
    protocol: u16,
    len: usize,
) -> Result<LinkLayer, DecodeError> {
    let (network, offset, vlan_tags) = if protocol < 0x0600 {
        (Network::Llc, len, 0)
    } else {
        tagged(data, len, protocol)?
    };
    Ok(LinkLayer {
        src_mac,
        dst_mac: None,
        network,
        offset,
        vlan_tags,
    })
}

/// Appends a Linux cooked header (LINKTYPE_LINUX_SLL): packet type (0 to us, 4 outgoing),
/// hardware type 1, the sender's MAC, protocol.
pub fn emit(out: &mut Vec<u8>, packet_type: u16, src: [u8; 6], protocol: u16) {
    put16(out, packet_type);
    put16(out, 1);
    put16(out, 6);
    out.extend_from_slice(&src);
    out.extend_from_slice(&[0, 0]);
    put16(out, protocol);
}

/// Appends a Linux cooked v2 header (LINKTYPE_LINUX_SLL2).
pub fn emit_v2(out: &mut Vec<u8>, protocol: u16, ifindex: u32, packet_type: u8, src: [u8; 6]) {
    put16(out, protocol);
    put16(out, 0);
    put32(out, ifindex);
    put16(out, 1);
    out.push(packet_type);
    out.push(6);
    out.extend_from_slice(&src);
    out.extend_from_slice(&[0, 0]);
}
