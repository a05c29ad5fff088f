//! A pool as a registrar holds it: members in registration order, the policy state, and the
//! operations a replay needs (register, deregister, answer, commit what was seen).

use std::fmt;

use super::dispatch;
use super::kind::{Method, PolicyKind};
use super::member::Member;
use super::profile::{DegradationReset, DegradationScope, Profile, WrrRule};
use super::rng::Rng;
use super::settings::{PeSettings, SettingChange};
use super::wrr;

#[derive(Clone, Debug)]
pub struct Pool {
    profile: &'static Profile,
    policy: PolicyKind,
    members: Vec<Member>,
    next_seq: u64,
    max_increment: u32,
}

/// Why a pool or a registration was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolError {
    /// The profile's text defines no such policy (e.g. Priority in draft-01).
    PolicyNotInProfile {
        policy: PolicyKind,
        profile: &'static str,
    },
    /// A registration whose policy differs from the pool's: a registrar rejects it with cause
    /// 0x5 (pooling policy inconsistent).
    InconsistentPolicy {
        pool: PolicyKind,
        offered: PolicyKind,
    },
}

impl PoolError {
    /// The ASAP error cause a registrar answers with.
    pub fn cause(&self) -> u16 {
        match self {
            PoolError::PolicyNotInProfile { .. } => 0x0003,
            PoolError::InconsistentPolicy { .. } => 0x0005,
        }
    }
}

impl fmt::Display for PoolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PoolError::PolicyNotInProfile { policy, profile } => {
                write!(f, "the {profile} profile defines no {policy} policy")
            }
            PoolError::InconsistentPolicy { pool, offered } => write!(
                f,
                "registration with policy {offered} into a pool using {pool} (cause 0x5, pooling policy inconsistent)"
            ),
        }
    }
}

impl std::error::Error for PoolError {}

/// What a registration did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registration {
    /// A member the pool did not hold before.
    pub new: bool,
    /// For a re-registration: the settings that changed.
    pub changes: Vec<SettingChange>,
    /// For a re-registration of a degrading policy: the counter was set back (RSPLIB then adds
    /// one update's worth again when it re-links the member).
    pub degradation_reset: bool,
}

/// What `commit` could not apply.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Commit {
    /// Ids in the answer that are not members of the pool.
    pub unknown: Vec<u32>,
    /// Ids that occurred more than once in the answer (applied once).
    pub repeated: Vec<u32>,
}

/// A member's long-run share of answers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Share {
    pub pe_id: u32,
    /// Probability (or long-run frequency) of being first in an answer.
    pub first: f64,
    /// Probability (or long-run frequency) of being anywhere in an answer.
    pub included: f64,
}

impl Pool {
    /// An empty pool of `policy` under `profile`. RSPLIB creates a pool with its first
    /// registration and drops it with its last member: a replay does the same.
    pub fn new(profile: &'static Profile, policy: PolicyKind) -> Result<Pool, PoolError> {
        if !profile.defines(policy) {
            return Err(PoolError::PolicyNotInProfile {
                policy,
                profile: profile.name,
            });
        }
        Ok(Pool {
            profile,
            policy,
            members: Vec::new(),
            next_seq: 0,
            max_increment: profile.default_max_increment,
        })
    }

