//! poolshark: a Wireshark-style dissector and load-balancing analyser for RSerPool (ASAP/ENRP),
//! DHCPv4/DHCPv6 and the ISC DHCP failover protocol.
//!
//! The modules follow the flow of data:
//! [`source`] (frames) -> [`dissect`] (the walk over the lower layers of [`wire`], reassembly,
//! dispatch) -> [`proto`] (messages) -> [`pipeline`] / [`handoff`] -> [`analyse`] (events,
//! reference algorithms, findings) -> [`output`] -> [`run`] (each command's sinks and run).
//! [`base`] and [`field`] hold what all of them share, [`filter`] the display and capture
//! filters; [`config`] reads the operator's own setup (dhcpd.conf, Kea's configuration), which
//! the analysers take as their reference; [`probe`] asks a live DHCP server pair instead of
//! listening to it. The command line and the terminal UI are the binary's own, behind [`main`].
//! docs/architecture.md gives the layers and a paragraph per module.

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
