//! Tunnels around existing frames: IP in IP, GRE (with key, sequence number, checksum; carrying
//! IP, Ethernet or MPLS), VXLAN, Geneve and MPLS label stacks, nested as far as asked, and outer
//! IPv4 fragmentation. The tests rewrite real captures with it (the decoded messages must not
//! change) and the fuzz seeds take tunnelled frames from it.
//!
//! The outer headers use documentation addresses (192.0.2.0/24's neighbour 198.51.100.0/24 and
//! 2001:db8:ffff::/48) and fixed MAC addresses; their checksums are right.

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::wire::ethernet::{self, ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use crate::wire::ip::pseudo_header_sum;
use crate::wire::ipv4::Ipv4Header;
use crate::wire::ipv6::Ipv6Header;
use crate::wire::link::{self as dlink, Network};
use crate::wire::mpls::{self, ETHERTYPE_MPLS};
use crate::wire::tunnel::{ETHERTYPE_TEB, PROTO_GRE, PROTO_IPIP, PROTO_IPV6};
use crate::wire::vlan::VlanTag;
use crate::wire::{geneve, gre, udp, vxlan};
const UNDERLAY_V4: [Ipv4Addr; 2] = [
    Ipv4Addr::new(198, 51, 100, 1),
    Ipv4Addr::new(198, 51, 100, 2),
];
const UNDERLAY_V6: [Ipv6Addr; 2] = [
    Ipv6Addr::new(0x2001, 0xdb8, 0xffff, 0, 0, 0, 0, 1),
    Ipv6Addr::new(0x2001, 0xdb8, 0xffff, 0, 0, 0, 0, 2),
];
const MAC_A: [u8; 6] = [0x02, 0, 0x5e, 0, 0, 0xa];
const MAC_B: [u8; 6] = [0x02, 0, 0x5e, 0, 0, 0xb];

/// One encapsulation, applied around what the previous ones built. `v6` chooses the outer IP
/// version of the tunnels that add one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layer {
    /// IPv4 or IPv6 in IP (protocol 4 or 41 by the inner packet's version).
    IpInIp { v6: bool },
    /// GRE; `ethernet` carries an Ethernet frame (protocol type 0x6558, with `vlans`), else the
    /// IP packet (or MPLS stack) itself.
    Gre {
        v6: bool,
        key: Option<u32>,
        sequence: Option<u32>,
        checksum: bool,
        ethernet: bool,
        vlans: Vec<VlanTag>,
    },
    /// VXLAN carrying Ethernet, to UDP port `port` (4789 is IANA's, 8472 Linux's old default).
    Vxlan { v6: bool, vni: u32, port: u16 },
    /// Geneve with one 8-byte option, carrying Ethernet, to UDP port `port` (6081 is IANA's).
    Geneve { v6: bool, vni: u32, port: u16 },
    /// An MPLS label stack around an IP packet.
    Mpls { labels: Vec<u32> },
}

/// What has been built so far.
enum Built {
    /// An IPv4 or IPv6 packet.
    Ip(Vec<u8>),
    /// An MPLS label stack and its packet.
    Mpls(Vec<u8>),
}

/// The frame `data` of link type `linktype` inside `layers` (innermost first), as Ethernet
/// frames: several when `fragment` splits the outermost IPv4 packet into payloads of at most
/// that many bytes. A frame that is not IP (or that IP-only layers cannot carry) is returned as
/// an Ethernet frame of its own. `None` when the link layer does not decode.
pub fn encapsulate(
    linktype: u32,
    data: &[u8],
    layers: &[Layer],
    fragment: Option<usize>,
) -> Option<Vec<Vec<u8>>> {
    let l = dlink::parse(linktype, data).ok()?;
    let rest = data.get(l.offset..)?;
    let as_ethernet = |ethertype: u16| {
        if l.src_mac.is_some() && l.dst_mac.is_some() && linktype == crate::base::linktype::ETHERNET
        {
            data.to_vec()
        } else {
            let mut f = Vec::new();
            ethernet::emit(&mut f, MAC_B, l.src_mac.unwrap_or(MAC_A), &[], ethertype);
            f.extend_from_slice(rest);
            f
        }
    };
    let mut built = match l.network {
        Network::Ipv4 | Network::Ipv6 => Built::Ip(ip_packet(rest).to_vec()),
        Network::Arp => return Some(vec![as_ethernet(0x0806)]),
        Network::Other(t) => return Some(vec![as_ethernet(t)]),
        Network::Llc => return Some(vec![as_ethernet(rest.len().min(1500) as u16)]),
        // No EtherType says what it is.
        Network::Ppp(_) => return None,
    };
    // The original Ethernet frame, for the layers that carry one.
    let own_ethernet = (linktype == crate::base::linktype::ETHERNET).then(|| data.to_vec());
    for (i, layer) in layers.iter().enumerate() {
        built = wrap(
            built,
            layer,
            if i == 0 {
                own_ethernet.as_deref()
            } else {
                None
            },
        );
    }
    let (ethertype, packet) = match built {
        Built::Mpls(p) => (ETHERTYPE_MPLS, p),
        Built::Ip(p) => (version_ethertype(&p), p),
    };
    let packets = match fragment {
        Some(max) if ethertype == ETHERTYPE_IPV4 => super::ip::fragment_ipv4(&packet, max),
        _ => vec![packet],
    };
    Some(
        packets
            .into_iter()
            .map(|p| {
                let mut f = Vec::with_capacity(14 + p.len());
                ethernet::emit(&mut f, MAC_B, MAC_A, &[], ethertype);
                f.extend_from_slice(&p);
                f
            })
            .collect(),
    )
}

