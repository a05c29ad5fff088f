//! Weighted Round Robin (RFC 5356 4.2, draft-01 3.2): round robin where each member occurs in
//! proportion to its weight. Two mechanisms, chosen by the profile's `wrr` field:
//!
//! * RSPLIB's round counter: key (round, virtual counter, sequence number). A member enters with
//!   the current round and its weight as virtual counter; each update takes one off the virtual
//!   counter while it is above 1, else starts the member's next round with a full counter.
//! * The texts' circular list "as distributed as possible" (draft-01 3.2.2): a list of as many
//!   slots as the weights add up to, built slot by slot so that it is maximally spread (below),
//!   the head moving on by one slot per answer.
//!
//! # Maximally spread
//!
//! A circular list of `W` slots (`W` the sum of the weights) is *maximally spread* when
//! 1. each member of weight `w` holds `w` slots (the ratio the text fixes);
//! 2. no member holds two neighbouring slots (the last and the first are neighbours too) unless
//!    its weight is over half of `W`, and such a member then holds only the `2w - W` neighbouring
//!    pairs it cannot avoid (no avoidable repeat);
//! 3. read from its first slot, every member's count in the first `n` slots is its quota
//!    `n * w / W` rounded down or up, for every `n` (the quota property of apportionment); so any
//!    `L` neighbouring slots hold a member within one of `L * w / W` (fewer than 2 away), and the
//!    gap between two of its slots is under twice `W / w`.
//!
//! One spread for every member alike (every gap `W / w` rounded) is not always possible (weights
//! 3, 2, 1: the member of weight 2 has gaps 2 and 4), which is why 3 allows one slot either way.
//!
//! The list is built as a schedule: occurrence `j` (from 0) of a member of weight `w` must stand
//! in slots `ceil(j W / w)` to `ceil((j + 1) W / w) - 1`, and each slot takes, of the occurrences
//! whose range has begun, the one whose range ends first (earliest deadline first; ties to the
//! heavier member, then the earlier registration). Those ranges can always all be met (in any
//! stretch of slots, the ranges that fit in it are no more than its slots), and earliest deadline
//! first meets any ranges that can be met, so 1 and 3 hold for every weight set; 2 is what the
//! tie rule gives, checked for every set of up to 8 members of weights up to 10 by the tests
//! (`tests/it/simulate.rs`). Each slot costs one pass over the members, with no list kept, so
//! weights of any size cost nothing more.
//!
//! A simulation of thousands of answers, the head moving on by one slot after each, walks the
//! list once for all of them ([`Answers`]) instead of once per answer.

use std::collections::{BTreeSet, VecDeque};

use super::member::{Member, SortKey};

// ---- RSPLIB: round and virtual counter ----

pub fn key(m: &Member) -> SortKey {
    SortKey::new(m.round, u64::from(m.virtual_counter), m.seq)
}

/// A newcomer joins the round the pool is in (that of the member that would be picked first).
pub fn join(m: &mut Member, current_round: u64) {
    m.round = current_round;
    m.virtual_counter = m.settings.weight;
}

pub fn update(m: &mut Member) {
    if m.virtual_counter > 1 {
        m.virtual_counter -= 1;
    } else {
        m.round = m.round.saturating_add(1);
        m.virtual_counter = m.settings.weight;
    }
}

/// A new weight caps what is left of the current round.
pub fn reweigh(m: &mut Member) {
    m.virtual_counter = m.virtual_counter.min(m.settings.weight);
}

// ---- The texts: spread list (see the module docs) ----

/// How many steps of the list an answer may look ahead for members it does not hold yet, per
/// member and in all; beyond that the rest follow in the order they would come next. Keeps an
/// answer's cost bounded whatever the weights (a weight of 1 beside 0xffffffff would otherwise
/// need billions of steps) and the pool size.
const LOOKAHEAD_PER_MEMBER: usize = 64;
const LOOKAHEAD_MAX: usize = 4096;

/// The slots of the list: the sum of the weights.
pub fn total_weight(members: &[Member]) -> u128 {
    members.iter().map(|m| u128::from(m.settings.weight)).sum()
}

