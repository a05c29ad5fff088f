//! ISC DHCP failover pool balance: the lease state of each pool as the pair's messages (or a
//! `dhcpd.leases` file) describe it, the balancer reference with its `isc-code` and `isc-doc`
//! profiles as data, and the finding rules, replayed over typed events.
//!
//! The flow: [`derive::derive`] turns each decoded [`crate::proto::failover::Message`] (with its
//! frame, capture time and sender's role, see [`derive::Roles`]) into an [`events::Event`], and
//! [`derive::offer`] each server's DHCPOFFER (which moves a lease in that server's queue without
//! a word to its peer); [`replay::Replay::push`] applies them to the [`state::LeaseState`], groups
//! the servers' giveaways into observed balance runs, compares each with [`balancer::plan`] from
//! the same state, and reports the rules of [`rules`]. [`series`] keeps free vs backup per pool
//! over time; [`schedule`] says when the next run is due.
//!
//! Pure modules: no I/O. The lease file reader is [`crate::source::leases`];
//! [`replay::Replay::load_lease_file`] (or [`from_file::load`]) puts what it read into the same
//! lease state; [`snapshot::snapshot`] gives the balancer's verdict on one server's file (`poolshark
//! leases`), and [`seed`] decides whether a file may stand for the state at the start of a capture
//! (`check --leases`).
//!
//! How faithful the replay is was measured on the shared ISC DHCP 4.4.3 capture against both
//! servers' own balancing logs (tests/it/failover_balance_logs.rs): at 75 of the 78 logged runs the
//! replayed state has the logged FREE and BACKUP counts and the reference moves exactly the
//! leases the server then sent; the other three ran before updates already on the wire reached
//! the server.
//!
//! [`FailoverAnalyser`] (this file) is the replay as an [`Analyser`]: an [`events::EventSource`]
//! turns the pipeline's messages into events, and the replay's findings and free/backup counts
//! go into the report. Lease files given as seeds ([`seed`]) are loaded before the first message
//! when they may stand for the state at the capture's start. `report` gives what `check` shows
//! of it, which `output::report::failover` writes as text and JSON.

pub mod balancer;
pub mod derive;
pub mod events;
pub mod from_config;
pub mod from_file;
pub mod pools;
pub mod profile;
pub mod replay;
mod report;
pub mod rules;
pub mod schedule;
pub mod seed;
pub mod series;
pub mod snapshot;
pub mod state;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use crate::analyse::finding::{Finding, Subject};
use crate::analyse::{Analyser, Report, View};
use crate::base::Timestamp;
use crate::pipeline::Decoded;
use crate::proto::AppProtocol;
use seed::{LeaseSeed, Outcome};

/// The value for pool `name` in a map keyed by pool name, made by `make` when there is none. Looked
/// up by `&str`, so that the name becomes a `String` only for a pool's first entry (this runs
/// for every lease update). `None` only if the map refuses the insert, which a `BTreeMap` never
/// does.
pub(crate) fn pool_entry<'m, V>(
    map: &'m mut BTreeMap<String, V>,
    name: &str,
    make: impl FnOnce() -> V,
) -> Option<&'m mut V> {
    if !map.contains_key(name) {
        map.insert(name.to_string(), make());
    }
    map.get_mut(name)
}

pub use balancer::{levels, plan, Candidate, Level, Levels, Move, Pass, Plan, Trigger};
pub use derive::{derive, offer, Roles, Unusable};
pub use events::{Client, ClientKey, Event, EventKind, EventSource, LeaseUpdate};
pub use pools::{PoolMap, PoolName, PoolRange};
pub use profile::{Params, Profile, ISC_CODE, ISC_DOC};
pub use replay::{Config, ObservedRun, PoolStats, Replay};
pub use schedule::{next_check, Window};
pub use series::{Point, Series};
pub use snapshot::{snapshot, Balancing, PoolVerdict, Snapshot};
pub use state::{Counts, Lease, LeaseState};

