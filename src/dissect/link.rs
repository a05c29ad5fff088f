//! The link layer: Ethernet II (with 802.1Q / 802.1ad / QinQ tags, and Cisco FabricPath around
//! a frame; 802.3 length frames are recognised and left alone), Linux cooked captures (SLL, SLL2),
//! PPP, raw IP and BSD loopback. Every link type whose header ends in an EtherType (Ethernet, the
//! cooked captures) goes through the same VLAN tags after it.

use etherparse::{Ethernet2HeaderSlice, SingleVlanHeaderSlice};

use crate::base::linktype;
use crate::error::DecodeError;

pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_ARP: u16 = 0x0806;
pub const ETHERTYPE_IPV6: u16 = 0x86dd;
pub(super) const VLAN_TPIDS: [u16; 3] = [0x8100, 0x88a8, 0x9100];
/// Cisco FabricPath ("DCE"): outer addresses, this EtherType, FTag and TTL, then the frame.
pub(super) const ETHERTYPE_FABRICPATH: u16 = 0x8903;
pub(super) const FABRICPATH_HEADER: usize = 16;
/// PPP protocol numbers of IPv4 and IPv6.
pub(super) const PPP_IPV4: u16 = 0x0021;
pub(super) const PPP_IPV6: u16 = 0x0057;
/// Stacked tags beyond this are taken for garbage rather than walked forever.
pub(super) const MAX_VLAN_TAGS: usize = 8;

/// What the link layer carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Network {
    Ipv4,
    Ipv6,
    Arp,
    /// An IEEE 802.3 frame with a length field (LLC, STP, ...): not decoded further.
    Llc,
    /// Any other EtherType (or, for loopback, address family).
    Other(u16),
    /// A PPP protocol other than IPv4's and IPv6's.
    Ppp(u16),
}

/// The decoded link header of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkLayer {
    pub src_mac: Option<[u8; 6]>,
    pub dst_mac: Option<[u8; 6]>,
    pub network: Network,
    /// Where the network layer starts in the frame.
    pub offset: usize,
    pub vlan_tags: usize,
}

impl LinkLayer {
    fn bare(network: Network, offset: usize) -> Self {
        LinkLayer {
            src_mac: None,
            dst_mac: None,
            network,
            offset,
            vlan_tags: 0,
        }
    }
}

fn by_ethertype(t: u16) -> Network {
    match t {
        ETHERTYPE_IPV4 => Network::Ipv4,
        ETHERTYPE_IPV6 => Network::Ipv6,
        ETHERTYPE_ARP => Network::Arp,
        t if t <= 1500 => Network::Llc,
        t => Network::Other(t),
    }
}

/// Decodes the link header of a frame captured with LINKTYPE_ `lt`.
pub fn parse(lt: u32, data: &[u8]) -> Result<LinkLayer, DecodeError> {
    match lt {
        linktype::ETHERNET => ethernet(data),
        linktype::LINUX_SLL => sll(data),
        linktype::LINUX_SLL2 => sll2(data),
        // LINKTYPE_RAW, and DLT_RAW's numbers on some BSDs (12, 14).
        linktype::RAW | 12 | 14 => raw(data),
        linktype::IPV4 => Ok(LinkLayer::bare(Network::Ipv4, 0)),
        linktype::IPV6 => Ok(LinkLayer::bare(Network::Ipv6, 0)),
        linktype::NULL => null(data, None),
        linktype::LOOP => null(data, Some(true)),
        linktype::PPP | linktype::PPP_HDLC => ppp(data),
        other => Err(DecodeError::new(
            0,
            format!("link type {other} is not supported (Ethernet, Linux cooked, PPP, raw IP and loopback are)"),
        )),
    }
}

