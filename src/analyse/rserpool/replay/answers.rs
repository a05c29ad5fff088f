//! Handle Resolution Responses: checked under every profile, recorded in the timeline; and the
//! goodness-of-fit findings of randomised pools.

use super::{subject, Engine, Scope, FIT_BLOCK};
use crate::analyse::rserpool::directory::RegistrarId;
use crate::analyse::rserpool::events::{Meta, PeInfo};
use crate::analyse::rserpool::handle::{pe_hex, pe_list, pe_text, PoolHandle};
use crate::analyse::rserpool::rules::{Draft, Rule};
use crate::analyse::rserpool::selection::{describe_settings, Checked, Expectation, ProfilePool};
use crate::analyse::rserpool::state::PoolEntry;
use crate::analyse::Report;

/// Tells the report's observer (`export`), if any, of a checked resolution: its answer and the
/// reference's, where the reference determines one. `registrar` is named only when there is one.
fn observe(
    report: &mut Report,
    meta: &Meta,
    registrar: Option<&str>,
    pool: &PoolHandle,
    e: &PoolEntry,
    items: Option<u32>,
    (answer, reference): (&[u32], Option<&[u32]>),
) {
    let (Some(o), Some(registrar)) = (report.observing(), registrar) else {
        return;
    };
    let policy = e.membership.policy().map(|p| p.name()).unwrap_or_default();
    o.resolution(&crate::analyse::observe::Resolution {
        frame: meta.frame,
        time: meta.time,
        registrar,
        pool: &pool.to_string(),
        policy: &policy,
        profile: e.profiles.first().map_or("", |p| p.profile.name),
        items,
        answer,
        reference,
    });
}

impl Engine {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn resolution(
        &mut self,
        report: &mut Report,
        meta: &Meta,
        reg: RegistrarId,
        pool: &PoolHandle,
        items: Option<u32>,
        pes: &[PeInfo],
        causes: &[u16],
    ) {
        self.sweep(report, reg, pool, meta.into());
        let observed: Vec<u32> = pes.iter().map(|p| p.pe_id).collect();
        // Named only for an observer (`export`): the entry below borrows `self`.
        let registrar = report.observer.is_some().then(|| self.directory.name(reg));
        // A negative answer for a pool it never held is right, and counted with the pool.
        // Out of `self` while a pool entry of `self` is borrowed (given back below).
        let mut room = std::mem::take(&mut self.tally_room);
        let Some(e) = self.entry(reg, pool, observed.is_empty()) else {
            self.tally_room = room;
            self.counters.answers_not_checked += 1;
            let first = self.registrars.entry(reg).or_default().unknown_answer(
                pool,
                &observed,
                &mut self.tally_room,
            );
            self.record_answer(report, meta, reg, pool, &observed, None);
            if first {
                let d = Draft::new(
                    Rule::UnknownPool,
                    serde_json::Value::Null,
                    pe_list(&observed),
                    format!(
                        "answers for pool {pool}, which the replay has not seen it hold yet \
                         (registrations before the capture began, or a registrar not identified \
                         yet): its answers for this pool are not checked until it has"
                    ),
                );
                self.emit(report, reg, pool, Scope::Common, meta.frame, meta.time, d);
            }
            return;
        };
        e.resolutions += 1;
        if observed.is_empty() {
            // Judged: nothing listed, nothing expected first (a pool with members is the
            // `not-found` below).
            e.tally
                .count(&[], Some(Expectation::Answer(&[])), &mut room);
            self.tally_room = room;
            self.record_answer(report, meta, reg, pool, &[], Some(&[]));
            let Some(e) = self.entry(reg, pool, false) else {
                return;
            };
            // A negative answer: no reference to give.
            observe(
                report,
                meta,
                registrar.as_deref(),
                pool,
                e,
                items,
                (&[], None),
            );
            if !e.membership.is_empty() {
                let members: Vec<u32> = e.membership.members().iter().map(|m| m.pe_id).collect();
                let causes_text: Vec<String> = causes.iter().map(|c| format!("0x{c:x}")).collect();
                let d = Draft::new(
                    Rule::NotFound,
                    pe_list(&members),
                    causes_text.clone().into(),
                    format!(
                        "negative answer (cause {}) while the pool has {} member(s): {}",
                        if causes_text.is_empty() {
                            "none".to_string()
                        } else {
                            causes_text.join(", ")
                        },
                        members.len(),
                        pe_text(&members)
                    ),
                );
                self.emit_common(report, reg, pool, meta.into(), d);
            }
            return;
        }
        let mut drafts: Vec<(Scope, Draft)> = Vec::new();
        if let Some(pool_policy) = e.membership.policy() {
            let odd: Vec<String> = pes
                .iter()
                .filter_map(|p| {
                    let pp = p.policy.as_ref()?;
                    (!pp.same_policy(pool_policy))
                        .then(|| format!("{}: {}", pe_hex(p.pe_id), pp.name()))
                })
                .collect();
            if !odd.is_empty() {
                drafts.push((
                    Scope::Common,
                    Draft::new(
                        Rule::PolicyInAnswer,
                        pool_policy.name().into(),
                        odd.clone().into(),
                        format!(
                            "answer lists PEs with another policy than the pool's {}: {}",
                            pool_policy.name(),
                            odd.join(", ")
                        ),
                    ),
                ));
            }
        }
        let mut lead = None;
        let mut lead_expected = None;
        let membership = &e.membership;
        // Only the lead profile's expectations are used: the answers' counts of `check`
        // (`tally`, read from the profile without a copy), `stats` and the TUI (the timeline,
        // from the probabilities it is given when it records).
        let recording = report.timeline.recording();
        for (i, p) in e.profiles.iter_mut().enumerate() {
            let detail = i == 0 && recording;
            let Some(checked) = p.check_with(membership, items, &observed, meta.frame, detail)
            else {
                continue;
            };
            let Checked {
                drafts: found,
                probabilities,
                expected,
            } = checked;
            if i == 0 {
                lead = Some(probabilities);
                lead_expected = Some(expected);
            }
            drafts.extend(found.into_iter().map(|d| (Scope::Profile(i), d)));
            if p.fit.answers() >= FIT_BLOCK {
                for d in fit_drafts(p) {
                    drafts.push((Scope::Profile(i), d));
                }
                p.fit = Default::default();
            }
        }
        let reference = lead_expected.as_ref().and_then(|x| x.as_deref());
        observe(
            report,
            meta,
            registrar.as_deref(),
            pool,
            e,
            items,
            (&observed, reference),
        );
        let expectation = e.profiles.first().and_then(|p| p.expectation());
        e.tally.count(&observed, expectation, &mut room);
        let judged = expectation.is_some();
        let describe = e.describe_due;
        self.tally_room = room;
        if recording {
            let judged = judged.then(|| lead.unwrap_or_default());
            self.record_answer(report, meta, reg, pool, &observed, judged.as_deref());
            if describe {
                self.describe_shares(report, reg, pool, items);
            }
        }
        for (scope, d) in drafts {
            match scope {
                Scope::Common => self.emit_common(report, reg, pool, meta.into(), d),
                Scope::Profile(_) => self.emit(report, reg, pool, scope, meta.frame, meta.time, d),
            }
        }
    }

