//! A pair whose profile the evidence did not decide: when two or more profiles explain the
//! answers equally well (`inference`), the pair is judged under each, and only what every tied
//! profile flags is recorded. The chosen profile (the first of the tied ones) keeps the shares,
//! the episodes and the timeline; the others are judged beside it into reports of their own,
//! which only say what they would flag. The messages the profiles judge differently are the
//! answers that would decide: the first of them are named in the report.

use std::collections::BTreeSet;

use super::judge::{self, Context, PairStats};
use super::model::Pair;
use super::transactions::Transmission;
use crate::analyse::Report;

/// How many deciding frames a report names.
const DECIDING_LISTED: usize = 8;

/// The tied profiles' models and what judging under all of them left undecided.
#[derive(Debug, Default)]
pub struct Undecided {
    /// The other tied profiles' pairs, each with statistics of its own.
    pub others: Vec<(Pair, PairStats)>,
    /// Findings (by rule and frame) some tied profile made and not every one: not recorded.
    pub held: u64,
    /// Frames the tied profiles judge differently, in order (the first [`DECIDING_LISTED`]).
    pub deciding: Vec<u64>,
    /// How many such frames in all.
    pub deciding_total: u64,
}

impl Undecided {
    pub fn new(others: &[Pair], max_pending: usize) -> Option<Box<Undecided>> {
        (!others.is_empty()).then(|| {
            Box::new(Undecided {
                others: others
                    .iter()
                    .map(|p| (p.clone(), PairStats::new(max_pending)))
                    .collect(),
                ..Undecided::default()
            })
        })
    }

    /// The tied profiles' names, the chosen one first.
    pub fn between(&self, chosen: &Pair) -> Vec<&'static str> {
        std::iter::once(chosen.profile.name)
            .chain(self.others.iter().map(|(p, _)| p.profile.name))
            .collect()
    }

    fn disagree(&mut self, frames: BTreeSet<u64>) {
        for f in frames {
            self.deciding_total += 1;
            if self.deciding.len() < DECIDING_LISTED {
                self.deciding.push(f);
            }
        }
    }
}

type Key = (&'static str, u64);

/// Runs `step` for the chosen pair into `report` and for each tied profile into a report of its
/// own; records only the findings every one made.
fn agreeing(
    pair: &Pair,
    stats: &mut PairStats,
    report: &mut Report,
    step: &mut dyn FnMut(&Pair, &mut PairStats, &mut Report),
) {
    let Some(mut u) = stats.undecided.take() else {
        step(pair, stats, report);
        return;
    };
    let mut sets: Vec<BTreeSet<Key>> = Vec::with_capacity(u.others.len());
    for (p, s) in &mut u.others {
        let mut own = Report::for_findings(usize::MAX);
        step(p, s, &mut own);
        sets.push(
            own.findings
                .list()
                .iter()
                .map(|f| (f.rule, f.frame))
                .collect(),
        );
    }
    let mut agreed = sets.first().cloned().unwrap_or_default();
    for s in sets.iter().skip(1) {
        agreed.retain(|k| s.contains(k));
    }
    report.hold(agreed.clone());
    step(pair, stats, report);
    let (held, recorded) = report.release();
    let chosen: BTreeSet<Key> = held
        .iter()
        .map(|f| (f.rule, f.frame))
        .chain(recorded)
        .collect();
    let common: BTreeSet<Key> = chosen.intersection(&agreed).copied().collect();
    let apart: BTreeSet<Key> = sets
        .iter()
        .chain(std::iter::once(&chosen))
        .flat_map(|s| s.difference(&common).copied())
        .collect();
    u.held += apart.len() as u64;
    u.disagree(apart.into_iter().map(|k| k.1).collect());
    stats.undecided = Some(u);
}

/// [`judge::judge`] under every tied profile.
pub fn judge(
    ctx: &Context<'_>,
    pair: &Pair,
    stats: &mut PairStats,
    t: &Transmission,
    report: &mut Report,
) {
    agreeing(pair, stats, report, &mut |p, s, r| {
        judge::judge(ctx, p, s, t, r)
    });
}

/// [`judge::end_episodes`] and [`judge::aggregate`] under every tied profile.
pub fn finish(ctx: &Context<'_>, pair: &Pair, stats: &mut PairStats, report: &mut Report) {
    agreeing(pair, stats, report, &mut |p, s, r| {
        judge::end_episodes(ctx, p, s, r);
        judge::aggregate(ctx, p, s, r);
    });
}