/// The VLAN tags an EtherType `ethertype` (its field ending at `offset`) announces, and what
/// follows them: (what the frame carries, where it starts, tags).
#[inline(always)]
fn tagged(
    data: &[u8],
    offset: usize,
    ethertype: u16,
) -> Result<(Network, usize, usize), DecodeError> {
    let (mut ethertype, mut offset, mut tags) = (ethertype, offset, 0);
    while VLAN_TPIDS.contains(&ethertype) {
        if tags == MAX_VLAN_TAGS {
            return Err(DecodeError::new(
                offset,
                format!("more than {MAX_VLAN_TAGS} stacked VLAN tags"),
            ));
        }
        let rest = data.get(offset..).unwrap_or(&[]);
        let tag = SingleVlanHeaderSlice::from_slice(rest)
            .map_err(|_| DecodeError::truncated(offset, "VLAN tag", 4, rest.len()))?;
        ethertype = tag.ether_type().0;
        offset += 4;
        tags += 1;
    }
    let network = by_ethertype(ethertype);
    if let Network::Other(t) = network {
        if t < 0x0600 {
            return Err(DecodeError::new(
                offset - 2,
                format!("type/length field {t:#06x} is neither a length (up to 1500) nor an EtherType (from 0x0600)"),
            ));
        }
    }
    Ok((network, offset, tags))
}

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

/// Cisco FabricPath: its 16-byte header, then the Ethernet frame it carries, whose addresses are
/// the frame's (as tshark shows them). Once: a FabricPath header inside is not followed. No FCS
/// is taken off the end (Wireshark takes the last 4 bytes for one; captures have none).
#[cold]
fn fabricpath(data: &[u8]) -> Result<LinkLayer, DecodeError> {
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

fn be16(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*data.get(at)?, *data.get(at + 1)?]))
}

fn mac_at(data: &[u8], at: usize, len: u16) -> Option<[u8; 6]> {
    if len != 6 {
        return None;
    }
    data.get(at..at + 6)?.try_into().ok()
}