    /// An answer into the pool's series (every registrar's answers together), under the
    /// registrar's name: `probabilities` the lead profile's per member (first, listed), `None`
    /// for an answer it could not judge.
    pub(super) fn record_answer(
        &mut self,
        report: &mut Report,
        meta: &Meta,
        reg: RegistrarId,
        pool: &PoolHandle,
        observed: &[u32],
        probabilities: Option<&[(u32, f64, f64)]>,
    ) {
        if !report.timeline.recording() {
            return;
        }
        let source = self.directory.name(reg);
        let entry = self.registrars.get(&reg).and_then(|s| s.pools.get(pool));
        let kind = entry.map_or("RSerPool pool", |e| e.kind.as_str());
        let made;
        let subject = match entry {
            Some(e) => &e.subject,
            None => {
                made = subject(pool);
                &made
            }
        };
        report.timeline.answer_by_key(
            meta.time,
            subject,
            kind,
            Some(&source),
            observed,
            probabilities,
            pe_hex,
        );
    }

    /// The members' long-run shares when the membership changed since they were last given.
    fn describe_shares(
        &mut self,
        report: &mut Report,
        reg: RegistrarId,
        pool: &PoolHandle,
        items: Option<u32>,
    ) {
        if !report.timeline.describing() {
            return;
        }
        // Out of `self` while a pool entry of `self` is borrowed.
        let mut cache = std::mem::take(&mut self.shares);
        if let Some(e) = self.entry(reg, pool, false) {
            e.describe_due = false;
            if let Some(p) = e.profiles.first().and_then(|p| p.pool()) {
                let shares = cache.expected_share(p, p.items_for(items));
                for share in shares {
                    let text = p
                        .member(share.pe_id)
                        .map(|m| describe_settings(&m.settings))
                        .unwrap_or_default();
                    report.timeline.describe(
                        &e.subject,
                        &pe_hex(share.pe_id),
                        text,
                        Some(share.first),
                    );
                }
            }
        }
        self.shares = cache;
    }
}

/// The goodness-of-fit findings of a randomised pool (counted as deviations of the profile).
pub(super) fn fit_drafts(p: &mut ProfilePool) -> Vec<Draft> {
    let misfits = p.fit.misfits();
    let mut out = Vec::new();
    for m in misfits {
        let expected: serde_json::Map<String, serde_json::Value> = m
            .expected
            .iter()
            .map(|(id, x)| (pe_hex(*id), ((x * 100.0).round() / 100.0).into()))
            .collect();
        let observed: serde_json::Map<String, serde_json::Value> = m
            .expected
            .keys()
            .map(|id| (pe_hex(*id), m.observed.get(id).copied().unwrap_or(0).into()))
            .collect();
        let counts: Vec<String> = m
            .expected
            .iter()
            .map(|(id, x)| {
                format!(
                    "{} {} (expected {x:.1})",
                    pe_hex(*id),
                    m.observed.get(id).copied().unwrap_or(0)
                )
            })
            .collect();
        p.deviations = p.deviations.saturating_add(1);
        out.push(Draft::new(
            Rule::Distribution,
            expected.into(),
            observed.into(),
            format!(
                "{} of {} answers do not fit the reference's probabilities (chi-square p = {:.2e}): {}",
                m.what,
                m.answers,
                m.p,
                counts.join(", ")
            ),
        ));
    }
    out
}
