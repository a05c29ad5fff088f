//! Weighted round robin under the texts (`rfc5356`, `draft01`): judged by the properties the
//! text fixes, not by one order.
//!
//! Draft-01 3.2.2 asks for a circular list in which each PE occurs in proportion to its weight,
//! "as distributed as possible", and the head advancing by one per answer. It fixes the ratio
//! and the spreading, not the order: many lists qualify (weights 2, 1, 1: `1 2 1 3` and
//! `1 3 1 2`), and a registrar may hold any of them. So the heads of a registrar's answers (the
//! first PE of each, the list's head when it was asked) are judged by what every maximally
//! spread list has (`policy::wrr` defines it):
//!
//! * `rserpool.wrr-ratio`: any `W` answers in a row (`W` the sum of the weights: one round of
//!   the list) put each PE first as often as its weight says;
//! * `rserpool.wrr-repeat`: a PE is first twice in a row although its weight is at most half of
//!   `W` (the list need never repeat it), or, for a PE over half of `W`, more often in one round
//!   than the `2w - W` repeats it cannot avoid.
//!
//! The rest of a longer answer (the PEs that follow the head in the list) is checked by the
//! rules of every answer only (duplicates, members, counts). A finding, and any change of the
//! members or their weights (the list is built anew), starts the judging afresh from the next
//! answer, so one fault is one finding. Rounds longer than [`MAX_ROUND`] answers are judged for
//! repeats only (the heads of a round are what the ratio needs kept).

use std::collections::VecDeque;

use super::handle::{pe_hex, pe_text};
use super::rules::{Draft, Rule};
use crate::analyse::policy::Pool;

/// The longest round of the list whose heads are kept for the ratio (answers): 2 bytes each,
/// per pool and profile.
pub const MAX_ROUND: u128 = 1024;

/// The heads seen since the judging last started, at most one round: as the members' indices
/// in the pool (the judging starts afresh when the members change).
#[derive(Clone, Debug, Default)]
pub struct SpreadJudge {
    heads: VecDeque<u16>,
    /// How often each member (by index) is a head in `heads`.
    counts: Vec<u64>,
    /// Neighbouring heads of the PE whose weight is over half of the round, in `heads`.
    heavy_pairs: u64,
    previous: Option<u32>,
}

impl SpreadJudge {
    /// Starts afresh: the list was built anew, or a finding was made.
    pub fn restart(&mut self) {
        self.heads.clear();
        self.counts.clear();
        self.heavy_pairs = 0;
        self.previous = None;
    }

