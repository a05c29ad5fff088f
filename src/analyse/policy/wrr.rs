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
    let in_list = members.iter().filter(|m| m.settings.weight > 0).count();
    let want = n.min(in_list);
    let mut out = Vec::with_capacity(want);
    let budget = LOOKAHEAD_PER_MEMBER
        .saturating_mul(members.len())
        .min(LOOKAHEAD_MAX);
    for _ in 0..budget {
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
    let (total, counts) = (walk.total, walk.counts);
    if out.len() < want {
        // Past the look-ahead: the others by where their next occurrence may begin.
        let mut rest: Vec<(u128, usize)> = (0..members.len())
            .filter(|i| !out.contains(i))
            .filter_map(|i| {
                let m = members.get(i)?;
                let w = u128::from(m.settings.weight);
                let c = u128::from(counts.get(i).copied().unwrap_or(0));
                (w > 0).then(|| (range(c.min(w - 1), w, total).0, i))
            })
            .collect();
        rest.sort_unstable();
        out.extend(rest.into_iter().map(|(_, i)| i).take(want - out.len()));
    }
    out
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
}
