//! What IPv4 and IPv6 share: protocol numbers, where a fragment belongs, the decoded packet
//! ([`IpPacket`]) that [`super::ipv4::parse`] and [`super::ipv6::parse`] give, the internet
//! checksum and the pseudo-header sum.

use std::borrow::Cow;
use std::net::IpAddr;

use crate::field::Field;

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

/// Wireshark's name of an IP protocol number (IPv4's Protocol, IPv6's Next Header), for `-V`.
pub fn ip_proto_name(p: u8) -> Option<&'static str> {
    Some(match p {
        0 => "IPv6 Hop-by-Hop Option",
        1 => "ICMP",
        2 => "IGMP",
        4 => "IPIP",
        6 => "TCP",
        17 => "UDP",
        41 => "IPv6",
        43 => "Routing Header for IPv6",
        44 => "Fragment Header for IPv6",
        47 => "Generic Routing Encapsulation",
        50 => "Encap Security Payload",
        51 => "Authentication Header",
        58 => "ICMPv6",
        59 => "IPv6 No Next Header",
        60 => "Destination Options for IPv6",
        89 => "OSPF IGP",
        103 => "PIM",
        112 => "Virtual Router Redundancy Protocol",
        132 => "SCTP",
        _ => return None,
    })
}

/// DSCP and ECN as the summary of a DS field / traffic class shows them: `DSCP: CS0, ECN: Not-ECT`.
pub(crate) fn ds_summary(tos: u8) -> String {
    format!(
        "DSCP: {}, ECN: {}",
        dscp_name(tos >> 2).1,
        ["Not-ECT", "ECT(1)", "ECT(0)", "CE"][usize::from(tos & 3)]
    )
}

/// A DSCP's long and short names.
fn dscp_name(d: u8) -> (Cow<'static, str>, &'static str) {
    let cs = |n: u8| {
        (
            Cow::Owned(format!("Class Selector {n}")),
            ["CS0", "CS1", "CS2", "CS3", "CS4", "CS5", "CS6", "CS7"][usize::from(n)],
        )
    };
    match d {
        0 => (Cow::Borrowed("Default"), "CS0"),
        8 | 16 | 24 | 32 | 40 | 48 | 56 => cs(d / 8),
        10 => (Cow::Borrowed("Assured Forwarding 11"), "AF11"),
        12 => (Cow::Borrowed("Assured Forwarding 12"), "AF12"),
        14 => (Cow::Borrowed("Assured Forwarding 13"), "AF13"),
        18 => (Cow::Borrowed("Assured Forwarding 21"), "AF21"),
        20 => (Cow::Borrowed("Assured Forwarding 22"), "AF22"),
        22 => (Cow::Borrowed("Assured Forwarding 23"), "AF23"),
        26 => (Cow::Borrowed("Assured Forwarding 31"), "AF31"),
        28 => (Cow::Borrowed("Assured Forwarding 32"), "AF32"),
        30 => (Cow::Borrowed("Assured Forwarding 33"), "AF33"),
        34 => (Cow::Borrowed("Assured Forwarding 41"), "AF41"),
        36 => (Cow::Borrowed("Assured Forwarding 42"), "AF42"),
        38 => (Cow::Borrowed("Assured Forwarding 43"), "AF43"),
        44 => (Cow::Borrowed("Voice Admit"), "VA"),
        46 => (Cow::Borrowed("Expedited Forwarding"), "EF"),
        1 => (Cow::Borrowed("Lower Effort"), "LE"),
        _ => (Cow::Borrowed("Unknown"), "Unknown"),
    }
}

/// The DSCP and ECN fields of a DS field or traffic class `tos`, their masks over `width` bits.
pub(crate) fn ds_fields(
    labels: bool,
    tos: u8,
    at: usize,
    dscp_mask: u64,
    ecn_mask: u64,
    width: u8,
) -> Vec<Field> {
    let (dscp, ecn) = (tos >> 2, tos & 3);
    let (dscp_name_, ecn_name) = if labels {
        (
            Some(dscp_name(dscp).0),
            Some(
                [
                    "Not ECN-Capable Transport",
                    "ECN-Capable Transport codepoint '01'",
                    "ECN-Capable Transport codepoint '10'",
                    "Congestion Experienced",
                ][usize::from(ecn)],
            ),
        )
    } else {
        (None, None)
    };
    let (dscp_n, ecn_n) = if width == 8 {
        ("ip.dsfield.dscp", "ip.dsfield.ecn")
    } else {
        ("ipv6.tclass.dscp", "ipv6.tclass.ecn")
    };
    let len = usize::from(width / 8).min(4);
    let mut d = Field::uint(dscp_n, "Differentiated Services Codepoint", dscp, at, len)
        .bits(dscp_mask, width);
    if let Some(n) = dscp_name_ {
        d = d.note(n);
    }
    let mut e =
        Field::uint(ecn_n, "Explicit Congestion Notification", ecn, at, len).bits(ecn_mask, width);
    if let Some(n) = ecn_name {
        e = e.note(n);
    }
    if width == 8 {
        vec![d, e]
    } else if labels {
        // IPv6's are lines of `-V` alone (poolshark has no ipv6.tclass.* fields).
        d.name = "";
        e.name = "";
        vec![d, e]
    } else {
        Vec::new()
    }
}