/// The first slot of occurrence `j` of a member of weight `w` in a list of `total` slots, and
/// the last: `ceil(j total / w)` and `ceil((j + 1) total / w) - 1` (`w` > 0).
fn range(j: u128, w: u128, total: u128) -> (u128, u128) {
    let w = w.max(1);
    // In 64 bits when the products fit (weights adding up to under 2^32: any real pool), which
    // is several times quicker than 128-bit division.
    if let (Ok(j), Ok(w), Ok(total)) = (u64::try_from(j), u64::try_from(w), u64::try_from(total)) {
        if let Some(end) = j.checked_add(1).and_then(|n| n.checked_mul(total)) {
            let release = (j * total).div_ceil(w);
            let deadline = end.div_ceil(w).saturating_sub(1);
            return (u128::from(release), u128::from(deadline));
        }
    }
    let release = (j * total).div_ceil(w);
    let deadline = ((j + 1) * total).div_ceil(w).saturating_sub(1);
    (release, deadline)
}

/// A walk along the list from some slot: each member's occurrences handed out so far in the
/// current pass (`counts`), their sum (the slot), and each member's next occurrence's range
/// as [`range`] gives it, kept until that member's count moves (a step costs one pass over the
/// members and one division, not one per member).
struct Walk<'a> {
    members: &'a [Member],
    total: u128,
    counts: Vec<u64>,
    ranges: Vec<Option<(u128, u128)>>,
    slot: u128,
    /// Members with a weight whose occurrences this pass are not all handed out: at 0 the
    /// list is full and starts again.
    left: usize,
}

impl<'a> Walk<'a> {
    fn new(members: &'a [Member], counts: Vec<u64>) -> Self {
        Walk {
            members,
            total: total_weight(members),
            slot: counts.iter().map(|&c| u128::from(c)).sum(),
            ranges: vec![None; counts.len()],
            left: members
                .iter()
                .zip(&counts)
                .filter(|(m, &c)| m.settings.weight > 0 && c < u64::from(m.settings.weight))
                .count(),
            counts,
        }
    }

    /// The member the list holds at its head: of the members whose next occurrence's range
    /// has begun at the current slot (the occurrences handed out so far, summed), the one whose
    /// range ends first; ties to the heavier, then the earlier registration. `None` when no
    /// member has a weight.
    fn head(&mut self) -> Option<usize> {
        let mut best: Option<(usize, (u128, std::cmp::Reverse<u32>))> = None;
        let mut earliest: Option<(usize, u128)> = None;
        let members = self.members.iter().zip(&self.counts).zip(&mut self.ranges);
        for (i, ((m, &c), cached)) in members.enumerate() {
            let w = m.settings.weight;
            if w == 0 || u128::from(c) >= u128::from(w) {
                continue;
            }
            let (release, deadline) =
                *cached.get_or_insert_with(|| range(u128::from(c), u128::from(w), self.total));
            if earliest.is_none_or(|(_, r)| release < r) {
                earliest = Some((i, release));
            }
            if release > self.slot {
                continue;
            }
            let key = (deadline, std::cmp::Reverse(w));
            if best.is_none_or(|(_, b)| key < b) {
                best = Some((i, key));
            }
        }
        // Every occurrence's range can be met, so one has always begun; should the counts ever
        // say otherwise (they cannot), the earliest to begin is the head rather than none.
        best.map(|(i, _)| i).or(earliest.map(|(i, _)| i))
    }

    /// The head moves on by one slot with member `picked`; a full list starts again from its
    /// first slot.
    fn step(&mut self, picked: usize) {
        let (Some(c), Some(r), Some(m)) = (
            self.counts.get_mut(picked),
            self.ranges.get_mut(picked),
            self.members.get(picked),
        ) else {
            return;
        };
        let w = u64::from(m.settings.weight);
        if *c < u64::MAX {
            let before = *c;
            *c += 1;
            self.slot += 1;
            if w > 0 && before < w && *c >= w {
                self.left -= 1;
            }
        }
        *r = None;
        if self.left == 0 {
            self.counts.iter_mut().for_each(|c| *c = 0);
            self.ranges.iter_mut().for_each(|r| *r = None);
            self.slot = 0;
            self.left = self
                .members
                .iter()
                .filter(|m| m.settings.weight > 0)
                .count();
        }
    }
}

