//! Ethernet II (and IEEE 802.3 length frames, recognised and left alone): addresses and the
//! EtherType, then the VLAN tags ([`super::vlan`]) and what they carry.

use etherparse::Ethernet2HeaderSlice;

use super::fabricpath::{fabricpath, ETHERTYPE_FABRICPATH};
use super::link::LinkLayer;
use super::view::{hex, Next, Span, View};
use super::vlan::{tagged, VlanTag};
use crate::error::DecodeError;
use crate::field::{mac, Field, Value};

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

/// Wireshark's name of an EtherType, for `-V`.
pub fn ethertype_name(t: u16) -> Option<&'static str> {
    Some(match t {
        0x0800 => "IPv4",
        0x0806 => "ARP",
        0x86dd => "IPv6",
        0x8100 => "802.1Q Virtual LAN",
        0x88a8 => "802.1ad Provider Bridge (Q-in-Q)",
        0x8847 => "MPLS label switched packet",
        0x8848 => "MPLS multicast label switched packet",
        0x6558 => "Transparent Ethernet bridging",
        0x8903 => "Cisco FabricPath Switching - FabricPath",
        0x88cc => "802.1 Link Layer Discovery Protocol (LLDP)",
        0x8863 => "PPPoE Discovery",
        0x8864 => "PPPoE Session",
        _ => return None,
    })
}

/// The display fields of an Ethernet II (or IEEE 802.3) header at `s.at` (`eth`), and what
/// follows it; `None` when the header is cut short.
pub fn fields(v: &View, s: Span) -> Option<(Field, Next)> {
    let (Some(dst), Some(src), Some(t)) =
        (v.mac(s.at, s), v.mac(s.at + 6, s), v.be16(s.at + 12, s))
    else {
        return None;
    };
    let labels = v.labels;
    let addr = |name, label, m: [u8; 6], at| {
        let address = Field::new("eth.addr", "Address", Value::Mac(m), at, 6);
        if !labels {
            // `vec!` allocates room for the one child, where a push would make room for four.
            return Field::new(name, label, Value::Mac(m), at, 6).children(vec![address]);
        }
        // The address's two bits, as `-V` shows them.
        let (lg, ig) = (m[0] & 2 != 0, m[0] & 1 != 0);
        Field::new(name, label, Value::Mac(m), at, 6).children(vec![
            address,
            Field::boolean("", "LG bit", lg, at, 3)
                .bits(0x02_0000, 24)
                .note(if lg {
                    "Locally administered address (this is NOT the factory default)"
                } else {
                    "Globally unique address (factory default)"
                }),
            Field::boolean("", "IG bit", ig, at, 3)
                .bits(0x01_0000, 24)
                .note(if ig {
                    "Group address (multicast/broadcast)"
                } else {
                    "Individual address (unicast)"
                }),
        ])
    };
    // IEEE 802.3: a length where Ethernet II has its type (tshark's title has no addresses).
    let ieee802_3 = t <= 1500;
    let title = v.label(|| {
        if ieee802_3 {
            "IEEE 802.3 Ethernet ".to_string()
        } else {
            // poolshark resolves no names, so it writes what `tshark -n` writes.
            format!(
                "Ethernet II, Src: {s}, Dst: {d}",
                s = mac(&src),
                d = mac(&dst)
            )
        }
    });
    let kind = if ieee802_3 {
        Field::uint("eth.len", "Length", t, s.at + 12, 2)
    } else {
        let f = hex(Field::uint("eth.type", "Type", t, s.at + 12, 2), 4);
        match (v.labels, ethertype_name(t)) {
            (true, Some(n)) => f.note(n),
            _ => f,
        }
    };
    let tree = Field::node("eth", title, s.at, 14).children(vec![
        addr("eth.dst", "Destination", dst, s.at),
        addr("eth.src", "Source", src, s.at + 6),
        kind,
    ]);
    // After an IEEE 802.3 header, LLC: not decoded.
    let next = if ieee802_3 {
        Next::End
    } else {
        Next::Tagged(t, s.from(14))
    };
    Some((tree, next))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The display fields of an emitted header hold the emitted values, and what follows is
    /// the EtherType's payload after the tag; every cut of the header gives no tree.
    #[test]
    fn fields_of_an_emitted_header() {
        use crate::wire::view::tests::{value, views};
        let mut b = Vec::new();
        emit(&mut b, [2; 6], [4; 6], &[VlanTag::dot1q(7)], ETHERTYPE_IPV6);
        for (v, s) in views(&b) {
            let (tree, next) = fields(&v, s).unwrap();
            assert_eq!(value(&tree, "eth.dst"), "02:02:02:02:02:02");
            assert_eq!(value(&tree, "eth.src"), "04:04:04:04:04:04");
            assert_eq!(value(&tree, "eth.type"), "0x8100");
            assert_eq!(next, Next::Tagged(0x8100, s.from(14)));
            for n in 0..14 {
                assert!(fields(&v, Span { at: 0, end: n }).is_none());
            }
        }
        let p = ethernet(&b).unwrap();
        assert_eq!(
            (p.src_mac, p.dst_mac, p.vlan_tags, p.offset),
            (Some([4; 6]), Some([2; 6]), 1, 18)
        );
    }
}