    pub fn profile(&self) -> &'static Profile {
        self.profile
    }

    pub fn policy(&self) -> PolicyKind {
        self.policy
    }

    /// How many of an answer's first members advance their state.
    pub fn max_increment(&self) -> u32 {
        self.max_increment
    }

    /// Overrides the profile's maxIncrement (`None` or 0: back to the profile's default, as
    /// RSPLIB treats 0).
    pub fn set_max_increment(&mut self, max_increment: Option<u32>) {
        self.max_increment = match max_increment {
            None | Some(0) => self.profile.default_max_increment,
            Some(m) => m,
        };
    }

    /// Members in registration order.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    pub fn member(&self, pe_id: u32) -> Option<&Member> {
        self.members.iter().find(|m| m.pe_id == pe_id)
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Items in an answer to a request carrying `requested` (the Handle Resolution Option, if
    /// any), as the profile caps it, for this pool's size.
    pub fn items_for(&self, requested: Option<u32>) -> usize {
        self.profile.items_for(requested, self.members.len())
    }

    fn fresh_seq(&mut self) -> u64 {
        let s = self.next_seq;
        self.next_seq = self.next_seq.saturating_add(1);
        s
    }

    fn index_of(&self, pe_id: u32) -> Option<usize> {
        self.members.iter().position(|m| m.pe_id == pe_id)
    }

    /// Registers a new member or re-registers an existing one.
    pub fn register(
        &mut self,
        pe_id: u32,
        settings: PeSettings,
    ) -> Result<Registration, PoolError> {
        if settings.policy != self.policy {
            return Err(PoolError::InconsistentPolicy {
                pool: self.policy,
                offered: settings.policy,
            });
        }
        let profile = self.profile;
        let policy = self.policy;
        if let Some(m) = self.members.iter_mut().find(|m| m.pe_id == pe_id) {
            let changes = m.settings.changes_to(&settings);
            let reset = match profile.degradation_reset {
                DegradationReset::Always => true,
                DegradationReset::WhenChangedOrDegraded => {
                    !changes.is_empty() || m.degradation != 0
                }
            };
            let was_degraded = m.degradation != 0;
            let reweighed = m.settings.weight != settings.weight;
            m.settings = settings;
            if reset {
                m.degradation = 0;
                wrr::reweigh(m);
                // RSPLIB re-links the member into the selection set, which updates it once.
                if profile.update_on_link {
                    dispatch::update(policy, profile, m);
                }
            }
            if reweighed && self.spread_wrr() {
                wrr::spread_restart(&mut self.members);
            }
            return Ok(Registration {
                new: false,
                changes,
                degradation_reset: reset && policy.degrades() && was_degraded,
            });
        }
        let current_round = self
            .members
            .iter()
            .map(|m| dispatch::sort_key(policy, profile, m))
            .min()
            .map_or(0, |k| k.primary);
        let seq = self.fresh_seq();
        let mut m = Member::new(pe_id, settings, seq);
        if policy == PolicyKind::WeightedRoundRobin {
            wrr::join(&mut m, current_round);
        }
        if profile.update_on_link {
            dispatch::update(policy, profile, &mut m);
        }
        self.members.push(m);
        if self.spread_wrr() {
            wrr::spread_restart(&mut self.members);
        }
        Ok(Registration {
            new: true,
            changes: Vec::new(),
            degradation_reset: false,
        })
    }

    /// Removes a member; `None` if it was not there.
    pub fn deregister(&mut self, pe_id: u32) -> Option<Member> {
        let i = self.index_of(pe_id)?;
        let gone = self.members.remove(i);
        if self.spread_wrr() {
            wrr::spread_restart(&mut self.members);
        }
        Some(gone)
    }

    /// Whether the pool is the texts' weighted round robin list, built anew (head at its first
    /// slot) whenever its members or their weights change.
    fn spread_wrr(&self) -> bool {
        self.policy == PolicyKind::WeightedRoundRobin && self.profile.wrr == WrrRule::SpreadList
    }

    /// The answers of `items` members this pool gives from now on, one per step with the
    /// state advanced between them, where the texts' WRR list makes them one walk along the
    /// list (`None` for another policy or profile, or a state the walk does not take: see
    /// [`wrr::Answers::new`]).
    pub(super) fn spread_answers(&self, items: usize) -> Option<wrr::Answers<'_>> {
        if !self.spread_wrr() {
            return None;
        }
        wrr::Answers::new(&self.members, items.min(self.members.len()))
    }

    /// The texts' weighted round robin list from its first slot, as PE ids, for a list of at
    /// most `max` slots (`None` for another policy or profile, or a longer list).
    pub fn spread_cycle(&self, max: usize) -> Option<Vec<u32>> {
        if !self.spread_wrr() {
            return None;
        }
        let cycle = wrr::spread_cycle(&self.members, max)?;
        let mut ids = Vec::with_capacity(cycle.len());
        self.ids_into(&cycle, &mut ids);
        Some(ids)
    }

    /// The reference answer of up to `items` members, without advancing any state. Draws from
    /// `rng` for the randomised policies only.
    pub fn answer(&self, items: usize, rng: &mut Rng) -> Vec<u32> {
        let mut scratch = Scratch::default();
        self.answer_indices(items, rng, &mut scratch);
        let mut ids = Vec::with_capacity(scratch.picked.len());
        self.ids_into(&scratch.picked, &mut ids);
        ids
    }

    /// The reference answer as member indices, left in `scratch.picked`; the scratch buffers are
    /// reused so that a simulation of thousands of answers allocates nothing per answer.
    pub(crate) fn answer_indices(&self, items: usize, rng: &mut Rng, scratch: &mut Scratch) {
        let n = items.min(self.members.len());
        scratch.picked.clear();
        match self.policy.method() {
            Method::Sorted => self.sorted_answer(n, scratch),
            Method::Random => self.random_answer(n, rng, scratch),
        }
    }

    fn sorted_answer(&self, n: usize, scratch: &mut Scratch) {
        if self.spread_wrr() {
            scratch.picked = wrr::spread_answer(&self.members, n);
            return;
        }
        let order = &mut scratch.order;
        order.clear();
        order.extend(
            self.members
                .iter()
                .enumerate()
                .map(|(i, m)| (dispatch::sort_key(self.policy, self.profile, m), i)),
        );
        order.sort_unstable();
        scratch.picked.extend(order.iter().take(n).map(|&(_, i)| i));
    }

    /// Draws without replacement, walking the members by PE id as RSPLIB's value tree does.
    fn random_answer(&self, n: usize, rng: &mut Rng, scratch: &mut Scratch) {
        let candidates = &mut scratch.candidates;
        candidates.clear();
        candidates.extend(self.members.iter().enumerate().map(|(i, m)| {
            (
                m.pe_id,
                i,
                dispatch::draw_weight(self.policy, self.profile, m),
            )
        }));
        candidates.sort_unstable_by_key(|c| c.0);
        draw_into(candidates, n, rng, &mut scratch.picked);
    }

    /// Advances the state as if the registrar had answered `observed`: the first maxIncrement
    /// members get fresh sequence numbers and the policy update (twice under RSPLIB, whose
    /// re-link updates again); under the texts every returned member of a degrading policy has
    /// its counter advanced. Unknown ids are skipped and reported.
    pub fn commit(&mut self, observed: &[u32]) -> Commit {
        self.commit_with(observed, &mut Scratch::default())
    }

    /// `commit` working in `scratch` (reused between answers: nothing allocated per answer
    /// unless the answer lists unknown or repeated ids).
    pub(crate) fn commit_with(&mut self, observed: &[u32], scratch: &mut Scratch) -> Commit {
        let mut report = Commit::default();
        let indices = &mut scratch.picked;
        indices.clear();
        for &id in observed {
            match self.index_of(id) {
                None => report.unknown.push(id),
                Some(i) if indices.contains(&i) => report.repeated.push(id),
                Some(i) => indices.push(i),
            }
        }
        self.advance(&scratch.picked);
        report
    }

    /// Makes `observed` (an answer that deviated) the answer this state gives, as far as the
    /// order among equal keys can: the round-robin circle turned so that the answer's first
    /// member is its head, the answer's other members next in the answer's order, the rest
    /// behind them in the circle's order (fresh sequence numbers in that order). What the keys
    /// themselves hold (loads, WRR rounds, degradation) a registrar does not show; it stays.
    /// Ids that are not members are left out. Call before `commit` of the same answer.
    pub fn resync_to(&mut self, observed: &[u32]) {
        self.resync_with(observed, &mut Scratch::default());
    }

    /// `resync_to` working in `scratch` (kept between answers).
    pub(crate) fn resync_with(&mut self, observed: &[u32], scratch: &mut Scratch) {
        let Scratch {
            circle,
            reorder: order,
            ..
        } = scratch;
        circle.clear();
        circle.extend(0..self.members.len());
        circle.sort_by_key(|&i| self.members.get(i).map_or(0, |m| m.seq));
        order.clear();
        for id in observed {
            if let Some(i) = self.index_of(*id) {
                if !order.contains(&i) {
                    order.push(i);
                }
            }
        }
        let Some(&head) = order.first() else {
            return;
        };
        let at = circle.iter().position(|&i| i == head).unwrap_or(0);
        circle.rotate_left(at);
        let listed = order.len();
        for &i in circle.iter() {
            if !order[..listed].contains(&i) {
                order.push(i);
            }
        }
        for &i in order.iter() {
            let seq = self.fresh_seq();
            if let Some(m) = self.members.get_mut(i) {
                m.seq = seq;
            }
        }
    }

    /// Becomes a copy of `other`, in the memory it has (a state kept aside after every
    /// deviation costs no allocation once it has grown to the pool's size).
    pub fn copy_from(&mut self, other: &Pool) {
        self.profile = other.profile;
        self.policy = other.policy;
        self.members.clone_from(&other.members);
        self.next_seq = other.next_seq;
        self.max_increment = other.max_increment;
    }

    /// The PE ids of members given by index (an answer in `Scratch::picked`), into `out`.
    pub(crate) fn ids_into(&self, indices: &[usize], out: &mut Vec<u32>) {
        out.extend(
            indices
                .iter()
                .filter_map(|&i| self.members.get(i).map(|m| m.pe_id)),
        );
    }

    /// `commit` of an answer given as distinct member indices (what `answer_indices` gives).
    pub(crate) fn advance(&mut self, indices: &[usize]) {
        let profile = self.profile;
        let policy = self.policy;
        let max_inc = usize::try_from(self.max_increment).unwrap_or(usize::MAX);
        let spread_wrr =
            policy == PolicyKind::WeightedRoundRobin && profile.wrr == WrrRule::SpreadList;
        if spread_wrr && !indices.is_empty() {
            wrr::spread_advance(&mut self.members);
        }
        let random = policy.method() == Method::Random;
        for (pos, &i) in indices.iter().enumerate() {
            // RSPLIB's random selection takes every drawn member out of the value tree and puts
            // it back; its sorted selection re-links only the first maxIncrement.
            let relinked = random || pos < max_inc;
            let seq = if relinked {
                Some(self.fresh_seq())
            } else {
                None
            };
            let Some(m) = self.members.get_mut(i) else {
                continue;
            };
            m.selections = m.selections.saturating_add(1);
            if let Some(s) = seq {
                m.seq = s;
            }
            if spread_wrr {
                continue;
            }
            let explicit = pos < max_inc
                || (policy.degrades()
                    && profile.degradation_scope == DegradationScope::EveryReturned);
            if explicit {
                dispatch::update(policy, profile, m);
            }
            if relinked && profile.update_on_link {
                dispatch::update(policy, profile, m);
            }
        }
    }

    /// The reference answer, with the state advanced as the profile says.
    pub fn select(&mut self, items: usize, rng: &mut Rng) -> Vec<u32> {
        let answer = self.answer(items, rng);
        self.commit(&answer);
        answer
    }

    /// The key a correct answer is ascending in, from the current state (call before `commit`),
    /// for policies that promise a checkable order: LU by load, LUD by load + degradation, PLU by
    /// load + load degradation, PRIORITY by priority (upside down). `None` for other policies or
    /// an unknown member.
    pub fn order_key(&self, pe_id: u32) -> Option<u64> {
        let m = self.member(pe_id)?;
        dispatch::order_key(self.policy, self.profile, m)
    }

    /// Each member's long-run share of answers of `items` members. Randomised policies: the exact
    /// probabilities of drawing without replacement (estimated by a fixed-seed simulation when the
    /// pool is too large to enumerate). Deterministic policies: the frequencies over the next
    /// resolutions from the current state (a few thousand, enough for whole cycles of the usual
    /// pools).
    pub fn expected_share(&self, items: usize) -> Vec<Share> {
        let n = items.min(self.members.len());
        match self.policy.method() {
            Method::Random => {
                let weights: Vec<u64> = self
                    .members
                    .iter()
                    .map(|m| dispatch::draw_weight(self.policy, self.profile, m))
                    .collect();
                let (first, included) = super::share::draw_shares(&weights, n);
                self.members
                    .iter()
                    .zip(first.into_iter().zip(included))
                    .map(|(m, (first, included))| Share {
                        pe_id: m.pe_id,
                        first,
                        included,
                    })
                    .collect()
            }
            Method::Sorted => super::share::simulated_shares(self, n),
        }
    }
}

