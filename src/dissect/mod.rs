//! From frames to application payloads: the headers of [`crate::wire`] walked in order, IP
//! fragment reassembly ([`ipfrag`]), TCP streams ([`tcp`]), SCTP user-message reassembly
//! ([`sctp_reassembly`]), then dispatch to the application protocol by port, PPID or the user's
//! decode-as rules. Tunnels (IP in IP, GRE, VXLAN, Geneve, MPLS; [`crate::wire::tunnel`]) are
//! decapsulated to [`crate::wire::tunnel::MAX_ENCAPSULATIONS`] deep, and what they carry is
//! decoded as a frame's own packet would be.
//!
//! Every buffer that input can grow has a bound (see [`Limits`]); what is evicted is counted.
//!
//! The entry point is [`Dissector`]: one per capture, fed every frame in order. It hands each
//! application payload to a callback (borrowing the frame or a reassembly buffer only for the
//! duration of the call) and returns a [`FrameSummary`] for the one-line-per-frame listing.

pub mod dispatch;
mod dissector;
pub mod ipfrag;
pub mod layers;
pub(crate) mod lru;
pub mod sctp_reassembly;
pub mod streams;
mod summary;
pub mod tcp;

pub use dissector::Dissector;
pub use summary::{cap_info, Address, Counters, FrameSummary, OuterLayer, OuterLayers, MAX_INFO};

use std::net::IpAddr;

use crate::error::DecodeError;

/// The transport an application payload arrived on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transport {
    Udp,
    Tcp,
    Sctp,
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::Udp => "udp",
            Transport::Tcp => "tcp",
            Transport::Sctp => "sctp",
        }
    }
}

/// Identifies one direction-independent conversation (an SCTP association, a TCP connection, a
/// UDP port pair): the two endpoints in a canonical order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ConversationKey {
    pub transport: u8,
    pub a: (IpAddr, u16),
    pub b: (IpAddr, u16),
}

impl std::hash::Hash for ConversationKey {
    /// Three words instead of the fields one by one (the derived hash writes each address's
    /// variant and bytes apart): the key is hashed several times per packet. Equal keys write
    /// the same words.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // An IPv4 address hashes like the IPv4-compatible IPv6 one (`::a.b.c.d`, deprecated):
        // a collision at worst, never a wrong match (equality compares the fields).
        fn word(a: IpAddr) -> u128 {
            match a {
                IpAddr::V4(v4) => u128::from(u32::from(v4)),
                IpAddr::V6(v6) => u128::from(v6),
            }
        }
        state.write_u128(word(self.a.0));
        state.write_u128(word(self.b.0));
        state.write_u64(
            u64::from(self.transport) << 32 | u64::from(self.a.1) << 16 | u64::from(self.b.1),
        );
    }
}

impl ConversationKey {
    pub fn new(transport: Transport, src: IpAddr, sport: u16, dst: IpAddr, dport: u16) -> Self {
        // The order of `(IpAddr, u16)` (IPv4 before IPv6, then the address bytes, then the
        // port), compared as numbers instead of byte by byte.
        fn rank(a: IpAddr, port: u16) -> (bool, u128, u16) {
            match a {
                IpAddr::V4(v4) => (false, u128::from(u32::from(v4)), port),
                IpAddr::V6(v6) => (true, u128::from(v6), port),
            }
        }
        let (a, b) = if rank(src, sport) <= rank(dst, dport) {
            ((src, sport), (dst, dport))
        } else {
            ((dst, dport), (src, sport))
        };
        ConversationKey {
            transport: transport as u8,
            a,
            b,
        }
    }
}

/// One application-layer payload: a UDP datagram's payload, a reassembled SCTP user message, or a
/// chunk of a TCP stream in order.
#[derive(Clone, Debug)]
pub struct Payload<'a> {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub transport: Transport,
    pub src_port: u16,
    pub dst_port: u16,
    /// SCTP payload protocol identifier.
    pub ppid: Option<u32>,
    /// SCTP stream identifier.
    pub stream: Option<u16>,
    pub data: &'a [u8],
    /// Where `data` starts in the frame; `None` when it was reassembled from several frames.
    pub frame_offset: Option<usize>,
    /// Frames that contributed to a reassembled payload (1-based numbers), empty otherwise.
    pub reassembled_from: Vec<u64>,
    /// Lower-layer problems that concern this payload (bad SCTP checksum, ...), offsets in the
    /// frame.
    pub errors: Vec<DecodeError>,
    /// SCTP: a DATA / I-DATA chunk whose TSN this association had already seen (a
    /// retransmission). Wireshark still dissects it; analysers must skip it.
    pub duplicate: bool,
    /// A UDP datagram quoted in an ICMP or ICMPv6 error (as far as the error holds it): tshark
    /// decodes what it carries, and so does `read`; nothing else sees it (it was not sent
    /// again, only bounced back).
    pub quoted: bool,
    /// SCTP: the TSN of the (first) chunk of the message.
    pub tsn: Option<u32>,
    /// SCTP: the stream sequence number (DATA) or message identifier (I-DATA).
    pub ssn: Option<u32>,
    /// SCTP: the U bit (unordered delivery).
    pub unordered: bool,
    /// TCP: the offset of `data[0]` in its direction's byte stream (0 is the first byte after
    /// the SYN, or the first byte seen when the SYN was not). A payload at offset 0 starts a new
    /// stream: an application framer resets there.
    pub stream_offset: Option<u64>,
    /// TCP: bytes of this direction are missing before `data` (lost, not captured, or the
    /// stream was picked up mid-way): an application framer must resynchronise.
    pub gap_before: bool,
}

