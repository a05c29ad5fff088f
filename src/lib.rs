//! poolshark: a Wireshark-style dissector and load-balancing analyser for RSerPool (ASAP/ENRP),
//! DHCPv4/DHCPv6 and the ISC DHCP failover protocol.
//!
//! The modules follow the flow of data:
//! [`source`] (frames) -> [`dissect`] (link, IP, UDP, TCP, SCTP, reassembly, dispatch) ->
//! [`proto`] (messages) -> [`analyse`] (events, reference algorithms, findings) -> [`output`]
//! and [`tui`]. [`config`] reads the operator's own setup (dhcpd.conf, Kea's configuration), which
//! the analysers take as their reference; [`probe`] asks a live DHCP server pair instead of
//! listening to it.

pub mod analyse;
pub mod base;
pub(crate) mod cli;
pub mod config;
pub mod dissect;
pub mod error;
pub mod field;
pub mod filter;
pub mod fuzzing;
pub mod generate;
pub mod handoff;
pub mod output;
pub mod pipeline;
pub(crate) mod privileges;
pub mod probe;
pub mod proto;
pub mod run;
pub mod source;
#[doc(hidden)]
pub mod test_support;
pub(crate) mod tui;
pub mod wire;

/// The command line (`poolshark ...`): what the binary runs; returns the exit code.
pub use cli::main;