impl Pool {
    /// What the long-run shares of answers of `items` members depend on (see [`ShareKey`]).
    pub fn share_key(&self, items: usize) -> ShareKey {
        let mut seqs: Vec<u64> = self.members.iter().map(|m| m.seq).collect();
        seqs.sort_unstable();
        seqs.dedup();
        let first_round = self.members.iter().map(|m| m.round).min().unwrap_or(0);
        ShareKey {
            profile: self.profile.name,
            policy: self.policy,
            max_increment: self.max_increment,
            items: items.min(self.members.len()),
            members: self
                .members
                .iter()
                .map(|m| MemberKey {
                    pe_id: m.pe_id,
                    settings: m.settings,
                    seq_rank: seqs.binary_search(&m.seq).unwrap_or(0),
                    round: m.round.saturating_sub(first_round),
                    virtual_counter: m.virtual_counter,
                    spread_count: m.spread_count,
                    degradation: m.degradation,
                })
                .collect(),
        }
    }
}

/// A pool's state as far as its answers depend on it: sequence numbers only by their order (they
/// are only ever compared, and a fresh one is larger than all), WRR rounds only from the lowest
/// (compared, and advanced by one), the selection counts not at all. Two pools with equal keys
/// give the same answers from now on, so the same expected shares.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShareKey {
    profile: &'static str,
    policy: PolicyKind,
    max_increment: u32,
    items: usize,
    members: Vec<MemberKey>,
}

