//! Deviations a registrar can be made to commit in its Handle Resolution Responses, for tests of
//! the replay: each turns the reference answer into a wrong one, and the frame that carries it is
//! marked with the finding a correct analyser reports.
//!
//! After a deviation the registrar's pool state follows what it sent (the answer is committed as
//! sent), which is also how a replay that "follows the wire" keeps its state: later answers are
//! correct again relative to that state, so each plant shows up on its own frames only.

use crate::analyse::policy::{Method, PolicyKind, Pool, Rng};

/// Which answer to spoil, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plant {
    /// The pool, by handle.
    pub pool: String,
    /// Only resolutions at this registrar (by id) count; `None`: at any registrar.
    pub registrar: Option<u32>,
    /// The first resolution to spoil (0-based, counted per pool and, if given, registrar).
    pub nth: u64,
    /// How many consecutive resolutions to spoil (1 for most; many for `Favour`).
    pub count: u64,
    pub fault: AnswerFault,
    /// `Some(ns)`: instead of `nth`, the first resolution of the pool from this capture time
    /// (nanoseconds since the epoch) on whose answer the fault shows as exactly one finding
    /// ([`AnswerFault::clean`]), once.
    pub after: Option<u64>,
}

impl Plant {
    /// Spoils the `nth` resolution of `pool` at any registrar.
    pub fn at(pool: &str, nth: u64, fault: AnswerFault) -> Self {
        Plant {
            pool: pool.to_string(),
            registrar: None,
            nth,
            count: 1,
            fault,
            after: None,
        }
    }

    /// Spoils the first answer for `pool` from `ns` (nanoseconds since the epoch) on where the
    /// fault shows as exactly one finding.
    pub fn after(pool: &str, ns: u64, fault: AnswerFault) -> Self {
        Plant {
            after: Some(ns),
            ..Plant::at(pool, 0, fault)
        }
    }

    /// Spoils `count` resolutions from the `nth` on.
    pub fn times(mut self, count: u64) -> Self {
        self.count = count;
        self
    }

    pub fn at_registrar(mut self, id: u32) -> Self {
        self.registrar = Some(id);
        self
    }

    pub(crate) fn covers(&self, n: u64) -> bool {
        n >= self.nth && n - self.nth < self.count
    }
}

/// How an answer is spoiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnswerFault {
    /// The first two PEs swapped: `rserpool.order` for LU/LUD/PLU/PRIORITY, `rserpool.sequence`
    /// for other deterministic policies.
    SwapFirstTwo,
    /// The previous answer again (round robin: `rserpool.rr-head-stuck`).
    RepeatPrevious,
    /// The last PE replaced by a PE id the pool does not hold: `rserpool.unknown-pe`.
    UnknownPe(u32),
    /// The last PE replaced by the first one (a one-PE answer gets it twice):
    /// `rserpool.duplicate-pe`.
    DuplicateFirst,
    /// The best PE left out, the next one in its place: `rserpool.not-least` (sorted policies).
    SkipFirst,
    /// One PE more than asked for: `rserpool.too-many`.
    ExtraItem,
    /// The first PE replaced by this one (a weight-0 PE of WRR/WRAND: `rserpool.zero-weight`; a
    /// PE the pool does not hold, deregistered say: `rserpool.unknown-pe`).
    Substitute(u32),
    /// This PE put first in every answer (randomised policies, over many resolutions:
    /// `rserpool.distribution`).
    Favour(u32),
}

