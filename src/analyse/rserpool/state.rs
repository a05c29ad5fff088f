//! What the replay holds per registrar: its pools (membership and one selection state per
//! profile), bounded, with the counts the reports show.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

use super::handle::{pe_hex, PoolHandle};
use super::membership::Membership;
use super::registrar_events::EventLog;
use super::selection::{policy_name, Expectation, ProfilePool};
use crate::analyse::finding::Subject;
use crate::analyse::policy::Profile;
use crate::analyse::timeline::{MemberCounts, Window};

/// Pools kept per registrar (the least recently active goes beyond).
pub const MAX_POOLS: usize = 4096;
/// Pools remembered per registrar as answered-but-never-seen (reported once each).
const MAX_UNKNOWN_POOLS: usize = 256;

/// The answers of one pool at one registrar, counted as the timeline counts a window
/// ([`Window::count_answer`]), with the lead profile's expectations: the counts `check` reports
/// per registrar and pool, which `stats` and the TUI add up per pool. Keyed by PE id while the
/// replay runs ([`AnswerTally::window`] names them as the timeline does).
#[derive(Clone, Debug, Default)]
pub struct AnswerTally {
    pub answers: u64,
    pub unjudged: u64,
    /// By PE id, sorted (a pool's few members: searched, not hashed or walked as a tree).
    members: Vec<(u32, MemberCounts)>,
}

impl AnswerTally {
    /// One answer: `chosen` in wire order; `expected` what the lead profile expected of it,
    /// `None` when it could not judge it. `room`: PEs that may still be added to tallies (the
    /// replay's bound over all pools; past it new PEs are not counted, the answer is).
    pub fn count(&mut self, chosen: &[u32], expected: Option<Expectation<'_>>, room: &mut usize) {
        self.answers += 1;
        let unjudged = u64::from(expected.is_none());
        for (i, id) in chosen.iter().enumerate() {
            if let Some(c) = self.member(*id, room) {
                c.any += 1;
                c.unjudged_any += unjudged;
                if i == 0 {
                    c.first += 1;
                    c.unjudged_first += unjudged;
                }
            }
        }
        match expected {
            None => self.unjudged += 1,
            Some(Expectation::Answer(ids)) => {
                for (i, id) in ids.iter().enumerate() {
                    if let Some(c) = self.member(*id, room) {
                        c.expected_first += if i == 0 { 1.0 } else { 0.0 };
                        c.expected_any += 1.0;
                    }
                }
            }
            Some(Expectation::Shares(shares)) => {
                for s in shares {
                    if let Some(c) = self.member(s.pe_id, room) {
                        c.expected_first += s.first;
                        c.expected_any += s.included;
                    }
                }
            }
        }
    }

    fn member(&mut self, id: u32, room: &mut usize) -> Option<&mut MemberCounts> {
        let at = match self.members.binary_search_by_key(&id, |(k, _)| *k) {
            Ok(at) => at,
            Err(_) if *room == 0 => return None,
            Err(at) => {
                *room -= 1;
                self.members.insert(at, (id, MemberCounts::default()));
                at
            }
        };
        self.members.get_mut(at).map(|(_, c)| c)
    }

    /// Adds another tally of the same pool (another name of the same registrar).
    pub fn add(&mut self, o: &AnswerTally) {
        self.answers += o.answers;
        self.unjudged += o.unjudged;
        // Two tallies of one pool joined: no more PEs than the two had.
        let mut room = usize::MAX;
        for (id, c) in &o.members {
            if let Some(m) = self.member(*id, &mut room) {
                m.add(c);
            }
        }
    }

    /// The counts as a timeline window (members named `0x%08x`).
    pub fn window(&self) -> Window {
        Window {
            answers: self.answers,
            unjudged: self.unjudged,
            members: self
                .members
                .iter()
                .map(|(id, c)| (pe_hex(*id), c.clone()))
                .collect(),
            ..Window::default()
        }
    }
}

/// One pool at one registrar.
#[derive(Clone, Debug)]
pub struct PoolEntry {
    /// The timeline's series (the handle as findings write it).
    pub subject: Subject,
    /// What the series is, for people ("RSerPool pool (policy LU)").
    pub kind: String,
    pub membership: Membership,
    /// The most members the pool had at once (at the end of a capture it may have none left).
    pub most_members: usize,
    /// One per profile of the run, in the run's order.
    pub profiles: Vec<ProfilePool>,
    /// Handle Resolution Responses paired with their request.
    pub resolutions: u64,
    /// Every answer given for the pool here, checked or not, as `check`, `stats` and the TUI
    /// count them.
    pub tally: AnswerTally,
    /// Deviations that do not depend on the profile (registration policy, negative answers).
    pub common_deviations: u64,
    /// The lead profile's member shares need describing again (membership changed).
    pub describe_due: bool,
    last_active: u64,
}

