//! DHCP load balancing: the reference (the RFC 3074 hash, the hash bucket assignment shared by a
//! server pair, the per-implementation rules as profiles: pure modules, no I/O, no dependency on
//! the decoders) and the replay that checks a capture against it in `poolshark check`.
//!
//! The replay's layers, in the order data flows: `events` (typed events from decoded messages),
//! `servers` (which server sent an answer), `transactions` (which answer belongs to which client
//! transmission), `state` (failover state and server silences), `classify` (what a profile says
//! of a message), `inference` and `config` (the pair's model; `from_setup` turns the operator's
//! dhcpd.conf or Kea configuration into `config`'s form), `episodes` (what the pair was doing
//! when: normal, peer-silent, takeover, recovery), `share` (each server's share against its
//! episode's reference), `judge` (findings), `replay` (the analyser), `report` (text and JSON).

pub mod classify;
pub mod config;
pub mod episodes;
pub mod events;
pub mod from_setup;
pub mod hash;
pub mod hba;
pub mod inference;
pub mod judge;
pub mod model;
pub mod profile;
pub mod replay;
mod report;
pub mod rules;
pub mod servers;
pub mod share;
pub mod state;
pub mod transactions;
pub mod undecided;

pub use config::{ConfigFile, Overrides, Settings};
pub use hash::bucket;
pub use hba::{Hba, HbaError, Role};
pub use profile::{KeyOutcome, Profile, Stid, StidSource};
pub use replay::DhcpLbAnalyser;
