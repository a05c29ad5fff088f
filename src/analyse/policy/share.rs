//! Long-run shares of answers: exact for draws without replacement, by simulation for the
//! deterministic policies.

use std::collections::HashMap;

use super::pool::{draw_without_replacement, Pool, Scratch, Share};
use super::rng::Rng;

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
    let mut level: HashMap<u128, f64> = HashMap::from([(0u128, 1.0)]);
    let mut included = vec![0.0; weights.len()];
    for _ in 0..n {
        let mut next: HashMap<u128, f64> = HashMap::new();
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
pub fn simulated_shares(pool: &Pool, n: usize) -> Vec<Share> {
    let members = pool.members();
    let horizon = (HORIZON * 16 / members.len().max(16)).max(100);
    let mut copy = pool.clone();
    let mut rng = Rng::new(SIMULATION_SEED);
    let mut first = vec![0u64; members.len()];
    let mut included = vec![0u64; members.len()];
    let mut scratch = Scratch::default();
    for _ in 0..horizon {
        copy.answer_indices(n, &mut rng, &mut scratch);
        for (pos, &i) in scratch.picked.iter().enumerate() {
            if pos == 0 {
                if let Some(c) = first.get_mut(i) {
                    *c += 1;
                }
            }
            if let Some(c) = included.get_mut(i) {
                *c += 1;
            }
        }
        copy.advance(&scratch.picked);
    }
    let h = horizon as f64;
    members
        .iter()
        .zip(first.iter().zip(&included))
        .map(|(m, (&f, &inc))| Share {
            pe_id: m.pe_id,
            first: f as f64 / h,
            included: inc as f64 / h,
        })
        .collect()
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
    fn zero_weights_are_never_drawn_and_full_draws_include_everyone_else() {
        let (first, inc) = draw_shares(&[0, 5, 5], 3);
        assert_eq!(first, vec![0.0, 0.5, 0.5]);
        assert_eq!(inc, vec![0.0, 1.0, 1.0]);
        let (first, inc) = draw_shares(&[0, 0], 1);
        assert_eq!((first, inc), (vec![0.0, 0.0], vec![0.0, 0.0]));
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