/// The failover pool balance replay as an analyser of `poolshark check`.
pub struct FailoverAnalyser {
    events: EventSource,
    replay: Replay,
    buf: Vec<Finding>,
    /// Seeds waiting for the first message.
    pending: Vec<LeaseSeed>,
    /// What became of each seed, in the order given.
    seeds: Vec<(LeaseSeed, Outcome)>,
}

impl FailoverAnalyser {
    pub fn new(cfg: Config) -> Self {
        Self::with_seeds(cfg, Vec::new())
    }

    /// An analyser whose replay starts from `seeds` (one lease file per server at most makes
    /// sense), loaded in order at the first message if [`seed::admit`] lets them.
    pub fn with_seeds(cfg: Config, seeds: Vec<LeaseSeed>) -> Self {
        FailoverAnalyser {
            events: EventSource::default(),
            replay: Replay::new(cfg),
            buf: Vec::new(),
            pending: seeds,
            seeds: Vec::new(),
        }
    }

    fn plant_seeds(&mut self, capture_start: f64) {
        for s in std::mem::take(&mut self.pending) {
            let outcome = match seed::admit(&s.file, capture_start) {
                Ok(latest) => Outcome::Loaded {
                    loaded: self
                        .replay
                        .load_lease_file_as(&s.file, capture_start, s.role),
                    latest,
                    capture_start,
                },
                Err(latest) => Outcome::TooLate {
                    latest,
                    capture_start,
                },
            };
            self.seeds.push((s, outcome));
        }
    }

    fn push(&mut self, ev: &Event, report: &mut Report) {
        self.replay.push(ev, &mut self.buf);
        for f in self.buf.drain(..) {
            report.push(f, ev.time);
        }
        // The rest is the pool's gauges in the timeline.
        if !report.timeline.recording() {
            return;
        }
        let address = match &ev.kind {
            EventKind::LeaseUpdate(u) => Some(u.address),
            EventKind::Offer { address, .. } => Some(*address),
            EventKind::LeaseAck { address, .. } => *address,
            _ => None,
        };
        let Some(pool) = address.and_then(|a| self.replay.state().pool_of(a)) else {
            return;
        };
        if let Some(p) = self.replay.state().pool(&pool) {
            let c = p.counts();
            let subject = Subject::FailoverPool(pool.to_string());
            let kind = "ISC failover pool";
            let tl = &mut report.timeline;
            tl.gauge(ev.time, &subject, kind, "free", f64::from(c.free));
            tl.gauge(ev.time, &subject, kind, "backup", f64::from(c.backup));
            tl.gauge(ev.time, &subject, kind, "active", f64::from(c.active));
            tl.gauge(
                ev.time,
                &subject,
                kind,
                "lts",
                ((i64::from(c.free) - i64::from(c.backup)) / 2) as f64,
            );
        }
    }
}

impl Analyser for FailoverAnalyser {
    fn name(&self) -> &'static str {
        "failover"
    }

    /// The pair's messages, and the DHCPv4 answers that hand out its leases. Lease files are
    /// loaded at the first of these.
    fn protocols(&self) -> &'static [AppProtocol] {
        &[AppProtocol::Failover, AppProtocol::Dhcpv4]
    }

    fn message(&mut self, d: &Decoded<'_>, report: &mut Report) {
        if !self.pending.is_empty() {
            self.plant_seeds(d.frame.ts.as_f64());
        }
        if let Some(ev) = self.events.event(d) {
            self.push(&ev, report);
        }
    }

    fn finish(&mut self, last: Option<Timestamp>, report: &mut Report) {
        for s in std::mem::take(&mut self.pending) {
            self.seeds.push((s, Outcome::NoTraffic));
        }
        self.replay.finish(&mut self.buf);
        for f in self.buf.drain(..) {
            report.push(f, last.unwrap_or_default());
        }
    }

    fn view(&self) -> View<'_> {
        View::Failover(self)
    }
}