impl PoolEntry {
    pub fn new(handle: &PoolHandle, profiles: &[&'static Profile]) -> Self {
        let mut e = PoolEntry {
            subject: Subject::Pool(handle.to_string()),
            kind: String::new(),
            membership: Membership::default(),
            most_members: 0,
            profiles: profiles.iter().map(|p| ProfilePool::new(p)).collect(),
            resolutions: 0,
            tally: AnswerTally::default(),
            common_deviations: 0,
            describe_due: true,
            last_active: 0,
        };
        e.refresh_kind();
        e
    }

    /// Names the series after the pool's policy (call when the membership changed).
    pub fn refresh_kind(&mut self) {
        let name = policy_name(self.membership.last_policy());
        if !self.kind.ends_with(&format!("policy {name})")) {
            self.kind = format!("RSerPool pool (policy {name})");
        }
    }

    /// Deviations under profile `i`.
    pub fn deviations(&self, i: usize) -> u64 {
        self.common_deviations + self.profiles.get(i).map_or(0, |p| p.deviations)
    }

    pub fn unmodelled(&self, i: usize) -> u64 {
        self.profiles.get(i).map_or(0, |p| p.unmodelled_resolutions)
    }
}

/// Totals of one registrar under one profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub resolutions: u64,
    pub deviations: u64,
    pub unmodelled: u64,
}

#[derive(Clone, Debug, Default)]
pub struct RegistrarState {
    pub pools: BTreeMap<PoolHandle, PoolEntry>,
    /// Answers not checked, by pool: given for a pool not seen here at the time, or whose
    /// request was not seen; counted.
    pub unknown_pools: BTreeMap<PoolHandle, AnswerTally>,
    /// The pools of `unknown_pools` reported as unknown (once each).
    reported_unknown: BTreeSet<PoolHandle>,
    /// Deregistrations, re-registrations and takeovers here, in time order.
    pub events: EventLog,
    /// Totals of pools evicted to stay within the bound, per profile.
    evicted: Vec<Totals>,
    pub pools_evicted: u64,
    tick: u64,
}

