//! One pool under one profile: the reference selection state (`policy::Pool`) that mirrors the
//! membership, and the checks of an answer against it.
//!
//! The checks of one answer, in this order (a later one is skipped where noted):
//! * `duplicate-pe`: a PE listed twice;
//! * `unknown-pe`: a PE that is not a member (never registered, removed, or refused);
//! * `too-many`: more PEs than asked for (the Handle Resolution Option's items, else the
//!   profile's default, capped by the profile); else `too-few`: fewer than the reference lists
//!   (the pool size, or the members a randomised policy can draw, when smaller);
//! * `zero-weight`: a member the policy never picks (weight 0; a randomised policy's draw
//!   weight 0, e.g. RLU at 100 % load under the texts);
//! * sorted policies with a checkable order (LU, LUD, PLU, PRIORITY, PLUD): `order`, the listed
//!   members not ascending by the policy's key, and `not-least`, a member with a lower key left
//!   out while a higher one is listed;
//! * round robin: `rr-head-stuck`, the same member first as in the previous answer (pool of two
//!   or more) where the reference moves on;
//! * sorted policies: `sequence`, the answer differs from the reference's, when none of the above
//!   explains it;
//! * weighted round robin under the texts (`rfc5356`, `draft01`): no `sequence`; the answer's
//!   head is judged by the properties of a maximally spread list (`spread.rs`: `wrr-ratio`,
//!   `wrr-repeat`);
//! * randomised policies: the answer joins the goodness-of-fit tally (`fit.rs`), unless an error
//!   above makes it impossible under the policy.
//!
//! Then the state follows what the registrar said (`Pool::commit`), so one deviation is reported
//! once and not again in every later answer. After a deviation of a sorted policy the reference
//! resynchronises: its state is turned to the one the answer shows (`Pool::resync_to`: the
//! round-robin circle with the answer's first PE as head) before the answer is committed, and
//! the state the registrar would hold had only the answer on the wire differed (the reference's
//! own answer committed) is kept as an alternative. The next answer is judged against the first;
//! if it deviates there but fits the alternative exactly, the alternative is taken and nothing is
//! reported: one fault, one finding, whichever way the registrar's state went.

use super::events::PolicyInfo;
use super::fit::Fit;
use super::handle::{pe_hex, pe_list, pe_text};
use super::membership::{MemberInfo, Membership};
use super::rules::{Draft, Rule};
use super::spread::SpreadJudge;
use crate::analyse::policy::pool::Scratch;
use crate::analyse::policy::profile::WrrRule;
use crate::analyse::policy::{
    percent_of, Method, PeSettings, PolicyKind, Pool, Profile, Rng, Share,
};

/// The reference selection state of one pool under one profile.
#[derive(Clone, Debug)]
pub struct ProfilePool {
    pub profile: &'static Profile,
    pool: Option<Pool>,
    /// Why the profile cannot run this pool while it has its current members.
    unmodelled: Option<String>,
    /// The first PE of the previous answer (round-robin head).
    last_first: Option<u32>,
    /// Shares of a randomised pool, for (membership generation, items).
    shares: Option<(u64, usize, Vec<Share>)>,
    /// Shares for other numbers of items of the same membership (answers of one and of three
    /// alternate), so that alternating does not work them out again each time.
    other_shares: Vec<(u64, usize, Vec<Share>)>,
    pub fit: Fit,
    /// The frame of the last answer that joined the tally.
    pub fit_frame: u64,
    pub resolutions: u64,
    pub deviations: u64,
    /// Resolutions the profile could not check (a policy it does not define or model).
    pub unmodelled_resolutions: u64,
    /// Buffers the reference answer is worked out in, kept between answers.
    scratch: Scratch,
    /// Buffers an answer is checked in, kept between answers.
    bufs: CheckBuffers,
    /// After a deviation: the state the registrar may be in if only its answer on the wire
    /// differed (the next answer tells).
    alternative: Option<Box<Alternative>>,
    /// Weighted round robin under the texts: the heads judged so far.
    spread: SpreadJudge,
    /// Answers after a deviation that showed the registrar's state had moved on as the
    /// reference's would have (no new fault).
    pub resynced: u64,
    /// How the last answer was judged (`None`: it was not).
    last_judging: Option<Judging>,
}

/// The buffers [`ProfilePool::check_with`] works in.
#[derive(Clone, Debug, Default)]
struct CheckBuffers {
    /// The reference answer.
    expected: Vec<u32>,
    /// The answer's PEs that are members, in the answer's order.
    known: Vec<u32>,
    /// Their order keys.
    keys: Vec<u64>,
    /// The answer's distinct PEs, sorted.
    seen: Vec<u32>,
}

/// What an answer gave.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Checked {
    pub drafts: Vec<Draft>,
    /// The reference's answer (sorted policies).
    pub expected: Option<Vec<u32>>,
    /// Per member: probability of being first and of being listed (for the timeline).
    pub probabilities: Vec<(u32, f64, f64)>,
}