/// Up to `n` distinct members, in the order the list reaches them from its head. Members of
/// weight 0 are not in the list.
pub fn spread_answer(members: &[Member], n: usize) -> Vec<usize> {
    let mut walk = Walk::new(members, members.iter().map(|m| m.spread_count).collect());
    let want = wanted(members, n);
    let mut out = Vec::with_capacity(want);
    for _ in 0..budget(members) {
        if out.len() >= want {
            break;
        }
        let Some(h) = walk.head() else {
            break;
        };
        if !out.contains(&h) {
            out.push(h);
        }
        walk.step(h);
    }
    if out.len() < want {
        fill_past_lookahead(members, &walk, want, &mut out);
    }
    out
}

/// The members an answer of `n` can name: those in the list (of a weight).
fn wanted(members: &[Member], n: usize) -> usize {
    n.min(members.iter().filter(|m| m.settings.weight > 0).count())
}

/// The steps an answer looks ahead at most (see [`LOOKAHEAD_PER_MEMBER`]).
fn budget(members: &[Member]) -> usize {
    LOOKAHEAD_PER_MEMBER
        .saturating_mul(members.len())
        .min(LOOKAHEAD_MAX)
}

/// Past the look-ahead (`walk` at its end): the members `out` lacks, by where their next
/// occurrence may begin, until it holds `want`.
fn fill_past_lookahead(members: &[Member], walk: &Walk, want: usize, out: &mut Vec<usize>) {
    let mut rest: Vec<(u128, usize)> = (0..members.len())
        .filter(|i| !out.contains(i))
        .filter_map(|i| {
            let m = members.get(i)?;
            let w = u128::from(m.settings.weight);
            let c = u128::from(walk.counts.get(i).copied().unwrap_or(0));
            (w > 0).then(|| (range(c.min(w - 1), w, walk.total).0, i))
        })
        .collect();
    rest.sort_unstable();
    out.extend(rest.into_iter().map(|(_, i)| i).take(want - out.len()));
}

/// The answers of a simulation: what [`spread_answer`] gives, answer after answer, with the
/// head moved on by one slot between them as [`spread_advance`] moves it (the same answers, as
/// the tests check), at the cost of one step of the list per answer rather than one per slot
/// each answer looks ahead.
///
/// Answer `k` is the first `n` distinct members of the list's slots `k` to `k + budget - 1` from
/// the start, by their first slot there (then [`fill_past_lookahead`] from slot `k + budget`).
/// One walk (`lead`) goes ahead of the answers; the slots it has passed and not yet left behind
/// are kept, with each slot's next slot of the same member, and the members by their first slot
/// among them (`firsts`): an answer reads the first `n`, and leaving a slot behind moves its
/// member's first slot on to its next one.
pub struct Answers<'a> {
    members: &'a [Member],
    lead: Walk<'a>,
    want: usize,
    budget: usize,
    /// The slot of the current answer's head, counted from the start.
    at: u64,
    /// The slots `at..at + window.len()` the lead has passed: the member, and the slot of its
    /// next occurrence (if the lead has passed it).
    window: VecDeque<(usize, Option<u64>)>,
    /// Each member's last slot the lead has passed.
    last: Vec<Option<u64>>,
    /// The members in the window, by their first slot there.
    firsts: BTreeSet<(u64, usize)>,
    /// The slot, counted from the start, at which the lead first stood at the list's first slot
    /// (0 when the walk starts there): every round from there on is the same list.
    restart: Option<u64>,
    out: Vec<usize>,
}

impl<'a> Answers<'a> {
    /// `None` when an answer names no member (none of a weight, or `n` 0) or when no member
    /// has an occurrence left in the current round (a state the head cannot leave: the
    /// simulation answers the same from it, one answer at a time).
    pub fn new(members: &'a [Member], n: usize) -> Option<Self> {
        let want = wanted(members, n);
        let mut lead = Walk::new(members, members.iter().map(|m| m.spread_count).collect());
        if want == 0 || lead.left == 0 || lead.head().is_none() {
            return None;
        }
        Some(Answers {
            members,
            want,
            budget: budget(members),
            at: 0,
            window: VecDeque::new(),
            last: vec![None; members.len()],
            firsts: BTreeSet::new(),
            restart: (lead.slot == 0).then_some(0),
            lead,
            out: Vec::with_capacity(want),
        })
    }

    /// The answers repeat from here on: `(first, period)`, the answer whose head is the first
    /// slot of a round of the list, and the list's length (each round of the list is the same
    /// list, and so are the answers of its slots), once the walk has seen a round begin and
    /// when the list's length fits in a `usize`.
    pub fn cycle(&self) -> Option<(u64, usize)> {
        self.restart.zip(usize::try_from(self.lead.total).ok())
    }

