//! The lower layers of one frame as display trees, decoded from its bytes on demand: what
//! `read -V` prints above the messages and what display filters and `-T fields -e` look up for
//! the names of [`FIELDS`] (Ethernet, Cisco FabricPath, 802.1Q, Linux cooked, PPP, IPv4, IPv6,
//! UDP, TCP, SCTP and its chunks, ICMP, ICMPv6, ARP, GRE, VXLAN, Geneve, Teredo, MPLS), with
//! Wireshark 4.0's names, types and bases.
//!
//! [`decode`] is a pure function of the link type and the bytes: it keeps no state (no
//! reassembly: a fragment's payload is `data`, as tshark shows a fragment it has not reassembled;
//! the stateful fields, TCP and UDP stream indices and relative TCP sequence numbers, are added
//! afterwards by [`super::streams`] from the [`Layers::transports`] noted here), never panics, and walks
//! as the dissector does, through at most [`tunnel::MAX_ENCAPSULATIONS`] encapsulations, stopping
//! at the application payload. A header cut short gives the fields that are whole. The
//! dissector's hot path ([`super::Dissector`], [`super::FrameSummary`]) does none of this: `read`
//! calls it only when a filter, a column or `-V` names a field of it.
//!
//! Offsets are the frame's. The trees come outermost first, as tshark lists occurrences.

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::base::linktype;
use crate::field::{mac, Field, Value};
use crate::wire::ethernet::{ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use crate::wire::fabricpath::{ETHERTYPE_FABRICPATH, FABRICPATH_HEADER};
use crate::wire::ip::{PROTO_ICMP, PROTO_ICMPV6, PROTO_IGMP, PROTO_SCTP, PROTO_TCP, PROTO_UDP};
use crate::wire::ipv6::MAX_EXTENSIONS;
use crate::wire::mpls::{ETHERTYPE_MPLS, ETHERTYPE_MPLS_MULTICAST};
use crate::wire::ppp::{PPP_IPV4, PPP_IPV6};
use crate::wire::sctp::UDP_ENCAPSULATION_PORT;
use crate::wire::teredo::parse as parse_teredo;
use crate::wire::tunnel::{
    TunnelPorts, UdpTunnel, ETHERTYPE_TEB, MAX_ENCAPSULATIONS, PROTO_GRE, PROTO_IPIP, PROTO_IPV6,
};
use crate::wire::vlan::{MAX_VLAN_TAGS, VLAN_TPIDS};

/// Every field name the trees can hold (protocols included), for the display filters and the
/// columns to resolve names against before reading.
pub const FIELDS: &[&str] = &[
    "frame.protocols",
    // From the capture file, not the bytes (`read` adds them to the `frame` tree).
    "frame.section_number",
    // A pcapng custom block's Private Enterprise Number and whether it may be copied.
    "frame.cb_pen",
    "frame.cb_copy",
    "frame.interface_id",
    "frame.interface_name",
    "frame.interface_description",
    "frame.encap_type",
    "frame.comment",
    "frame.p2p_dir",
    "frame.packet_flags",
    "frame.packet_flags_direction",
    "frame.packet_flags_reception_type",
    "frame.packet_flags_fcs_length",
    "frame.packet_flags_reserved",
    "frame.packet_flags_crc_error",
    "frame.packet_flags_packet_too_error",
    "frame.packet_flags_packet_too_short_error",
    "frame.packet_flags_wrong_inter_frame_gap_error",
    "frame.packet_flags_unaligned_frame_error",
    "frame.packet_flags_start_frame_delimiter_error",
    "frame.packet_flags_preamble_error",
    "frame.packet_flags_symbol_error",
    "eth",
    "eth.dst",
    "eth.src",
    "eth.addr",
    "eth.type",
    // An IEEE 802.3 frame's length, where Ethernet II has its type.
    "eth.len",
    "cfp",
    "cfp.etype",
    "cfp.ftag",
    "cfp.ttl",
    "vlan",
    "vlan.priority",
    "vlan.dei",
    "vlan.id",
    "vlan.etype",
    "vlan.len",
    "ieee8021ad",
    "ieee8021ad.priority",
    "ieee8021ad.dei",
    "ieee8021ad.id",
    "sll",
    "sll.pkttype",
    "sll.hatype",
    "sll.halen",
    "sll.src.eth",
    "sll.unused",
    "sll.ifindex",
    "sll.etype",
    // Below 0x0600, one of Linux's pseudo-protocols (802.2 LLC, ...) where `sll.etype` would be.
    "sll.ltype",
    "ppp",
    "ppp.address",
    "ppp.control",
    "ppp.protocol",
    "ip.version",
    "ip.hdr_len",
    "ip.dsfield",
    "ip.dsfield.dscp",
    "ip.dsfield.ecn",
    "ip.len",
    "ip.id",
    "ip.flags",
    "ip.flags.rb",
    "ip.flags.df",
    "ip.flags.mf",
    "ip.frag_offset",
    "ip.ttl",
    "ip.proto",
    "ip.checksum",
    "ipv6.version",
    "ipv6.tclass",
    "ipv6.flow",
    "ipv6.plen",
    "ipv6.nxt",
    "ipv6.hlim",
    "udp.length",
    "udp.checksum",
    "udp.stream",
    "tcp.stream",
    "tcp.seq",
    "tcp.nxtseq",
    "tcp.ack",
    "tcp.seq_raw",
    "tcp.ack_raw",
    "tcp.hdr_len",
    "tcp.flags",
    "tcp.flags.urg",
    "tcp.flags.ack",
    "tcp.flags.push",
    "tcp.flags.reset",
    "tcp.flags.syn",
    "tcp.flags.fin",
    "tcp.window_size_value",
    "tcp.checksum",
    "tcp.urgent_pointer",
    "tcp.len",
    "sctp.verification_tag",
    "sctp.checksum",
    "sctp.chunk_type",
    "sctp.chunk_flags",
    "sctp.chunk_length",
    "sctp.data_e_bit",
    "sctp.data_b_bit",
    "sctp.data_u_bit",
    "sctp.data_i_bit",
    "sctp.data_tsn",
    "sctp.data_tsn_raw",
    "sctp.data_sid",
    "sctp.data_ssn",
    "sctp.data_payload_proto_id",
    "sctp.sack_cumulative_tsn_ack",
    "sctp.sack_cumulative_tsn_ack_raw",
    "sctp.sack_a_rwnd",
    "sctp.init_initiate_tag",
    "sctp.init_credit",
    "sctp.init_nr_out_streams",
    "sctp.init_nr_in_streams",
    "sctp.init_initial_tsn",
    "sctp.initack_initiate_tag",
    "sctp.initack_credit",
    "sctp.initack_nr_out_streams",
    "sctp.initack_nr_in_streams",
    "sctp.initack_initial_tsn",
    "sctp.parameter_type",
    "sctp.parameter_bit_1",
    "sctp.parameter_bit_2",
    "sctp.parameter_length",
    "sctp.parameter_ipv4_address",
    "sctp.parameter_ipv6_address",
    "sctp.parameter_state_cookie",
    "sctp.parameter_heartbeat_information",
    "sctp.parameter_cookie_preservative_incr",
    "sctp.parameter_supported_address_type",
    "sctp.adaptation_layer_indication",
    "sctp.parameter_value",
    "sctp.parameter_padding",
    "icmp",
    "icmp.type",
    "icmp.code",
    "icmp.checksum",
    "icmpv6",
    "icmpv6.type",
    "icmpv6.code",
    "icmpv6.checksum",
    "arp.hw.type",
    "arp.proto.type",
    "arp.hw.size",
    "arp.proto.size",
    "arp.opcode",
    "arp.src.hw_mac",
    "arp.src.proto_ipv4",
    "arp.dst.hw_mac",
    "arp.dst.proto_ipv4",
    "gre",
    "gre.flags_and_version",
    "gre.proto",
    "gre.checksum",
    "gre.key",
    "gre.sequence_number",
    "vxlan",
    "vxlan.flags",
    "vxlan.vni",
    "teredo",
    "geneve",
    "geneve.version",
    "geneve.proto_type",
    "geneve.vni",
    "mpls",
    "mpls.label",
    "mpls.exp",
    "mpls.bottom",
    "mpls.ttl",
];

/// The whole-number fields of the trees and the bits of their type, as Wireshark types them (not
/// always the bits on the wire: `mpls.ttl` is a 32-bit field of 8 bits, `vlan.id` a 16-bit field of
/// 12): a display filter's value beyond a type is refused before reading, as tshark refuses it.
/// The flags of one bit are booleans and `frame.encap_type` and `frame.p2p_dir` signed, which
/// their occurrences check instead. `tests/it/display_filter.rs` compares it with `tshark -G`.
const UINT_BITS: &[(&str, u8)] = &[
    ("frame.section_number", 32),
    ("frame.cb_pen", 32),
    ("frame.interface_id", 32),
    ("frame.packet_flags", 32),
    ("frame.packet_flags_direction", 32),
    ("frame.packet_flags_reception_type", 32),
    ("frame.packet_flags_fcs_length", 32),
    ("frame.packet_flags_reserved", 32),
    ("eth.type", 16),
    ("eth.len", 16),
    ("cfp.etype", 16),
    ("cfp.ftag", 16),
    ("cfp.ttl", 16),
    ("vlan.priority", 16),
    ("vlan.id", 16),
    ("vlan.etype", 16),
    ("vlan.len", 16),
    ("ieee8021ad.priority", 16),
    ("ieee8021ad.dei", 16),
    ("ieee8021ad.id", 16),
    ("sll.pkttype", 16),
    ("sll.hatype", 16),
    ("sll.halen", 16),
    ("sll.etype", 16),
    ("sll.ifindex", 32),
    ("sll.ltype", 16),
    ("ppp.address", 8),
    ("ppp.control", 8),
    ("ppp.protocol", 16),
    ("ip.version", 8),
    ("ip.hdr_len", 8),
    ("ip.dsfield", 8),
    ("ip.dsfield.dscp", 8),
    ("ip.dsfield.ecn", 8),
    ("ip.len", 16),
    ("ip.id", 16),
    ("ip.flags", 8),
    ("ip.frag_offset", 16),
    ("ip.ttl", 8),
    ("ip.proto", 8),
    ("ip.checksum", 16),
    ("ipv6.version", 8),
    ("ipv6.tclass", 32),
    ("ipv6.flow", 24),
    ("ipv6.plen", 16),
    ("ipv6.nxt", 8),
    ("ipv6.hlim", 8),
    ("udp.length", 16),
    ("udp.checksum", 16),
    ("udp.stream", 32),
    ("tcp.stream", 32),
    ("tcp.seq", 32),
    ("tcp.nxtseq", 32),
    ("tcp.ack", 32),
    ("tcp.seq_raw", 32),
    ("tcp.ack_raw", 32),
    ("tcp.hdr_len", 8),
    ("tcp.flags", 16),
    ("tcp.window_size_value", 16),
    ("tcp.checksum", 16),
    ("tcp.urgent_pointer", 16),
    ("tcp.len", 32),
    ("sctp.verification_tag", 32),
    ("sctp.checksum", 32),
    ("sctp.chunk_type", 8),
    ("sctp.chunk_flags", 8),
    ("sctp.chunk_length", 16),
    ("sctp.data_tsn", 32),
    ("sctp.data_tsn_raw", 32),
    ("sctp.data_sid", 16),
    ("sctp.data_ssn", 16),
    ("sctp.data_payload_proto_id", 32),
    ("sctp.sack_cumulative_tsn_ack", 32),
    ("sctp.sack_cumulative_tsn_ack_raw", 32),
    ("sctp.sack_a_rwnd", 32),
    ("sctp.init_initiate_tag", 32),
    ("sctp.init_credit", 32),
    ("sctp.init_nr_out_streams", 16),
    ("sctp.init_nr_in_streams", 16),
    ("sctp.init_initial_tsn", 32),
    ("sctp.initack_initiate_tag", 32),
    ("sctp.initack_credit", 32),
    ("sctp.initack_nr_out_streams", 16),
    ("sctp.initack_nr_in_streams", 16),
    ("sctp.initack_initial_tsn", 32),
    ("sctp.parameter_type", 16),
    ("sctp.parameter_length", 16),
    ("sctp.parameter_cookie_preservative_incr", 32),
    ("sctp.parameter_supported_address_type", 16),
    ("sctp.adaptation_layer_indication", 32),
    ("icmp.type", 8),
    ("icmp.code", 8),
    ("icmp.checksum", 16),
    ("icmpv6.type", 8),
    ("icmpv6.code", 8),
    ("icmpv6.checksum", 16),
    ("arp.hw.type", 16),
    ("arp.proto.type", 16),
    ("arp.hw.size", 8),
    ("arp.proto.size", 8),
    ("arp.opcode", 16),
    ("gre.flags_and_version", 16),
    ("gre.proto", 16),
    ("gre.checksum", 16),
    ("gre.key", 32),
    ("gre.sequence_number", 32),
    ("vxlan.flags", 16),
    ("vxlan.vni", 24),
    ("geneve.version", 8),
    ("geneve.proto_type", 16),
    ("geneve.vni", 24),
    ("mpls.label", 32),
    ("mpls.exp", 32),
    ("mpls.bottom", 32),
    ("mpls.ttl", 32),
];

/// The largest value a display filter may compare a whole-number field of the trees with, where
/// its type says so before reading ([`UINT_BITS`]).
pub fn largest(name: &str) -> Option<u64> {
    UINT_BITS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, bits)| u64::MAX >> (64 - u32::from(bits)))
}