impl ProfilePool {
    pub fn new(profile: &'static Profile) -> Self {
        ProfilePool {
            profile,
            pool: None,
            unmodelled: None,
            last_first: None,
            shares: None,
            other_shares: Vec::new(),
            fit: Fit::default(),
            fit_frame: 0,
            resolutions: 0,
            deviations: 0,
            unmodelled_resolutions: 0,
            scratch: Scratch::default(),
            bufs: CheckBuffers::default(),
            alternative: None,
            spread: SpreadJudge::default(),
            resynced: 0,
            last_judging: None,
        }
    }

    /// The members changed: the state after a deviation is no longer to be chosen from, and the
    /// spread list is built anew.
    fn members_changed(&mut self) {
        if let Some(alt) = self.alternative.as_deref_mut() {
            alt.live = false;
        }
        self.spread.restart();
    }

    pub fn pool(&self) -> Option<&Pool> {
        self.pool.as_ref()
    }

    pub fn unmodelled(&self) -> Option<&str> {
        self.unmodelled.as_deref()
    }

    /// A member was added or re-registered (its settings as the membership now has them).
    pub fn registered(&mut self, member: &MemberInfo) {
        if self.unmodelled.is_some() {
            return;
        }
        let Some(settings) = member.policy.settings else {
            self.pool = None;
            self.unmodelled = Some(format!(
                "policy {} is not one poolshark's reference policies run",
                member.policy.name()
            ));
            return;
        };
        if self.pool.is_none() {
            match Pool::new(self.profile, settings.policy) {
                Ok(p) => self.pool = Some(p),
                Err(e) => {
                    self.unmodelled = Some(e.to_string());
                    return;
                }
            }
        }
        let Some(pool) = &mut self.pool else {
            return;
        };
        match pool.register(member.pe_id, settings) {
            // A re-registration that changed nothing leaves the selection as it was.
            Ok(r) if !r.new && r.changes.is_empty() && !r.degradation_reset => {}
            Ok(_) => self.members_changed(),
            Err(e) => {
                self.pool = None;
                self.unmodelled = Some(e.to_string());
                self.members_changed();
            }
        }
    }

    /// A member left; `empty` when the pool has no members left (a new first registration may
    /// bring another policy).
    pub fn removed(&mut self, pe_id: u32, empty: bool) {
        self.members_changed();
        if let Some(pool) = &mut self.pool {
            pool.deregister(pe_id);
        }
        if empty {
            self.pool = None;
            self.unmodelled = None;
            self.last_first = None;
            self.shares = None;
        }
    }

    /// Starts again from the membership (after registrars were merged).
    pub fn rebuild(&mut self, membership: &Membership) {
        self.members_changed();
        self.pool = None;
        self.unmodelled = None;
        self.last_first = None;
        self.shares = None;
        for m in membership.members() {
            self.registered(m);
        }
    }

    /// Works out each member's long-run shares of answers of `items` into `self.shares`, unless
    /// they are there for this membership already (cached for a randomised pool until its
    /// membership changes).
    fn refresh_shares(&mut self, generation: u64, items: usize) {
        if let Some((g, i, _)) = &self.shares {
            if *g == generation && *i == items {
                return;
            }
        }
        self.other_shares.retain(|(g, _, _)| *g == generation);
        let kept = self.other_shares.iter().position(|(_, i, _)| *i == items);
        if let Some(at) = kept {
            let found = self.other_shares.swap_remove(at);
            if let Some(old) = self
                .shares
                .replace(found)
                .filter(|(g, _, _)| *g == generation)
            {
                self.other_shares.push(old);
            }
            return;
        }
        if let Some(old) = self.shares.take().filter(|(g, _, _)| *g == generation) {
            if self.other_shares.len() >= MAX_OTHER_SHARES {
                self.other_shares.remove(0);
            }
            self.other_shares.push(old);
        }
        let s = self
            .pool
            .as_ref()
            .map(|p| p.expected_share(items))
            .unwrap_or_default();
        self.shares = Some((generation, items, s));
    }

    /// Checks one answer `observed` to a request for `requested` items (see the module docs),
    /// then advances the state as the registrar did. `None` when the profile cannot run the pool.
    #[cfg(test)]
    pub fn check(
        &mut self,
        membership: &Membership,
        requested: Option<u32>,
        observed: &[u32],
        frame: u64,
    ) -> Option<Checked> {
        self.check_with(membership, requested, observed, frame, true)
    }

