//! Who is in a pool, as one registrar must see it: the part of the replay that does not depend
//! on the profile (the selection state per profile lives in `selection.rs`).
//!
//! Members join by an accepted ASAP Registration at this registrar (the registrar is their home)
//! or by an ENRP Handle Update / Handle Table Response from a peer. They leave by:
//! * an accepted Deregistration, or a Handle Update deleting them (from a peer, or from this
//!   registrar itself: it tells its peers when it drops a PE for a reason the capture may not
//!   show, such as a lost association);
//! * registration expiry: a member learned from a peer expires `registration life` after the
//!   last update that named it (RSPLIB; its home registrar watches it by keep-alives instead);
//! * keep-alive failure: an Endpoint Keep-Alive not acknowledged within 5 s (RSPLIB's default
//!   timeout);
//! * Endpoint Unreachable reports: the third one removes the member (RSPLIB's default
//!   MaxBadPEReports).
//!
//! Times are the capture's. A removal by time is noticed at the next event that concerns the
//! pool (`due`), which is the first moment it can matter to an answer.

use std::collections::VecDeque;

use super::events::{PeInfo, PolicyInfo};
use crate::base::Timestamp;

/// Keep-alive timeout (RSPLIB registrar default, `-endpointkeepalivetimeoutinterval`).
pub const KEEP_ALIVE_TIMEOUT_MS: u64 = 5000;
/// Endpoint Unreachable reports that remove a member (RSPLIB default, `-maxbadpereports`).
pub const MAX_BAD_PE_REPORTS: u32 = 3;
/// Members kept per pool; registrations beyond are not modelled (and counted).
pub const MAX_MEMBERS: usize = 4096;
/// Removals remembered per pool, to say why an answer names a PE that is not there.
const MAX_REMOVED: usize = 64;

/// How a member came to be in this registrar's pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Registered here: this registrar is its home and watches it by keep-alives.
    Home,
    /// Learned from a peer: it expires unless updates keep naming it.
    Peer,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MemberInfo {
    pub pe_id: u32,
    pub policy: PolicyInfo,
    pub home_server_id: u32,
    pub origin: Origin,
    /// Whether it registered at this registrar (an ASAP registration here, not a takeover that
    /// made this registrar its home): its next registration here is a re-registration.
    pub registered_here: bool,
    /// The frame of the registration or update that brought it in (first, not the latest).
    pub joined_frame: u64,
    /// Peer members: when the registration life runs out.
    pub expires: Option<Timestamp>,
    /// An Endpoint Keep-Alive waiting for its acknowledgement: the deadline.
    pub keep_alive_due: Option<Timestamp>,
    pub unreachable_reports: u32,
}

/// Why a PE left (or never entered) the pool.
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    Deregistered,
    /// A Handle Update from `by` deleted it.
    DeletedByUpdate {
        by: u32,
    },
    Expired {
        at: Timestamp,
    },
    KeepAliveFailed {
        due: Timestamp,
    },
    Unreachable {
        reports: u32,
    },
    /// Its registration offered another policy than the pool's; the reference rejects it.
    Inconsistent {
        offered: String,
        pool: String,
    },
}