impl AnswerFault {
    /// The finding a correct analyser is expected to report for this fault in `pool` (its state
    /// before the answer).
    pub fn rule(&self, pool: &Pool) -> &'static str {
        let method = pool.policy().method();
        let is_rr = pool.policy() == PolicyKind::RoundRobin;
        // Policies whose answers must be ascending in a key the wire shows.
        let ordered = pool
            .members()
            .first()
            .is_some_and(|m| pool.order_key(m.pe_id).is_some());
        let sequence = if method == Method::Sorted {
            "rserpool.sequence"
        } else {
            "rserpool.distribution"
        };
        match self {
            AnswerFault::SwapFirstTwo if ordered => "rserpool.order",
            AnswerFault::SwapFirstTwo => sequence,
            AnswerFault::RepeatPrevious if is_rr => "rserpool.rr-head-stuck",
            AnswerFault::RepeatPrevious => sequence,
            AnswerFault::UnknownPe(_) => "rserpool.unknown-pe",
            AnswerFault::DuplicateFirst => "rserpool.duplicate-pe",
            AnswerFault::SkipFirst if method == Method::Sorted => "rserpool.not-least",
            AnswerFault::SkipFirst => sequence,
            AnswerFault::ExtraItem => "rserpool.too-many",
            AnswerFault::Substitute(id) => match pool.member(*id) {
                None => "rserpool.unknown-pe",
                Some(m) if m.settings.weight == 0 && pool.policy().uses().weight => {
                    "rserpool.zero-weight"
                }
                Some(_) => sequence,
            },
            AnswerFault::Favour(_) => "rserpool.distribution",
        }
    }

    /// Whether spoiling `answer` (the reference's, from `pool` before it) shows as exactly one
    /// finding, of [`Self::rule`], and no other: the answer keeps its length (no `too-many` or
    /// `too-few`), a swapped pair is strictly out of order, a repeated answer lists only members
    /// and its head is not the reference's. `previous` is the registrar's last answer for the
    /// pool.
    pub fn clean(&self, answer: &[u32], pool: &Pool, previous: &[u32]) -> bool {
        match self {
            AnswerFault::DuplicateFirst => answer.len() >= 2,
            AnswerFault::UnknownPe(id) => !answer.is_empty() && pool.member(*id).is_none(),
            AnswerFault::SwapFirstTwo => match answer {
                [a, b, ..] => match (pool.order_key(*a), pool.order_key(*b)) {
                    (Some(ka), Some(kb)) => ka < kb,
                    _ => a != b,
                },
                _ => false,
            },
            AnswerFault::RepeatPrevious => {
                pool.len() >= 2
                    && previous.len() == answer.len()
                    && previous.first() != answer.first()
                    && previous.iter().all(|id| pool.member(*id).is_some())
            }
            AnswerFault::SkipFirst
            | AnswerFault::ExtraItem
            | AnswerFault::Substitute(_)
            | AnswerFault::Favour(_) => true,
        }
    }

    /// The spoiled version of `answer` (the reference's, for `items` PEs) from `pool`;
    /// `previous` is the registrar's last answer for the pool.
    pub fn apply(
        &self,
        answer: &[u32],
        items: usize,
        pool: &Pool,
        previous: &[u32],
        rng: &mut Rng,
    ) -> Vec<u32> {
        let mut a = answer.to_vec();
        let others = |a: &[u32]| -> Vec<u32> {
            pool.members()
                .iter()
                .map(|m| m.pe_id)
                .filter(|id| !a.contains(id))
                .collect()
        };
        match self {
            AnswerFault::SwapFirstTwo => {
                if a.len() >= 2 {
                    a.swap(0, 1);
                }
            }
            AnswerFault::RepeatPrevious => {
                if !previous.is_empty() {
                    a = previous.to_vec();
                }
            }
            AnswerFault::UnknownPe(id) => match a.last_mut() {
                Some(last) => *last = *id,
                None => a.push(*id),
            },
            AnswerFault::DuplicateFirst => match (a.first().copied(), a.len()) {
                (Some(f), 1) => a.push(f),
                (Some(f), _) => {
                    if let Some(last) = a.last_mut() {
                        *last = f;
                    }
                }
                (None, _) => {}
            },
            AnswerFault::SkipFirst => {
                if !a.is_empty() {
                    // The reference answer one longer, minus its head: the next best in order.
                    let longer = if pool.policy().method() == Method::Sorted {
                        pool.answer(items + 1, &mut rng.clone())
                    } else {
                        let mut l = a.clone();
                        l.extend(others(&a).first());
                        l
                    };
                    a = longer.into_iter().skip(1).take(items.max(1)).collect();
                }
            }
            AnswerFault::ExtraItem => match others(&a).first() {
                Some(id) => a.push(*id),
                None => {
                    if let Some(f) = a.first().copied() {
                        a.push(f);
                    }
                }
            },
            AnswerFault::Substitute(id) => match a.first_mut() {
                Some(f) => *f = *id,
                None => a.push(*id),
            },
            AnswerFault::Favour(id) => {
                a.retain(|x| x != id);
                a.insert(0, *id);
                a.truncate(items.max(1));
            }
        }
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::policy::{PeSettings, RSPLIB};

    fn lu_pool() -> Pool {
        let mut p = Pool::new(&RSPLIB, PolicyKind::LeastUsed).unwrap();
        for (id, load) in [(1, 30), (2, 10), (3, 20)] {
            p.register(id, PeSettings::new(PolicyKind::LeastUsed).with_load(load))
                .unwrap();
        }
        p
    }

    #[test]
    fn faults_change_answers_as_documented() {
        let pool = lu_pool();
        let mut rng = Rng::new(1);
        let answer = pool.answer(2, &mut rng);
        assert_eq!(answer, vec![2, 3]);
        let f = |fault: AnswerFault| fault.apply(&answer, 2, &pool, &[1, 2], &mut Rng::new(1));
        assert_eq!(f(AnswerFault::SwapFirstTwo), vec![3, 2]);
        assert_eq!(f(AnswerFault::RepeatPrevious), vec![1, 2]);
        assert_eq!(f(AnswerFault::UnknownPe(9)), vec![2, 9]);
        assert_eq!(f(AnswerFault::DuplicateFirst), vec![2, 2]);
        assert_eq!(f(AnswerFault::SkipFirst), vec![3, 1]);
        assert_eq!(f(AnswerFault::ExtraItem), vec![2, 3, 1]);
        assert_eq!(f(AnswerFault::Substitute(1)), vec![1, 3]);
        assert_eq!(f(AnswerFault::Favour(1)), vec![1, 2]);
        assert!(Plant::at("LU", 3, AnswerFault::SwapFirstTwo)
            .times(2)
            .covers(4));
        assert!(!Plant::at("LU", 3, AnswerFault::SwapFirstTwo).covers(4));
    }
}
