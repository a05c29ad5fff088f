//! What IPv4 and IPv6 share: protocol numbers, where a fragment belongs, the decoded packet
//! ([`IpPacket`]) that [`super::ipv4::parse`] and [`super::ipv6::parse`] give, the internet
//! checksum and the pseudo-header sum.

use std::net::IpAddr;

pub const PROTO_ICMP: u8 = 1;
pub const PROTO_IGMP: u8 = 2;
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;
pub const PROTO_ESP: u8 = 50;
pub const PROTO_ICMPV6: u8 = 58;
pub const PROTO_NONE: u8 = 59;
pub const PROTO_SCTP: u8 = 132;

/// Where a fragment belongs in its datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fragment {
    /// IPv4: the 16-bit identification; IPv6: the 32-bit one.
    pub id: u32,
    /// Byte offset of this fragment's payload in the datagram's payload.
    pub offset: usize,
    pub more: bool,
}

/// A decoded IP header and the payload it carries in this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpPacket<'a> {
    pub version: u8,
    pub src: IpAddr,
    pub dst: IpAddr,
    /// The upper-layer protocol (after IPv6 extension headers). For an IPv6 fragment this is
    /// the fragment header's next header, which applies to the reassembled payload.
    pub protocol: u8,
    pub payload: &'a [u8],
    /// Offset of `payload` relative to the start of the IP header.
    pub payload_offset: usize,
    pub fragment: Option<Fragment>,
    /// The capture holds fewer bytes than the header announces (`payload` is cut short).
    pub cut: bool,
}

/// The name tshark gives an IP protocol it shows as the deepest layer.
pub fn protocol_name(p: u8, version: u8) -> &'static str {
    match p {
        PROTO_ICMP => "ICMP",
        PROTO_IGMP => "IGMP",
        PROTO_TCP => "TCP",
        PROTO_UDP => "UDP",
        PROTO_SCTP => "SCTP",
        PROTO_ICMPV6 => "ICMPv6",
        PROTO_ESP => "ESP",
        4 => "IPv4",
        41 => "IPv6",
        47 => "GRE",
        89 => "OSPF",
        103 => "PIM",
        112 => "VRRP",
        _ if version == 6 => "IPv6",
        _ => "IPv4",
    }
}

/// The one's-complement sum of `data` folded into 16 bits, starting from `initial` (a
/// pseudo-header's sum), complemented: what IPv4, UDP and TCP carry.
pub fn internet_checksum(initial: u32, data: &[u8]) -> u16 {
    let mut sum = u64::from(initial);
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u64::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        sum += u64::from(*last) << 8;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The uncomplemented sum of a pseudo-header (addresses, protocol, length).
pub fn pseudo_header_sum(src: &[u8], dst: &[u8], protocol: u8, len: usize) -> u32 {
    let mut sum: u32 = 0;
    for c in src.chunks_exact(2).chain(dst.chunks_exact(2)) {
        sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    sum += u32::from(protocol);
    sum += (len as u32) >> 16;
    sum += (len as u32) & 0xffff;
    sum
}