    /// The list's length: the sum of the weights.
    pub fn cycle_len(&self) -> u128 {
        self.lead.total
    }

    /// The next answer, as member indices.
    pub fn next_answer(&mut self) -> &[usize] {
        // The lead goes on until the window holds enough members or the look-ahead is spent.
        while self.firsts.len() < self.want && self.window.len() < self.budget {
            let Some(h) = self.lead.head() else {
                break;
            };
            self.lead.step(h);
            let slot = self.at + self.window.len() as u64;
            if self.lead.slot == 0 && self.restart.is_none() {
                self.restart = Some(slot + 1);
            }
            let before = self.last.get(h).copied().flatten();
            match before.filter(|&b| b >= self.at) {
                Some(b) => {
                    if let Some(e) = usize::try_from(b - self.at)
                        .ok()
                        .and_then(|i| self.window.get_mut(i))
                    {
                        e.1 = Some(slot);
                    }
                }
                None => {
                    self.firsts.insert((slot, h));
                }
            }
            if let Some(l) = self.last.get_mut(h) {
                *l = Some(slot);
            }
            self.window.push_back((h, None));
        }
        self.out.clear();
        self.out
            .extend(self.firsts.iter().take(self.want).map(|&(_, i)| i));
        if self.out.len() < self.want {
            fill_past_lookahead(self.members, &self.lead, self.want, &mut self.out);
        }
        // The head moves on: the current slot is left behind (the lead has always passed it:
        // an answer wants a member, so the window is never empty here).
        if let Some((m, next)) = self.window.pop_front() {
            self.firsts.remove(&(self.at, m));
            if let Some(n) = next {
                self.firsts.insert((n, m));
            }
        }
        self.at += 1;
        &self.out
    }
}

/// Moves the head on by one slot: the member the list holds there is handed out, whoever the
/// answer named ("then head SHOULD be advanced by one element"). The head as [`head`] finds it,
/// from each member's range kept between answers (`Member::spread_range`).
pub fn spread_advance(members: &mut [Member]) {
    let total = total_weight(members);
    let slot: u128 = members.iter().map(|m| u128::from(m.spread_count)).sum();
    let mut best: Option<(usize, (u128, std::cmp::Reverse<u32>))> = None;
    let mut earliest: Option<(usize, u128)> = None;
    for (i, m) in members.iter_mut().enumerate() {
        let w = m.settings.weight;
        if w == 0 || m.spread_count >= u64::from(w) {
            continue;
        }
        let count = m.spread_count;
        let (release, deadline) = *m
            .spread_range
            .get_or_insert_with(|| range(u128::from(count), u128::from(w), total));
        if earliest.is_none_or(|(_, r)| release < r) {
            earliest = Some((i, release));
        }
        if release > slot {
            continue;
        }
        let key = (deadline, std::cmp::Reverse(w));
        if best.is_none_or(|(_, b)| key < b) {
            best = Some((i, key));
        }
    }
    let Some(h) = best.map(|(i, _)| i).or(earliest.map(|(i, _)| i)) else {
        return;
    };
    if let Some(m) = members.get_mut(h) {
        m.spread_count = m.spread_count.saturating_add(1);
        m.spread_range = None;
    }
    let full = members
        .iter()
        .all(|m| m.settings.weight == 0 || u64::from(m.settings.weight) <= m.spread_count);
    if full {
        spread_restart(members);
    }
}

/// The list is built anew (members or weights changed), or a round of it is over: the head at
/// its first slot.
pub fn spread_restart(members: &mut [Member]) {
    for m in members {
        m.spread_count = 0;
        m.spread_range = None;
    }
}

