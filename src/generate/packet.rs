//! A whole packet from link layer to payload, built in one pass into a caller's buffer with every
//! length and checksum filled in.

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::wire::ethernet::{self, ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use crate::wire::ip::{pseudo_header_sum, PROTO_SCTP, PROTO_TCP, PROTO_UDP};
use crate::wire::ipv4::{self, Ipv4Header};
use crate::wire::ipv6::{self, Ipv6Header};
use crate::wire::sctp::build::{self as sctp, Chunk};
use crate::wire::tcp::TcpHeader;
use crate::wire::vlan::VlanTag;
use crate::wire::{loopback, sll, udp};

/// The UDP port of SCTP over UDP (RFC 6951).
pub const SCTP_UDP_PORT: u16 = 9899;

/// The link layer of a built packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Link {
    Ethernet {
        src: [u8; 6],
        dst: [u8; 6],
        vlans: Vec<VlanTag>,
    },
    /// Linux cooked capture v1: packet type, sender MAC.
    Sll { packet_type: u16, src: [u8; 6] },
    /// Linux cooked capture v2.
    Sll2 { ifindex: u32, src: [u8; 6] },
    /// BSD loopback; `big_endian` picks the byte order of the address family (LINKTYPE_NULL
    /// uses the capturing host's, LINKTYPE_LOOP network order).
    Null { big_endian: bool },
    /// No link header (LINKTYPE_RAW, IPV4, IPV6).
    Raw,
}

impl Link {
    /// Ethernet between two made-up MAC addresses.
    pub fn ethernet() -> Self {
        Link::Ethernet {
            src: [0x02, 0, 0, 0, 0, 0x01],
            dst: [0x02, 0, 0, 0, 0, 0x02],
            vlans: Vec::new(),
        }
    }

    /// Appends the link header for a network packet of `ethertype`.
    pub fn emit(&self, out: &mut Vec<u8>, ethertype: u16) {
        match self {
            Link::Ethernet { src, dst, vlans } => ethernet::emit(out, *dst, *src, vlans, ethertype),
            Link::Sll { packet_type, src } => sll::emit(out, *packet_type, *src, ethertype),
            Link::Sll2 { ifindex, src } => sll::emit_v2(out, ethertype, *ifindex, 0, *src),
            Link::Null { big_endian } => {
                // AF_INET 2; AF_INET6 differs by OS: 24 (NetBSD/OpenBSD), 28 (FreeBSD), 30 (macOS).
                let af = if ethertype == ETHERTYPE_IPV6 { 30 } else { 2 };
                loopback::emit(out, af, *big_endian)
            }
            Link::Raw => {}
        }
    }
}

/// The network layer of a built packet (its protocol field is set from the transport).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ip {
    V4(Ipv4Header),
    V6(Ipv6Header),
}

impl Ip {
    pub fn v4(src: Ipv4Addr, dst: Ipv4Addr) -> Self {
        Ip::V4(Ipv4Header::new(src, dst, 0))
    }

    pub fn v6(src: Ipv6Addr, dst: Ipv6Addr) -> Self {
        Ip::V6(Ipv6Header::new(src, dst, 0))
    }

    pub fn ethertype(&self) -> u16 {
        match self {
            Ip::V4(_) => ETHERTYPE_IPV4,
            Ip::V6(_) => ETHERTYPE_IPV6,
        }
    }

    fn pseudo(&self, protocol: u8, len: usize) -> u32 {
        match self {
            Ip::V4(h) => pseudo_header_sum(&h.src.octets(), &h.dst.octets(), protocol, len),
            Ip::V6(h) => pseudo_header_sum(&h.src.octets(), &h.dst.octets(), protocol, len),
        }
    }
}

/// The transport layer of a built packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport<'a> {
    Udp {
        sport: u16,
        dport: u16,
    },
    Tcp(TcpHeader),
    /// SCTP: the packet's payload is ignored, the chunks carry the data.
    Sctp {
        sport: u16,
        dport: u16,
        vtag: u32,
        chunks: Vec<Chunk<'a>>,
    },
    /// SCTP in UDP (RFC 6951) on UDP port 9899 both ways.
    SctpOverUdp {
        sport: u16,
        dport: u16,
        vtag: u32,
        chunks: Vec<Chunk<'a>>,
    },
    /// The payload goes right after the IP header, with this protocol number.
    Raw {
        protocol: u8,
    },
}

