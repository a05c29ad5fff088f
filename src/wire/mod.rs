//! The lower-layer protocols, one file each: Ethernet ([`ethernet`]), Cisco FabricPath
//! ([`fabricpath`]), VLAN tags ([`vlan`]), Linux cooked captures ([`sll`]), PPP ([`ppp`]), BSD
//! loopback ([`loopback`]), ARP ([`arp`]), IPv4 ([`ipv4`]), IPv6 and its extension headers
//! ([`ipv6`]), ICMP and ICMPv6 ([`icmp`]), UDP ([`udp`]), the TCP header ([`tcp`]), SCTP's
//! common header and chunks ([`sctp`]), and the tunnels GRE ([`gre`]), VXLAN ([`vxlan`]), Geneve
//! ([`geneve`]), Teredo ([`teredo`]) and MPLS ([`mpls`]). [`link`] decodes a frame's link layer
//! by its link type; [`ip`] and [`tunnel`] hold what several of them share.
//!
//! Each file holds its protocol's checked parse (lengths checked, errors at offsets relative to
//! the header, no panic on any input), its display fields where `read` shows them (a function
//! that returns the protocol's field tree and what comes next, [`view::Next`]; the walk over a
//! frame is [`crate::dissect::layers`]'s), and its emit (what [`crate::generate`] builds
//! packets with), with round-trip tests. Nothing here keeps state: reassembly, streams and
//! conversations are [`crate::dissect`]'s.

pub mod arp;
pub mod bytes;
pub mod ethernet;
pub mod fabricpath;
pub mod geneve;
pub mod gre;
pub mod icmp;
pub mod ip;
pub mod ipv4;
pub mod ipv6;
pub mod link;
pub mod loopback;
pub mod mpls;
pub mod ppp;
pub mod sctp;
pub mod sll;
pub mod tcp;
pub mod teredo;
pub mod tunnel;
pub mod udp;
pub mod view;
pub mod vlan;
pub mod vxlan;
