//! Building traffic: capture writers (pcap and pcapng) and whole packets from Ethernet down to
//! SCTP chunks, with correct lengths and checksums, built on each header's emit in
//! [`crate::wire`]. The tests use it for round trips (build, write,
//! read, dissect, compare), the protocol fixtures and the large-capture generator build on it.
//!
//! Builders append to a caller's `Vec<u8>`, so a generator can reuse one buffer for every packet.
//!
//! On top of them, [`scenario`] describes whole conversations (RSerPool pools, DHCP server pairs,
//! ISC failover, background traffic) deterministically from a seed, with hooks to plant
//! deviations, and merges them into one capture; [`fixtures`] builds the project's committed
//! test captures with it.

pub mod fixtures;
pub mod flow;
pub mod ip;
pub mod packet;
pub mod scenario;
pub mod tunnel;

pub use flow::{SctpAssociation, SendOptions, TcpFlow};
pub use packet::{Ip, Link, Packet, Transport};
// The capture writers, with the packets they write.
pub use crate::output::pcap::{IfOptions, PacketOptions, PcapNgWriter, PcapWriter, TsResolution};
