//! ISC DHCP failover pool balance: the lease state of each pool as the pair's messages (or a
//! `dhcpd.leases` file) describe it, the balancer reference with its `isc-code` and `isc-doc`
//! profiles as data, and the finding rules, replayed over typed events.
//!
//! The flow: [`derive::derive`] turns each decoded [`crate::proto::failover::Message`] (with its
//! frame, capture time and sender's role, see [`derive::Roles`]) into an [`event::Event`];
//! [`replay::Replay::push`] applies it to the [`state::LeaseState`], groups the servers'
//! giveaways into observed balance runs, compares each with [`balancer::plan`] from the same
//! state, and reports the rules of [`rules`]. [`series`] keeps free vs backup per pool over time.
//!
//! Pure modules: no I/O; the lease file reader is [`crate::source::leases`], and
//! [`from_file::load`] puts what it read into the same lease state.

pub mod balancer;
pub mod derive;
pub mod event;
pub mod from_file;
pub mod pools;
pub mod profile;
pub mod replay;
pub mod rules;
pub mod schedule;
pub mod series;
pub mod state;
#[cfg(test)]
mod tests;

pub use balancer::{levels, plan, Candidate, Level, Levels, Move, Pass, Plan, Trigger};
pub use derive::{derive, offer, Roles, Unusable};
pub use event::{Client, ClientKey, Event, EventKind, LeaseUpdate};
pub use pools::{PoolMap, PoolRange};
pub use profile::{Params, Profile, ISC_CODE, ISC_DOC};
pub use replay::{Config, ObservedRun, PoolStats, Replay};
pub use schedule::{next_check, Window};
pub use series::{Point, Series};
pub use state::{Counts, Lease, LeaseState};
