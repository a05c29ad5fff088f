//! Linux cooked captures: SLL (LINKTYPE_LINUX_SLL) and SLL2 (LINKTYPE_LINUX_SLL2), whose
//! protocol field is an EtherType (VLAN tags included) or one of Linux's pseudo-protocols.

use super::bytes::{be16 as put16, be32 as put32};
use super::ethernet::ethertype_name;
use super::link::{be16, LinkLayer, Network};
use super::view::{hex, Next, Span, View};
use super::vlan::tagged;
use crate::error::DecodeError;
use crate::field::{Field, Value};

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

/// The display fields of a Linux cooked capture header (v1, `sll`) and what follows it: packet type, ARPHRD type, address length, address, protocol.
pub fn fields(v: &View, s: Span) -> Option<(Field, Next)> {
    let (Some(pkttype), Some(hatype), Some(halen), Some(t)) =
        (v.be16(0, s), v.be16(2, s), v.be16(4, s), v.be16(14, s))
    else {
        return None;
    };
    let mut tree = Field::node("sll", "Linux cooked capture v1", 0, 16).children(vec![
        v.name(
            Field::uint("sll.pkttype", "Packet type", pkttype, 0, 2),
            sll_packet_type(pkttype),
        ),
        v.name(
            Field::uint("sll.hatype", "Link-layer address type", hatype, 2, 2),
            arphrd_name(hatype),
        ),
        Field::uint("sll.halen", "Link-layer address length", halen, 4, 2),
    ]);
    tree = tree.children(address(v, hatype, usize::from(halen), 6, s));
    tree = tree.child(protocol(v, t, 14));
    let next = if t >= 0x0600 {
        Next::Tagged(t, s.from(16))
    } else {
        Next::End
    };
    Some((tree, next))
}

/// The display fields of a Linux cooked capture v2 header (`sll`) and what follows it: protocol, reserved, interface, ARPHRD type, packet type, address
/// length, address.
pub fn fields_v2(v: &View, s: Span) -> Option<(Field, Next)> {
    let (Some(t), Some(ifindex), Some(hatype), Some(pkttype), Some(halen)) = (
        v.be16(0, s),
        v.be32(4, s),
        v.be16(8, s),
        v.u8(10, s),
        v.u8(11, s),
    ) else {
        return None;
    };
    let mut tree = Field::node("sll", "Linux cooked capture v2", 0, 20).children(vec![
        protocol(v, t, 0),
        Field::uint("sll.ifindex", "Interface index", ifindex, 4, 4),
        v.name(
            Field::uint("sll.hatype", "Link-layer address type", hatype, 8, 2),
            arphrd_name(hatype),
        ),
        v.name(
            Field::uint("sll.pkttype", "Packet type", pkttype, 10, 1),
            sll_packet_type(u16::from(pkttype)),
        ),
        Field::uint("sll.halen", "Link-layer address length", halen, 11, 1),
    ]);
    tree = tree.children(address(v, hatype, usize::from(halen), 12, s));
    let next = if t >= 0x0600 && s.len() >= 20 {
        Next::Tagged(t, s.from(20))
    } else {
        Next::End
    };
    Some((tree, next))
}

/// A cooked header's 8-byte address field at `at`: the sender's Ethernet address where the
/// link has one, then the bytes the address leaves unused.
fn address(v: &View, hatype: u16, halen: usize, at: usize, s: Span) -> Vec<Field> {
    let mut out = Vec::with_capacity(2);
    let mut used = 0;
    if let (ARPHRD_ETHER | ARPHRD_LOOPBACK, 6, Some(m)) = (hatype, halen, v.mac(at, s)) {
        out.push(Field::new("sll.src.eth", "Source", Value::Mac(m), at, 6));
        used = 6;
    }
    if halen <= 8 && (used == 6 || halen == 0) {
        if let Some(b) = v.data.get(at + used..at + 8).filter(|_| at + 8 <= s.end) {
            out.push(Field::bytes("sll.unused", "Unused", b, at + used));
        }
    }
    out
}

/// A cooked header's protocol field at `at`: an EtherType (`sll.etype`, with its name where the
/// labels are wanted), or below 0x0600 one of Linux's pseudo-protocols (`sll.ltype`: 802.2 LLC,
/// Novell raw 802.3, ...).
fn protocol(v: &View, t: u16, at: usize) -> Field {
    let name = if t < 0x0600 { "sll.ltype" } else { "sll.etype" };
    let f = hex(Field::uint(name, "Protocol", t, at, 2), 4);
    if t >= 0x0600 {
        v.name(f, ethertype_name(t))
    } else {
        f
    }
}

/// A cooked header's packet type (Linux's PACKET_*) as tshark names it.
fn sll_packet_type(t: u16) -> Option<&'static str> {
    Some(match t {
        0 => "Unicast to us",
        1 => "Broadcast",
        2 => "Multicast",
        3 => "Unicast to another host",
        4 => "Sent by us",
        _ => return None,
    })
}

/// A link-layer address type (Linux's ARPHRD_*) as tshark names it, for the types seen in
/// cooked captures.
fn arphrd_name(t: u16) -> Option<&'static str> {
    Some(match t {
        1 => "Ethernet",
        512 => "PPP",
        772 => "Loopback",
        65534 => "zero header length",
        _ => return None,
    })
}

/// Link-layer address types (ARPHRD_) whose 6-byte addresses tshark shows as Ethernet's.
const ARPHRD_ETHER: u16 = 1;
const ARPHRD_LOOPBACK: u16 = 772;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_emitted_headers() {
        use crate::wire::view::tests::{value, views};
        let mut b = Vec::new();
        emit(&mut b, 4, [1, 2, 3, 4, 5, 6], 0x86dd);
        for (v, s) in views(&b) {
            let (tree, next) = fields(&v, s).unwrap();
            assert_eq!(value(&tree, "sll.pkttype"), "4");
            assert_eq!(value(&tree, "sll.src.eth"), "01:02:03:04:05:06");
            assert_eq!(value(&tree, "sll.etype"), "0x86dd");
            assert_eq!(next, Next::Tagged(0x86dd, s.from(16)));
        }
        let mut b = Vec::new();
        emit_v2(&mut b, 0x0800, 3, 0, [1, 2, 3, 4, 5, 6]);
        for (v, s) in views(&b) {
            let (tree, next) = fields_v2(&v, s).unwrap();
            assert_eq!(value(&tree, "sll.ifindex"), "3");
            assert_eq!(value(&tree, "sll.etype"), "0x0800");
            assert_eq!(next, Next::Tagged(0x0800, s.from(20)));
            for n in 0..12 {
                assert!(fields_v2(&v, Span { at: 0, end: n }).is_none());
            }
        }
    }
}
