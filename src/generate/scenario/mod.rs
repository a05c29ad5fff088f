//! Whole conversations, deterministic from a seed: RSerPool pools ([`rserpool`]), a DHCP
//! load-balancing server pair with v4 and v6 clients ([`dhcp`]), an ISC failover pair
//! ([`failover`]) and unrelated TCP/UDP traffic ([`background`]); [`Mix`] merges any of them by
//! time into one capture, streamed to a [`FrameSink`] one exchange at a time (memory does not grow
//! with the number of frames).
//!
//! Each scenario is a [`Scenario`]: asked for its next exchange, it appends that exchange's frames
//! to a [`Batch`] with their times. Scenarios answer as the project's reference algorithms say a
//! correct server answers (the selection policies of `analyse::policy`, the RFC 3074 hash and
//! bucket assignment of `analyse::dhcp_lb`, the pool balancer and its schedule of
//! `analyse::failover`), so a capture without planted deviations is one an analyser should find
//! nothing wrong with.
//!
//! # Planting deviations
//!
//! Tests of the analysers build small captures with known faults. The hooks:
//!
//! * RSerPool: [`rserpool::Plant`] spoils chosen Handle Resolution Responses (wrong order, stuck
//!   round-robin head, unknown or duplicate PE, best PE skipped, too many items, a weight-0 PE,
//!   a favoured PE); [`rserpool::Action::RegisterInconsistent`] with `accept` makes a registrar
//!   accept a PE of another policy. A script ([`rserpool::RserpoolConfig::script`]) fixes exactly
//!   what happens.
//! * DHCP: [`dhcp::DhcpPlant`] makes the wrong server answer, both answer, nobody answer, or the
//!   named server ignore a directed request; [`dhcp::DhcpConfig`] can give the two servers
//!   different bucket maps (a conflict) or make them hash only 16 bytes of long DUIDs.
//! * Failover: [`failover::FailoverPlant`] gives a lease away against its affinity, gives one
//!   lease more than the reference in a run, or sends a needless POOLREQ.
//!
//! Every frame that carries a planted deviation is marked; [`Mix::run`] returns them in
//! [`RunLog::planted`] with their frame numbers (1-based, as `poolshark read` numbers frames) and
//! the rule id a correct analyser is expected to report there.
//!
//! ```
//! use poolshark::analyse::dhcp_lb::{profile::KEA, Hba};
//! use poolshark::generate::scenario::dhcp::{
//!     DhcpAction, DhcpConfig, DhcpFault, DhcpPlant, DhcpScenario, Exchange,
//! };
//! use poolshark::generate::scenario::{CaptureFormat, Frames, Mix};
//!
//! let mut cfg = DhcpConfig::new(&KEA, Hba::kea());
//! cfg.clients = 4;
//! // Four DORAs, one after the other; the third is answered by the server that does not own
//! // the client's bucket (the DISCOVER its owner left unanswered is marked, and so are the
//! // other server's OFFER and, Kea balancing REQUEST too, its ACK).
//! cfg.script = Some(
//!     (0..4)
//!         .map(|client| DhcpAction::Do { client, exchange: Exchange::Dora, elapsed: 0 })
//!         .collect(),
//! );
//! cfg.plants.push(DhcpPlant::at(2, DhcpFault::WrongServer));
//! let mut mix = Mix::new();
//! mix.add(Box::new(DhcpScenario::new(cfg, 1).unwrap()), 0);
//! let mut frames = Frames::default();
//! let log = mix.run(None, &mut frames).unwrap();
//! let rules: Vec<&str> = log.planted.iter().map(|p| p.rule).collect();
//! assert_eq!(rules, ["dhcp.lb.no-answer", "dhcp.lb.wrong-server", "dhcp.lb.wrong-server"]);
//! // Write it where a test can run `poolshark check` on it.
//! let pcap: Vec<u8> = frames.to_capture(CaptureFormat::Pcap).unwrap();
//! assert!(pcap.len() > 24);
//! ```
//!

pub mod background;
pub mod batch;
pub mod dhcp;
pub mod failover;
pub mod faults;
pub mod mix;
pub mod net;
pub mod pace;
pub mod preset;
pub mod rserpool;
pub mod sink;

#[cfg(test)]
mod tests;

pub use batch::{Batch, Mark};
pub use mix::{Mix, Planted, RunLog};
pub use sink::{CaptureFile, CaptureFormat, FrameSink, Frames};

/// Why a scenario cannot be built from its configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError(pub String);

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScenarioError {}

/// A conversation that says one exchange at a time.
pub trait Scenario {
    /// Short name, for the run's log ("rserpool", "dhcp", ...).
    fn name(&self) -> &'static str;

    /// Appends the frames of the next exchange to `out`: first [`Batch::begin`] (or
    /// [`Batch::begin_after`]) with a start no earlier than the previous exchange's, then its
    /// frames, none before that start. Returns false when the scenario has nothing more to say
    /// (and appended nothing).
    fn step(&mut self, out: &mut Batch) -> bool;

    /// Planted deviations that wait for a time or a place to show and have not been planted
    /// yet (the capture ended first).
    fn plants_left(&self) -> usize {
        0
    }
}