impl ShareKey {
    /// Members the key describes (what it costs to keep).
    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct MemberKey {
    pe_id: u32,
    settings: PeSettings,
    seq_rank: usize,
    round: u64,
    virtual_counter: u32,
    spread_count: u64,
    degradation: u64,
}

/// Draws `n` entries of `candidates` (id, member index, weight) without replacement, in
/// proportion to weight; stops early when no weight is left. Entries are walked in the order given.
pub(crate) fn draw_without_replacement(
    candidates: &mut Vec<(u32, usize, u64)>,
    n: usize,
    rng: &mut Rng,
) -> Vec<usize> {
    let mut out = Vec::with_capacity(n.min(candidates.len()));
    draw_into(candidates, n, rng, &mut out);
    out
}

/// `draw_without_replacement` appending to `out`.
fn draw_into(
    candidates: &mut Vec<(u32, usize, u64)>,
    n: usize,
    rng: &mut Rng,
    out: &mut Vec<usize>,
) {
    let start = out.len();
    while out.len() - start < n {
        let total = candidates.iter().fold(0u64, |a, c| a.saturating_add(c.2));
        if total == 0 {
            break;
        }
        let mut v = rng.below(total);
        let mut chosen = None;
        for (pos, c) in candidates.iter().enumerate() {
            if v < c.2 {
                chosen = Some(pos);
                break;
            }
            v -= c.2;
        }
        let Some(pos) = chosen else {
            break;
        };
        let c = candidates.remove(pos);
        out.push(c.1);
    }
}

/// Buffers an answer is worked out in, kept between answers by a simulation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    order: Vec<(super::member::SortKey, usize)>,
    candidates: Vec<(u32, usize, u64)>,
    /// The answer, as member indices.
    pub(crate) picked: Vec<usize>,
    /// `resync_with`'s round-robin circle and new order.
    circle: Vec<usize>,
    reorder: Vec<usize>,
}