/// The name of an INIT (`prefix` `sctp.init_`) or INIT_ACK (`sctp.initack_`) field.
/// The names of INIT's and INIT_ACK's fixed fields: initiate tag, credit, outbound and inbound
/// stream counts, initial TSN (all among [`FIELDS`]).
const INIT_FIELDS: [&str; 5] = [
    "sctp.init_initiate_tag",
    "sctp.init_credit",
    "sctp.init_nr_out_streams",
    "sctp.init_nr_in_streams",
    "sctp.init_initial_tsn",
];
const INITACK_FIELDS: [&str; 5] = [
    "sctp.initack_initiate_tag",
    "sctp.initack_credit",
    "sctp.initack_nr_out_streams",
    "sctp.initack_nr_in_streams",
    "sctp.initack_initial_tsn",
];

/// Whether `name` is one of [`FIELDS`].
pub fn is_field(name: &str) -> bool {
    FIELDS.contains(&name)
}

/// MPLS labels beyond this many are taken for garbage (VLAN tags and IPv6 extension headers are
/// bounded by the dissector's own limits, [`MAX_VLAN_TAGS`] and [`MAX_EXTENSIONS`]).
const MAX_LABELS: usize = 16;

/// A frame's lower layers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layers {
    /// One tree per protocol, outermost first.
    pub trees: Vec<Field>,
    /// The protocols of `frame.protocols`, as tshark names them, up to the application's.
    pub protocols: Vec<&'static str>,
    /// The TCP, UDP and SCTP headers among the trees, outermost first: what [`super::streams`]
    /// needs to give them their conversation's fields.
    pub transports: Vec<Transport>,
}

/// A TCP, UDP or SCTP header of the frame and the addresses of the IP packet around it.
#[derive(Clone, Debug, PartialEq)]
pub struct Transport {
    /// Its tree, an index into [`Layers::trees`].
    pub tree: usize,
    pub src: IpAddr,
    pub dst: IpAddr,
    pub sport: u16,
    pub dport: u16,
    /// Within the packet an ICMP error quotes: tshark gives it a stream but leaves its numbers
    /// as they are on the wire and learns nothing from them.
    pub quoted: bool,
    pub kind: TransportKind,
}

/// Which transport a [`Transport`] is, with what its stateful fields are made of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TransportKind {
    Udp,
    Tcp(TcpHeader),
    /// SCTP, with the packet's verification tag (tshark tells an association's directions apart
    /// by their ports and tag).
    Sctp {
        vtag: u32,
    },
}

/// What the relative sequence numbers of a TCP segment are made of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpHeader {
    pub seq: u32,
    pub ack: u32,
    /// The 12 bits of flags (SYN 0x002, ACK 0x010, FIN 0x001, ...).
    pub flags: u16,
    /// The header length in bytes (the data offset times four), which may be bogus (below 20).
    pub hdr_len: usize,
    /// The payload's length, `None` when it is not known: when the packet is shorter than its
    /// header says, or is an IP fragment (tshark then shows the numbers on the wire).
    pub seg_len: Option<u32>,
}

/// Decodes the lower layers of a frame captured with LINKTYPE_ `lt`, with every label `read -V`
/// prints; VXLAN and Geneve on the UDP destination ports of `tunnels`.
pub fn decode(lt: u32, data: &[u8], tunnels: &TunnelPorts) -> Layers {
    walk(lt, data, true, tunnels)
}

/// The trees of [`decode`] without the labels that would have to be formatted from the values
/// (the header lines such as "Internet Protocol Version 4, Src: ..., Dst: ...", and the SCTP
/// chunks' titles, are left empty): for display filters and `-T fields` columns, which read the
/// fields' names, values, notes, offsets and lengths but not these labels. Formatting them was
/// most of what decoding cost. A column of a protocol itself (`-e eth`) writes its header line,
/// so it needs [`decode`].
pub fn decode_values(lt: u32, data: &[u8], tunnels: &TunnelPorts) -> Layers {
    walk(lt, data, false, tunnels)
}

fn walk(lt: u32, data: &[u8], labels: bool, tunnels: &TunnelPorts) -> Layers {
    let mut w = Walk {
        data,
        tunnels,
        // Room for the usual stack (Ethernet, IP, transport and what it carries) up front.
        out: Layers {
            trees: Vec::with_capacity(4),
            protocols: Vec::with_capacity(6),
            transports: Vec::new(),
        },
        quoting: false,
        icmp4_quote: None,
        labels,
        addrs: None,
        fragment: false,
    };
    w.link(lt);
    w.out
}

struct Walk<'a> {
    data: &'a [u8],
    /// The UDP ports of VXLAN and Geneve.
    tunnels: &'a TunnelPorts,
    out: Layers,
    /// Within the packet an ICMP error quotes (whose own ICMP errors are not followed).
    quoting: bool,
    /// The type of the ICMPv4 error quoting the packet, if it is one: tshark decodes a TCP
    /// header quoted by ICMPv4 its own way.
    icmp4_quote: Option<u8>,
    /// Whether the labels formatted from the values are written ([`decode`]) or left empty
    /// ([`decode_values`]).
    labels: bool,
    /// The source and destination of the innermost IP header so far, for [`Transport`].
    addrs: Option<(IpAddr, IpAddr)>,
    /// Within the first fragment of an IPv4 packet (one cut short by the capture, the only kind
    /// whose transport is decoded).
    fragment: bool,
}

/// Where a header is: from `at` to `end` (exclusive) in the frame.
#[derive(Clone, Copy)]
struct Span {
    at: usize,
    end: usize,
}

impl Span {
    fn len(self) -> usize {
        self.end.saturating_sub(self.at)
    }
    fn from(self, skip: usize) -> Span {
        Span {
            at: self.at.saturating_add(skip).min(self.end),
            end: self.end,
        }
    }
}

