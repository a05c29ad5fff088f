//! Long-run shares of answers: exact for draws without replacement, by simulation for the
//! deterministic policies.

use foldhash::{HashMap, HashMapExt};
use std::collections::BTreeMap;

use super::kind::Method;
use super::member::Member;
use super::pool::{draw_without_replacement, Pool, Scratch, Share, ShareKey};
use super::rng::Rng;
use super::wrr;

/// Above this many partial answers the exact enumeration gives way to a simulation.
const MAX_EXACT_STATES: usize = 1 << 18;
/// Work budget (draw steps) of the fallback simulation.
const SIMULATION_BUDGET: usize = 20_000_000;
/// Fixed seed of the fallback simulation, so that shares are reproducible.
const SIMULATION_SEED: u64 = 0x5eed_5a4e;
/// Resolutions simulated for a deterministic policy (fewer for large pools, see below).
const HORIZON: usize = 10_000;

/// For a draw of `n` members without replacement in proportion to `weights`: each member's
/// probability of being drawn first, and of being drawn at all.
pub fn draw_shares(weights: &[u64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let total: f64 = weights.iter().map(|&w| w as f64).sum();
    let len = weights.len();
    if total <= 0.0 || n == 0 {
        return (vec![0.0; len], vec![0.0; len]);
    }
    let first: Vec<f64> = weights.iter().map(|&w| w as f64 / total).collect();
    let positive = weights.iter().filter(|&&w| w > 0).count();
    if n >= positive {
        // Every member that can be drawn is.
        let included = weights
            .iter()
            .map(|&w| f64::from(u8::from(w > 0)))
            .collect();
        return (first, included);
    }
    let included = exact_inclusion(weights, n).unwrap_or_else(|| simulated_inclusion(weights, n));
    (first, included)
}

/// Walks every set of members drawn so far (as a bit set), level by level, with its
/// probability. `None` when the pool is wider than the bit set or the sets too many.
fn exact_inclusion(weights: &[u64], n: usize) -> Option<Vec<f64>> {
    if weights.len() > 128 {
        return None;
    }
    let total: f64 = weights.iter().map(|&w| w as f64).sum();
    // Ordered maps: the probabilities are summed in the same order at every run, so the shares
    // are the same to the last bit (a hash map's order changes with its random seed).
    let mut level: BTreeMap<u128, f64> = BTreeMap::new();
    level.insert(0u128, 1.0);
    let mut included = vec![0.0; weights.len()];
    for _ in 0..n {
        let mut next: BTreeMap<u128, f64> = BTreeMap::new();
        for (&set, &p) in &level {
            let drawn: f64 = weights
                .iter()
                .enumerate()
                .filter(|(i, _)| set & (1u128 << i) != 0)
                .map(|(_, &w)| w as f64)
                .sum();
            let left = total - drawn;
            if left <= 0.0 {
                continue;
            }
            for (i, &w) in weights.iter().enumerate() {
                let bit = 1u128 << i;
                if w == 0 || set & bit != 0 {
                    continue;
                }
                let q = p * w as f64 / left;
                if let Some(slot) = included.get_mut(i) {
                    *slot += q;
                }
                *next.entry(set | bit).or_insert(0.0) += q;
            }
            if next.len() > MAX_EXACT_STATES {
                return None;
            }
        }
        level = next;
    }
    Some(included)
}

fn simulated_inclusion(weights: &[u64], n: usize) -> Vec<f64> {
    let per_draw = n.saturating_mul(weights.len()).max(1);
    let draws = (SIMULATION_BUDGET / per_draw).max(1000);
    let mut rng = Rng::new(SIMULATION_SEED);
    let mut counts = vec![0u64; weights.len()];
    for _ in 0..draws {
        let mut candidates: Vec<(u32, usize, u64)> = weights
            .iter()
            .enumerate()
            .map(|(i, &w)| (0, i, w))
            .collect();
        for i in draw_without_replacement(&mut candidates, n, &mut rng) {
            if let Some(c) = counts.get_mut(i) {
                *c += 1;
            }
        }
    }
    counts.iter().map(|&c| c as f64 / draws as f64).collect()
}

/// Runs a copy of the pool forward and counts. The copy keeps its members in the order of the
/// original (an answer never reorders them), so they are counted by index.
///
/// A sorted policy's answers are a function of the pool's state, and the state repeats (round
/// robin comes back to its first member, LU cycles through its least loaded members, degradation
/// counters reach their cap): once a state recurs (equal [`ShareKey`]s), the answers between the
/// two occurrences repeat to the end of the horizon, and are counted that many times instead of
/// being simulated. States are compared at every step at first (short cycles), then every
/// [`SAMPLE_EVERY`] steps (a repeat among samples is a period too, if not the shortest).
pub fn simulated_shares(pool: &Pool, n: usize) -> Vec<Share> {
    let members = pool.members();
    let horizon = (HORIZON * 16 / members.len().max(16)).max(100);
    let deterministic = pool.policy().method() == Method::Sorted;
    let mut tally = Tally::new(members.len());
    if let Some(walk) = pool.spread_answers(n) {
        spread_tally(walk, horizon, &mut tally);
        return tally.shares(members, horizon);
    }
    let mut copy = pool.clone();
    let mut rng = Rng::new(SIMULATION_SEED);
    let mut scratch = Scratch::default();
    // Answers so far (member indices, flat) and where each step's starts.
    let mut answers: Vec<usize> = Vec::new();
    let mut starts: Vec<usize> = Vec::new();
    let mut seen: HashMap<ShareKey, usize> = HashMap::new();
    let mut step = 0;
    while step < horizon {
        if deterministic
            && (step < DENSE_STEPS || step % SAMPLE_EVERY == 0)
            && seen.len() < MAX_STATES
        {
            let key = copy.share_key(n);
            if let Some(&from) = seen.get(&key) {
                tally.repeat(&answers, &starts, from, step, horizon - step);
                break;
            }
            seen.insert(key, step);
        }
        copy.answer_indices(n, &mut rng, &mut scratch);
        tally.add(&scratch.picked, 1);
        if deterministic && seen.len() < MAX_STATES {
            starts.push(answers.len());
            answers.extend_from_slice(&scratch.picked);
        }
        copy.advance(&scratch.picked);
        step += 1;
    }
    tally.shares(members, horizon)
}

/// The texts' WRR list: the answers straight from one walk along the list, and once a round
/// of the list has begun and gone by, the rest as repeats of that round's answers.
fn spread_tally(mut walk: wrr::Answers, horizon: usize, tally: &mut Tally) {
    // Answers so far (member indices, flat) and where each step's starts, kept when a round
    // of the list is shorter than the horizon (a round begins within one round's length).
    let record = walk.cycle_len() <= horizon as u128;
    let mut answers: Vec<usize> = Vec::new();
    let mut starts: Vec<usize> = Vec::new();
    for step in 0..horizon {
        if let Some((first, period)) = walk.cycle().filter(|_| record) {
            // Steps `first..step` are a whole round of the list: the rest repeats them.
            if let Ok(first) = usize::try_from(first) {
                if first.checked_add(period) == Some(step) && period > 0 {
                    tally.repeat(&answers, &starts, first, step, horizon - step);
                    return;
                }
            }
        }
        let answer = walk.next_answer();
        tally.add(answer, 1);
        if record {
            starts.push(answers.len());
            answers.extend_from_slice(answer);
        }
    }
}

/// States compared at every step at the start of a simulation.
const DENSE_STEPS: usize = 64;
/// Then one state in this many.
const SAMPLE_EVERY: usize = 32;
/// States remembered at most; past it the simulation runs to the end without looking.
const MAX_STATES: usize = 320;

/// How often each member came first and came at all.
struct Tally {
    first: Vec<u64>,
    included: Vec<u64>,
}

impl Tally {
    fn new(members: usize) -> Self {
        Tally {
            first: vec![0; members],
            included: vec![0; members],
        }
    }

    /// One answer, counted `times` times.
    fn add(&mut self, answer: &[usize], times: u64) {
        for (pos, &i) in answer.iter().enumerate() {
            if pos == 0 {
                if let Some(c) = self.first.get_mut(i) {
                    *c += times;
                }
            }
            if let Some(c) = self.included.get_mut(i) {
                *c += times;
            }
        }
    }

    /// Each member's share of `answers` answers.
    fn shares(&self, members: &[Member], answers: usize) -> Vec<Share> {
        let h = answers as f64;
        members
            .iter()
            .zip(self.first.iter().zip(&self.included))
            .map(|(m, (&f, &inc))| Share {
                pe_id: m.pe_id,
                first: f as f64 / h,
                included: inc as f64 / h,
            })
            .collect()
    }

    /// The state before step `now` is the one before step `from`: the `left` steps still to
    /// come repeat the answers of steps `from..now` over and over.
    fn repeat(
        &mut self,
        answers: &[usize],
        starts: &[usize],
        from: usize,
        now: usize,
        left: usize,
    ) {
        let period = now - from;
        let (rounds, rest) = (left / period, left % period);
        for s in from..now {
            let times = rounds as u64 + u64::from(s - from < rest);
            let begin = starts.get(s).copied().unwrap_or(answers.len());
            let end = starts.get(s + 1).copied().unwrap_or(answers.len());
            self.add(answers.get(begin..end).unwrap_or_default(), times);
        }
    }
}

/// Members held in the keys of a [`ShareCache`] at most; past it the cache starts again.
const CACHE_MEMBERS: usize = 1 << 14;

/// Expected shares already worked out, by the pool state they came from. A replay asks again
/// after every change of a pool's membership, and re-registrations that change nothing the
/// answers depend on bring a pool back to a state it was in (round robin: one of a few orders of
/// its members), so most answers come from here instead of a fresh simulation.
#[derive(Debug, Default)]
pub struct ShareCache {
    map: HashMap<ShareKey, Vec<Share>>,
    members: usize,
}

impl ShareCache {
    /// `pool.expected_share(items)`, from the cache when the pool was in this state before.
    pub fn expected_share(&mut self, pool: &Pool, items: usize) -> Vec<Share> {
        let key = pool.share_key(items);
        if let Some(s) = self.map.get(&key) {
            return s.clone();
        }
        let shares = pool.expected_share(items);
        if self.members.saturating_add(key.len()) > CACHE_MEMBERS {
            self.map.clear();
            self.members = 0;
        }
        self.members = self.members.saturating_add(key.len());
        self.map.insert(key, shares.clone());
        shares
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inclusion_of_two_out_of_three_by_hand() {
        // Weights 1, 2, 7, two draws. P(A in) = P(A first) + P(B first) P(A | B) + P(C first)
        // P(A | C) = 0.1 + 0.2 * 1/8 + 0.7 * 1/3.
        let (first, inc) = draw_shares(&[1, 2, 7], 2);
        assert!((first[0] - 0.1).abs() < 1e-12);
        let a = 0.1 + 0.2 / 8.0 + 0.7 / 3.0;
        let b = 0.2 + 0.1 * 2.0 / 9.0 + 0.7 * 2.0 / 3.0;
        assert!((inc[0] - a).abs() < 1e-12, "{inc:?}");
        assert!((inc[1] - b).abs() < 1e-12, "{inc:?}");
        assert!((inc.iter().sum::<f64>() - 2.0).abs() < 1e-12);
    }

    #[test]
    fn inclusion_is_the_same_to_the_last_bit_at_every_call() {
        // `stats --format json` printed these sums, and they once differed in their last digits
        // from run to run: the partial draws were summed in a hash map's (randomly seeded) order.
        let weights = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3];
        let (_, once) = draw_shares(&weights, 4);
        for _ in 0..20 {
            let (_, again) = draw_shares(&weights, 4);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&once), bits(&again));
        }
    }

    #[test]
    fn zero_weights_are_never_drawn_and_full_draws_include_everyone_else() {
        let (first, inc) = draw_shares(&[0, 5, 5], 3);
        assert_eq!(first, vec![0.0, 0.5, 0.5]);
        assert_eq!(inc, vec![0.0, 1.0, 1.0]);
        let (first, inc) = draw_shares(&[0, 0], 1);
        assert_eq!((first, inc), (vec![0.0, 0.0], vec![0.0, 0.0]));
    }

    fn round_robin_after(selections: usize, kind: super::super::PolicyKind) -> Pool {
        use super::super::{PeSettings, RSPLIB};
        let mut p = Pool::new(&RSPLIB, kind).unwrap();
        for id in [10, 20, 30, 40] {
            p.register(id, PeSettings::new(kind).with_weight(id / 10))
                .unwrap();
        }
        let mut rng = Rng::new(1);
        for _ in 0..selections {
            p.select(1, &mut rng);
        }
        p
    }

    #[test]
    fn states_that_differ_only_in_sequence_numbers_share_a_key_and_their_shares() {
        use super::super::PolicyKind;
        for kind in [PolicyKind::RoundRobin, PolicyKind::WeightedRoundRobin] {
            // Round robin comes back to the same order of its members after a cycle, with
            // larger sequence numbers (and WRR with later rounds).
            let a = round_robin_after(3, kind);
            let cycle = (1..=100)
                .find(|k| round_robin_after(3 + k, kind).share_key(1) == a.share_key(1))
                .expect("the state comes back");
            if kind == PolicyKind::RoundRobin {
                assert_eq!(cycle, 4);
            }
            let b = round_robin_after(3 + cycle, kind);
            let c = round_robin_after(4, kind);
            assert_ne!(a.members(), b.members(), "{kind:?}: absolute state differs");
            assert_eq!(a.share_key(1), b.share_key(1), "{kind:?}");
            assert_ne!(a.share_key(1), c.share_key(1), "{kind:?}");
            assert_ne!(a.share_key(1), a.share_key(2), "{kind:?}");
            assert_eq!(a.expected_share(1), b.expected_share(1), "{kind:?}");
            assert_eq!(a.expected_share(2), b.expected_share(2), "{kind:?}");
        }
    }

    #[test]
    fn the_cache_answers_what_the_pool_would() {
        use super::super::PolicyKind;
        let mut cache = ShareCache::default();
        let a = round_robin_after(3, PolicyKind::RoundRobin);
        let b = round_robin_after(7, PolicyKind::RoundRobin);
        let c = round_robin_after(4, PolicyKind::RoundRobin);
        assert_eq!(cache.expected_share(&a, 1), a.expected_share(1));
        assert_eq!(cache.expected_share(&b, 1), b.expected_share(1));
        assert_eq!(cache.map.len(), 1, "b is a's state again");
        assert_eq!(cache.expected_share(&c, 1), c.expected_share(1));
        assert_eq!(cache.map.len(), 2);
    }

    /// The simulation without the shortcut through repeated states.
    fn plain_shares(pool: &Pool, n: usize) -> Vec<(u64, u64)> {
        let horizon = (HORIZON * 16 / pool.len().max(16)).max(100);
        let mut copy = pool.clone();
        let mut rng = Rng::new(SIMULATION_SEED);
        let mut tally = Tally::new(pool.len());
        for _ in 0..horizon {
            let answer = copy.select(n, &mut rng);
            let idx: Vec<usize> = answer
                .iter()
                .filter_map(|id| pool.members().iter().position(|m| m.pe_id == *id))
                .collect();
            tally.add(&idx, 1);
        }
        tally.first.into_iter().zip(tally.included).collect()
    }

    #[test]
    fn repeated_states_give_exactly_what_the_whole_simulation_gives() {
        use super::super::{PeSettings, PolicyKind, PROFILES};
        let mut checked = 0;
        let mut shortened = 0;
        for profile in PROFILES {
            for kind in PolicyKind::RUNNABLE {
                if kind.method() != Method::Sorted || !profile.defines(kind) {
                    continue;
                }
                for (members, steps) in [(1u32, 0usize), (3, 0), (4, 5), (5, 17), (7, 3)] {
                    let mut p = Pool::new(profile, kind).unwrap();
                    for i in 0..members {
                        let settings = PeSettings::new(kind)
                            .with_weight(1 + i % 3)
                            .with_priority(i % 2)
                            .with_load((i % 3) * 0x1000_0000)
                            .with_load_degradation(0x0100_0000 * (1 + i % 2));
                        p.register(100 + i, settings).unwrap();
                    }
                    let mut rng = Rng::new(u64::from(members));
                    for s in 0..steps {
                        p.select(1 + s % 2, &mut rng);
                    }
                    for n in 1..=3 {
                        let fast = simulated_shares(&p, n);
                        let h = (HORIZON * 16 / p.len().max(16)).max(100) as f64;
                        let fast: Vec<(u64, u64)> = fast
                            .iter()
                            .map(|s| {
                                (
                                    (s.first * h).round() as u64,
                                    (s.included * h).round() as u64,
                                )
                            })
                            .collect();
                        let plain = plain_shares(&p, n);
                        assert_eq!(
                            fast, plain,
                            "{} {kind:?}, {members} members after {steps} answers, {n} items",
                            profile.name
                        );
                        checked += 1;
                        let mut key_seen = std::collections::HashSet::new();
                        let mut c = p.clone();
                        for _ in 0..DENSE_STEPS {
                            if !key_seen.insert(c.share_key(n)) {
                                shortened += 1;
                                break;
                            }
                            c.select(n, &mut rng);
                        }
                    }
                }
            }
        }
        assert!(checked > 100, "{checked}");
        // Most of these pools come back to a state within a few dozen answers.
        assert!(shortened * 2 > checked, "{shortened} of {checked}");
    }

    #[test]
    fn the_texts_wrr_list_shares_are_those_of_the_whole_simulation() {
        use super::super::{PeSettings, PolicyKind, DRAFT01, RFC5356};
        let kind = PolicyKind::WeightedRoundRobin;
        let mut rng = Rng::new(5356);
        let (mut checked, mut repeated) = (0, 0);
        for case in 0..64 {
            let profile = if case % 2 == 0 { &RFC5356 } else { &DRAFT01 };
            let mut p = Pool::new(profile, kind).unwrap();
            // Up to 24 members: beyond 16 the horizon shrinks.
            let members = 1 + rng.below(if case % 16 == 0 { 24 } else { 9 }) as u32;
            let weight = |rng: &mut Rng| match rng.below(6) {
                0 => 0,
                1 => u32::MAX - rng.below(2) as u32,
                2 => 200 + rng.below(20_000) as u32,
                _ => 1 + rng.below(6) as u32,
            };
            for id in 0..members {
                let w = weight(&mut rng);
                p.register(id, PeSettings::new(kind).with_weight(w))
                    .unwrap();
            }
            // A state part way through the list, and some new weights (a new list).
            for s in 0..rng.below(40) {
                p.select(1 + s as usize % 3, &mut rng);
                if rng.below(10) == 0 {
                    let id = rng.below(u64::from(members)) as u32;
                    let w = weight(&mut rng);
                    p.register(id, PeSettings::new(kind).with_weight(w))
                        .unwrap();
                }
            }
            let n = 1 + rng.below(u64::from(members) + 1) as usize;
            let h = (HORIZON * 16 / p.len().max(16)).max(100);
            let fast: Vec<(u64, u64)> = simulated_shares(&p, n)
                .iter()
                .map(|s| {
                    let (first, included) = (s.first * h as f64, s.included * h as f64);
                    (first.round() as u64, included.round() as u64)
                })
                .collect();
            assert_eq!(
                fast,
                plain_shares(&p, n),
                "case {case}: {:?}, {n} items",
                p.members()
            );
            checked += 1;
            let walk = p.spread_answers(n);
            repeated += usize::from(walk.is_some_and(|w| w.cycle_len() <= h as u128));
        }
        // Lists short enough to repeat within the horizon, and lists too long to.
        assert!(
            checked == 64 && repeated > 10 && repeated < 54,
            "{checked} {repeated}"
        );
    }

    #[test]
    fn simulation_agrees_with_enumeration() {
        let w = [1, 2, 3, 4, 10];
        let exact = exact_inclusion(&w, 2).unwrap();
        let sim = simulated_inclusion(&w, 2);
        for (e, s) in exact.iter().zip(&sim) {
            assert!((e - s).abs() < 0.01, "{exact:?} {sim:?}");
        }
    }
}
