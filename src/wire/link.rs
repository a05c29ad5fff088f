//! The link layer: Ethernet II (with 802.1Q / 802.1ad / QinQ tags, and Cisco FabricPath around
//! a frame; 802.3 length frames are recognised and left alone), Linux cooked captures (SLL, SLL2),
//! PPP, raw IP and BSD loopback. Every link type whose header ends in an EtherType (Ethernet, the
//! cooked captures) goes through the same VLAN tags after it.

use super::ethernet::{ethernet, ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use super::{loopback, ppp, sll};
use crate::base::linktype;
use crate::error::DecodeError;

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
    pub(crate) fn bare(network: Network, offset: usize) -> Self {
        LinkLayer {
            src_mac: None,
            dst_mac: None,
            network,
            offset,
            vlan_tags: 0,
        }
    }
}

pub(crate) fn by_ethertype(t: u16) -> Network {
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
        linktype::LINUX_SLL => sll::sll(data),
        linktype::LINUX_SLL2 => sll::sll2(data),
        // LINKTYPE_RAW, and DLT_RAW's numbers on some BSDs (12, 14).
        linktype::RAW | 12 | 14 => raw(data),
        linktype::IPV4 => Ok(LinkLayer::bare(Network::Ipv4, 0)),
        linktype::IPV6 => Ok(LinkLayer::bare(Network::Ipv6, 0)),
        linktype::NULL => loopback::parse(data, None),
        linktype::LOOP => loopback::parse(data, Some(true)),
        linktype::PPP | linktype::PPP_HDLC => ppp::parse(data),
        other => Err(DecodeError::new(
            0,
            format!("link type {other} is not supported (Ethernet, Linux cooked, PPP, raw IP and loopback are)"),
        )),
    }
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
/// The big-endian u16 at `at`, if whole.
pub(crate) fn be16(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*data.get(at)?, *data.get(at + 1)?]))
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