    /// [`Self::check`], giving the reference answer and the members' probabilities in the
    /// result only when `detail` says so (they are made for the timeline; the findings are the
    /// same either way).
    pub fn check_with(
        &mut self,
        membership: &Membership,
        requested: Option<u32>,
        observed: &[u32],
        frame: u64,
        detail: bool,
    ) -> Option<Checked> {
        self.resolutions += 1;
        self.last_judging = None;
        if self.pool.is_none() {
            if self.unmodelled.is_none() && membership.is_empty() {
                self.bufs.expected.clear();
                self.last_judging = Some(Judging::Sequence);
                return Some(self.answer_from_empty_pool(membership, observed));
            }
            self.unmodelled_resolutions += 1;
            return None;
        }
        let generation = membership.generation();
        let (items, method) = {
            let pool = self.pool.as_ref()?;
            let policy = pool.policy();
            let method = if policy.method() == Method::Random {
                Judging::Draws
            } else if policy == PolicyKind::WeightedRoundRobin
                && self.profile.wrr == WrrRule::SpreadList
            {
                Judging::Spread
            } else {
                Judging::Sequence
            };
            (pool.items_for(requested), method)
        };
        if method != Judging::Sequence {
            // A randomised policy that degrades draws by counters every answer moves: its shares
            // are those of the state now, not of the membership's.
            if method == Judging::Draws && self.pool.as_ref().is_some_and(|p| p.policy().degrades())
            {
                self.shares = None;
                self.other_shares.clear();
            }
            self.refresh_shares(generation, items);
        }
        let shares: &[Share] = match &self.shares {
            Some((_, _, s)) if method != Judging::Sequence => s,
            _ => &[],
        };
        let pool = self.pool.as_mut()?;
        let ask = Ask {
            membership,
            requested,
            observed,
            items,
            method,
            shares,
        };
        let mut drafts = judge(
            pool,
            self.profile,
            self.last_first,
            &ask,
            &mut self.scratch,
            &mut self.bufs,
        );
        let mut resynced = false;
        if method == Judging::Sequence && drafts.iter().any(|d| d.rule.deviation()) {
            // The first answer after a deviation may show that the registrar's state moved on as
            // the reference's would have, the deviating answer aside: then it is no new fault.
            if let Some(alt) = self.alternative.as_deref_mut().filter(|a| a.live) {
                // Its answer first (cheap), the whole judgement only when that matches.
                alt.pool
                    .answer_indices(items, &mut Rng::new(0), &mut self.scratch);
                let bufs = &mut alt.bufs;
                bufs.expected.clear();
                alt.pool.ids_into(&self.scratch.picked, &mut bufs.expected);
                if bufs.expected.as_slice() == observed {
                    let theirs = judge(
                        &alt.pool,
                        self.profile,
                        alt.last_first,
                        &ask,
                        &mut self.scratch,
                        bufs,
                    );
                    if theirs.is_empty() {
                        std::mem::swap(pool, &mut alt.pool);
                        std::mem::swap(&mut self.bufs.expected, &mut bufs.expected);
                        drafts = theirs;
                        resynced = true;
                    }
                }
            }
        }
        if let Some(alt) = self.alternative.as_deref_mut() {
            alt.live = false;
        }
        if method == Judging::Spread {
            let head = observed
                .first()
                .copied()
                .filter(|id| pool.member(*id).is_some());
            let structural = drafts.iter().any(|d| d.rule.deviation());
            match self.spread.judge(pool, head.filter(|_| !structural)) {
                Some(d) => drafts.push(d),
                None if structural => self.spread.restart(),
                None => {}
            }
        }
        let expected = std::mem::take(&mut self.bufs.expected);
        let impossible = drafts
            .iter()
            .any(|d| d.rule.severity() == crate::analyse::finding::Severity::Error);
        if method == Judging::Draws && !impossible {
            self.fit.add(shares, observed, pool.len());
            self.fit_frame = frame;
        }
        let probabilities = if !detail {
            Vec::new()
        } else if method != Judging::Sequence {
            shares
                .iter()
                .map(|s| (s.pe_id, s.first, s.included))
                .collect()
        } else {
            expected
                .iter()
                .enumerate()
                .map(|(i, id)| (*id, if i == 0 { 1.0 } else { 0.0 }, 1.0))
                .collect()
        };
        let deviations = drafts.iter().filter(|d| d.rule.deviation()).count();
        if method == Judging::Sequence && deviations > 0 {
            // Resynchronised: from here on the reference follows the registrar's state as this
            // answer shows it (`Pool::resync_to`), and keeps the state it would have had had the
            // registrar answered as the reference did, for the next answer to choose between.
            // The alternative's buffers are kept from one deviation to the next.
            let alt = self.alternative.get_or_insert_with(|| {
                Box::new(Alternative {
                    pool: pool.clone(),
                    last_first: None,
                    live: false,
                    bufs: CheckBuffers::default(),
                })
            });
            alt.pool.copy_from(pool);
            alt.pool.commit_with(&expected, &mut self.scratch);
            alt.last_first = expected.first().copied();
            alt.live = true;
            pool.resync_with(observed, &mut self.scratch);
            // Said once per answer, and only where there is a state to follow (one member has
            // no order to keep).
            if pool.len() >= 2 {
                if let Some(d) = drafts.iter_mut().rev().find(|d| d.rule.deviation()) {
                    d.message.push_str(RESYNC_NOTE);
                }
            }
        }
        pool.commit_with(observed, &mut self.scratch);
        self.last_first = observed.first().copied();
        self.deviations = self
            .deviations
            .saturating_add(u64::try_from(deviations).unwrap_or(u64::MAX));
        if resynced {
            self.resynced = self.resynced.saturating_add(1);
        }
        let reference = (detail && method == Judging::Sequence).then(|| expected.clone());
        self.bufs.expected = expected;
        self.last_judging = Some(method);
        Some(Checked {
            drafts,
            expected: reference,
            probabilities,
        })
    }
}

