//! The lower layers of one frame as display trees, decoded from its bytes on demand: what
//! `read -V` prints above the messages and what display filters and `-T fields -e` look up for
//! the names of [`FIELDS`] (Ethernet, Cisco FabricPath, 802.1Q, Linux cooked, PPP, IPv4, IPv6,
//! UDP, TCP, SCTP and its chunks, ICMP, ICMPv6, ARP, GRE, VXLAN, Geneve, Teredo, MPLS), with
//! Wireshark 4.0's names, types and bases.
//!
//! Each protocol's fields are its own file's in [`crate::wire`]: a function that gives the
//! protocol's tree and what follows it ([`Next`]). The walk here is a loop over those `Next`
//! values: it names the protocols of `frame.protocols`, notes the transports, and bounds the
//! encapsulations to [`MAX_ENCAPSULATIONS`].
//!
//! [`decode`] is a pure function of the link type and the bytes: it keeps no state (no
//! reassembly: a fragment's payload is `data`, as tshark shows a fragment it has not reassembled;
//! the stateful fields, TCP and UDP stream indices and relative TCP sequence numbers, are added
//! afterwards by [`super::streams`] from the [`Layers::transports`] noted here), never panics, and
//! walks as the dissector does, stopping at the application payload. A header cut short gives the
//! fields that are whole. The dissector's hot path ([`super::Dissector`],
//! [`super::FrameSummary`]) does none of this: `read` calls it only when a filter, a column or
//! `-V` names a field of it.
//!
//! Offsets are the frame's. The trees come outermost first, as tshark lists occurrences.

use std::net::IpAddr;

use crate::base::linktype;
use crate::field::Field;
use crate::wire::ethernet::{ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use crate::wire::fabricpath::ETHERTYPE_FABRICPATH;
use crate::wire::ip::{PROTO_ICMP, PROTO_ICMPV6, PROTO_IGMP, PROTO_SCTP, PROTO_TCP, PROTO_UDP};
use crate::wire::mpls::{ETHERTYPE_MPLS, ETHERTYPE_MPLS_MULTICAST};
use crate::wire::sctp::UDP_ENCAPSULATION_PORT;
use crate::wire::tunnel::{
    TunnelPorts, UdpTunnel, ETHERTYPE_TEB, MAX_ENCAPSULATIONS, PROTO_GRE, PROTO_IPIP, PROTO_IPV6,
};
use crate::wire::view::{Next, Span, View};
use crate::wire::vlan::{MAX_VLAN_TAGS, VLAN_TPIDS};
use crate::wire::{
    arp, ethernet, fabricpath, geneve, gre, icmp, ipv4, ipv6, loopback, mpls, ppp, sctp, sll, tcp,
    teredo, udp, vlan, vxlan,
};

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

/// Whether `name` is one of [`FIELDS`].
pub fn is_field(name: &str) -> bool {
    FIELDS.contains(&name)
}

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
        v: View { data, labels },
        tunnels,
        // Room for the usual stack (Ethernet, IP, transport and what it carries) up front.
        out: Layers {
            trees: Vec::with_capacity(4),
            protocols: Vec::with_capacity(6),
            transports: Vec::new(),
        },
        quoting: false,
        icmp4_quote: None,
        addrs: None,
        fragment: false,
    };
    let first = w.link(lt);
    w.follow(first);
    w.out
}

struct Walk<'a> {
    v: View<'a>,
    /// The UDP ports of VXLAN and Geneve.
    tunnels: &'a TunnelPorts,
    out: Layers,
    /// Within the packet an ICMP error quotes (whose own ICMP errors are not followed).
    quoting: bool,
    /// The type of the ICMPv4 error quoting the packet, if it is one: tshark decodes a TCP
    /// header quoted by ICMPv4 its own way.
    icmp4_quote: Option<u8>,
    /// The source and destination of the innermost IP header so far, for [`Transport`].
    addrs: Option<(IpAddr, IpAddr)>,
    /// Within the first fragment of an IPv4 packet (one cut short by the capture, the only kind
    /// whose transport is decoded).
    fragment: bool,
}