/// Linux cooked v1: packet type, ARPHRD type, address length, address (8), protocol.
fn sll(data: &[u8]) -> Result<LinkLayer, DecodeError> {
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
fn sll2(data: &[u8]) -> Result<LinkLayer, DecodeError> {
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

/// PPP (LINKTYPE_PPP, and LINKTYPE_PPP_HDLC with its framing already undone): the HDLC address
/// and control bytes unless they were compressed away (RFC 1661's ACFC: no 0xff first), then the
/// protocol, one byte when compressed (PFC: an odd first byte).
fn ppp(data: &[u8]) -> Result<LinkLayer, DecodeError> {
    let at = if data.first() == Some(&0xff) { 2 } else { 0 };
    let first = *data.get(at).ok_or_else(|| {
        DecodeError::truncated(at, "PPP protocol", 2, data.len().saturating_sub(at))
    })?;
    let (protocol, len) = if first & 1 == 1 {
        (u16::from(first), 1)
    } else {
        let p = be16(data, at).ok_or_else(|| DecodeError::truncated(at, "PPP protocol", 2, 1))?;
        (p, 2)
    };
    let network = match protocol {
        PPP_IPV4 => Network::Ipv4,
        PPP_IPV6 => Network::Ipv6,
        p => Network::Ppp(p),
    };
    Ok(LinkLayer::bare(network, at + len))
}

fn raw(data: &[u8]) -> Result<LinkLayer, DecodeError> {
    match data.first().map(|b| b >> 4) {
        Some(4) => Ok(LinkLayer::bare(Network::Ipv4, 0)),
        Some(6) => Ok(LinkLayer::bare(Network::Ipv6, 0)),
        Some(v) => Err(DecodeError::new(
            0,
            format!("raw IP frame with IP version {v} (4 or 6 expected)"),
        )),
        None => Err(DecodeError::truncated(0, "raw IP frame", 1, 0)),
    }
}

/// BSD loopback: a 4-byte address family in the capturing host's byte order (LINKTYPE_NULL,
/// `big_endian` unknown) or in network order (LINKTYPE_LOOP).
fn null(data: &[u8], big_endian: Option<bool>) -> Result<LinkLayer, DecodeError> {
    let b: [u8; 4] = data
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| DecodeError::truncated(0, "loopback header", 4, data.len()))?;
    let family = match big_endian {
        Some(true) => u32::from_be_bytes(b),
        Some(false) => u32::from_le_bytes(b),
        // Families are small numbers: whichever reading is small is the host's order.
        None => {
            let le = u32::from_le_bytes(b);
            if le <= 0xffff {
                le
            } else {
                u32::from_be_bytes(b)
            }
        }
    };
    let network = match family {
        2 => Network::Ipv4,
        // AF_INET6: 24 on NetBSD/OpenBSD, 28 on FreeBSD, 30 on macOS (and 10 on Linux).
        10 | 24 | 28 | 30 => Network::Ipv6,
        f => Network::Other(f.min(0xffff) as u16),
    };
    Ok(LinkLayer::bare(network, 4))
}

/// The name tshark gives a link payload it does not decode further.
pub fn network_name(n: Network) -> &'static str {
    match n {
        Network::Ipv4 => "IPv4",
        Network::Ipv6 => "IPv6",
        Network::Arp => "ARP",
        Network::Llc => "LLC",
        Network::Other(0x888e) => "EAPOL",
        Network::Other(0x88cc) => "LLDP",
        Network::Other(0x8035) => "RARP",
        Network::Other(0x8809) => "Slow protocols",
        Network::Other(_) => "Ethernet",
        Network::Ppp(_) => "PPP",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eth(tags: &[[u8; 4]], ethertype: u16) -> Vec<u8> {
        let mut v = vec![1, 2, 3, 4, 5, 6, 0xa, 0xb, 0xc, 0xd, 0xe, 0xf];
        for t in tags {
            v.extend_from_slice(t);
        }
        v.extend_from_slice(&ethertype.to_be_bytes());
        v.extend_from_slice(&[0x45; 20]);
        v
    }

    #[test]
    fn ethernet_with_stacked_tags() {
        let f = eth(&[[0x88, 0xa8, 0, 10], [0x81, 0x00, 0, 20]], 0x0800);
        let l = parse(linktype::ETHERNET, &f).unwrap();
        assert_eq!(l.network, Network::Ipv4);
        assert_eq!(l.offset, 22);
        assert_eq!(l.vlan_tags, 2);
        assert_eq!(l.dst_mac, Some([1, 2, 3, 4, 5, 6]));
        let f = eth(&[[0x91, 0x00, 0, 10]], 0x86dd);
        assert_eq!(parse(1, &f).unwrap().network, Network::Ipv6);
        // An 802.3 frame: the type field is a length.
        assert_eq!(parse(1, &eth(&[], 46)).unwrap().network, Network::Llc);
        assert!(parse(1, &eth(&[], 0x05ff)).is_err());
    }

    #[test]
    fn truncated_tags_keep_their_offset() {
        let f = eth(&[[0x81, 0x00, 0, 10]], 0x0800);
        let e = parse(1, &f[..16]).unwrap_err();
        assert_eq!(e.offset, 14);
        assert_eq!(parse(1, &f[..13]).unwrap_err().offset, 0);
        let mut deep = Vec::new();
        for _ in 0..9 {
            deep.push([0x81, 0x00, 0, 1]);
        }
        assert!(parse(1, &eth(&deep, 0x0800)).is_err());
    }

    #[test]
    fn cooked_raw_and_loopback() {
        let mut sll = vec![0, 0, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0, 0x86, 0xdd];
        sll.extend_from_slice(&[0x60; 40]);
        let l = parse(linktype::LINUX_SLL, &sll).unwrap();
        assert_eq!((l.network, l.offset), (Network::Ipv6, 16));
        assert_eq!(l.src_mac, Some([1, 2, 3, 4, 5, 6]));
        let mut sll2 = vec![
            0x08, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0,
        ];
        sll2.extend_from_slice(&[0x45; 20]);
        let l = parse(linktype::LINUX_SLL2, &sll2).unwrap();
        assert_eq!((l.network, l.offset), (Network::Ipv4, 20));
        assert_eq!(
            parse(linktype::RAW, &[0x60]).unwrap().network,
            Network::Ipv6
        );
        assert!(parse(linktype::RAW, &[0x50]).is_err());
        assert_eq!(
            parse(linktype::NULL, &[2, 0, 0, 0]).unwrap().network,
            Network::Ipv4
        );
        assert_eq!(
            parse(linktype::NULL, &[0, 0, 0, 30]).unwrap().network,
            Network::Ipv6
        );
        assert_eq!(
            parse(linktype::LOOP, &[0, 0, 0, 24]).unwrap().network,
            Network::Ipv6
        );
        assert_eq!(parse(linktype::NULL, &[0, 0]).unwrap_err().offset, 0);
        assert!(parse(147, &[0; 40]).is_err());
    }
}
