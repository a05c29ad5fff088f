//! Handle Resolution Responses: checked under every profile, recorded in the timeline; and the
//! goodness-of-fit findings of randomised pools.

use super::{Replay, Scope, FIT_BLOCK};
use crate::analyse::policy::ShareCache;
use crate::analyse::rserpool::directory::RegistrarId;
use crate::analyse::rserpool::event::{Meta, PeInfo};
use crate::analyse::rserpool::handle::{pe_hex, pe_list, pe_text, PoolHandle};
use crate::analyse::rserpool::rules::{Draft, Rule};
use crate::analyse::rserpool::selection::{describe_settings, Checked, ProfilePool};
use crate::analyse::Report;

impl Replay {
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
        let Some(e) = self.entry(reg, pool, observed.is_empty()) else {
            self.counters.answers_not_checked += 1;
            let first = self.registrars.entry(reg).or_default().first_unknown(pool);
            if first {
                let d = Draft::new(
                    Rule::UnknownPool,
                    serde_json::Value::Null,
                    pe_list(&observed),
                    format!(
                        "answers for pool {pool}, which the replay never saw it hold (registrations \
                         before the capture began, or a registrar not identified yet): its answers \
                         for this pool are not checked"
                    ),
                );
                self.emit(report, reg, pool, Scope::Common, meta.frame, meta.time, d);
            }
            return;
        };
        e.resolutions += 1;
        if observed.is_empty() {
            // A negative answer: no reference to give.
            if let (Some(o), Some(registrar)) = (report.observing(), &registrar) {
                let policy = e.membership.policy().map(|p| p.name()).unwrap_or_default();
                o.resolution(&crate::analyse::observe::Resolution {
                    frame: meta.frame,
                    time: meta.time,
                    registrar,
                    pool: &pool.to_string(),
                    policy: &policy,
                    profile: e.profiles.first().map_or("", |p| p.profile.name),
                    items,
                    answer: &[],
                    reference: None,
                });
            }
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
        // Only the lead profile's probabilities are used, and only by the timeline.
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
        if let (Some(o), Some(registrar)) = (report.observing(), &registrar) {
            let policy = e.membership.policy().map(|p| p.name()).unwrap_or_default();
            o.resolution(&crate::analyse::observe::Resolution {
                frame: meta.frame,
                time: meta.time,
                registrar,
                pool: &pool.to_string(),
                policy: &policy,
                profile: e.profiles.first().map_or("", |p| p.profile.name),
                items,
                answer: &observed,
                reference: lead_expected.as_ref().and_then(|x| x.as_deref()),
            });
        }
        if let Some(probabilities) = lead {
            self.record_answer(report, meta, reg, pool, items, &observed, &probabilities);
        }
        for (scope, d) in drafts {
            match scope {
                Scope::Common => self.emit_common(report, reg, pool, meta.into(), d),
                Scope::Profile(_) => self.emit(report, reg, pool, scope, meta.frame, meta.time, d),
            }
        }
    }

    /// The lead profile's view of an answer into the timeline, and the members' long-run shares
    /// when the membership changed since they were last given.
    #[allow(clippy::too_many_arguments)]
    fn record_answer(
        &mut self,
        report: &mut Report,
        meta: &Meta,
        reg: RegistrarId,
        pool: &PoolHandle,
        items: Option<u32>,
        observed: &[u32],
        probabilities: &[(u32, f64, f64)],
    ) {
        if !report.timeline.recording() {
            return;
        }
        // Out of `self` while a pool entry of `self` is borrowed.
        let mut cache = std::mem::take(&mut self.shares);
        self.record_answer_with(
            &mut cache,
            report,
            meta,
            reg,
            pool,
            items,
            observed,
            probabilities,
        );
        self.shares = cache;
    }

    #[allow(clippy::too_many_arguments)]
    fn record_answer_with(
        &mut self,
        cache: &mut ShareCache,
        report: &mut Report,
        meta: &Meta,
        reg: RegistrarId,
        pool: &PoolHandle,
        items: Option<u32>,
        observed: &[u32],
        probabilities: &[(u32, f64, f64)],
    ) {
        let Some(e) = self.entry(reg, pool, false) else {
            return;
        };
        let (s, kind) = (&e.subject, &e.kind);
        let chosen: Vec<String> = observed.iter().map(|id| pe_hex(*id)).collect();
        let expected: Vec<(String, f64, f64)> = probabilities
            .iter()
            .map(|(id, f, a)| (pe_hex(*id), *f, *a))
            .collect();
        report
            .timeline
            .answer(meta.time, s, kind, &chosen, &expected);
        if !e.describe_due {
            return;
        }
        e.describe_due = false;
        let Some(p) = e.profiles.first().and_then(|p| p.pool()) else {
            return;
        };
        let shares = cache.expected_share(p, p.items_for(items));
        for share in shares {
            let text = p
                .member(share.pe_id)
                .map(|m| describe_settings(&m.settings))
                .unwrap_or_default();
            report
                .timeline
                .describe(&e.subject, &pe_hex(share.pe_id), text, Some(share.first));
        }
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