impl Walk<'_> {
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

    /// The link header of link type `lt` and what follows it.
    fn link(&mut self, lt: u32) -> Next {
        let v = self.v;
        let all = Span {
            at: 0,
            end: v.data.len(),
        };
        match lt {
            linktype::ETHERNET => Next::Ethernet(all),
            linktype::LINUX_SLL => self.shown("sll", sll::fields(&v, all)),
            linktype::LINUX_SLL2 => self.shown("sll", sll::fields_v2(&v, all)),
            linktype::RAW | 12 | 14 => {
                self.out.protocols.push("raw");
                match v.u8(0, all).map(|b| b >> 4) {
                    Some(4) => Next::Ipv4(all),
                    Some(6) => Next::Ipv6(all),
                    _ => Next::End,
                }
            }
            // The link type says which IP it is: tshark shows no "raw" layer before it.
            linktype::IPV4 => Next::Ipv4(all),
            linktype::IPV6 => Next::Ipv6(all),
            linktype::PPP | linktype::PPP_HDLC => {
                let (tree, next) = ppp::fields(&v, all);
                self.push("ppp", tree);
                next
            }
            linktype::NULL | linktype::LOOP => {
                self.out.protocols.push("null");
                loopback::fields(&v, all)
            }
            _ => Next::End,
        }
    }

    /// Pushes a header's tree as `proto` and gives what follows it; nothing when it was cut
    /// short.
    fn shown(&mut self, proto: &'static str, shown: Option<(Field, Next)>) -> Next {
        match shown {
            Some((tree, next)) => {
                self.push(proto, tree);
                next
            }
            None => Next::End,
        }
    }

    /// Like [`Self::shown`], but a header cut short still names its protocol.
    fn named(&mut self, proto: &'static str, shown: Option<(Field, Next)>) -> Next {
        if shown.is_none() {
            self.out.protocols.push(proto);
        }
        self.shown(proto, shown)
    }

    /// Decodes what follows a header, header after header, through at most
    /// [`MAX_ENCAPSULATIONS`] encapsulations (`depth` counts them).
    fn follow(&mut self, mut next: Next) {
        let v = self.v;
        let mut depth = 0u8;
        loop {
            next = match next {
                Next::End => return,
                Next::Data => {
                    self.out.protocols.push("data");
                    return;
                }
                Next::Ethernet(s) => {
                    if v.be16(s.at + 12, s) == Some(ETHERTYPE_FABRICPATH) {
                        match fabricpath::fields(&v, s) {
                            Some((tree, next)) => {
                                self.out.protocols.push("eth");
                                self.push("cfp", tree);
                                next
                            }
                            None => return,
                        }
                    } else {
                        Next::EthernetFrame(s)
                    }
                }
                Next::EthernetFrame(s) => self.shown("eth", ethernet::fields(&v, s)),
                Next::Tagged(t, s) => {
                    // The EtherType of a link header, then its VLAN tags.
                    self.out.protocols.push("ethertype");
                    let (mut t, mut s, mut tags) = (t, s, 0);
                    while VLAN_TPIDS.contains(&t) && tags < MAX_VLAN_TAGS {
                        let Some((proto, tree, next)) = vlan::fields(&v, t, s) else {
                            return;
                        };
                        self.push(proto, tree);
                        let Next::Tagged(n, rest) = next else {
                            return;
                        };
                        self.out.protocols.push("ethertype");
                        (t, s) = (n, rest);
                        tags += 1;
                    }
                    Next::Ethertype(t, s)
                }
                Next::Ethertype(t, s) => match t {
                    ETHERTYPE_IPV4 => Next::Ipv4(s),
                    ETHERTYPE_IPV6 => Next::Ipv6(s),
                    ETHERTYPE_ARP => {
                        match arp::fields(&v, s) {
                            Some(tree) => self.push("arp", tree),
                            None => self.out.protocols.push("arp"),
                        }
                        return;
                    }
                    ETHERTYPE_MPLS | ETHERTYPE_MPLS_MULTICAST => {
                        if depth >= MAX_ENCAPSULATIONS {
                            return;
                        }
                        self.out.protocols.push("mpls");
                        let (trees, next) = mpls::fields(&v, s);
                        self.out.trees.extend(trees);
                        if next != Next::End {
                            depth += 1;
                        }
                        next
                    }
                    ETHERTYPE_TEB => Next::Ethernet(s),
                    _ => return,
                },
                Next::Ipv4(s) => self.named("ip", ipv4::fields(&v, s)),
                Next::Ipv6(s) => self.named("ipv6", ipv6::fields(&v, s)),
                Next::Ipv6Extensions {
                    next,
                    span,
                    src,
                    dst,
                } => ipv6::extensions(&v, next, span, src, dst, &mut self.out.protocols),
                Next::Ip {
                    protocol,
                    span,
                    src,
                    dst,
                    fragment,
                } => {
                    self.addrs = Some((src, dst));
                    self.fragment = fragment;
                    match protocol {
                        PROTO_UDP => self.udp(span, &mut depth),
                        PROTO_TCP => {
                            self.tcp(span);
                            return;
                        }
                        PROTO_SCTP => {
                            self.sctp(span);
                            return;
                        }
                        PROTO_ICMP | PROTO_ICMPV6 => {
                            let (proto, tree, next) =
                                icmp::fields(&v, span, protocol == PROTO_ICMPV6, self.quoting);
                            self.push(proto, tree);
                            next
                        }
                        PROTO_IGMP => {
                            self.out.protocols.push("igmp");
                            return;
                        }
                        PROTO_IPIP | PROTO_IPV6 | PROTO_GRE if depth < MAX_ENCAPSULATIONS => {
                            depth += 1;
                            match protocol {
                                PROTO_IPIP => Next::Ipv4(span),
                                PROTO_IPV6 => Next::Ipv6(span),
                                _ => self.named("gre", gre::fields(&v, span)),
                            }
                        }
                        _ => return,
                    }
                }
                Next::Quoted { v6, icmp4, packet } => {
                    self.quoting = true;
                    if v6 {
                        Next::Ipv6(packet)
                    } else {
                        self.icmp4_quote = icmp4;
                        Next::Ipv4(packet)
                    }
                }
            };
        }
    }

    /// A UDP header, and what its ports say it carries: a tunnel (one encapsulation deeper),
    /// SCTP over UDP, or nothing the walk decodes.
    fn udp(&mut self, s: Span, depth: &mut u8) -> Next {
        let v = self.v;
        let Some((tree, sport, dport, payload)) = udp::fields(&v, s) else {
            self.out.protocols.push("udp");
            return Next::End;
        };
        self.note_transport(sport, dport, TransportKind::Udp);
        self.push("udp", tree);
        let tunnel = self
            .tunnels
            .by_ports(sport, dport)
            .filter(|_| *depth < MAX_ENCAPSULATIONS);
        let teredo = || teredo::parse(v.bytes(payload)).map(|o| o.header_len);
        if tunnel == Some(UdpTunnel::Vxlan) {
            *depth += 1;
            self.named("vxlan", vxlan::fields(&v, payload))
        } else if tunnel == Some(UdpTunnel::Geneve) {
            *depth += 1;
            self.named("geneve", geneve::fields(&v, payload))
        } else if let Some(header) = teredo().filter(|_| tunnel == Some(UdpTunnel::Teredo)) {
            *depth += 1;
            self.push("teredo", teredo::fields(payload, header));
            Next::Ipv6(payload.from(header))
        } else if sport == UDP_ENCAPSULATION_PORT || dport == UDP_ENCAPSULATION_PORT {
            self.sctp(payload);
            Next::End
        } else {
            Next::End
        }
    }

    fn tcp(&mut self, s: Span) {
        let icmp4 = self.icmp4_quote.filter(|_| self.quoting);
        let Some((tree, numbers)) = tcp::fields(&self.v, s, icmp4, self.fragment, self.quoting)
        else {
            self.out.protocols.push("tcp");
            return;
        };
        if let Some(n) = numbers {
            let header = TcpHeader {
                seq: n.seq,
                ack: n.ack,
                flags: n.flags,
                hdr_len: n.hdr_len,
                seg_len: n.seg_len,
            };
            self.note_transport(n.sport, n.dport, TransportKind::Tcp(header));
        }
        self.push("tcp", tree);
    }

    fn sctp(&mut self, s: Span) {
        let Some((tree, sport, dport, vtag)) = sctp::show::fields(&self.v, s) else {
            self.out.protocols.push("sctp");
            return;
        };
        self.note_transport(sport, dport, TransportKind::Sctp { vtag });
        self.push("sctp", tree);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::find_all;
    use crate::wire::sctp::show::{INITACK_FIELDS, INIT_FIELDS};
    use std::borrow::Cow;

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
