//! Goodness of fit of a randomised pool's answers: who came first, and (for answers holding all
//! but one member) who was left out, against the probabilities the reference gives each answer.
//!
//! The expected count of a member is the sum over the answers of its probability in that answer,
//! so members joining, leaving or changing their load mid-way are accounted for. Pearson's
//! chi-square test (`policy::chi_square_p`) needs an expected count of at least 5 in every
//! category: with fewer answers there is no test and no finding.

use std::collections::BTreeMap;

use crate::analyse::policy::{chi_square_p, Share};

/// p below this is a finding.
pub const P_THRESHOLD: f64 = 0.001;
/// Categories (PE ids) tracked per test; members beyond are not counted.
const MAX_CATEGORIES: usize = 4096;

#[derive(Clone, Debug, Default)]
struct Tally {
    observed: BTreeMap<u32, u64>,
    expected: BTreeMap<u32, f64>,
    answers: u64,
}

impl Tally {
    fn room_for(&self, id: u32) -> bool {
        self.expected.contains_key(&id) || self.expected.len() < MAX_CATEGORIES
    }

    fn add(&mut self, probabilities: impl Iterator<Item = (u32, f64)>, seen: u32) {
        for (id, p) in probabilities {
            if self.room_for(id) {
                *self.expected.entry(id).or_insert(0.0) += p;
            }
        }
        if self.room_for(seen) {
            *self.observed.entry(seen).or_insert(0) += 1;
            self.expected.entry(seen).or_insert(0.0);
        }
        self.answers += 1;
    }

    fn p(&self) -> Option<f64> {
        let ids: Vec<u32> = self.expected.keys().copied().collect();
        let observed: Vec<u64> = ids
            .iter()
            .map(|id| self.observed.get(id).copied().unwrap_or(0))
            .collect();
        let expected: Vec<f64> = ids
            .iter()
            .map(|id| self.expected.get(id).copied().unwrap_or(0.0))
            .collect();
        chi_square_p(&observed, &expected)
    }
}

/// The outcome of a test that failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Misfit {
    /// "first place" or "left out".
    pub what: &'static str,
    pub p: f64,
    pub answers: u64,
    /// Expected and observed counts by PE id.
    pub expected: BTreeMap<u32, f64>,
    pub observed: BTreeMap<u32, u64>,
}

#[derive(Clone, Debug, Default)]
pub struct Fit {
    first: Tally,
    left_out: Tally,
}

impl Fit {
    pub fn answers(&self) -> u64 {
        self.first.answers
    }

    /// One answer (`observed`, none twice, all members) drawn from a pool of `pool_size` whose
    /// members had the probabilities `shares` before it.
    pub fn add(&mut self, shares: &[Share], observed: &[u32], pool_size: usize) {
        let Some(&first) = observed.first() else {
            return;
        };
        self.first
            .add(shares.iter().map(|s| (s.pe_id, s.first)), first);
        if pool_size >= 2 && observed.len() + 1 == pool_size {
            if let Some(out) = shares.iter().find(|s| !observed.contains(&s.pe_id)) {
                self.left_out.add(
                    shares.iter().map(|s| (s.pe_id, 1.0 - s.included)),
                    out.pe_id,
                );
            }
        }
    }

    /// The tests that fail at p < `P_THRESHOLD` (none when there are too few answers to test).
    pub fn misfits(&self) -> Vec<Misfit> {
        [("first place", &self.first), ("left out", &self.left_out)]
            .into_iter()
            .filter_map(|(what, t)| {
                let p = t.p()?;
                (p < P_THRESHOLD).then(|| Misfit {
                    what,
                    p,
                    answers: t.answers,
                    expected: t.expected.clone(),
                    observed: t.observed.clone(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shares(ps: &[(u32, f64, f64)]) -> Vec<Share> {
        ps.iter()
            .map(|&(pe_id, first, included)| Share {
                pe_id,
                first,
                included,
            })
            .collect()
    }

    #[test]
    fn fair_answers_fit_and_stuck_answers_do_not() {
        let s = shares(&[
            (1, 1.0 / 3.0, 1.0),
            (2, 1.0 / 3.0, 1.0),
            (3, 1.0 / 3.0, 1.0),
        ]);
        let mut fair = Fit::default();
        let mut stuck = Fit::default();
        for i in 0..60u32 {
            fair.add(&s, &[1 + i % 3], 3);
            stuck.add(&s, &[1], 3);
        }
        assert!(fair.misfits().is_empty());
        let m = stuck.misfits();
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].what, "first place");
        assert!(m[0].p < 1e-20, "{}", m[0].p);
        assert_eq!(m[0].observed.get(&1), Some(&60));
        assert!((m[0].expected[&2] - 20.0).abs() < 1e-9);
    }

    #[test]
    fn too_few_answers_are_not_tested() {
        let s = shares(&[(1, 0.5, 1.0), (2, 0.5, 1.0)]);
        let mut f = Fit::default();
        for _ in 0..9 {
            f.add(&s, &[1], 2);
        }
        assert!(
            f.misfits().is_empty(),
            "expected counts of 4.5 are too small"
        );
        f.add(&s, &[], 2);
        assert_eq!(f.answers(), 9);
    }

    #[test]
    fn left_out_is_tested_on_answers_of_all_but_one() {
        // Three members, two drawn: who is left out should be spread 1/3 each.
        let s = shares(&[
            (1, 1.0 / 3.0, 2.0 / 3.0),
            (2, 1.0 / 3.0, 2.0 / 3.0),
            (3, 1.0 / 3.0, 2.0 / 3.0),
        ]);
        let mut f = Fit::default();
        for i in 0..60u32 {
            // First place rotates fairly, but 3 is always left out.
            let a = 1 + i % 2;
            f.add(&s, &[a, 3 - a], 3);
        }
        let m = f.misfits();
        assert!(m.iter().any(|x| x.what == "left out"), "{m:?}");
    }
}