    /// Judges the head of one answer (a member of `pool` with a weight: the other rules deal
    /// with anything else, and the judging starts afresh after it).
    pub fn judge(&mut self, pool: &Pool, head: Option<u32>) -> Option<Draft> {
        let weight = |id: u32| pool.member(id).map_or(0, |m| u128::from(m.settings.weight));
        let Some(head) = head.filter(|id| weight(*id) > 0) else {
            self.restart();
            return None;
        };
        let index = |id: u32| {
            pool.members()
                .iter()
                .position(|m| m.pe_id == id)
                .and_then(|i| u16::try_from(i).ok())
        };
        let round: u128 = pool
            .members()
            .iter()
            .map(|m| u128::from(m.settings.weight))
            .sum();
        let w = weight(head);
        let heavy = pool
            .members()
            .iter()
            .find(|m| 2 * u128::from(m.settings.weight) > round)
            .map(|m| m.pe_id);
        let repeat = self.previous == Some(head);
        if repeat && 2 * w <= round {
            self.restart();
            self.previous = Some(head);
            return Some(Draft::new(
                Rule::WrrRepeat,
                serde_json::Value::Null,
                pe_hex(head).into(),
                format!(
                    "WRR answer puts {} first twice in a row, which a list spread as evenly as \
                     possible never does: its weight {w} is at most half of the round's {round}",
                    pe_hex(head)
                ),
            ));
        }
        self.previous = Some(head);
        if round > MAX_ROUND {
            return None;
        }
        // A head past the 65,536th member (only behind many of weight 0) is judged for repeats.
        let at = index(head)?;
        let heavy_at = heavy.and_then(index);
        self.counts.resize(pool.len(), 0);
        if self.heads.len() as u128 >= round {
            if let Some(old) = self.heads.pop_front() {
                if let Some(c) = self.counts.get_mut(usize::from(old)) {
                    *c = c.saturating_sub(1);
                }
                if Some(old) == heavy_at && self.heads.front() == Some(&old) {
                    self.heavy_pairs = self.heavy_pairs.saturating_sub(1);
                }
            }
        }
        if repeat && Some(at) == heavy_at && !self.heads.is_empty() {
            self.heavy_pairs += 1;
        }
        self.heads.push_back(at);
        if let Some(c) = self.counts.get_mut(usize::from(at)) {
            *c += 1;
        }
        if (self.heads.len() as u128) < round {
            return None;
        }
        let seen_of = |i: usize| self.counts.get(i).copied().unwrap_or(0);
        let wrong: Vec<(u32, u128, u64)> = pool
            .members()
            .iter()
            .enumerate()
            .filter(|(_, m)| m.settings.weight > 0)
            .map(|(i, m)| (m.pe_id, u128::from(m.settings.weight), seen_of(i)))
            .filter(|(_, w, seen)| u128::from(*seen) != *w)
            .collect();
        if !wrong.is_empty() {
            let expected: serde_json::Map<String, serde_json::Value> = pool
                .members()
                .iter()
                .filter(|m| m.settings.weight > 0)
                .map(|m| (pe_hex(m.pe_id), m.settings.weight.into()))
                .collect();
            let observed: serde_json::Map<String, serde_json::Value> = pool
                .members()
                .iter()
                .enumerate()
                .filter(|(_, m)| m.settings.weight > 0)
                .map(|(i, m)| (pe_hex(m.pe_id), seen_of(i).into()))
                .collect();
            let said: Vec<String> = wrong
                .iter()
                .map(|(id, w, seen)| format!("{} {seen} times for weight {w}", pe_hex(*id)))
                .collect();
            self.restart();
            self.previous = Some(head);
            return Some(Draft::new(
                Rule::WrrRatio,
                expected.into(),
                observed.into(),
                format!(
                    "WRR answers do not follow the weights: the last {round} (one round of the \
                     list) put {}",
                    said.join(", ")
                ),
            ));
        }
        if let (Some(h), Some(h_at)) = (heavy, heavy_at) {
            let wrap =
                u64::from(self.heads.front() == Some(&h_at) && self.heads.back() == Some(&h_at));
            let pairs = self.heavy_pairs + wrap;
            let hw = weight(h);
            let unavoidable = u64::try_from(2 * hw - round).unwrap_or(u64::MAX);
            if pairs > unavoidable {
                self.restart();
                self.previous = Some(head);
                return Some(Draft::new(
                    Rule::WrrRepeat,
                    unavoidable.into(),
                    pairs.into(),
                    format!(
                        "WRR answers put {} first twice in a row {pairs} times in one round of \
                         {round}, where its weight {hw} needs only {unavoidable}",
                        pe_text(&[h])
                    ),
                ));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::policy::{PeSettings, PolicyKind, RFC5356};

    fn pool(weights: &[u32]) -> Pool {
        let mut p = Pool::new(&RFC5356, PolicyKind::WeightedRoundRobin).expect("pool");
        for (i, w) in weights.iter().enumerate() {
            let s = PeSettings::new(PolicyKind::WeightedRoundRobin).with_weight(*w);
            p.register(i as u32 + 1, s).expect("member");
        }
        p
    }

    fn run(weights: &[u32], heads: &[u32]) -> Vec<(usize, &'static str)> {
        let p = pool(weights);
        let mut j = SpreadJudge::default();
        heads
            .iter()
            .enumerate()
            .filter_map(|(i, h)| j.judge(&p, Some(*h)).map(|d| (i, d.rule.id())))
            .collect()
    }

    #[test]
    fn any_spread_list_passes_and_faults_give_one_finding_each() {
        // Weights 2, 1, 1: both spread lists, from any slot, for several rounds.
        for list in [[1, 2, 1, 3], [1, 3, 1, 2], [2, 1, 3, 1]] {
            let heads: Vec<u32> = list.iter().cycle().take(20).copied().collect();
            assert_eq!(run(&[2, 1, 1], &heads), vec![], "{list:?}");
        }
        // RSPLIB's and the smooth sequence's list repeats PE 1 across the round.
        let heads: Vec<u32> = [1, 2, 3, 1].iter().cycle().take(8).copied().collect();
        assert_eq!(run(&[2, 1, 1], &heads), vec![(4, "rserpool.wrr-repeat")]);
        // A wrong ratio: PE 2 twice and PE 3 never in a round of 4, without a repeat.
        // (Kept up, it is found once per round.)
        let heads = [1, 2, 1, 2, 1, 2, 1, 2];
        assert_eq!(
            run(&[2, 1, 1], &heads),
            vec![(3, "rserpool.wrr-ratio"), (7, "rserpool.wrr-ratio")]
        );
        // One PE replaced once in a long run of a good list: one finding, not one per window.
        let mut heads: Vec<u32> = [1, 2, 1, 3].iter().cycle().take(40).copied().collect();
        heads[17] = 3;
        let found = run(&[2, 1, 1], &heads);
        assert_eq!(found.len(), 1, "{found:?}");
    }

    #[test]
    fn a_heavy_pe_may_repeat_only_as_often_as_it_must() {
        // Weights 4, 1, 1: PE 1 needs 2 repeats per round of 6 (1 2 1 1 3 1).
        let good: Vec<u32> = [1, 2, 1, 1, 3, 1]
            .iter()
            .cycle()
            .take(24)
            .copied()
            .collect();
        assert_eq!(run(&[4, 1, 1], &good), vec![]);
        // 1 1 1 2 3 1: three repeats in a round (2 and 3 neighbours).
        let bad: Vec<u32> = [1, 1, 1, 2, 3, 1]
            .iter()
            .cycle()
            .take(12)
            .copied()
            .collect();
        let found = run(&[4, 1, 1], &bad);
        assert_eq!(found.first().map(|f| f.1), Some("rserpool.wrr-repeat"));
    }
}