/// The reference's expectation of the answer [`ProfilePool::check_with`] last judged: the exact
/// answer of a deterministic policy (first place certain, every member listed), or the members'
/// long-run shares (draws, the spread list).
#[derive(Clone, Copy, Debug)]
pub enum Expectation<'a> {
    Answer(&'a [u32]),
    Shares(&'a [Share]),
}

impl ProfilePool {
    /// What the reference expected of the answer last checked (`None` when it could not judge
    /// it): read without copying, so that `check` counts every answer's expectation for free.
    pub fn expectation(&self) -> Option<Expectation<'_>> {
        match self.last_judging? {
            Judging::Sequence => Some(Expectation::Answer(&self.bufs.expected)),
            _ => match &self.shares {
                Some((_, _, s)) => Some(Expectation::Shares(s)),
                None => Some(Expectation::Shares(&[])),
            },
        }
    }
}

/// What the deviating answer's findings say of the reference's state after them.
pub const RESYNC_NOTE: &str =
    "; the reference resynchronised to the registrar's state as its answers show it";

/// Numbers of items whose shares are kept besides the current one.
const MAX_OTHER_SHARES: usize = 3;

/// How a policy's answers are judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Judging {
    /// Deterministic: against the reference's exact answer.
    Sequence,
    /// Randomised: by the goodness of fit of many answers.
    Draws,
    /// Weighted round robin under the texts: by the properties of the list (`spread.rs`).
    Spread,
}

/// One answer to judge, and what it is judged with.
struct Ask<'a> {
    membership: &'a Membership,
    requested: Option<u32>,
    observed: &'a [u32],
    items: usize,
    method: Judging,
    /// The members' long-run shares (draws and the spread list).
    shares: &'a [Share],
}

/// A state the registrar may be in after a deviation, besides the one its answer showed.
#[derive(Clone, Debug)]
struct Alternative {
    pool: Pool,
    last_first: Option<u32>,
    /// Whether the last answer deviated, so that the next may choose this state.
    live: bool,
    bufs: CheckBuffers,
}