impl Reason {
    /// For sentences: "deregistered at frame 12".
    pub fn describe(&self, frame: u64) -> String {
        match self {
            Reason::Deregistered => format!("deregistered at frame {frame}"),
            Reason::DeletedByUpdate { by } => {
                format!("deleted by a Handle Update from 0x{by:08x} at frame {frame}")
            }
            Reason::Expired { at } => format!(
                "expired at {} UTC (registration life ran out; noticed at frame {frame})",
                at.utc()
            ),
            Reason::KeepAliveFailed { due } => format!(
                "removed for an unanswered keep-alive (deadline {} UTC; noticed at frame {frame})",
                due.utc()
            ),
            Reason::Unreachable { reports } => {
                format!("removed after {reports} Endpoint Unreachable reports at frame {frame}")
            }
            Reason::Inconsistent { offered, pool } => format!(
                "registered with policy {offered} into a {pool} pool at frame {frame}, which the reference rejects"
            ),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Removal {
    pub pe_id: u32,
    pub reason: Reason,
    pub frame: u64,
}

/// What `add` did.
#[derive(Clone, Debug, PartialEq)]
pub enum Added {
    New,
    Updated,
    /// The pool uses another policy (the registrar must reject the registration, cause 0x5).
    Inconsistent {
        pool: PolicyInfo,
    },
    /// The element named no policy: it cannot be placed.
    NoPolicy,
    /// The pool is at `MAX_MEMBERS`.
    Full,
}

/// `t` plus `ms` milliseconds.
pub fn later(t: Timestamp, ms: u64) -> Timestamp {
    let extra_secs = i64::try_from(ms / 1000).unwrap_or(i64::MAX);
    // Below 1e9 + 1e9: fits a u32 comfortably, normalised below.
    let nanos = u64::from(t.nanos) + (ms % 1000) * 1_000_000;
    let carry = i64::from(nanos >= 1_000_000_000);
    Timestamp::new(
        t.secs.saturating_add(extra_secs).saturating_add(carry),
        (nanos % 1_000_000_000) as u32,
    )
}

#[derive(Clone, Debug, Default)]
pub struct Membership {
    policy: Option<PolicyInfo>,
    last_policy: Option<PolicyInfo>,
    members: Vec<MemberInfo>,
    removed: VecDeque<Removal>,
    /// Bumped on every change of members or settings (caches key on it).
    generation: u64,
    pub refused_full: u64,
}

impl Membership {
    pub fn members(&self) -> &[MemberInfo] {
        &self.members
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    pub fn member(&self, pe_id: u32) -> Option<&MemberInfo> {
        self.members.iter().find(|m| m.pe_id == pe_id)
    }

    fn member_mut(&mut self, pe_id: u32) -> Option<&mut MemberInfo> {
        self.members.iter_mut().find(|m| m.pe_id == pe_id)
    }

    /// The pool's policy while it has members.
    pub fn policy(&self) -> Option<&PolicyInfo> {
        self.policy.as_ref()
    }

    /// The policy it had last (for reports on a pool that emptied).
    pub fn last_policy(&self) -> Option<&PolicyInfo> {
        self.policy.as_ref().or(self.last_policy.as_ref())
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The latest removal of `pe_id`, if it is remembered.
    pub fn removal(&self, pe_id: u32) -> Option<&Removal> {
        self.removed.iter().rev().find(|r| r.pe_id == pe_id)
    }

    fn remember(&mut self, r: Removal) {
        if self.removed.len() >= MAX_REMOVED {
            self.removed.pop_front();
        }
        self.removed.push_back(r);
    }

    /// A registration (`Origin::Home`) or a peer's update (`Origin::Peer`) naming `pe`.
    pub fn add(&mut self, pe: &PeInfo, origin: Origin, now: Timestamp, frame: u64) -> Added {
        let Some(policy) = pe.policy.clone() else {
            return Added::NoPolicy;
        };
        if let Some(pool) = &self.policy {
            if !pool.same_policy(&policy) {
                let pool = pool.clone();
                self.remember(Removal {
                    pe_id: pe.pe_id,
                    reason: Reason::Inconsistent {
                        offered: policy.name(),
                        pool: pool.name(),
                    },
                    frame,
                });
                return Added::Inconsistent { pool };
            }
        }
        let expires = match (origin, u64::try_from(pe.registration_life_ms)) {
            (Origin::Peer, Ok(ms)) if ms > 0 => Some(later(now, ms)),
            _ => None,
        };
        self.generation += 1;
        if let Some(m) = self.member_mut(pe.pe_id) {
            m.policy = policy;
            m.home_server_id = pe.home_server_id;
            if origin == Origin::Home {
                m.origin = Origin::Home;
                m.registered_here = true;
            }
            m.expires = if m.origin == Origin::Home {
                None
            } else {
                expires
            };
            return Added::Updated;
        }
        if self.members.len() >= MAX_MEMBERS {
            self.refused_full += 1;
            return Added::Full;
        }
        self.policy.get_or_insert_with(|| policy.clone());
        self.members.push(MemberInfo {
            pe_id: pe.pe_id,
            policy,
            home_server_id: pe.home_server_id,
            origin,
            registered_here: origin == Origin::Home,
            joined_frame: frame,
            expires,
            keep_alive_due: None,
            unreachable_reports: 0,
        });
        Added::New
    }

    /// Removes a member; false if it was not there.
    pub fn remove(&mut self, pe_id: u32, reason: Reason, frame: u64) -> bool {
        let Some(i) = self.members.iter().position(|m| m.pe_id == pe_id) else {
            return false;
        };
        self.members.remove(i);
        self.generation += 1;
        if self.members.is_empty() {
            self.last_policy = self.policy.take();
        }
        self.remember(Removal {
            pe_id,
            reason,
            frame,
        });
        true
    }

    /// Replaces the members (two names of one registrar merged: both lists, in joining order).
    pub fn replace_members(&mut self, mut members: Vec<MemberInfo>) {
        members.truncate(MAX_MEMBERS);
        if self.policy.is_none() {
            self.policy = members.first().map(|m| m.policy.clone());
        }
        self.members = members;
        self.generation += 1;
    }

    /// Removes the members whose registration life or keep-alive deadline passed before `now`.
    pub fn due(&mut self, now: Timestamp, frame: u64) -> Vec<Removal> {
        let mut gone = Vec::new();
        for m in &self.members {
            if let Some(at) = m.expires.filter(|at| *at < now) {
                gone.push((m.pe_id, Reason::Expired { at }));
            } else if let Some(due) = m.keep_alive_due.filter(|d| *d < now) {
                gone.push((m.pe_id, Reason::KeepAliveFailed { due }));
            }
        }
        let mut out = Vec::with_capacity(gone.len());
        for (pe_id, reason) in gone {
            if self.remove(pe_id, reason.clone(), frame) {
                out.push(Removal {
                    pe_id,
                    reason,
                    frame,
                });
            }
        }
        out
    }

    /// The registrar sent a keep-alive to `pe_id` at `now`.
    pub fn keep_alive(&mut self, pe_id: u32, now: Timestamp) {
        if let Some(m) = self.member_mut(pe_id) {
            m.keep_alive_due
                .get_or_insert_with(|| later(now, KEEP_ALIVE_TIMEOUT_MS));
        }
    }

    /// `pe_id` acknowledged a keep-alive (a late one finds the member already removed by `due`).
    pub fn keep_alive_ack(&mut self, pe_id: u32) {
        if let Some(m) = self.member_mut(pe_id) {
            m.keep_alive_due = None;
        }
    }

    /// An Endpoint Unreachable report; the number of reports when it reaches the limit.
    pub fn unreachable(&mut self, pe_id: u32) -> Option<u32> {
        let m = self.member_mut(pe_id)?;
        m.unreachable_reports = m.unreachable_reports.saturating_add(1);
        (m.unreachable_reports >= MAX_BAD_PE_REPORTS).then_some(m.unreachable_reports)
    }

    /// `new_home` took over the PEs of `old_home`; `is_self` when this registrar is `new_home`
    /// (its members of `old_home` become its own, watched by keep-alives instead of expiring).
    pub fn takeover(&mut self, old_home: u32, new_home: u32, is_self: bool) {
        for m in &mut self.members {
            if m.home_server_id == old_home {
                m.home_server_id = new_home;
                if is_self {
                    m.origin = Origin::Home;
                    m.expires = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::rserpool::PolicyKind;

    fn pe(id: u32, wire: PolicyKind, life: i32) -> PeInfo {
        PeInfo {
            pe_id: id,
            home_server_id: 0,
            registration_life_ms: life,
            policy: Some(PolicyInfo {
                wire,
                code: 1,
                settings: None,
            }),
        }
    }

    fn t(secs: i64, ms: u32) -> Timestamp {
        Timestamp::new(secs, ms * 1_000_000)
    }

    #[test]
    fn time_arithmetic_carries() {
        assert_eq!(later(t(1, 900), 250), t(2, 150));
        assert_eq!(later(t(1, 0), 90_000), t(91, 0));
        assert_eq!(later(Timestamp::new(i64::MAX, 0), 5000).secs, i64::MAX);
    }

    #[test]
    fn policy_is_the_first_members_and_inconsistent_ones_are_kept_out() {
        let mut m = Membership::default();
        assert_eq!(
            m.add(&pe(1, PolicyKind::LeastUsed, -1), Origin::Home, t(0, 0), 1),
            Added::New
        );
        assert_eq!(
            m.add(&pe(1, PolicyKind::LeastUsed, -1), Origin::Home, t(0, 0), 2),
            Added::Updated
        );
        assert!(matches!(
            m.add(&pe(2, PolicyKind::RoundRobin, -1), Origin::Home, t(0, 0), 3),
            Added::Inconsistent { .. }
        ));
        assert_eq!(m.len(), 1);
        assert!(matches!(
            m.removal(2).map(|r| &r.reason),
            Some(Reason::Inconsistent { .. })
        ));
        // Once empty, the next registration sets the policy again.
        assert!(m.remove(1, Reason::Deregistered, 4));
        assert!(m.policy().is_none());
        assert_eq!(m.last_policy().map(|p| p.wire), Some(PolicyKind::LeastUsed));
        assert_eq!(
            m.add(&pe(2, PolicyKind::RoundRobin, -1), Origin::Home, t(0, 0), 5),
            Added::New
        );
        assert_eq!(m.removal(1).map(|r| r.frame), Some(4));
    }

    #[test]
    fn peers_expire_homes_fail_keep_alives_and_reports_add_up() {
        let mut m = Membership::default();
        m.add(
            &pe(1, PolicyKind::RoundRobin, 2000),
            Origin::Peer,
            t(10, 0),
            1,
        );
        m.add(
            &pe(2, PolicyKind::RoundRobin, 2000),
            Origin::Home,
            t(10, 0),
            2,
        );
        m.add(
            &pe(3, PolicyKind::RoundRobin, -1),
            Origin::Peer,
            t(10, 0),
            3,
        );
        // A refresh moves the expiry.
        m.add(
            &pe(1, PolicyKind::RoundRobin, 2000),
            Origin::Peer,
            t(11, 0),
            4,
        );
        assert!(m.due(t(12, 500), 5).is_empty());
        let gone = m.due(t(13, 1), 6);
        assert_eq!(gone.len(), 1);
        assert_eq!(gone[0].pe_id, 1);
        assert_eq!(gone[0].reason, Reason::Expired { at: t(13, 0) });
        m.keep_alive(2, t(20, 0));
        m.keep_alive_ack(2);
        assert!(m.due(t(30, 0), 7).is_empty());
        m.keep_alive(2, t(30, 0));
        m.keep_alive(2, t(33, 0)); // the first deadline stands
        assert!(m.due(t(35, 0), 8).is_empty());
        let gone = m.due(t(35, 1), 9);
        assert_eq!(gone.len(), 1);
        assert_eq!(gone[0].reason, Reason::KeepAliveFailed { due: t(35, 0) });
        assert_eq!(m.unreachable(3), None);
        assert_eq!(m.unreachable(3), None);
        assert_eq!(m.unreachable(3), Some(3));
        assert_eq!(m.unreachable(99), None);
    }
}
