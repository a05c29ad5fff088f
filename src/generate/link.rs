//! Link-layer headers: Ethernet II with 802.1Q / 802.1ad tags, Linux cooked (SLL, SLL2), BSD
//! loopback.

use super::bytes::{be16, be32};

pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_ARP: u16 = 0x0806;
pub const ETHERTYPE_IPV6: u16 = 0x86dd;
pub const ETHERTYPE_VLAN: u16 = 0x8100;
pub const ETHERTYPE_QINQ: u16 = 0x88a8;

/// One VLAN tag: the tag protocol (0x8100, 0x88a8 or 0x9100) and the tag control information
/// (priority, DEI, VLAN id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VlanTag {
    pub tpid: u16,
    pub tci: u16,
}

impl VlanTag {
    pub fn dot1q(vid: u16) -> Self {
        VlanTag {
            tpid: ETHERTYPE_VLAN,
            tci: vid & 0x0fff,
        }
    }
}

/// An Ethernet II header with `vlans` (outermost first), ending in `ethertype`.
pub fn ethernet(out: &mut Vec<u8>, dst: [u8; 6], src: [u8; 6], vlans: &[VlanTag], ethertype: u16) {
    out.extend_from_slice(&dst);
    out.extend_from_slice(&src);
    for v in vlans {
        be16(out, v.tpid);
        be16(out, v.tci);
    }
    be16(out, ethertype);
}

/// A Linux cooked header (LINKTYPE_LINUX_SLL): packet type (0 to us, 4 outgoing), hardware type
/// 1, the sender's MAC, protocol.
pub fn sll(out: &mut Vec<u8>, packet_type: u16, src: [u8; 6], protocol: u16) {
    be16(out, packet_type);
    be16(out, 1);
    be16(out, 6);
    out.extend_from_slice(&src);
    out.extend_from_slice(&[0, 0]);
    be16(out, protocol);
}

/// A Linux cooked v2 header (LINKTYPE_LINUX_SLL2).
pub fn sll2(out: &mut Vec<u8>, protocol: u16, ifindex: u32, packet_type: u8, src: [u8; 6]) {
    be16(out, protocol);
    be16(out, 0);
    be32(out, ifindex);
    be16(out, 1);
    out.push(packet_type);
    out.push(6);
    out.extend_from_slice(&src);
    out.extend_from_slice(&[0, 0]);
}

/// A BSD loopback header: the address family in the writer's byte order (LINKTYPE_NULL) or in
/// network order (LINKTYPE_LOOP).
pub fn null(out: &mut Vec<u8>, family: u32, big_endian: bool) {
    out.extend_from_slice(&if big_endian {
        family.to_be_bytes()
    } else {
        family.to_le_bytes()
    });
}
