//! ISC DHCP failover pool balance: the lease state of each pool as the pair's messages (or a
//! `dhcpd.leases` file) describe it, the balancer reference with its `isc-code` and `isc-doc`
//! profiles as data, and the finding rules, replayed over typed events.
//!
//! The flow: [`derive::derive`] turns each decoded [`crate::proto::failover::Message`] (with its
//! frame, capture time and sender's role, see [`derive::Roles`]) into an [`event::Event`], and
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

pub mod analyser;
pub mod balancer;
pub mod derive;
pub mod event;
pub mod from_config;
pub mod from_file;
pub mod pools;
pub mod profile;
pub mod replay;
pub mod rules;
pub mod schedule;
pub mod seed;
pub mod series;
pub mod snapshot;
pub mod state;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

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
pub use event::{Client, ClientKey, Event, EventKind, LeaseUpdate};
pub use pools::{PoolMap, PoolName, PoolRange};
pub use profile::{Params, Profile, ISC_CODE, ISC_DOC};
pub use replay::{Config, ObservedRun, PoolStats, Replay};
pub use schedule::{next_check, Window};
pub use series::{Point, Series};
pub use snapshot::{snapshot, Balancing, PoolVerdict, Snapshot};
pub use state::{Counts, Lease, LeaseState};