impl<'a> Payload<'a> {
    /// A payload with every optional field empty.
    pub fn new(
        transport: Transport,
        src: IpAddr,
        src_port: u16,
        dst: IpAddr,
        dst_port: u16,
        data: &'a [u8],
    ) -> Self {
        Payload {
            src,
            dst,
            transport,
            src_port,
            dst_port,
            ppid: None,
            stream: None,
            data,
            frame_offset: None,
            reassembled_from: Vec::new(),
            errors: Vec::new(),
            duplicate: false,
            quoted: false,
            tsn: None,
            ssn: None,
            unordered: false,
            stream_offset: None,
            gap_before: false,
        }
    }
}

impl Payload<'_> {
    /// A copy without its bytes (`data` empty), to outlive the frame: the bytes go apart and
    /// are set back in the copy where they are.
    pub fn detached(&self) -> Payload<'static> {
        Payload {
            src: self.src,
            dst: self.dst,
            transport: self.transport,
            src_port: self.src_port,
            dst_port: self.dst_port,
            ppid: self.ppid,
            stream: self.stream,
            data: &[],
            frame_offset: self.frame_offset,
            // Nearly always empty: not even a call to copy nothing.
            reassembled_from: if self.reassembled_from.is_empty() {
                Vec::new()
            } else {
                self.reassembled_from.clone()
            },
            errors: if self.errors.is_empty() {
                Vec::new()
            } else {
                self.errors.clone()
            },
            duplicate: self.duplicate,
            quoted: self.quoted,
            tsn: self.tsn,
            ssn: self.ssn,
            unordered: self.unordered,
            stream_offset: self.stream_offset,
            gap_before: self.gap_before,
        }
    }

    pub fn conversation(&self) -> ConversationKey {
        ConversationKey::new(
            self.transport,
            self.src,
            self.src_port,
            self.dst,
            self.dst_port,
        )
    }
}

/// Bounds on the state that input can grow.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes held for IP fragment reassembly, all datagrams together.
    pub ip_fragment_bytes: usize,
    /// Incomplete IP datagrams held at once.
    pub ip_fragment_datagrams: usize,
    /// Bytes held for SCTP user-message reassembly, all streams together.
    pub sctp_reassembly_bytes: usize,
    /// Largest SCTP user message reassembled.
    pub sctp_message_bytes: usize,
    /// Bytes held for TCP stream reassembly, all connections together.
    pub tcp_reassembly_bytes: usize,
    /// Conversations (associations, connections) tracked at once, per transport.
    pub conversations: usize,
    /// Seconds of capture time an incomplete IP datagram is kept.
    pub ip_fragment_timeout_secs: u32,
    /// Seconds of capture time TCP data held after a hole waits for the missing bytes while the
    /// other direction is silent (a one-way capture: no acknowledgment will tell that the bytes
    /// were lost).
    pub tcp_hole_timeout_secs: u32,
    /// Bytes of incomplete application messages held by the TCP stream framers, all connections
    /// together (each may hold one message of up to 64 KiB).
    pub framer_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            ip_fragment_bytes: 4 << 20,
            ip_fragment_datagrams: 1024,
            sctp_reassembly_bytes: 16 << 20,
            sctp_message_bytes: 1 << 20,
            tcp_reassembly_bytes: 16 << 20,
            conversations: 65536,
            ip_fragment_timeout_secs: 30,
            tcp_hole_timeout_secs: 3,
            framer_bytes: 16 << 20,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key puts the lesser endpoint first, in the order of `(IpAddr, u16)` itself, and is the
    /// same from either side.
    #[test]
    fn a_conversation_key_orders_its_endpoints_as_ip_addr_and_port_do() {
        let addrs: Vec<IpAddr> = [
            "0.0.0.0",
            "10.0.0.1",
            "10.0.0.2",
            "10.1.0.0",
            "192.0.2.255",
            "255.255.255.255",
            "::",
            "::1",
            "::10.0.0.1",
            "::ffff:10.0.0.1",
            "2001:db8::1",
            "2001:db8::1:0",
            "fe80::1",
            "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        ]
        .iter()
        .map(|a| a.parse().expect("address"))
        .collect();
        let ports = [0u16, 1, 255, 256, 647, 65535];
        let mut checked = 0;
        for &x in &addrs {
            for &px in &ports {
                for &y in &addrs {
                    for &py in &ports {
                        let k = ConversationKey::new(Transport::Tcp, x, px, y, py);
                        let lesser = (x, px).min((y, py));
                        let greater = (x, px).max((y, py));
                        assert_eq!((k.a, k.b), (lesser, greater), "{x}:{px} {y}:{py}");
                        assert_eq!(k, ConversationKey::new(Transport::Tcp, y, py, x, px));
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, (addrs.len() * ports.len()).pow(2));
    }
}