/// The findings of one answer from `pool`'s state (see the module docs), changing nothing but
/// the buffers; the reference's answer is left in `bufs.expected`.
fn judge(
    pool: &Pool,
    profile: &'static Profile,
    last_first: Option<u32>,
    ask: &Ask<'_>,
    scratch: &mut Scratch,
    bufs: &mut CheckBuffers,
) -> Vec<Draft> {
    let Ask {
        membership,
        requested,
        observed,
        items,
        method,
        shares,
    } = *ask;
    let policy = pool.policy();
    let random = method == Judging::Draws;
    let cap = profile.items_for(requested, usize::MAX);
    let expected = &mut bufs.expected;
    expected.clear();
    if method == Judging::Sequence {
        pool.answer_indices(items, &mut Rng::new(0), scratch);
        pool.ids_into(&scratch.picked, expected);
    }
    // The members the reference could list: those a draw can pick, the spread list's (a
    // weight), or its exact answer.
    let expected_len = match method {
        Judging::Sequence => expected.len(),
        Judging::Draws | Judging::Spread => {
            shares.iter().filter(|s| s.first > 0.0).count().min(items)
        }
    };

    let mut drafts = Vec::new();
    let (distinct, repeated) = distinct_and_repeated(observed);
    if !repeated.is_empty() {
        drafts.push(Draft::new(
            Rule::DuplicatePe,
            pe_list(&distinct),
            pe_list(&repeated),
            format!(
                "answer lists {} more than once ({})",
                pe_text(&repeated),
                pe_text(observed)
            ),
        ));
    }
    let unknown: Vec<u32> = distinct
        .iter()
        .copied()
        .filter(|id| pool.member(*id).is_none())
        .collect();
    if !unknown.is_empty() {
        let members: Vec<u32> = pool.members().iter().map(|m| m.pe_id).collect();
        drafts.push(Draft::new(
            Rule::UnknownPe,
            pe_list(&members),
            pe_list(&unknown),
            format!(
                "answer lists PEs that are not members: {}; members are {}",
                unknown_reasons(membership, &unknown),
                pe_text(&members)
            ),
        ));
    }
    if observed.len() > cap {
        drafts.push(Draft::new(
            Rule::TooMany,
            cap.into(),
            observed.len().into(),
            format!(
                "answer lists {} PEs, {} asked for at most {cap}",
                observed.len(),
                asked(requested)
            ),
        ));
    } else if observed.len() < expected_len {
        drafts.push(Draft::new(
            Rule::TooFew,
            expected_len.into(),
            observed.len().into(),
            format!(
                "answer lists {} PEs where the reference lists {expected_len} ({}, {} member(s))",
                observed.len(),
                asked(requested),
                pool.len()
            ),
        ));
    }
    // RSPLIB's weighted round robin sorts a weight-0 member like any other (its virtual
    // counter 0 puts it first in its round): only the texts' list leaves it out.
    let uses_weight = policy.uses().weight
        && !(policy == PolicyKind::WeightedRoundRobin && profile.wrr == WrrRule::RoundCounter);
    let zero: Vec<u32> = distinct
        .iter()
        .copied()
        .filter(|id| {
            let weightless =
                uses_weight && pool.member(*id).is_some_and(|m| m.settings.weight == 0);
            let undrawable = random && shares.iter().any(|s| s.pe_id == *id && s.first <= 0.0);
            weightless || undrawable
        })
        .collect();
    if !zero.is_empty() {
        drafts.push(Draft::new(
            Rule::ZeroWeight,
            serde_json::json!([]),
            pe_list(&zero),
            format!(
                "answer lists {} which {} never picks (selection weight 0)",
                pe_text(&zero),
                policy.cli_name().to_ascii_uppercase()
            ),
        ));
    }
    if method != Judging::Sequence {
        return drafts;
    }
    let CheckBuffers {
        known,
        keys,
        seen,
        expected,
    } = bufs;
    known.clear();
    known.extend(
        distinct
            .iter()
            .copied()
            .filter(|id| pool.member(*id).is_some()),
    );
    keys.clear();
    let mut keyed = true;
    for id in known.iter() {
        match pool.order_key(*id) {
            Some(k) => keys.push(k),
            None => {
                keyed = false;
                break;
            }
        }
    }
    if keyed && !keys.is_empty() {
        if keys.windows(2).any(|w| matches!(w, [a, b] if a > b)) {
            let mut sorted: Vec<(u64, u32)> =
                keys.iter().copied().zip(known.iter().copied()).collect();
            sorted.sort_by_key(|(k, _)| *k);
            let listed: Vec<String> = known
                .iter()
                .zip(keys.iter())
                .map(|(id, k)| format!("{} ({})", pe_hex(*id), key_text(policy, *k)))
                .collect();
            drafts.push(Draft::new(
                Rule::Order,
                pe_list(&sorted.iter().map(|(_, id)| *id).collect::<Vec<_>>()),
                pe_list(observed),
                format!(
                    "{} answer is not in order: {}",
                    policy.cli_name().to_ascii_uppercase(),
                    listed.join(", ")
                ),
            ));
        }
        let highest = keys.iter().copied().max().unwrap_or(0);
        let (worst_id, _) = known
            .iter()
            .zip(keys.iter())
            .max_by_key(|(_, k)| **k)
            .map(|(id, k)| (*id, *k))
            .unwrap_or((0, 0));
        seen.clear();
        seen.extend_from_slice(&distinct);
        seen.sort_unstable();
        let lower: Vec<(u32, u64)> = pool
            .members()
            .iter()
            .filter(|m| seen.binary_search(&m.pe_id).is_err())
            .filter_map(|m| pool.order_key(m.pe_id).map(|k| (m.pe_id, k)))
            .filter(|(_, k)| *k < highest)
            .collect();
        if !lower.is_empty() {
            let left: Vec<String> = lower
                .iter()
                .map(|(id, k)| format!("{} ({})", pe_hex(*id), key_text(policy, *k)))
                .collect();
            drafts.push(Draft::new(
                Rule::NotLeast,
                pe_list(expected),
                pe_list(observed),
                format!(
                    "{} left out while {} ({}) is listed",
                    left.join(", "),
                    pe_hex(worst_id),
                    key_text(policy, highest)
                ),
            ));
        }
    }
    // Only a member can be a stuck head (an unknown one is reported as such).
    let first = observed
        .first()
        .copied()
        .filter(|id| pool.member(*id).is_some());
    if policy == PolicyKind::RoundRobin
        && pool.len() >= 2
        && first.is_some()
        && first == last_first
        && expected.first().copied() != first
    {
        drafts.push(Draft::new(
            Rule::RrHeadStuck,
            expected.first().map(|id| pe_hex(*id)).into(),
            first.map(pe_hex).into(),
            format!(
                "round robin head did not advance: {} first again, the reference moves on to {}",
                pe_text(&first.into_iter().collect::<Vec<_>>()),
                pe_text(&expected.iter().take(1).copied().collect::<Vec<_>>())
            ),
        ));
    }
    if drafts.is_empty() && observed != expected.as_slice() {
        drafts.push(Draft::new(
            Rule::Sequence,
            pe_list(expected),
            pe_list(observed),
            format!(
                "{} answer {} differs from the reference's {}",
                policy.cli_name().to_ascii_uppercase(),
                pe_text(observed),
                pe_text(expected)
            ),
        ));
    }
    drafts
}

impl ProfilePool {
    /// A pool whose members all left answers with PEs: every one of them is unknown.
    fn answer_from_empty_pool(&mut self, membership: &Membership, observed: &[u32]) -> Checked {
        let (distinct, _) = distinct_and_repeated(observed);
        self.deviations = self.deviations.saturating_add(1);
        self.last_first = observed.first().copied();
        Checked {
            drafts: vec![Draft::new(
                Rule::UnknownPe,
                serde_json::json!([]),
                pe_list(&distinct),
                format!(
                    "answer lists PEs of a pool that has no members: {}",
                    unknown_reasons(membership, &distinct)
                ),
            )],
            expected: Some(Vec::new()),
            probabilities: Vec::new(),
        }
    }
}

/// PE ids of one answer, inline for the usual few.
type Ids = smallvec::SmallVec<[u32; 8]>;