impl Transport<'_> {
    fn protocol(&self) -> u8 {
        match self {
            Transport::Udp { .. } | Transport::SctpOverUdp { .. } => PROTO_UDP,
            Transport::Tcp(_) => PROTO_TCP,
            Transport::Sctp { .. } => PROTO_SCTP,
            Transport::Raw { protocol } => *protocol,
        }
    }
}

/// A packet to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet<'a> {
    pub link: Link,
    pub ip: Ip,
    pub transport: Transport<'a>,
    pub payload: &'a [u8],
}

impl<'a> Packet<'a> {
    /// UDP over IPv4 over Ethernet.
    pub fn udp(ip: Ip, sport: u16, dport: u16, payload: &'a [u8]) -> Self {
        Packet {
            link: Link::ethernet(),
            ip,
            transport: Transport::Udp { sport, dport },
            payload,
        }
    }

    /// SCTP over Ethernet.
    pub fn sctp(ip: Ip, sport: u16, dport: u16, vtag: u32, chunks: Vec<Chunk<'a>>) -> Self {
        Packet {
            link: Link::ethernet(),
            ip,
            transport: Transport::Sctp {
                sport,
                dport,
                vtag,
                chunks,
            },
            payload: &[],
        }
    }

    /// TCP over Ethernet.
    pub fn tcp(ip: Ip, header: TcpHeader, payload: &'a [u8]) -> Self {
        Packet {
            link: Link::ethernet(),
            ip,
            transport: Transport::Tcp(header),
            payload,
        }
    }

    /// Appends the whole frame.
    pub fn build(&self, out: &mut Vec<u8>) {
        self.link.emit(out, self.ip.ethertype());
        self.build_ip(out);
    }

    /// Appends the frame into a cleared `out` and returns it.
    pub fn frame<'b>(&self, out: &'b mut Vec<u8>) -> &'b [u8] {
        out.clear();
        self.build(out);
        out
    }

    /// Appends the IP packet (header, transport, payload), without link header.
    pub fn build_ip(&self, out: &mut Vec<u8>) {
        let protocol = self.transport.protocol();
        let ip_start = out.len();
        match &self.ip {
            Ip::V4(h) => {
                let mut h = h.clone();
                h.protocol = protocol;
                h.emit(out, 0);
            }
            Ip::V6(h) => {
                let mut h = h.clone();
                h.next_header = protocol;
                h.emit(out, 0);
            }
        }
        let seg = out.len();
        match &self.transport {
            Transport::Udp { sport, dport } => {
                udp::emit_header(out, *sport, *dport);
                out.extend_from_slice(self.payload);
                self.finish_udp(out, seg);
            }
            Transport::SctpOverUdp {
                sport,
                dport,
                vtag,
                chunks,
            } => {
                udp::emit_header(out, SCTP_UDP_PORT, SCTP_UDP_PORT);
                sctp::packet(out, *sport, *dport, *vtag, chunks);
                self.finish_udp(out, seg);
            }
            Transport::Tcp(h) => {
                let len = h.header_len() + self.payload.len();
                h.emit(out, self.payload, self.ip.pseudo(PROTO_TCP, len));
            }
            Transport::Sctp {
                sport,
                dport,
                vtag,
                chunks,
            } => sctp::packet(out, *sport, *dport, *vtag, chunks),
            Transport::Raw { .. } => out.extend_from_slice(self.payload),
        }
        // Now that the payload length is known, fill in the IP length (and IPv4 checksum).
        match &self.ip {
            Ip::V4(_) => ipv4::finish(out, ip_start, seg - ip_start),
            Ip::V6(_) => ipv6::finish(out, ip_start),
        }
    }

    fn finish_udp(&self, out: &mut [u8], seg: usize) {
        udp::finish(out, seg, |len| self.ip.pseudo(PROTO_UDP, len));
    }
}

/// Wraps an already built IP packet (a fragment, say) in `link`.
pub fn wrap(link: &Link, ethertype: u16, ip_packet: &[u8], out: &mut Vec<u8>) {
    link.emit(out, ethertype);
    out.extend_from_slice(ip_packet);
}