impl RegistrarState {
    /// The pool entry, created when `create` (evicting the least recently active one at the
    /// bound).
    pub fn pool(
        &mut self,
        handle: &PoolHandle,
        create: bool,
        profiles: &[&'static Profile],
    ) -> Option<&mut PoolEntry> {
        self.tick += 1;
        if create && self.pools.len() >= MAX_POOLS && !self.pools.contains_key(handle) {
            self.evict_one(profiles.len());
        }
        // One search of the map (a handle's clone is a copy of inline bytes).
        let e = match self.pools.entry(handle.clone()) {
            Entry::Occupied(o) => o.into_mut(),
            Entry::Vacant(v) if create => v.insert(PoolEntry::new(handle, profiles)),
            Entry::Vacant(_) => return None,
        };
        e.last_active = self.tick;
        Some(e)
    }

    fn evict_one(&mut self, profiles: usize) {
        let Some(victim) = self
            .pools
            .iter()
            .min_by_key(|(_, e)| e.last_active)
            .map(|(h, _)| h.clone())
        else {
            return;
        };
        if let Some(e) = self.pools.remove(&victim) {
            self.evicted.resize(profiles, Totals::default());
            for (i, t) in self.evicted.iter_mut().enumerate() {
                t.resolutions += e.resolutions;
                t.deviations += e.deviations(i);
                t.unmodelled += e.unmodelled(i);
            }
            self.pools_evicted += 1;
        }
    }

    /// Counts an answer not checked (see `unknown_pools`; `room` as for [`AnswerTally::count`]).
    pub fn unchecked_answer(&mut self, handle: &PoolHandle, chosen: &[u32], room: &mut usize) {
        if let Some(t) = self.unknown_pools.get_mut(handle) {
            t.count(chosen, None, room);
        } else if self.unknown_pools.len() < MAX_UNKNOWN_POOLS {
            let mut t = AnswerTally::default();
            t.count(chosen, None, room);
            self.unknown_pools.insert(handle.clone(), t);
        }
    }

    /// Counts an answer for a pool not seen here (not checked); true the first time, when it is
    /// to be reported.
    pub fn unknown_answer(
        &mut self,
        handle: &PoolHandle,
        chosen: &[u32],
        room: &mut usize,
    ) -> bool {
        self.unchecked_answer(handle, chosen, room);
        if self.reported_unknown.contains(handle)
            || self.reported_unknown.len() >= MAX_UNKNOWN_POOLS
        {
            return false;
        }
        self.reported_unknown.insert(handle.clone());
        true
    }

    /// The answers for a pool not checked here (the pool unknown when they came).
    pub fn not_checked(&self, handle: &PoolHandle) -> u64 {
        self.unknown_pools.get(handle).map_or(0, |t| t.answers)
    }

    /// Totals under profile `i`.
    pub fn totals(&self, i: usize) -> Totals {
        let mut t = self.evicted.get(i).copied().unwrap_or_default();
        for e in self.pools.values() {
            t.resolutions += e.resolutions;
            t.deviations += e.deviations(i);
            t.unmodelled += e.unmodelled(i);
        }
        t
    }

    /// Takes `other`'s pools (another name of the same registrar). A pool both hold is rebuilt
    /// from the members of both, in the order they joined: the selection state of either is
    /// lost, which costs at most a round-robin position.
    pub fn absorb(&mut self, other: RegistrarState) -> u64 {
        let mut rebuilt = 0;
        for (handle, theirs) in other.pools {
            match self.pools.get_mut(&handle) {
                None => {
                    self.pools.insert(handle, theirs);
                }
                Some(ours) => {
                    merge_pool(ours, theirs);
                    rebuilt += 1;
                }
            }
        }
        for (handle, t) in other.unknown_pools {
            self.unknown_pools.entry(handle).or_default().add(&t);
        }
        self.reported_unknown.extend(other.reported_unknown);
        self.events.absorb(other.events);
        if self.evicted.len() < other.evicted.len() {
            self.evicted.resize(other.evicted.len(), Totals::default());
        }
        for (mine, theirs) in self.evicted.iter_mut().zip(other.evicted) {
            mine.resolutions += theirs.resolutions;
            mine.deviations += theirs.deviations;
            mine.unmodelled += theirs.unmodelled;
        }
        self.pools_evicted += other.pools_evicted;
        rebuilt
    }
}

fn merge_pool(ours: &mut PoolEntry, theirs: PoolEntry) {
    let mut members: Vec<_> = ours
        .membership
        .members()
        .iter()
        .chain(
            theirs
                .membership
                .members()
                .iter()
                .filter(|m| ours.membership.member(m.pe_id).is_none()),
        )
        .cloned()
        .collect();
    members.sort_by_key(|m| m.joined_frame);
    ours.membership.replace_members(members);
    for p in &mut ours.profiles {
        p.rebuild(&ours.membership);
    }
    ours.resolutions += theirs.resolutions;
    ours.tally.add(&theirs.tally);
    ours.common_deviations += theirs.common_deviations;
    for (mine, t) in ours.profiles.iter_mut().zip(theirs.profiles) {
        mine.resolutions += t.resolutions;
        mine.deviations += t.deviations;
        mine.unmodelled_resolutions += t.unmodelled_resolutions;
    }
    ours.most_members = ours
        .most_members
        .max(theirs.most_members)
        .max(ours.membership.len());
    ours.describe_due = true;
    ours.refresh_kind();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::policy::{PeSettings, PolicyKind, Rng, RSPLIB};
    use crate::analyse::rserpool::events::{PeInfo, PolicyInfo};
    use crate::analyse::rserpool::membership::Origin;
    use crate::base::Timestamp;

    fn add(state: &mut RegistrarState, pool: &PoolHandle, id: u32, frame: u64) {
        let profiles: [&'static Profile; 1] = [&RSPLIB];
        let e = state.pool(pool, true, &profiles).expect("created");
        let pe = PeInfo {
            pe_id: id,
            home_server_id: 0,
            registration_life_ms: -1,
            policy: Some(PolicyInfo {
                wire: PolicyKind::RoundRobin,
                code: 1,
                settings: Some(PeSettings::new(PolicyKind::RoundRobin)),
            }),
        };
        e.membership
            .add(&pe, Origin::Home, Timestamp::default(), frame);
        let info = e.membership.member(id).cloned().expect("member");
        for p in &mut e.profiles {
            p.registered(&info);
        }
    }

    #[test]
    fn two_names_of_one_registrar_merge_their_pools_in_joining_order() {
        let (rr, lone) = (PoolHandle::new(b"RR"), PoolHandle::new(b"lone"));
        let mut named = RegistrarState::default();
        add(&mut named, &rr, 1, 10);
        add(&mut named, &rr, 3, 30);
        let mut anonymous = RegistrarState::default();
        add(&mut anonymous, &rr, 2, 20);
        add(&mut anonymous, &rr, 1, 40);
        add(&mut anonymous, &lone, 9, 50);
        assert_eq!(named.absorb(anonymous), 1);
        let e = &named.pools[&rr];
        let ids: Vec<u32> = e.membership.members().iter().map(|m| m.pe_id).collect();
        assert_eq!(ids, vec![1, 2, 3]);
        // The reference state was rebuilt in that order: round robin starts at 1.
        let pool = e.profiles[0].pool().expect("modelled");
        assert_eq!(pool.answer(3, &mut Rng::new(0)), vec![1, 2, 3]);
        assert_eq!(named.pools[&lone].membership.len(), 1);
    }
}