/// The ids of an answer once each in wire order, and those listed more than once (in the order
/// they repeat).
fn distinct_and_repeated(observed: &[u32]) -> (Ids, Ids) {
    // An answer lists a few PEs: looking back is quicker than sorting a copy, and the lists
    // returned are inline up to their size.
    if observed.len() <= 32 {
        let (mut distinct, mut repeated) = (Ids::new(), Ids::new());
        for (i, id) in observed.iter().enumerate() {
            let before = observed.get(..i).unwrap_or_default();
            match before.iter().filter(|b| *b == id).count() {
                0 => distinct.push(*id),
                1 => repeated.push(*id),
                _ => {}
            }
        }
        return (distinct, repeated);
    }
    let mut ids = observed.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let mut count = vec![0u32; ids.len()];
    let (mut distinct, mut repeated) = (Ids::new(), Ids::new());
    for id in observed {
        let Some(c) = ids.binary_search(id).ok().and_then(|i| count.get_mut(i)) else {
            continue;
        };
        *c = c.saturating_add(1);
        match *c {
            1 => distinct.push(*id),
            2 => repeated.push(*id),
            _ => {}
        }
    }
    (distinct, repeated)
}

/// Why each PE of `ids` is not a member, as far as the pool remembers.
fn unknown_reasons(membership: &Membership, ids: &[u32]) -> String {
    ids.iter()
        .map(|id| match membership.removal(*id) {
            Some(r) => format!("{} {}", pe_hex(*id), r.reason.describe(r.frame)),
            None => format!("{} never registered in this pool", pe_hex(*id)),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn asked(requested: Option<u32>) -> String {
    match requested {
        Some(u32::MAX) => "the request asked for all".to_string(),
        Some(n) => format!("the request asked for {n}"),
        None => "the request named no number (default)".to_string(),
    }
}

/// A sort key in words: a priority, or a load on RFC 5356's scale as a percentage.
pub fn key_text(policy: PolicyKind, key: u64) -> String {
    if policy == PolicyKind::Priority {
        let priority = u64::from(u32::MAX).saturating_sub(key);
        return format!("priority {priority}");
    }
    let what = match policy {
        PolicyKind::LeastUsed => "load",
        _ => "load with degradation",
    };
    let pct = key as f64 * 100.0 / f64::from(u32::MAX);
    format!("{what} {pct:.2} %")
}

/// A member's settings in words, for the timeline ("weight 3", "load 50.0 %").
pub fn describe_settings(s: &PeSettings) -> String {
    let uses = s.policy.uses();
    let mut parts = Vec::new();
    if uses.weight {
        parts.push(format!("weight {}", s.weight));
    }
    if uses.priority {
        parts.push(format!("priority {}", s.priority));
    }
    if uses.load {
        parts.push(format!("load {:.1} %", percent_of(s.load)));
    }
    if uses.load_degradation {
        parts.push(format!(
            "degradation {:.1} %",
            percent_of(s.load_degradation)
        ));
    }
    if parts.is_empty() {
        s.policy.cli_name().to_ascii_uppercase()
    } else {
        parts.join(", ")
    }
}

/// The pool's policy for reports ("LU", "policy 0xb0002002").
pub fn policy_name(p: Option<&PolicyInfo>) -> String {
    p.map_or_else(|| "-".to_string(), PolicyInfo::name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::policy::{scaled_from_percent, RFC5356, RSPLIB};
    use crate::analyse::rserpool::events::PeInfo;
    use crate::analyse::rserpool::membership::Origin;
    use crate::base::Timestamp;

    fn member(
        m: &mut Membership,
        pp: &mut [ProfilePool],
        id: u32,
        wire: PolicyKind,
        s: PeSettings,
    ) {
        let pe = PeInfo {
            pe_id: id,
            home_server_id: 0,
            registration_life_ms: -1,
            policy: Some(PolicyInfo {
                wire,
                code: 0,
                settings: Some(s),
            }),
        };
        m.add(&pe, Origin::Home, Timestamp::default(), 1);
        let info = m.member(id).cloned().expect("added");
        for p in pp {
            p.registered(&info);
        }
    }

    fn rules(c: &Checked) -> Vec<&'static str> {
        c.drafts.iter().map(|d| d.rule.id()).collect()
    }

    fn lu(pct: f64) -> PeSettings {
        PeSettings::new(PolicyKind::LeastUsed).with_load(scaled_from_percent(pct).unwrap())
    }

    #[test]
    fn least_used_answers_are_checked_for_order_and_left_out_members() {
        let mut m = Membership::default();
        let mut pp = [ProfilePool::new(&RSPLIB)];
        member(&mut m, &mut pp, 1, PolicyKind::LeastUsed, lu(10.0));
        member(&mut m, &mut pp, 2, PolicyKind::LeastUsed, lu(20.0));
        member(&mut m, &mut pp, 3, PolicyKind::LeastUsed, lu(30.0));
        let p = &mut pp[0];
        let ok = p.check(&m, None, &[1, 2, 3], 10).unwrap();
        assert!(ok.drafts.is_empty(), "{:?}", ok.drafts);
        assert_eq!(ok.expected, Some(vec![1, 2, 3]));
        let c = p.check(&m, None, &[2, 1, 3], 11).unwrap();
        assert_eq!(rules(&c), vec!["rserpool.order"]);
        assert_eq!(
            c.drafts[0].expected,
            serde_json::json!(["0x00000001", "0x00000002", "0x00000003"])
        );
        let c = p.check(&m, Some(1), &[2], 12).unwrap();
        assert_eq!(rules(&c), vec!["rserpool.not-least"]);
        assert!(
            c.drafts[0]
                .message
                .contains("0x00000001 (load 10.00 %) left out"),
            "{}",
            c.drafts[0].message
        );
        assert_eq!(p.deviations, 2);
    }

    #[test]
    fn structural_rules_come_first_and_sequence_explains_the_rest() {
        let rr = PeSettings::new(PolicyKind::RoundRobin);
        let mut m = Membership::default();
        let mut pp = [ProfilePool::new(&RSPLIB)];
        for id in [1, 2, 3] {
            member(&mut m, &mut pp, id, PolicyKind::RoundRobin, rr);
        }
        let p = &mut pp[0];
        let c = p.check(&m, Some(3), &[1, 2, 1], 1).unwrap();
        assert_eq!(rules(&c), vec!["rserpool.duplicate-pe"]);
        let c = p.check(&m, Some(1), &[9], 2).unwrap();
        assert_eq!(rules(&c), vec!["rserpool.unknown-pe"]);
        assert!(c.drafts[0].message.contains("0x00000009 never registered"));
        let c = p.check(&m, Some(1), &[2, 3], 3).unwrap();
        assert_eq!(rules(&c), vec!["rserpool.too-many"]);
        let c = p.check(&m, None, &[1, 2], 4).unwrap();
        assert_eq!(rules(&c), vec!["rserpool.too-few"]);
        // The state follows the wire: the reference's next single answer.
        let next = p.pool().unwrap().answer(1, &mut Rng::new(0));
        // Neither the reference's pick nor the previous head (1), so only `sequence` applies.
        let wrong = [2, 3].into_iter().find(|x| *x != next[0]).unwrap();
        let c = p.check(&m, Some(1), &[wrong], 5).unwrap();
        assert_eq!(rules(&c), vec!["rserpool.sequence"]);
        assert!(c.drafts[0].message.ends_with(RESYNC_NOTE));
        // The same head again: what a registrar whose state moved on as the reference's did
        // (frame 5's answer aside) answers now, so no new fault.
        let c = p.check(&m, Some(1), &[wrong], 6).unwrap();
        assert_eq!(rules(&c), Vec::<&str>::new());
        assert_eq!(p.resynced, 1);
        // And once more: now the head did not advance.
        let c = p.check(&m, Some(1), &[wrong], 7).unwrap();
        assert_eq!(rules(&c), vec!["rserpool.rr-head-stuck"]);
    }

    /// Single answers of a round-robin pool of five, with one answer changed by `fault`: the
    /// findings per frame.
    fn rr_run(fault: impl Fn(u64, &[u32]) -> Option<Vec<u32>>) -> Vec<(u64, Vec<&'static str>)> {
        let rr = PeSettings::new(PolicyKind::RoundRobin);
        let mut m = Membership::default();
        let mut pp = [ProfilePool::new(&RSPLIB)];
        for id in 1..=5 {
            member(&mut m, &mut pp, id, PolicyKind::RoundRobin, rr);
        }
        // What the registrar's own state gives, frame after frame.
        let mut registrar = pp[0].pool().unwrap().clone();
        let mut out = Vec::new();
        for frame in 1..=40 {
            let right = registrar.select(1, &mut Rng::new(0));
            let sent = fault(frame, &right).unwrap_or(right);
            let c = pp[0].check(&m, Some(1), &sent, frame).unwrap();
            if !c.drafts.is_empty() {
                out.push((frame, rules(&c)));
            }
        }
        out
    }

    #[test]
    fn one_fault_gives_one_finding_whatever_the_registrar_did() {
        // The answer on the wire repeats the previous head, the registrar moved on: one finding.
        let repeat = rr_run(|frame, _| (frame == 12).then(|| vec![1]));
        assert_eq!(repeat, vec![(12, vec!["rserpool.rr-head-stuck"])]);
        // The answer on the wire names another PE than the one the registrar chose.
        let other = rr_run(|frame, right| (frame == 7).then(|| vec![right[0] % 5 + 2]));
        assert_eq!(other.len(), 1, "{other:?}");
        // A registrar that answers from a state of its own (its head jumped): one finding, then
        // its answers are followed from where it showed itself to be.
        let rr = PeSettings::new(PolicyKind::RoundRobin);
        let mut m = Membership::default();
        let mut pp = [ProfilePool::new(&RSPLIB)];
        for id in 1..=5 {
            member(&mut m, &mut pp, id, PolicyKind::RoundRobin, rr);
        }
        let heads = [1, 2, 4, 5, 1, 2, 3, 4, 5, 1];
        let found: Vec<u64> = heads
            .iter()
            .zip(1..)
            .filter(|(h, frame)| {
                !pp[0]
                    .check(&m, Some(1), &[**h], *frame)
                    .unwrap()
                    .drafts
                    .is_empty()
            })
            .map(|(_, frame)| frame)
            .collect();
        assert_eq!(found, vec![3]);
        // A head stuck for good is a fault at every answer.
        let stuck = rr_run(|frame, _| (frame >= 20).then(|| vec![5]));
        assert_eq!(stuck.len(), 20, "{stuck:?}");
    }

    #[test]
    fn zero_weights_and_unmodelled_policies() {
        let w = |x| PeSettings::new(PolicyKind::WeightedRandom).with_weight(x);
        let mut m = Membership::default();
        let mut pp = [ProfilePool::new(&RFC5356)];
        member(&mut m, &mut pp, 1, PolicyKind::WeightedRandom, w(0));
        member(&mut m, &mut pp, 2, PolicyKind::WeightedRandom, w(5));
        let c = pp[0].check(&m, Some(1), &[1], 1).unwrap();
        assert_eq!(rules(&c), vec!["rserpool.zero-weight"]);
        // The impossible answer does not join the tally; a good one does.
        assert_eq!(pp[0].fit.answers(), 0);
        let c = pp[0].check(&m, Some(1), &[2], 2).unwrap();
        assert!(c.drafts.is_empty());
        assert_eq!(pp[0].fit.answers(), 1);
        assert_eq!(c.probabilities, vec![(1, 0.0, 0.0), (2, 1.0, 1.0)]);

        // Weighted round robin: the texts' list leaves a weight-0 member out; RSPLIB's round
        // counter sorts it first in its round (rsplib's poolpolicy weightedRoundRobinComparison).
        let w = |x| PeSettings::new(PolicyKind::WeightedRoundRobin).with_weight(x);
        for (profile, zero_weight_is_wrong) in [(&RFC5356, true), (&RSPLIB, false)] {
            let mut m = Membership::default();
            let mut pp = [ProfilePool::new(profile)];
            member(&mut m, &mut pp, 1, PolicyKind::WeightedRoundRobin, w(0));
            member(&mut m, &mut pp, 2, PolicyKind::WeightedRoundRobin, w(1));
            let reference = pp[0].pool().unwrap().answer(1, &mut Rng::new(0));
            assert_eq!(
                reference.contains(&1),
                !zero_weight_is_wrong,
                "{}",
                profile.name
            );
            let c = pp[0].check(&m, Some(1), &[1], 1).unwrap();
            assert_eq!(
                rules(&c).contains(&"rserpool.zero-weight"),
                zero_weight_is_wrong,
                "{}: {:?}",
                profile.name,
                rules(&c)
            );
        }

        let mut m = Membership::default();
        let mut pp = [ProfilePool::new(&crate::analyse::policy::DRAFT01)];
        member(
            &mut m,
            &mut pp,
            1,
            PolicyKind::Priority,
            PeSettings::new(PolicyKind::Priority),
        );
        assert!(pp[0].unmodelled().is_some());
        assert!(pp[0].check(&m, None, &[1], 1).is_none());
        assert_eq!(pp[0].unmodelled_resolutions, 1);
    }

    #[test]
    fn repeats_are_found_in_wire_order() {
        let lists = |(d, r): (Ids, Ids)| (d.to_vec(), r.to_vec());
        assert_eq!(
            lists(distinct_and_repeated(&[3, 1, 3, 2, 1, 3])),
            (vec![3, 1, 2], vec![3, 1])
        );
        assert_eq!(lists(distinct_and_repeated(&[])), (vec![], vec![]));
        // Long answers take the sorting path: the same result.
        let long: Vec<u32> = (0..40)
            .map(|i| [7, 3, 7, 9, 3, 7][i % 6] + (i as u32 / 6) * 10)
            .collect();
        let mut ids = long.clone();
        ids.sort_unstable();
        ids.dedup();
        let (distinct, repeated) = distinct_and_repeated(&long);
        let mut d = distinct.clone();
        d.sort_unstable();
        assert_eq!(d.as_slice(), ids);
        assert_eq!(&distinct[..3], &[7, 3, 9]);
        assert_eq!(&repeated[..2], &[7, 3]);
        // Thirty ids (the looking-back path) and the same with a new id three times (past 32,
        // the sorting path): the same lists, the new id added to both.
        let short = &long[..30];
        let mut longer = short.to_vec();
        longer.extend_from_slice(&[1000; 3]);
        let (mut distinct, mut repeated) = distinct_and_repeated(short);
        distinct.push(1000);
        repeated.push(1000);
        assert_eq!(distinct_and_repeated(&longer), (distinct, repeated));
    }

    #[test]
    fn keys_in_words() {
        assert_eq!(
            key_text(PolicyKind::Priority, u64::from(u32::MAX - 20)),
            "priority 20"
        );
        assert_eq!(
            key_text(PolicyKind::LeastUsed, u64::from(u32::MAX / 2)),
            "load 50.00 %"
        );
        assert_eq!(describe_settings(&lu(50.0)), "load 50.0 %");
        assert_eq!(
            describe_settings(&PeSettings::new(PolicyKind::RoundRobin)),
            "RR"
        );
    }
}