/// The whole list from its first slot, as member indices (`None` past `max` slots): what
/// `simulate` and the tests read a cycle from.
pub fn spread_cycle(members: &[Member], max: usize) -> Option<Vec<usize>> {
    let len = usize::try_from(total_weight(members))
        .ok()
        .filter(|&l| l <= max)?;
    let mut walk = Walk::new(members, vec![0u64; members.len()]);
    let mut out = Vec::with_capacity(len);
    for _ in 0..len {
        let h = walk.head()?;
        out.push(h);
        walk.step(h);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::policy::{PeSettings, PolicyKind};

    #[test]
    fn the_head_moves_through_the_list_as_it_is_built() {
        for weights in [
            &[2u32, 1, 1][..],
            &[3, 1, 2],
            &[6, 3, 2, 1],
            &[1, 0, 5],
            &[7],
        ] {
            let mut members: Vec<Member> = weights
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    let s = PeSettings::new(PolicyKind::WeightedRoundRobin).with_weight(*w);
                    Member::new(i as u32, s, i as u64)
                })
                .collect();
            let cycle = spread_cycle(&members, 100).expect("short");
            // Two rounds: each answer's head is the list's next slot, and the head then moves on.
            let mut heads = Vec::new();
            for _ in 0..2 * cycle.len() {
                heads.extend(spread_answer(&members, 1));
                spread_advance(&mut members);
            }
            let twice: Vec<usize> = cycle.iter().chain(&cycle).copied().collect();
            assert_eq!(heads, twice, "{weights:?}");
        }
    }

    /// Members of random weights (some 0, some far heavier than the rest) in a random state of
    /// the list (some past their weight, as no answer leaves them).
    fn random_members(rng: &mut crate::analyse::policy::rng::Rng) -> Vec<Member> {
        let len = 1 + rng.below(12) as usize;
        (0..len)
            .map(|i| {
                let weight = match rng.below(8) {
                    0 => 0,
                    1 => u32::MAX - rng.below(3) as u32,
                    2 => 1000 + rng.below(5000) as u32,
                    _ => 1 + rng.below(9) as u32,
                };
                let s = PeSettings::new(PolicyKind::WeightedRoundRobin).with_weight(weight);
                let mut m = Member::new(i as u32, s, i as u64);
                m.spread_count = match rng.below(4) {
                    0 => 0,
                    1 => rng.below(u64::from(weight) + 3),
                    _ => rng.below(u64::from(weight).min(20) + 1),
                };
                m
            })
            .collect()
    }

    #[test]
    fn answers_walked_at_once_are_the_answers_one_at_a_time() {
        let mut rng = crate::analyse::policy::rng::Rng::new(44);
        let (mut walked, mut past_lookahead, mut cycles) = (0, 0, 0);
        for _ in 0..600 {
            let start = random_members(&mut rng);
            let mut members = start.clone();
            let n = 1 + rng.below(members.len() as u64 + 1) as usize;
            let Some(mut answers) = Answers::new(&start, n) else {
                // Only where an answer names no one or the head cannot move.
                let weighted = members.iter().filter(|m| m.settings.weight > 0);
                let stuck = weighted
                    .clone()
                    .all(|m| m.spread_count >= u64::from(m.settings.weight));
                assert!(weighted.count() == 0 || stuck, "{members:?}");
                continue;
            };
            walked += 1;
            // Whether the first answer needs more members than its look-ahead meets.
            let mut walk = Walk::new(&members, members.iter().map(|m| m.spread_count).collect());
            let mut met = BTreeSet::new();
            for _ in 0..budget(&members) {
                let h = walk.head().expect("a head");
                met.insert(h);
                walk.step(h);
            }
            past_lookahead += usize::from(met.len() < wanted(&members, n));
            for step in 0..300 {
                let one = spread_answer(&members, n);
                assert_eq!(answers.next_answer(), &one[..], "step {step}: {members:?}");
                if let Some((first, period)) = answers.cycle() {
                    if first + period as u64 == step as u64 {
                        cycles += 1;
                    }
                }
                spread_advance(&mut members);
            }
        }
        assert!(walked > 400, "{walked}");
        assert!(past_lookahead > 50, "{past_lookahead}");
        assert!(cycles > 50, "{cycles}");
    }

    #[test]
    fn the_answers_repeat_each_round_of_the_list_from_its_first_slot() {
        let mut rng = crate::analyse::policy::rng::Rng::new(7);
        let mut checked = 0;
        for _ in 0..300 {
            let members = random_members(&mut rng);
            let n = 1 + rng.below(members.len() as u64) as usize;
            let Some(mut answers) = Answers::new(&members, n) else {
                continue;
            };
            let mut seen: Vec<Vec<usize>> = Vec::new();
            while seen.len() < 400 {
                seen.push(answers.next_answer().to_vec());
            }
            let Some((first, period)) = answers.cycle() else {
                continue;
            };
            let first = usize::try_from(first).unwrap();
            for k in first..seen.len().saturating_sub(period) {
                assert_eq!(seen[k], seen[k + period], "{k}: {members:?}");
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}