/// DSCP and ECN as the summary of a DS field / traffic class shows them: `DSCP: CS0, ECN: Not-ECT`.
fn ds_summary(tos: u8) -> String {
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
fn ds_fields(
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

/// An SCTP INIT or INIT_ACK parameter type's name as tshark writes it (RFC 9260, 3758, 4895,
/// 5061, 6525 and the IANA registry).
fn sctp_parameter_name(t: u16) -> Option<&'static str> {
    Some(match t {
        1 => "Heartbeat info",
        5 => "IPv4 address",
        6 => "IPv6 address",
        7 => "State cookie",
        8 => "Unrecognized parameter",
        9 => "Cookie preservative",
        11 => "Hostname",
        12 => "Supported address types",
        0x8000 => "ECN",
        0x8002 => "Random",
        0x8003 => "Authenticated Chunk list",
        0x8004 => "Requested HMAC Algorithm",
        0x8008 => "Supported Extensions",
        0xc000 => "Forward TSN supported",
        0xc001 => "Add IP address",
        0xc002 => "Delete IP address",
        0xc003 => "Error cause indication",
        0xc004 => "Set primary address",
        0xc005 => "Success report",
        0xc006 => "Adaptation Layer Indication",
        _ => return None,
    })
}

/// `f` shown in hexadecimal with `digits` digits (tshark's BASE_HEX: two per byte of the type).
fn hex(f: Field, digits: u8) -> Field {
    f.hex(digits)
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

/// A cooked header's protocol field at `at`: an EtherType (`sll.etype`), or below 0x0600 one of
/// Linux's pseudo-protocols (`sll.ltype`: 802.2 LLC, Novell raw 802.3, ...).
fn sll_protocol(t: u16, at: usize) -> Field {
    let name = if t < 0x0600 { "sll.ltype" } else { "sll.etype" };
    hex(Field::uint(name, "Protocol", t, at, 2), 4)
}

impl Walk<'_> {
    /// `f` with `-V`'s wording of its value, when the labels are wanted.
    fn show(&self, f: Field, text: impl FnOnce() -> String) -> Field {
        if self.labels {
            f.show(text())
        } else {
            f
        }
    }

    /// `f` with the name of its value as a note, when the labels are wanted and it has one.
    fn name(&self, f: Field, name: Option<&'static str>) -> Field {
        match (self.labels, name) {
            (true, Some(n)) => f.note(n),
            _ => f,
        }
    }

    /// A line of `-V` alone (no field), when the labels are wanted; else one left out.
    fn text(&self, text: impl FnOnce() -> String) -> Field {
        Field::node("", self.label(text), 0, 0)
    }

    /// A label made of the values: `text()` when the labels are wanted, else empty (and never
    /// formatted).
    fn label(&self, text: impl FnOnce() -> String) -> Cow<'static, str> {
        if self.labels {
            Cow::Owned(text())
        } else {
            Cow::Borrowed("")
        }
    }

    fn u8(&self, at: usize, s: Span) -> Option<u8> {
        (at < s.end).then(|| self.data.get(at).copied()).flatten()
    }
    fn be16(&self, at: usize, s: Span) -> Option<u16> {
        Some(u16::from_be_bytes([self.u8(at, s)?, self.u8(at + 1, s)?]))
    }
    fn be24(&self, at: usize, s: Span) -> Option<u32> {
        Some(u32::from_be_bytes([
            0,
            self.u8(at, s)?,
            self.u8(at + 1, s)?,
            self.u8(at + 2, s)?,
        ]))
    }
    fn be32(&self, at: usize, s: Span) -> Option<u32> {
        Some(u32::from_be_bytes([
            self.u8(at, s)?,
            self.u8(at + 1, s)?,
            self.u8(at + 2, s)?,
            self.u8(at + 3, s)?,
        ]))
    }
    fn mac(&self, at: usize, s: Span) -> Option<[u8; 6]> {
        if at.checked_add(6)? > s.end {
            return None;
        }
        self.data.get(at..at + 6)?.try_into().ok()
    }
    fn v4(&self, at: usize, s: Span) -> Option<Ipv4Addr> {
        self.be32(at, s).map(Ipv4Addr::from)
    }
    fn v6(&self, at: usize, s: Span) -> Option<Ipv6Addr> {
        if at.checked_add(16)? > s.end {
            return None;
        }
        let b: [u8; 16] = self.data.get(at..at + 16)?.try_into().ok()?;
        Some(Ipv6Addr::from(b))
    }

    /// Notes the TCP, UDP or SCTP header whose tree is pushed next, with the addresses around it.
    fn note_transport(&mut self, sport: u16, dport: u16, kind: TransportKind) {
        if let Some((src, dst)) = self.addrs {
            self.out.transports.push(Transport {
                tree: self.out.trees.len(),
                src,
                dst,
                sport,
                dport,
                quoted: self.quoting,
                kind,
            });
        }
    }

    fn push(&mut self, proto: &'static str, tree: Field) {
        self.out.protocols.push(proto);
        self.out.trees.push(tree);
    }

    fn link(&mut self, lt: u32) {
        let all = Span {
            at: 0,
            end: self.data.len(),
        };
        match lt {
            linktype::ETHERNET => self.ethernet(all, 0),
            linktype::LINUX_SLL => self.sll(all),
            linktype::LINUX_SLL2 => self.sll2(all),
            linktype::RAW | 12 | 14 => {
                self.out.protocols.push("raw");
                match self.u8(0, all).map(|b| b >> 4) {
                    Some(4) => self.ipv4(all, 0),
                    Some(6) => self.ipv6(all, 0),
                    _ => {}
                }
            }
            // The link type says which IP it is: tshark shows no "raw" layer before it.
            linktype::IPV4 => self.ipv4(all, 0),
            linktype::IPV6 => self.ipv6(all, 0),
            linktype::PPP | linktype::PPP_HDLC => self.ppp(all),
            linktype::NULL | linktype::LOOP => {
                self.out.protocols.push("null");
                // The family's byte order varies; the IP version says what follows.
                match self.u8(4, all).map(|b| b >> 4) {
                    Some(4) => self.ipv4(all.from(4), 0),
                    Some(6) => self.ipv6(all.from(4), 0),
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// An Ethernet header at `s.at` (or Cisco FabricPath's around one), its VLAN tags, and what
    /// they carry.
    fn ethernet(&mut self, s: Span, depth: u8) {
        if self.be16(s.at + 12, s) == Some(ETHERTYPE_FABRICPATH) {
            self.fabricpath(s, depth);
        } else {
            self.ethernet_frame(s, depth);
        }
    }

    /// Cisco FabricPath: tshark decodes its 16-byte header in place of the Ethernet one (naming
    /// "eth" in `frame.protocols` but giving none of its fields), then the frame inside. No FCS
    /// is taken off the end, where Wireshark takes the last 4 bytes for one.
    fn fabricpath(&mut self, s: Span, depth: u8) {
        let a = s.at;
        let (Some(etype), Some(w)) = (self.be16(a + 12, s), self.be16(a + 14, s)) else {
            return;
        };
        let tree = Field::node("cfp", "Cisco FabricPath", a, FABRICPATH_HEADER).children(vec![
            hex(
                Field::uint("cfp.etype", "FP Ethertype", etype, a + 12, 2),
                4,
            ),
            Field::uint("cfp.ftag", "FTAG", w >> 6, a + 14, 2),
            Field::uint("cfp.ttl", "TTL", w & 0x3f, a + 14, 2),
        ]);
        self.out.protocols.push("eth");
        self.push("cfp", tree);
        self.ethernet_frame(s.from(FABRICPATH_HEADER), depth);
    }

    /// An Ethernet II (or IEEE 802.3) header at `s.at`, its VLAN tags, and what they carry.
    fn ethernet_frame(&mut self, s: Span, depth: u8) {
        let (Some(dst), Some(src), Some(t)) = (
            self.mac(s.at, s),
            self.mac(s.at + 6, s),
            self.be16(s.at + 12, s),
        ) else {
            return;
        };
        let labels = self.labels;
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
        let title = self.label(|| {
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
            match (self.labels, ethertype_name(t)) {
                (true, Some(n)) => f.note(n),
                _ => f,
            }
        };
        let tree = Field::node("eth", title, s.at, 14).children(vec![
            addr("eth.dst", "Destination", dst, s.at),
            addr("eth.src", "Source", src, s.at + 6),
            kind,
        ]);
        self.push("eth", tree);
        if ieee802_3 {
            // LLC, not decoded.
            return;
        }
        self.out.protocols.push("ethertype");
        self.vlans(t, s.from(14), depth);
    }

    /// VLAN tags (802.1Q, and 802.1ad's service tags) before `t`'s payload at `s`.
    fn vlans(&mut self, mut t: u16, mut s: Span, depth: u8) {
        let mut tags = 0;
        while VLAN_TPIDS.contains(&t) && tags < MAX_VLAN_TAGS {
            let (Some(tci), Some(next)) = (self.be16(s.at, s), self.be16(s.at + 2, s)) else {
                return;
            };
            let (proto, title) = if t == 0x88a8 {
                ("ieee8021ad", "IEEE 802.1ad")
            } else {
                ("vlan", "802.1Q Virtual LAN")
            };
            let (pri, dei, id) = (tci >> 13, tci & 0x1000 != 0, tci & 0x0fff);
            let (pri_n, dei_n, id_n) = if t == 0x88a8 {
                ("ieee8021ad.priority", "ieee8021ad.dei", "ieee8021ad.id")
            } else {
                ("vlan.priority", "vlan.dei", "vlan.id")
            };
            let mut tree = Field::node(
                proto,
                self.label(|| format!("{title}, PRI: {pri}, DEI: {}, ID: {id}", u8::from(dei))),
                s.at,
                4,
            )
            .children(vec![
                Field::uint(pri_n, "Priority", pri, s.at, 2),
                Field::boolean(dei_n, "DEI", dei, s.at, 2),
                Field::uint(id_n, "ID", id, s.at, 2),
            ]);
            // IEEE 802.3 inside the tag: a length where the type would be.
            let ieee802_3 = next <= 1500;
            if t != 0x88a8 {
                tree = tree.child(if ieee802_3 {
                    Field::uint("vlan.len", "Length", next, s.at + 2, 2)
                } else {
                    hex(Field::uint("vlan.etype", "Type", next, s.at + 2, 2), 4)
                });
            }
            self.push(proto, tree);
            if ieee802_3 {
                // LLC, not decoded.
                return;
            }
            self.out.protocols.push("ethertype");
            t = next;
            s = s.from(4);
            tags += 1;
        }
        self.ethertype(t, s, depth);
    }

    /// What an EtherType (a link layer's, GRE's, Geneve's) carries.
    fn ethertype(&mut self, t: u16, s: Span, depth: u8) {
        match t {
            ETHERTYPE_IPV4 => self.ipv4(s, depth),
            ETHERTYPE_IPV6 => self.ipv6(s, depth),
            ETHERTYPE_ARP => self.arp(s),
            ETHERTYPE_MPLS | ETHERTYPE_MPLS_MULTICAST => self.mpls(s, depth),
            ETHERTYPE_TEB => self.ethernet(s, depth),
            _ => {}
        }
    }

    /// Linux cooked capture: packet type, ARPHRD type, address length, address, protocol.
    fn sll(&mut self, s: Span) {
        let (Some(pkttype), Some(hatype), Some(halen), Some(t)) = (
            self.be16(0, s),
            self.be16(2, s),
            self.be16(4, s),
            self.be16(14, s),
        ) else {
            return;
        };
        let mut tree = Field::node("sll", "Linux cooked capture v1", 0, 16).children(vec![
            self.name(
                Field::uint("sll.pkttype", "Packet type", pkttype, 0, 2),
                sll_packet_type(pkttype),
            ),
            self.name(
                Field::uint("sll.hatype", "Link-layer address type", hatype, 2, 2),
                arphrd_name(hatype),
            ),
            Field::uint("sll.halen", "Link-layer address length", halen, 4, 2),
        ]);
        tree = tree.children(self.sll_address(hatype, usize::from(halen), 6, s));
        tree = tree.child(self.sll_protocol(t, 14));
        self.push("sll", tree);
        if t >= 0x0600 {
            self.out.protocols.push("ethertype");
            self.vlans(t, s.from(16), 0);
        }
    }

    /// A cooked header's 8-byte address field at `at`: the sender's Ethernet address where the
    /// link has one, then the bytes the address leaves unused.
    fn sll_address(&self, hatype: u16, halen: usize, at: usize, s: Span) -> Vec<Field> {
        let mut out = Vec::with_capacity(2);
        let mut used = 0;
        if let (ARPHRD_ETHER | ARPHRD_LOOPBACK, 6, Some(m)) = (hatype, halen, self.mac(at, s)) {
            out.push(Field::new("sll.src.eth", "Source", Value::Mac(m), at, 6));
            used = 6;
        }
        if halen <= 8 && (used == 6 || halen == 0) {
            if let Some(b) = self.data.get(at + used..at + 8).filter(|_| at + 8 <= s.end) {
                out.push(Field::bytes("sll.unused", "Unused", b, at + used));
            }
        }
        out
    }

    /// A cooked header's protocol, with its EtherType's name where the labels are wanted.
    fn sll_protocol(&self, t: u16, at: usize) -> Field {
        let f = sll_protocol(t, at);
        if t >= 0x0600 {
            self.name(f, ethertype_name(t))
        } else {
            f
        }
    }

    /// Linux cooked capture v2: protocol, reserved, interface, ARPHRD type, packet type, address
    /// length, address.
    fn sll2(&mut self, s: Span) {
        let (Some(t), Some(ifindex), Some(hatype), Some(pkttype), Some(halen)) = (
            self.be16(0, s),
            self.be32(4, s),
            self.be16(8, s),
            self.u8(10, s),
            self.u8(11, s),
        ) else {
            return;
        };
        let mut tree = Field::node("sll", "Linux cooked capture v2", 0, 20).children(vec![
            self.sll_protocol(t, 0),
            Field::uint("sll.ifindex", "Interface index", ifindex, 4, 4),
            self.name(
                Field::uint("sll.hatype", "Link-layer address type", hatype, 8, 2),
                arphrd_name(hatype),
            ),
            self.name(
                Field::uint("sll.pkttype", "Packet type", pkttype, 10, 1),
                sll_packet_type(u16::from(pkttype)),
            ),
            Field::uint("sll.halen", "Link-layer address length", halen, 11, 1),
        ]);
        tree = tree.children(self.sll_address(hatype, usize::from(halen), 12, s));
        self.push("sll", tree);
        if t >= 0x0600 && s.len() >= 20 {
            self.out.protocols.push("ethertype");
            self.vlans(t, s.from(20), 0);
        }
    }

    /// PPP: the HDLC address and control bytes unless compressed away, the protocol (one byte
    /// when compressed), then IPv4 or IPv6.
    fn ppp(&mut self, s: Span) {
        let mut children = Vec::with_capacity(3);
        let mut at = s.at;
        if let (Some(0xff), Some(control)) = (self.u8(at, s), self.u8(at + 1, s)) {
            children.push(hex(Field::uint("ppp.address", "Address", 0xffu8, at, 1), 2));
            children.push(hex(
                Field::uint("ppp.control", "Control", control, at + 1, 1),
                2,
            ));
            at += 2;
        }
        let protocol = match self.u8(at, s) {
            Some(p) if p & 1 == 1 => Some((u16::from(p), 1)),
            Some(_) => self.be16(at, s).map(|p| (p, 2)),
            None => None,
        };
        if let Some((p, len)) = protocol {
            children.push(hex(Field::uint("ppp.protocol", "Protocol", p, at, len), 4));
        }
        let len = at - s.at + protocol.map_or(0, |(_, n)| n);
        let tree = Field::node("ppp", "Point-to-Point Protocol", s.at, len).children(children);
        self.push("ppp", tree);
        match protocol {
            Some((PPP_IPV4, len)) => self.ipv4(s.from(at - s.at + len), 0),
            Some((PPP_IPV6, len)) => self.ipv6(s.from(at - s.at + len), 0),
            _ => {}
        }
    }

    fn arp(&mut self, s: Span) {
        let a = s.at;
        let (Some(htype), Some(ptype), Some(hlen), Some(plen), Some(op)) = (
            self.be16(a, s),
            self.be16(a + 2, s),
            self.u8(a + 4, s),
            self.u8(a + 5, s),
            self.be16(a + 6, s),
        ) else {
            self.out.protocols.push("arp");
            return;
        };
        let what = match op {
            1 => "request",
            2 => "reply",
            3 => "reverse request",
            4 => "reverse reply",
            _ => "opcode",
        };
        let mut tree = Field::node(
            "arp",
            self.label(|| format!("Address Resolution Protocol ({what})")),
            a,
            8 + 2 * (usize::from(hlen) + usize::from(plen)),
        )
        .children(vec![
            Field::uint("arp.hw.type", "Hardware type", htype, a, 2),
            hex(
                Field::uint("arp.proto.type", "Protocol type", ptype, a + 2, 2),
                4,
            ),
            Field::uint("arp.hw.size", "Hardware size", hlen, a + 4, 1),
            Field::uint("arp.proto.size", "Protocol size", plen, a + 5, 1),
            Field::uint("arp.opcode", "Opcode", op, a + 6, 2),
        ]);
        if (htype, hlen, ptype, plen) == (1, 6, ETHERTYPE_IPV4, 4) {
            let b = a + 8;
            if let Some(m) = self.mac(b, s) {
                tree = tree.child(Field::new(
                    "arp.src.hw_mac",
                    "Sender MAC address",
                    Value::Mac(m),
                    b,
                    6,
                ));
            }
            if let Some(ip) = self.v4(b + 6, s) {
                tree = tree.child(Field::ipv4(
                    "arp.src.proto_ipv4",
                    "Sender IP address",
                    ip,
                    b + 6,
                ));
            }
            if let Some(m) = self.mac(b + 10, s) {
                tree = tree.child(Field::new(
                    "arp.dst.hw_mac",
                    "Target MAC address",
                    Value::Mac(m),
                    b + 10,
                    6,
                ));
            }
            if let Some(ip) = self.v4(b + 16, s) {
                tree = tree.child(Field::ipv4(
                    "arp.dst.proto_ipv4",
                    "Target IP address",
                    ip,
                    b + 16,
                ));
            }
        }
        self.push("arp", tree);
    }

    fn ipv4(&mut self, s: Span, depth: u8) {
        let a = s.at;
        let (Some(b0), Some(tos), Some(len), Some(id), Some(frag), Some(ttl), Some(proto)) = (
            self.u8(a, s),
            self.u8(a + 1, s),
            self.be16(a + 2, s),
            self.be16(a + 4, s),
            self.be16(a + 6, s),
            self.u8(a + 8, s),
            self.u8(a + 9, s),
        ) else {
            self.out.protocols.push("ip");
            return;
        };
        let (Some(sum), Some(src), Some(dst)) =
            (self.be16(a + 10, s), self.v4(a + 12, s), self.v4(a + 16, s))
        else {
            self.out.protocols.push("ip");
            return;
        };
        let hdr_len = usize::from(b0 & 0x0f) * 4;
        let flags = frag >> 13;
        let offset = frag & 0x1fff;
        let mut tree = Field::node(
            "ip",
            self.label(|| format!("Internet Protocol Version 4, Src: {src}, Dst: {dst}")),
            a,
            hdr_len,
        )
        .children(vec![
            Field::uint("ip.version", "Version", b0 >> 4, a, 1).bits(0xf0, 8),
            self.show(
                Field::uint("ip.hdr_len", "Header Length", hdr_len as u64, a, 1)
                    .unit(" bytes")
                    .bits_raw(u64::from(b0), 0x0f, 8),
                || format!("{hdr_len} bytes ({})", b0 & 0x0f),
            ),
            self.show(
                hex(
                    Field::uint("ip.dsfield", "Differentiated Services Field", tos, a + 1, 1),
                    2,
                ),
                || format!("0x{tos:02x} ({})", ds_summary(tos)),
            )
            .children(ds_fields(self.labels, tos, a + 1, 0xfc, 0x03, 8)),
            Field::uint("ip.len", "Total Length", len, a + 2, 2),
            self.show(
                hex(Field::uint("ip.id", "Identification", id, a + 4, 2), 4),
                || format!("0x{id:04x} ({id})"),
            ),
            self.show(
                hex(Field::uint("ip.flags", "Flags", flags, a + 6, 1), 2).bits(0xe0, 8),
                || {
                    let mut t = format!("0x{flags:x}");
                    if flags & 2 != 0 {
                        t.push_str(", Don't fragment");
                    }
                    if flags & 1 != 0 {
                        t.push_str(", More fragments");
                    }
                    t
                },
            )
            .children(vec![
                Field::boolean("ip.flags.rb", "Reserved bit", flags & 4 != 0, a + 6, 1)
                    .bits(0x80, 8),
                Field::boolean("ip.flags.df", "Don't fragment", flags & 2 != 0, a + 6, 1)
                    .bits(0x40, 8),
                Field::boolean("ip.flags.mf", "More fragments", flags & 1 != 0, a + 6, 1)
                    .bits(0x20, 8),
            ]),
            Field::uint("ip.frag_offset", "Fragment Offset", offset, a + 6, 2).bits(0x1fff, 16),
            Field::uint("ip.ttl", "Time to Live", ttl, a + 8, 1),
            self.name(
                Field::uint("ip.proto", "Protocol", proto, a + 9, 1),
                ip_proto_name(proto),
            ),
            self.show(
                hex(
                    Field::uint("ip.checksum", "Header Checksum", sum, a + 10, 2),
                    4,
                ),
                || format!("0x{sum:04x} [validation disabled]"),
            ),
            self.text(|| "Header checksum status: Unverified".to_string())
                .generated(),
            Field::ipv4("ip.src", "Source Address", src, a + 12),
            Field::ipv4("ip.dst", "Destination Address", dst, a + 16),
        ]);
        tree.children
            .retain(|c| !c.label.is_empty() || !c.name.is_empty());
        self.push("ip", tree);
        if hdr_len < 20 || hdr_len > s.len() {
            return;
        }
        // The packet ends at its total length, unless the frame ends first.
        let end = if usize::from(len) >= hdr_len {
            s.end.min(a + usize::from(len))
        } else {
            s.end
        };
        // A first fragment cut short by the capture is decoded as far as it goes, as tshark
        // (and the dissector) do: it could never be reassembled right.
        let cut = a + usize::from(len) > s.end;
        if offset != 0 || (flags & 1 != 0 && !cut) {
            self.out.protocols.push("data");
            return;
        }
        self.addrs = Some((src.into(), dst.into()));
        self.fragment = flags & 1 != 0;
        self.transport(
            proto,
            Span {
                at: a + hdr_len,
                end,
            },
            depth,
        );
    }

    fn ipv6(&mut self, s: Span, depth: u8) {
        let a = s.at;
        let (Some(w), Some(plen), Some(nxt), Some(hlim), Some(src), Some(dst)) = (
            self.be32(a, s),
            self.be16(a + 4, s),
            self.u8(a + 6, s),
            self.u8(a + 7, s),
            self.v6(a + 8, s),
            self.v6(a + 24, s),
        ) else {
            self.out.protocols.push("ipv6");
            return;
        };
        let mut tree = Field::node(
            "ipv6",
            self.label(|| format!("Internet Protocol Version 6, Src: {src}, Dst: {dst}")),
            a,
            40,
        )
        // tshark gives IPv6 packets an ip.version too (not shown).
        .children(vec![
            Field::uint("ipv6.version", "Version", w >> 28, a, 1).bits(0xf0, 8),
            Field::uint("ip.version", "Version", w >> 28, a, 1).hidden(),
            {
                let tc = ((w >> 20) & 0xff) as u8;
                self.show(
                    hex(Field::uint("ipv6.tclass", "Traffic Class", tc, a, 4), 8)
                        .bits(0x0ff0_0000, 32),
                    || format!("0x{tc:02x} ({})", ds_summary(tc)),
                )
                .children(ds_fields(
                    self.labels,
                    tc,
                    a,
                    0x0fc0_0000,
                    0x0030_0000,
                    32,
                ))
            },
            self.show(
                hex(
                    Field::uint("ipv6.flow", "Flow Label", w & 0xfffff, a + 1, 3),
                    6,
                )
                .bits(0x0f_ffff, 24),
                || format!("0x{:05x}", w & 0xfffff),
            ),
            Field::uint("ipv6.plen", "Payload Length", plen, a + 4, 2),
            self.name(
                Field::uint("ipv6.nxt", "Next Header", nxt, a + 6, 1),
                ip_proto_name(nxt),
            ),
            Field::uint("ipv6.hlim", "Hop Limit", hlim, a + 7, 1),
            Field::ipv6("ipv6.src", "Source Address", src, a + 8),
            Field::ipv6("ipv6.dst", "Destination Address", dst, a + 24),
        ]);
        if self.labels {
            // tshark's note of the MAC address an EUI-64 interface identifier holds.
            for (which, addr) in [("Source", src), ("Destination", dst)] {
                let o = addr.octets();
                if o[11] == 0xff && o[12] == 0xfe && o[8] & 2 != 0 {
                    let m = [o[8] ^ 2, o[9], o[10], o[13], o[14], o[15]];
                    let t = format!("{which} SLAAC MAC: {}", mac(&m));
                    tree = tree.child(Field::node("", t, a, 0).generated());
                }
            }
        }
        self.push("ipv6", tree);
        let end = s.end.min(a + 40 + usize::from(plen));
        let mut at = a + 40;
        let mut next = nxt;
        for _ in 0..MAX_EXTENSIONS {
            let s = Span { at, end };
            let (name, len) = match next {
                0 | 43 | 60 | 135 | 139 | 140 => {
                    let name = match next {
                        0 => "ipv6.hopopts",
                        43 => "ipv6.routing",
                        60 => "ipv6.dstopts",
                        _ => "ipv6.ext",
                    };
                    let Some(l) = self.u8(at + 1, s) else { return };
                    (name, (usize::from(l) + 1) * 8)
                }
                51 => {
                    let Some(l) = self.u8(at + 1, s) else { return };
                    ("ah", (usize::from(l) + 2) * 4)
                }
                44 => {
                    self.out.protocols.push("ipv6.fraghdr");
                    let Some(off) = self.be16(at + 2, s) else {
                        return;
                    };
                    if off & 0xfff9 != 0 {
                        self.out.protocols.push("data");
                        return;
                    }
                    let Some(n) = self.u8(at, s) else { return };
                    next = n;
                    at += 8;
                    continue;
                }
                _ => break,
            };
            self.out.protocols.push(name);
            let Some(n) = self.u8(at, s) else { return };
            next = n;
            at += len;
            if at > end {
                return;
            }
        }
        self.addrs = Some((src.into(), dst.into()));
        self.fragment = false;
        self.transport(next, Span { at, end }, depth);
    }

    fn transport(&mut self, proto: u8, s: Span, depth: u8) {
        match proto {
            PROTO_UDP => self.udp(s, depth),
            PROTO_TCP => self.tcp(s),
            PROTO_SCTP => self.sctp(s),
            PROTO_ICMP => self.icmp(s, false, depth),
            PROTO_ICMPV6 => self.icmp(s, true, depth),
            PROTO_IGMP => self.out.protocols.push("igmp"),
            PROTO_IPIP if depth < MAX_ENCAPSULATIONS => self.ipv4(s, depth + 1),
            PROTO_IPV6 if depth < MAX_ENCAPSULATIONS => self.ipv6(s, depth + 1),
            PROTO_GRE if depth < MAX_ENCAPSULATIONS => self.gre(s, depth + 1),
            _ => {}
        }
    }

    fn udp(&mut self, s: Span, depth: u8) {
        let a = s.at;
        let (Some(sport), Some(dport), Some(len), Some(sum)) = (
            self.be16(a, s),
            self.be16(a + 2, s),
            self.be16(a + 4, s),
            self.be16(a + 6, s),
        ) else {
            self.out.protocols.push("udp");
            return;
        };
        let mut tree = Field::node(
            "udp",
            self.label(|| format!("User Datagram Protocol, Src Port: {sport}, Dst Port: {dport}")),
            a,
            8,
        )
        .children(vec![
            Field::uint("udp.srcport", "Source Port", sport, a, 2),
            Field::uint("udp.dstport", "Destination Port", dport, a + 2, 2),
            Field::uint("udp.length", "Length", len, a + 4, 2),
            self.show(
                hex(Field::uint("udp.checksum", "Checksum", sum, a + 6, 2), 4),
                || {
                    if sum == 0 {
                        "0x0000 [zero-value ignored]".to_string()
                    } else {
                        format!("0x{sum:04x} [unverified]")
                    }
                },
            ),
        ]);
        if self.labels {
            let status = if sum == 0 {
                "Not present"
            } else {
                "Unverified"
            };
            tree = tree
                .child(Field::node("", format!("Checksum Status: {status}"), a + 6, 0).generated());
        }
        self.note_transport(sport, dport, TransportKind::Udp);
        let end = if usize::from(len) >= 8 {
            s.end.min(a + usize::from(len))
        } else {
            s.end
        };
        if self.labels {
            let n = end.saturating_sub(a + 8);
            tree = tree.child(Field::node(
                "",
                format!("UDP payload ({n} bytes)"),
                a + 8,
                n,
            ));
        }
        self.push("udp", tree);
        let payload = Span { at: a + 8, end };
        let tunnel = self
            .tunnels
            .by_ports(sport, dport)
            .filter(|_| depth < MAX_ENCAPSULATIONS);
        let teredo = || {
            let bytes = self.data.get(payload.at..payload.end).unwrap_or_default();
            parse_teredo(bytes).map(|o| o.header_len)
        };
        if tunnel == Some(UdpTunnel::Vxlan) {
            self.vxlan(payload, depth + 1);
        } else if tunnel == Some(UdpTunnel::Geneve) {
            self.geneve(payload, depth + 1);
        } else if let Some(header) = teredo().filter(|_| tunnel == Some(UdpTunnel::Teredo)) {
            let tree = Field::node(
                "teredo",
                "Teredo IPv6 over UDP tunneling",
                payload.at,
                header,
            );
            self.push("teredo", tree);
            self.ipv6(payload.from(header), depth + 1);
        } else if sport == UDP_ENCAPSULATION_PORT || dport == UDP_ENCAPSULATION_PORT {
            self.sctp(payload);
        }
    }

    fn tcp(&mut self, s: Span) {
        let a = s.at;
        let (Some(sport), Some(dport), Some(seq), Some(ack), Some(off), Some(win)) = (
            self.be16(a, s),
            self.be16(a + 2, s),
            self.be32(a + 4, s),
            self.be32(a + 8, s),
            self.be16(a + 12, s),
            self.be16(a + 14, s),
        ) else {
            self.out.protocols.push("tcp");
            return;
        };
        let (Some(sum), Some(urg)) = (self.be16(a + 16, s), self.be16(a + 18, s)) else {
            self.out.protocols.push("tcp");
            return;
        };
        // In an ICMPv4 redirect, tshark's TCP tree ends after the sequence number (on the wire),
        // and the quoted header has no stream.
        let icmp4 = self.icmp4_quote.filter(|_| self.quoting);
        if icmp4 == Some(5) {
            let tree = Field::node(
                "tcp",
                self.label(|| {
                    format!("Transmission Control Protocol, Src Port: {sport}, Dst Port: {dport}")
                }),
                a,
                20,
            )
            .children(vec![
                Field::uint("tcp.srcport", "Source Port", sport, a, 2),
                Field::uint("tcp.dstport", "Destination Port", dport, a + 2, 2),
                Field::uint("tcp.seq", "Sequence Number", seq, a + 4, 4),
            ]);
            self.push("tcp", tree);
            return;
        }
        let hdr_len = usize::from(off >> 12) * 4;
        let flags = off & 0x0fff;
        let seg_len = s.len().saturating_sub(hdr_len);
        // tshark shows the payload's length only when it knows it: not in a packet shorter than
        // its header says, an IP fragment or a packet an ICMP error quotes.
        let known_len = (s.len() >= hdr_len && !self.fragment && !self.quoting)
            .then(|| u32::try_from(seg_len).unwrap_or(u32::MAX));
        let bit =
            |name, label, mask: u16| Field::boolean(name, label, flags & mask != 0, a + 12, 2);
        let mut tree = Field::node(
            "tcp",
            self.label(|| {
                format!(
                    "Transmission Control Protocol, Src Port: {sport}, Dst Port: {dport}, Len: \
                     {seg_len}"
                )
            }),
            a,
            hdr_len.max(20),
        )
        .children(vec![
            Field::uint("tcp.srcport", "Source Port", sport, a, 2),
            Field::uint("tcp.dstport", "Destination Port", dport, a + 2, 2),
        ]);
        if let Some(len) = known_len {
            tree = tree.child(Field::uint("tcp.len", "TCP Segment Len", len, a, 0).generated());
        }
        // Quoted by ICMPv4, the sequence number is only the one on the wire (`tcp.seq`).
        if icmp4.is_none() {
            tree = tree.child(Field::uint(
                "tcp.seq_raw",
                "Sequence Number (raw)",
                seq,
                a + 4,
                4,
            ));
        }
        tree.children.extend([
            Field::uint("tcp.ack_raw", "Acknowledgment number (raw)", ack, a + 8, 4),
            Field::uint("tcp.hdr_len", "Header Length", hdr_len as u64, a + 12, 1).unit(" bytes"),
            hex(Field::uint("tcp.flags", "Flags", flags, a + 12, 2), 4).children(vec![
                bit("tcp.flags.urg", "Urgent", 0x20),
                bit("tcp.flags.ack", "Acknowledgment", 0x10),
                bit("tcp.flags.push", "Push", 0x08),
                bit("tcp.flags.reset", "Reset", 0x04),
                bit("tcp.flags.syn", "Syn", 0x02),
                bit("tcp.flags.fin", "Fin", 0x01),
            ]),
            Field::uint("tcp.window_size_value", "Window", win, a + 14, 2),
            hex(Field::uint("tcp.checksum", "Checksum", sum, a + 16, 2), 4),
            Field::uint("tcp.urgent_pointer", "Urgent Pointer", urg, a + 18, 2),
        ]);
        let header = TcpHeader {
            seq,
            ack,
            flags,
            hdr_len,
            seg_len: known_len,
        };
        self.note_transport(sport, dport, TransportKind::Tcp(header));
        self.push("tcp", tree);
    }

    fn sctp(&mut self, s: Span) {
        let a = s.at;
        let (Some(sport), Some(dport), Some(vtag), Some(sum)) = (
            self.be16(a, s),
            self.be16(a + 2, s),
            self.be32(a + 4, s),
            self.be32(a + 8, s),
        ) else {
            self.out.protocols.push("sctp");
            return;
        };
        let mut tree = Field::node(
            "sctp",
            self.label(|| {
                format!(
                    "Stream Control Transmission Protocol, Src Port: {sport} ({sport}), Dst Port: \
                     {dport} ({dport})"
                )
            }),
            a,
            s.len(),
        )
        .children(vec![
            Field::uint("sctp.srcport", "Source port", sport, a, 2),
            Field::uint("sctp.dstport", "Destination port", dport, a + 2, 2),
            hex(
                Field::uint("sctp.verification_tag", "Verification tag", vtag, a + 4, 4),
                8,
            ),
            self.text(|| "Association index: disabled (enable in preferences)".to_string())
                .generated(),
            self.show(
                hex(Field::uint("sctp.checksum", "Checksum", sum, a + 8, 4), 8),
                || format!("0x{sum:08x} [unverified]"),
            ),
            self.text(|| "Checksum Status: Unverified".to_string())
                .generated(),
        ]);
        tree.children
            .retain(|c| !c.label.is_empty() || !c.name.is_empty());
        // Room for a few chunks at once rather than growing the vector chunk by chunk.
        tree.children.reserve(4);
        let mut at = a + 12;
        // Each chunk is at least 4 bytes long, so the walk ends within the packet.
        while let (Some(t), Some(flags), Some(len)) =
            (self.u8(at, s), self.u8(at + 1, s), self.be16(at + 2, s))
        {
            tree = tree.child(self.chunk(at, t, flags, len, s));
            let len = usize::from(len);
            if len < 4 {
                break;
            }
            at += (len + 3) & !3;
        }
        self.note_transport(sport, dport, TransportKind::Sctp { vtag });
        self.push("sctp", tree);
    }

    /// One SCTP chunk: its type, flags and length, and the header of a DATA or SACK chunk.
    fn chunk(&self, at: usize, t: u8, flags: u8, len: u16, s: Span) -> Field {
        let name = crate::wire::sctp::chunk_name(t).unwrap_or("UNKNOWN");
        let chunk = Span {
            at,
            end: s.end.min(at + usize::from(len).max(4)),
        };
        let mut flags_f = hex(
            Field::uint("sctp.chunk_flags", "Chunk flags", flags, at + 1, 1),
            2,
        );
        if t == 0 || t == 64 {
            let labels = self.labels;
            let bit = |name, label, mask: u8, words: [&'static str; 2]| {
                let on = flags & mask != 0;
                let f = Field::boolean(name, label, on, at + 1, 1).bits(u64::from(mask), 8);
                if labels {
                    f.note(words[usize::from(on)])
                } else {
                    f
                }
            };
            flags_f = flags_f.children(vec![
                bit(
                    "sctp.data_i_bit",
                    "I-Bit",
                    8,
                    ["Possibly delay SACK", "Send SACK immediately"],
                ),
                bit(
                    "sctp.data_u_bit",
                    "U-Bit",
                    4,
                    ["Ordered delivery", "Unordered delivery"],
                ),
                bit(
                    "sctp.data_b_bit",
                    "B-Bit",
                    2,
                    ["Subsequent segment", "First segment"],
                ),
                bit(
                    "sctp.data_e_bit",
                    "E-Bit",
                    1,
                    ["Not last segment", "Last segment"],
                ),
            ]);
        }
        if t == 3 && self.labels {
            flags_f =
                flags_f.child(Field::uint("", "Nounce sum", flags & 1, at + 1, 1).bits(0x01, 8));
        }
        let mut type_f = Field::uint("sctp.chunk_type", "Chunk type", t, at, 1).note(name);
        if self.labels {
            type_f = type_f.children(vec![
                Field::boolean("", "Bit", t & 0x80 != 0, at, 1)
                    .bits(0x80, 8)
                    .note(if t & 0x80 != 0 {
                        "Skip chunk and continue processing"
                    } else {
                        "Stop processing of the packet"
                    }),
                Field::boolean("", "Bit", t & 0x40 != 0, at, 1)
                    .bits(0x40, 8)
                    .note(if t & 0x40 != 0 {
                        "Do report"
                    } else {
                        "Do not report"
                    }),
            ]);
        }
        let title =
            self.label(|| {
                let b32 = |o: usize| self.be32(at + o, chunk).unwrap_or(0);
                let b16 = |o: usize| self.be16(at + o, chunk).unwrap_or(0);
                match t {
                    0 => format!(
                    "DATA chunk ({}, {}, TSN: {}, SID: {}, SSN: {}, PPID: {}, payload length: {} \
                     bytes)",
                    if flags & 4 != 0 { "unordered" } else { "ordered" },
                    match flags & 3 {
                        3 => "complete segment",
                        2 => "first segment",
                        1 => "last segment",
                        _ => "middle segment",
                    },
                    b32(4),
                    b16(8),
                    b16(10),
                    b32(12),
                    len.saturating_sub(16)
                ),
                    3 => format!(
                        "SACK chunk (Cumulative TSN: {}, a_rwnd: {}, gaps: {}, duplicate TSNs: {})",
                        b32(4),
                        b32(8),
                        b16(12),
                        b16(14)
                    ),
                    4 | 5 => format!(
                        "{name} chunk (Information: {} bytes)",
                        len.saturating_sub(4)
                    ),
                    1 | 2 => format!(
                        "{name} chunk (Outbound streams: {}, inbound streams: {})",
                        b16(12),
                        b16(14)
                    ),
                    _ => format!("{name} chunk"),
                }
            });
        let mut f = Field::node("", title, at, usize::from(len)).children(vec![
            type_f,
            flags_f,
            Field::uint("sctp.chunk_length", "Chunk length", len, at + 2, 2),
        ]);
        match t {
            // DATA, and I-DATA (RFC 8260): its PPID only in a message's first fragment.
            0 | 64 => {
                if let Some(tsn) = self.be32(at + 4, chunk) {
                    f = f.child(Field::uint(
                        "sctp.data_tsn_raw",
                        "Transmission sequence number (absolute)",
                        tsn,
                        at + 4,
                        4,
                    ));
                }
                if let Some(sid) = self.be16(at + 8, chunk) {
                    f = f.child(hex(
                        Field::uint("sctp.data_sid", "Stream identifier", sid, at + 8, 2),
                        4,
                    ));
                }
                let ssn = if t == 0 {
                    self.be16(at + 10, chunk)
                } else {
                    None
                };
                if let Some(ssn) = ssn {
                    f = f.child(Field::uint(
                        "sctp.data_ssn",
                        "Stream sequence number",
                        ssn,
                        at + 10,
                        2,
                    ));
                }
                let ppid_at = if t == 0 { at + 12 } else { at + 16 };
                let ppid = if t == 0 || flags & 2 != 0 {
                    self.be32(ppid_at, chunk)
                } else {
                    None
                };
                if let Some(ppid) = ppid {
                    let ppid_name = match ppid {
                        0 => Some("not specified"),
                        11 => Some("ASAP"),
                        12 => Some("ENRP"),
                        _ => None,
                    };
                    f = f.child(self.name(
                        Field::uint(
                            "sctp.data_payload_proto_id",
                            "Payload protocol identifier",
                            ppid,
                            ppid_at,
                            4,
                        ),
                        ppid_name,
                    ));
                }
            }
            // INIT and INIT_ACK: their fixed fields (the parameters after them are left alone).
            1 | 2 => {
                let [tag_name, credit_name, out_name, in_name, tsn_name] =
                    if t == 1 { INIT_FIELDS } else { INITACK_FIELDS };
                if let Some(tag) = self.be32(at + 4, chunk) {
                    f = f.child(hex(
                        Field::uint(tag_name, "Initiate tag", tag, at + 4, 4),
                        8,
                    ));
                }
                if let Some(credit) = self.be32(at + 8, chunk) {
                    f = f.child(Field::uint(
                        credit_name,
                        "Advertised receiver window credit (a_rwnd)",
                        credit,
                        at + 8,
                        4,
                    ));
                }
                if let Some(n) = self.be16(at + 12, chunk) {
                    let label = "Number of outbound streams";
                    f = f.child(Field::uint(out_name, label, n, at + 12, 2));
                }
                if let Some(n) = self.be16(at + 14, chunk) {
                    let label = "Number of inbound streams";
                    f = f.child(Field::uint(in_name, label, n, at + 14, 2));
                }
                if let Some(tsn) = self.be32(at + 16, chunk) {
                    let label = "Initial TSN";
                    f = f.child(Field::uint(tsn_name, label, tsn, at + 16, 4));
                }
                f = f.children(self.parameters(Span {
                    at: at + 20,
                    ..chunk
                }));
            }
            // HEARTBEAT and HEARTBEAT_ACK: the Heartbeat Info parameter.
            4 | 5 => {
                f = f.children(self.parameters(Span {
                    at: at + 4,
                    ..chunk
                }))
            }
            3 => {
                if let Some(cum) = self.be32(at + 4, chunk) {
                    f = f.child(Field::uint(
                        "sctp.sack_cumulative_tsn_ack_raw",
                        "Cumulative TSN ACK (absolute)",
                        cum,
                        at + 4,
                        4,
                    ));
                }
                if let Some(rwnd) = self.be32(at + 8, chunk) {
                    f = f.child(Field::uint(
                        "sctp.sack_a_rwnd",
                        "Advertised receiver window credit (a_rwnd)",
                        rwnd,
                        at + 8,
                        4,
                    ));
                }
                if let (true, Some(gaps), Some(dups)) = (
                    self.labels,
                    self.be16(at + 12, chunk),
                    self.be16(at + 14, chunk),
                ) {
                    f = f.children(vec![
                        Field::node(
                            "",
                            format!("Number of gap acknowledgement blocks: {gaps}"),
                            at + 12,
                            2,
                        ),
                        Field::node("", format!("Number of duplicated TSNs: {dups}"), at + 14, 2),
                    ]);
                }
            }
            _ => {}
        }
        f
    }

    /// The parameters of an INIT or INIT_ACK chunk (RFC 9260 section 3.3.2, RFC 3758, RFC 5061)
    /// or a HEARTBEAT's (section 3.3.5), each worded as tshark words it: its type with the two
    /// bits that say what a receiver not knowing it does, its length, its value, its padding.
    fn parameters(&self, s: Span) -> Vec<Field> {
        let mut out = Vec::new();
        let mut at = s.at;
        // Each parameter is at least 4 bytes long, so the walk ends within the chunk.
        while let (Some(t), Some(len)) = (self.be16(at, s), self.be16(at + 2, s)) {
            let ulen = usize::from(len);
            let value = Span {
                at: at + 4,
                end: s.end.min(at + ulen.max(4)),
            };
            let name = sctp_parameter_name(t);
            let mut type_f = hex(
                Field::uint("sctp.parameter_type", "Parameter type", t, at, 2),
                4,
            )
            .note(name.unwrap_or("Unknown"));
            let bit = |fname, mask: u16, words: [&'static str; 2]| {
                let on = t & mask != 0;
                let f = Field::boolean(fname, "Bit", on, at, 2).bits(u64::from(mask), 16);
                self.name(f, Some(words[usize::from(on)]))
            };
            type_f = type_f.children(vec![
                bit(
                    "sctp.parameter_bit_1",
                    0x8000,
                    [
                        "Stop processing of chunk",
                        "Skip parameter and continue processing of the chunk",
                    ],
                ),
                bit(
                    "sctp.parameter_bit_2",
                    0x4000,
                    ["Do not report", "Do report"],
                ),
            ]);
            let bytes = self.data.get(value.at..value.end).unwrap_or_default();
            let mut fields = vec![
                type_f,
                Field::uint("sctp.parameter_length", "Parameter length", len, at + 2, 2),
            ];
            let mut summary = String::new();
            // tshark shows a long value's first 36 bytes and an ellipsis.
            let cut = |f: Field| {
                if bytes.len() > 36 {
                    self.show(f, || format!("{}…", crate::field::hex(&bytes[..36])))
                } else {
                    f
                }
            };
            match t {
                1 => {
                    summary = format!(" (Information: {} bytes)", bytes.len());
                    let name = "sctp.parameter_heartbeat_information";
                    let label = "Heartbeat information";
                    fields.push(cut(Field::bytes(name, label, bytes, value.at)));
                }
                5 => {
                    if let Ok(b) = <[u8; 4]>::try_from(bytes) {
                        let a = std::net::Ipv4Addr::from(b);
                        summary = format!(" (Address: {a})");
                        let label = "IP Version 4 address";
                        fields.push(Field::ipv4(
                            "sctp.parameter_ipv4_address",
                            label,
                            a,
                            value.at,
                        ));
                    }
                }
                6 => {
                    if let Ok(b) = <[u8; 16]>::try_from(bytes) {
                        let a = std::net::Ipv6Addr::from(b);
                        summary = format!(" (Address: {a})");
                        let label = "IP Version 6 address";
                        fields.push(Field::ipv6(
                            "sctp.parameter_ipv6_address",
                            label,
                            a,
                            value.at,
                        ));
                    }
                }
                7 => {
                    summary = format!(" (Cookie length: {} bytes)", bytes.len());
                    let name = "sctp.parameter_state_cookie";
                    fields.push(cut(Field::bytes(name, "State cookie", bytes, value.at)));
                }
                9 => {
                    if let Some(v) = self.be32(value.at, value) {
                        let label = "Suggested Cookie life-span increment (msec)";
                        let name = "sctp.parameter_cookie_preservative_incr";
                        fields.push(Field::uint(name, label, v, value.at, 4));
                    }
                }
                12 => {
                    let mut types = Vec::new();
                    for (k, pair) in bytes.chunks_exact(2).enumerate() {
                        let v = u16::from_be_bytes([pair[0], pair[1]]);
                        let what = sctp_parameter_name(v).filter(|_| matches!(v, 5 | 6 | 11));
                        types.push(match v {
                            5 => "IPv4",
                            6 => "IPv6",
                            11 => "Hostname",
                            _ => "Unknown",
                        });
                        let label = "Supported address type";
                        let name = "sctp.parameter_supported_address_type";
                        let at = value.at + 2 * k;
                        fields.push(self.show(Field::uint(name, label, v, at, 2), || {
                            format!("{} ({v})", what.unwrap_or("Unknown"))
                        }));
                    }
                    summary = format!(" (Supported types: {})", types.join(", "));
                }
                0xc006 => {
                    if let Some(v) = self.be32(value.at, value) {
                        summary = format!(" (Indication: {v})");
                        let name = "sctp.adaptation_layer_indication";
                        fields.push(hex(Field::uint(name, "Indication", v, value.at, 4), 8));
                    }
                }
                // ECN capable, Forward TSN supported: the type says it all.
                0x8000 | 0xc000 => {}
                _ if !bytes.is_empty() => {
                    let label = "Parameter value";
                    fields.push(Field::bytes("sctp.parameter_value", label, bytes, value.at));
                }
                _ => {}
            }
            let padding = (4 - ulen % 4) % 4;
            let pad_at = at + ulen;
            if padding > 0 && ulen >= 4 && pad_at + padding <= s.end {
                if let Some(p) = self.data.get(pad_at..pad_at + padding) {
                    let label = "Parameter padding";
                    fields.push(Field::bytes("sctp.parameter_padding", label, p, pad_at));
                }
            }
            let title = self.label(|| format!("{} parameter{summary}", name.unwrap_or("Unknown")));
            out.push(Field::node("", title, at, ulen.max(4) + padding).children(fields));
            if ulen < 4 {
                break;
            }
            at += (ulen + 3) & !3;
        }
        out
    }

    /// ICMP or ICMPv6: type, code, checksum; then the packet an error message quotes (not in a
    /// quoted packet: quotes in quotes end there), or an echo's data.
    fn icmp(&mut self, s: Span, v6: bool, depth: u8) {
        let a = s.at;
        let (proto, title, p) = if v6 {
            ("icmpv6", "Internet Control Message Protocol v6", "icmpv6.")
        } else {
            ("icmp", "Internet Control Message Protocol", "icmp.")
        };
        let mut tree = Field::node(proto, title, a, s.len());
        let names: [&'static str; 3] = if p == "icmp." {
            ["icmp.type", "icmp.code", "icmp.checksum"]
        } else {
            ["icmpv6.type", "icmpv6.code", "icmpv6.checksum"]
        };
        if let Some(t) = self.u8(a, s) {
            tree = tree.child(Field::uint(names[0], "Type", t, a, 1));
        }
        if let Some(c) = self.u8(a + 1, s) {
            tree = tree.child(Field::uint(names[1], "Code", c, a + 1, 1));
        }
        if let Some(c) = self.be16(a + 2, s) {
            tree = tree.child(hex(Field::uint(names[2], "Checksum", c, a + 2, 2), 4));
        }
        self.push(proto, tree);
        let Some(t) = self.u8(a, s) else { return };
        let body = s.from(8);
        if body.len() == 0 {
            return;
        }
        let quote = !self.quoting;
        match (v6, t) {
            (false, 3 | 4 | 5 | 11 | 12) if quote => {
                self.quoting = true;
                self.icmp4_quote = Some(t);
                self.ipv4(body, depth);
            }
            (true, 1..=4) if quote => {
                self.quoting = true;
                self.ipv6(body, depth);
            }
            (false, 0 | 8) | (true, 128 | 129) => self.out.protocols.push("data"),
            _ => {}
        }
    }

    fn gre(&mut self, s: Span, depth: u8) {
        let a = s.at;
        let (Some(fv), Some(proto)) = (self.be16(a, s), self.be16(a + 2, s)) else {
            self.out.protocols.push("gre");
            return;
        };
        let what = match proto {
            ETHERTYPE_IPV4 => "IP",
            ETHERTYPE_IPV6 => "IPv6",
            ETHERTYPE_TEB => "Transparent Ethernet bridging",
            ETHERTYPE_MPLS => "MPLS label switched packet",
            _ => "Unknown",
        };
        let mut tree = Field::node(
            "gre",
            self.label(|| format!("Generic Routing Encapsulation ({what})")),
            a,
            4,
        )
        .children(vec![
            hex(
                Field::uint("gre.flags_and_version", "Flags and Version", fv, a, 2),
                4,
            ),
            hex(
                Field::uint("gre.proto", "Protocol Type", proto, a + 2, 2),
                4,
            ),
        ]);
        let (c, r, k, sq, version) = (
            fv & 0x8000 != 0,
            fv & 0x4000 != 0,
            fv & 0x2000 != 0,
            fv & 0x1000 != 0,
            fv & 7,
        );
        let mut at = a + 4;
        let mut whole = true;
        if c {
            match self.be16(at, s) {
                Some(sum) => {
                    tree = tree.child(hex(Field::uint("gre.checksum", "Checksum", sum, at, 2), 4))
                }
                None => whole = false,
            }
            at += 4;
        }
        if k {
            match self.be32(at, s) {
                Some(key) => tree = tree.child(hex(Field::uint("gre.key", "Key", key, at, 4), 8)),
                None => whole = false,
            }
            at += 4;
        }
        if sq {
            match self.be32(at, s) {
                Some(n) => {
                    tree = tree.child(Field::uint(
                        "gre.sequence_number",
                        "Sequence Number",
                        n,
                        at,
                        4,
                    ))
                }
                None => whole = false,
            }
            at += 4;
        }
        tree.len = at - a;
        self.push("gre", tree);
        // Version 1 (PPTP) and source routes are not decoded further, as the dissector does.
        if whole && !r && version == 0 {
            self.ethertype(proto, s.from(at - a), depth);
        }
    }

    fn vxlan(&mut self, s: Span, depth: u8) {
        let a = s.at;
        let (Some(flags), Some(vni)) = (self.be16(a, s), self.be24(a + 4, s)) else {
            self.out.protocols.push("vxlan");
            return;
        };
        let tree =
            Field::node("vxlan", "Virtual eXtensible Local Area Network", a, 8).children(vec![
                hex(Field::uint("vxlan.flags", "Flags", flags, a, 2), 4),
                Field::uint("vxlan.vni", "VXLAN Network Identifier (VNI)", vni, a + 4, 3),
            ]);
        self.push("vxlan", tree);
        if s.len() >= 8 {
            self.ethernet(s.from(8), depth);
        }
    }

    fn geneve(&mut self, s: Span, depth: u8) {
        let a = s.at;
        let (Some(b0), Some(proto), Some(vni)) =
            (self.u8(a, s), self.be16(a + 2, s), self.be24(a + 4, s))
        else {
            self.out.protocols.push("geneve");
            return;
        };
        let header = 8 + usize::from(b0 & 0x3f) * 4;
        let tree = Field::node(
            "geneve",
            "Generic Network Virtualization Encapsulation",
            a,
            header,
        )
        .children(vec![
            Field::uint("geneve.version", "Version", b0 >> 6, a, 1),
            hex(
                Field::uint("geneve.proto_type", "Protocol Type", proto, a + 2, 2),
                4,
            ),
            hex(
                Field::uint(
                    "geneve.vni",
                    "Virtual Network Identifier (VNI)",
                    vni,
                    a + 4,
                    3,
                ),
                6,
            ),
        ]);
        self.push("geneve", tree);
        if b0 >> 6 == 0 && s.len() >= header {
            self.ethertype(proto, s.from(header), depth);
        }
    }

    /// An MPLS label stack, then IPv4 or IPv6 by the first nibble after it, as tshark guesses.
    fn mpls(&mut self, s: Span, depth: u8) {
        if depth >= MAX_ENCAPSULATIONS {
            return;
        }
        self.out.protocols.push("mpls");
        let mut at = s.at;
        for _ in 0..MAX_LABELS {
            let Some(w) = self.be32(at, s) else { return };
            let (label, exp, bottom, ttl) = (w >> 12, (w >> 9) & 7, (w >> 8) & 1, w & 0xff);
            let tree = Field::node(
                "mpls",
                self.label(|| {
                    format!(
                        "MultiProtocol Label Switching Header, Label: {label}, Exp: {exp}, S: \
                         {bottom}, TTL: {ttl}"
                    )
                }),
                at,
                4,
            )
            .children(vec![
                Field::uint("mpls.label", "MPLS Label", label, at, 4),
                Field::uint("mpls.exp", "MPLS Experimental Bits", exp, at, 4),
                Field::uint("mpls.bottom", "MPLS Bottom Of Label Stack", bottom, at, 4),
                Field::uint("mpls.ttl", "MPLS TTL", ttl, at, 4),
            ]);
            self.out.trees.push(tree);
            at += 4;
            if bottom == 1 {
                let rest = s.from(at - s.at);
                match self.u8(at, s).map(|b| b >> 4) {
                    Some(4) => self.ipv4(rest, depth + 1),
                    Some(6) => self.ipv6(rest, depth + 1),
                    _ => {}
                }
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::find_all;

    fn values(l: &Layers, name: &str) -> Vec<String> {
        find_all(&l.trees, name)
            .iter()
            .map(|f| f.display_value())
            .collect()
    }

    #[test]
    fn init_field_names_are_fields() {
        for name in INIT_FIELDS.iter().chain(&INITACK_FIELDS) {
            assert!(is_field(name), "{name} is not in FIELDS");
        }
    }

    /// An Ethernet + IPv4 + SCTP frame with a DATA chunk (PPID 11) and a SACK.
    fn sctp_frame() -> Vec<u8> {
        let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00];
        let sctp_len = 12 + 20 + 16;
        let total = 20 + sctp_len;
        f.extend_from_slice(&[
            0x45,
            0xb8,
            (total >> 8) as u8,
            total as u8,
            0x12,
            0x34,
            0x40,
            0,
        ]);
        f.extend_from_slice(&[64, 132, 0xab, 0xcd, 192, 0, 2, 1, 192, 0, 2, 2]);
        f.extend_from_slice(&[0x8b, 0x24, 0x0f, 0x17, 1, 2, 3, 4, 0xf4, 0, 0xb0, 0xe9]);
        // DATA: flags B|E, length 20 (4 bytes of payload), TSN 100, SID 1, SSN 7, PPID 11.
        f.extend_from_slice(&[
            0, 3, 0, 20, 0, 0, 0, 100, 0, 1, 0, 7, 0, 0, 0, 11, 1, 2, 3, 4,
        ]);
        // SACK: cumulative TSN 99, a_rwnd 65536, no gaps.
        f.extend_from_slice(&[3, 0, 0, 16, 0, 0, 0, 99, 0, 1, 0, 0, 0, 0, 0, 0]);
        f
    }

    #[test]
    fn ethernet_ipv4_sctp() {
        let l = decode(linktype::ETHERNET, &sctp_frame(), &TunnelPorts::default());
        assert_eq!(l.protocols, ["eth", "ethertype", "ip", "sctp"]);
        assert_eq!(
            values(&l, "eth.addr"),
            ["02:00:00:00:00:02", "02:00:00:00:00:01"]
        );
        assert_eq!(values(&l, "eth.type"), ["0x0800"]);
        assert_eq!(values(&l, "ip.dsfield"), ["0xb8"]);
        assert_eq!(values(&l, "ip.dsfield.dscp"), ["46"]);
        assert_eq!(values(&l, "ip.flags"), ["0x02"]);
        assert_eq!(values(&l, "ip.flags.df"), ["true"]);
        assert_eq!(values(&l, "ip.id"), ["0x1234"]);
        assert_eq!(values(&l, "ip.hdr_len"), ["20"]);
        assert_eq!(values(&l, "sctp.verification_tag"), ["0x01020304"]);
        assert_eq!(values(&l, "sctp.chunk_type"), ["0", "3"]);
        assert_eq!(values(&l, "sctp.chunk_length"), ["20", "16"]);
        assert_eq!(values(&l, "sctp.data_payload_proto_id"), ["11"]);
        assert_eq!(values(&l, "sctp.data_sid"), ["0x0001"]);
        assert_eq!(values(&l, "sctp.data_b_bit"), ["true"]);
        assert_eq!(values(&l, "sctp.sack_a_rwnd"), ["65536"]);
    }

    #[test]
    fn every_cut_decodes_what_is_whole_and_never_panics() {
        let f = sctp_frame();
        for cut in 0..f.len() {
            let l = decode(linktype::ETHERNET, &f[..cut], &TunnelPorts::default());
            let whole = |n: usize| cut >= n;
            assert_eq!(!values(&l, "eth.src").is_empty(), whole(14), "cut {cut}");
            assert_eq!(!values(&l, "ip.dst").is_empty(), whole(34), "cut {cut}");
            assert_eq!(
                !values(&l, "sctp.checksum").is_empty(),
                whole(46),
                "cut {cut}"
            );
            assert_eq!(
                !values(&l, "sctp.data_payload_proto_id").is_empty(),
                whole(62),
                "cut {cut}"
            );
        }
        // Every link type over every prefix of every byte pattern tried.
        for lt in [0, 1, 12, 101, 108, 113, 228, 229, 276, 9999] {
            for fill in [0u8, 0x45, 0x60, 0xff, 0x81, 0x08] {
                let mut b = f.clone();
                for (i, x) in b.iter_mut().enumerate().skip(12) {
                    if i % 3 == 0 {
                        *x = fill;
                    }
                }
                for cut in 0..b.len() {
                    let _ = decode(lt, &b[..cut], &TunnelPorts::default());
                }
            }
        }
    }

    #[test]
    fn malformed_lengths_stop_the_walk() {
        let mut f = sctp_frame();
        // An IHL of 2 (8 bytes): the IP fields are given, nothing after them.
        f[14] = 0x42;
        let l = decode(linktype::ETHERNET, &f, &TunnelPorts::default());
        assert_eq!(l.protocols, ["eth", "ethertype", "ip"]);
        assert_eq!(values(&l, "ip.hdr_len"), ["8"]);
        // A chunk length of 0: the chunk is given, the walk stops.
        let mut f = sctp_frame();
        f[48] = 0;
        f[49] = 0;
        let l = decode(linktype::ETHERNET, &f, &TunnelPorts::default());
        assert_eq!(values(&l, "sctp.chunk_length"), ["0"]);
        // A fragment: its payload is data.
        let mut f = sctp_frame();
        f[20] = 0x20;
        let l = decode(linktype::ETHERNET, &f, &TunnelPorts::default());
        assert_eq!(l.protocols, ["eth", "ethertype", "ip", "data"]);
    }

    /// Whether `v` is `full` with only the labels `full` formatted left empty.
    /// The display alone (labels, `-V`'s wording, nameless lines) left out.
    fn same_but_labels(full: &Field, v: &Field) -> bool {
        let label =
            v.label == full.label || (v.label.is_empty() && matches!(full.label, Cow::Owned(_)));
        let shown = |c: &&Field| !(c.name.is_empty() && c.children.is_empty());
        let named: Vec<&Field> = full.children.iter().filter(shown).collect();
        let v_named: Vec<&Field> = v.children.iter().filter(shown).collect();
        label
            && Field {
                label: full.label.clone(),
                note: full.note.clone(),
                shown: full.shown.clone(),
                children: Vec::new(),
                ..v.clone()
            } == Field {
                children: Vec::new(),
                ..full.clone()
            }
            && v_named.len() == named.len()
            && named
                .iter()
                .zip(&v_named)
                .all(|(f, v)| same_but_labels(f, v))
    }

    #[test]
    fn the_values_alone_are_the_same_trees() {
        let mut frames = vec![sctp_frame()];
        let mut f = sctp_frame();
        // A TCP segment, a UDP datagram, an ICMP echo.
        for proto in [6, 17, 1] {
            f[23] = proto;
            frames.push(f.clone());
        }
        // An 802.1Q tag, and an MPLS label before the IPv4 packet.
        let mut tagged = sctp_frame();
        tagged.splice(12..12, [0x81, 0x00, 0xa0, 10]);
        frames.push(tagged);
        let mut mpls = sctp_frame();
        mpls.splice(12..14, [0x88, 0x47, 0, 1, 0x41, 64]);
        frames.push(mpls);
        for f in &frames {
            for cut in 0..=f.len() {
                let (full, values) = (
                    decode(linktype::ETHERNET, &f[..cut], &TunnelPorts::default()),
                    decode_values(linktype::ETHERNET, &f[..cut], &TunnelPorts::default()),
                );
                assert_eq!(full.protocols, values.protocols, "cut {cut}");
                assert_eq!(full.trees.len(), values.trees.len(), "cut {cut}");
                for (a, b) in full.trees.iter().zip(&values.trees) {
                    assert!(same_but_labels(a, b), "cut {cut}: {a:?} / {b:?}");
                }
            }
        }
        let l = decode_values(linktype::ETHERNET, &sctp_frame(), &TunnelPorts::default());
        assert!(l
            .trees
            .iter()
            .all(|t| t.name.is_empty() || t.label.is_empty()));
        assert_eq!(values(&l, "ip.ttl"), ["64"]);
    }

    #[test]
    fn vlan_tags_and_tunnels_nest_to_the_bound() {
        // 802.1Q tag 10 priority 5, then IPv4 carrying IPv4 in IP five times.
        let mut f = vec![
            2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x81, 0x00, 0xa0, 10, 0x08, 0x00,
        ];
        for _ in 0..6 {
            f.extend_from_slice(&[
                0x45, 0, 0, 0, 0, 0, 0, 0, 64, 4, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
            ]);
        }
        let l = decode(linktype::ETHERNET, &f, &TunnelPorts::default());
        assert_eq!(values(&l, "vlan.id"), ["10"]);
        assert_eq!(values(&l, "vlan.priority"), ["5"]);
        assert_eq!(values(&l, "vlan.etype"), ["0x0800"]);
        // The frame's own IP layer and four encapsulated ones.
        assert_eq!(values(&l, "ip.ttl").len(), 5);
    }
}