/// An IP packet without the link layer's padding (its own length field says where it ends).
fn ip_packet(data: &[u8]) -> &[u8] {
    let len = match data.first().map(|b| b >> 4) {
        Some(4) => data
            .get(2..4)
            .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]]))),
        Some(6) => data
            .get(4..6)
            .map(|b| 40 + usize::from(u16::from_be_bytes([b[0], b[1]]))),
        _ => None,
    };
    match len {
        Some(n) if n > 0 && n <= data.len() => &data[..n],
        _ => data,
    }
}

fn version_ethertype(p: &[u8]) -> u16 {
    if p.first().is_some_and(|b| b >> 4 == 6) {
        ETHERTYPE_IPV6
    } else {
        ETHERTYPE_IPV4
    }
}

fn to_ethernet(b: Built, own: Option<&[u8]>, vlans: &[VlanTag]) -> Vec<u8> {
    match (b, own) {
        (Built::Ip(_), Some(f)) if vlans.is_empty() => f.to_vec(),
        (Built::Ip(p), _) => {
            let mut f = Vec::with_capacity(14 + 4 * vlans.len() + p.len());
            ethernet::emit(&mut f, MAC_B, MAC_A, vlans, version_ethertype(&p));
            f.extend_from_slice(&p);
            f
        }
        (Built::Mpls(p), _) => {
            let mut f = Vec::with_capacity(14 + p.len());
            ethernet::emit(&mut f, MAC_B, MAC_A, vlans, ETHERTYPE_MPLS);
            f.extend_from_slice(&p);
            f
        }
    }
}

/// An outer IP header of protocol `protocol` around `payload`.
fn outer_ip(v6: bool, protocol: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(40 + payload.len());
    if v6 {
        Ipv6Header::new(UNDERLAY_V6[0], UNDERLAY_V6[1], protocol).emit(&mut out, payload.len());
    } else {
        let mut h = Ipv4Header::new(UNDERLAY_V4[0], UNDERLAY_V4[1], protocol);
        h.id = (payload.len() as u16) ^ 0x5a5a;
        h.emit(&mut out, payload.len());
    }
    out.extend_from_slice(payload);
    out
}

/// An outer IP and UDP header (checksum right) to `port` around `payload`.
fn outer_udp(v6: bool, port: u16, payload: &[u8]) -> Vec<u8> {
    let (src, dst): (Vec<u8>, Vec<u8>) = if v6 {
        (
            UNDERLAY_V6[0].octets().to_vec(),
            UNDERLAY_V6[1].octets().to_vec(),
        )
    } else {
        (
            UNDERLAY_V4[0].octets().to_vec(),
            UNDERLAY_V4[1].octets().to_vec(),
        )
    };
    let mut udp = Vec::with_capacity(8 + payload.len());
    let pseudo = pseudo_header_sum(&src, &dst, 17, 8 + payload.len());
    udp::emit(
        &mut udp,
        49152 + (payload.len() as u16 % 1000),
        port,
        payload,
        pseudo,
    );
    outer_ip(v6, 17, &udp)
}

fn wrap(b: Built, layer: &Layer, own: Option<&[u8]>) -> Built {
    match layer {
        Layer::IpInIp { v6 } => match b {
            Built::Ip(p) => {
                let proto = if version_ethertype(&p) == ETHERTYPE_IPV6 {
                    PROTO_IPV6
                } else {
                    PROTO_IPIP
                };
                Built::Ip(outer_ip(*v6, proto, &p))
            }
            other => other,
        },
        Layer::Gre {
            v6,
            key,
            sequence,
            checksum,
            ethernet: eth,
            vlans,
        } => {
            let (protocol, inner) = match b {
                b if *eth => (ETHERTYPE_TEB, to_ethernet(b, own, vlans)),
                Built::Ip(p) => (version_ethertype(&p), p),
                Built::Mpls(p) => (ETHERTYPE_MPLS, p),
            };
            let mut g = Vec::with_capacity(16 + inner.len());
            gre::emit(&mut g, protocol, *checksum, *key, *sequence, &inner);
            Built::Ip(outer_ip(*v6, PROTO_GRE, &g))
        }
        Layer::Vxlan { v6, vni, port } => {
            let mut h = Vec::new();
            vxlan::emit(&mut h, *vni);
            h.extend_from_slice(&to_ethernet(b, own, &[]));
            Built::Ip(outer_udp(*v6, *port, &h))
        }
        Layer::Geneve { v6, vni, port } => {
            // One option of 4 bytes of data: option length 2 words.
            let mut h = Vec::new();
            geneve::emit(
                &mut h,
                ETHERTYPE_TEB,
                *vni,
                &[0x01, 0x02, 0x03, 0x01, 0xde, 0xad, 0xbe, 0xef],
            );
            h.extend_from_slice(&to_ethernet(b, own, &[]));
            Built::Ip(outer_udp(*v6, *port, &h))
        }
        Layer::Mpls { labels } => match b {
            Built::Ip(p) => {
                let mut m = Vec::with_capacity(4 * labels.len() + p.len());
                mpls::emit(&mut m, labels, 64);
                m.extend_from_slice(&p);
                Built::Mpls(m)
            }
            other => other,
        },
    }
}
