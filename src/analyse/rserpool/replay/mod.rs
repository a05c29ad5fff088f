//! The replay engine: events in; registrars, pools and reference selection state updated;
//! answers checked; findings and the timeline out. This file holds the state and the operations
//! on it; `handlers.rs` what each event does, `answers.rs` the checking of answers.

mod answers;
mod handlers;

use answers::fit_drafts;

use std::collections::{BTreeMap, HashMap};

use super::directory::{Change, Directory, RegistrarId};
use super::events::{Endpoint, Meta, PeInfo};
use super::handle::{pe_hex, PoolHandle};
use super::membership::{Added, Origin, Reason, Removal};
use super::pending::Pending;
use super::registrar_events::RegistrarEvent;
use super::rules::{Draft, Rule};
use super::selection::describe_settings;
use super::state::{PoolEntry, RegistrarState, Totals};
use crate::analyse::finding::{Finding, Severity, Subject};
use crate::analyse::policy::{Profile, ShareCache};
use crate::analyse::timeline::SeriesEvent;
use crate::analyse::Report;
use crate::base::Timestamp;

/// Registrars tracked at once.
const MAX_REGISTRARS: usize = 1024;
/// Associations with requests waiting at once.
const MAX_ASSOCIATIONS: usize = 65_536;
/// Findings held whole per profile under `auto` until the end decides which profile's are
/// reported; past it they are tallied (rule, subject, time window), so counts stay exact.
const MAX_BUFFERED: usize = 1_000;
/// Distinct tallies of findings past `MAX_BUFFERED`; past it their time window is not kept.
const MAX_TALLIES: usize = 65_536;
/// Pools and members held across all registrars (each registrar and pool has its own bound too;
/// these keep their product in check). New ones beyond are not modelled, and counted.
const MAX_TOTAL_POOLS: usize = 65_536;
const MAX_TOTAL_MEMBERS: usize = 262_144;
/// PEs counted in the answers' tallies of all pools together (a PE per pool and registrar; PEs
/// an answer names that are not members count too). Past it the answers are counted, new PEs
/// in them are not.
const MAX_TOTAL_TALLIED: usize = 262_144;
/// Answers per goodness-of-fit test in a long run (the rest are tested at the end).
const FIT_BLOCK: u64 = 10_000;
/// ASAP error cause: pooling policy inconsistent.
const CAUSE_POLICY_INCONSISTENT: u16 = 0x5;

/// Counts of what the replay could not use or had to drop.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counters {
    pub events: u64,
    /// Responses (resolution, registration) whose request was not seen.
    pub responses_without_request: u64,
    /// Answers for pools the registrar was never seen to hold (not checked).
    pub answers_not_checked: u64,
    /// Registrations rejected for an inconsistent policy, rightly.
    pub rejected_inconsistent: u64,
    /// Handle Updates and table entries with a policy the receiver's pool does not use.
    pub inconsistent_updates: u64,
    /// Pools built again from two names of one registrar.
    pub pools_rebuilt: u64,
    /// Registrar state dropped with its registrar (directory bound).
    pub registrars_forgotten: u64,
    /// Findings past the bound under `auto`, tallied rather than held (counted in the findings
    /// of their rule all the same, but not listed).
    pub findings_not_held: u64,
    /// Pools and members not modelled because the totals were reached.
    pub pools_refused: u64,
    pub members_refused: u64,
}

/// A finding held under `auto`, its evidence kept as JSON text (a parsed object costs several
/// times as much) until the end decides whether it is reported.
struct Held {
    registrar: RegistrarId,
    time: Timestamp,
    /// The finding with `expected` and `observed` left null.
    finding: Finding,
    /// `[expected, observed]`.
    evidence: Box<str>,
}

impl Held {
    fn new(registrar: RegistrarId, time: Timestamp, mut finding: Finding) -> Self {
        let evidence =
            serde_json::Value::Array(vec![finding.expected.take(), finding.observed.take()])
                .to_string()
                .into_boxed_str();
        Held {
            registrar,
            time,
            finding,
            evidence,
        }
    }

    fn into_finding(self) -> Finding {
        let mut f = self.finding;
        if let Ok(serde_json::Value::Array(mut v)) = serde_json::from_str(&self.evidence) {
            f.observed = v.pop().unwrap_or_default();
            f.expected = v.pop().unwrap_or_default();
        }
        f
    }
}

/// Findings of one profile past the bound, counted by what the report needs of them.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Tally {
    profile: usize,
    registrar: RegistrarId,
    rule: &'static str,
    severity: Severity,
    subject: Subject,
    /// The start of the timeline window (`None` past `MAX_TALLIES`: counted at the end).
    window: Option<Timestamp>,
}

/// Where a finding goes: reported at once, or held per profile until the end (`auto`).
#[derive(Clone, Copy)]
enum Scope {
    Common,
    Profile(usize),
}

pub struct Engine {
    profiles: Vec<&'static Profile>,
    auto: bool,
    directory: Directory,
    registrars: BTreeMap<RegistrarId, RegistrarState>,
    pending: Pending,
    held: Vec<Vec<Held>>,
    /// Findings held whole per profile (`MAX_BUFFERED` unless set).
    held_limit: usize,
    tallies: BTreeMap<Tally, u64>,
    pub counters: Counters,
    last_frame: u64,
    last_time: Option<Timestamp>,
    pools_total: usize,
    members_total: usize,
    /// The lead profile's expected shares, by pool state (see `ShareCache`).
    shares: ShareCache,
    /// Names registrars had in findings already made, and who they turned out to be: the
    /// findings are renamed (`apply_renames`), so that a report names each registrar one way.
    renames: Vec<(String, RegistrarId)>,
    /// PEs that may still be added to answer tallies (`MAX_TOTAL_TALLIED`).
    tally_room: usize,
}

/// When something happened: the frame (for findings) and its time.
#[derive(Clone, Copy, Debug)]
struct At {
    frame: u64,
    time: Timestamp,
}

impl From<&Meta> for At {
    fn from(m: &Meta) -> Self {
        At {
            frame: m.frame,
            time: m.time,
        }
    }
}

/// The timeline's series of a pool.
fn subject(pool: &PoolHandle) -> Subject {
    Subject::Pool(pool.to_string())
}

impl Engine {
    /// A replay under `profiles` (the first one leads the timeline); `auto` holds the per-profile
    /// findings until the end and reports, per registrar, those of the profile it follows.
    pub fn new(profiles: Vec<&'static Profile>, auto: bool) -> Self {
        let n = profiles.len();
        Engine {
            profiles,
            auto,
            directory: Directory::new(MAX_REGISTRARS),
            registrars: BTreeMap::new(),
            pending: Pending::new(MAX_ASSOCIATIONS),
            held: (0..n).map(|_| Vec::new()).collect(),
            held_limit: MAX_BUFFERED,
            tallies: BTreeMap::new(),
            counters: Counters::default(),
            last_frame: 0,
            last_time: None,
            pools_total: 0,
            members_total: 0,
            shares: ShareCache::default(),
            renames: Vec::new(),
            tally_room: MAX_TOTAL_TALLIED,
        }
    }

    /// Holds at most `n` whole findings per profile under `auto` (tallying the rest).
    pub fn set_held_limit(&mut self, n: usize) {
        self.held_limit = n;
    }

    pub fn profiles(&self) -> &[&'static Profile] {
        &self.profiles
    }

    pub fn is_auto(&self) -> bool {
        self.auto
    }

    pub fn directory(&self) -> &Directory {
        &self.directory
    }

    pub fn pending(&self) -> &Pending {
        &self.pending
    }

    pub fn registrars(&self) -> impl Iterator<Item = (RegistrarId, &RegistrarState)> {
        self.registrars.iter().map(|(k, v)| (*k, v))
    }

    /// The profile a registrar follows: fewest deviations plus resolutions it cannot model; ties
    /// go to the earlier profile of the run.
    pub fn best_profile(&self, id: RegistrarId) -> usize {
        let Some(state) = self.registrars.get(&id) else {
            return 0;
        };
        (0..self.profiles.len())
            .min_by_key(|&i| {
                let t = state.totals(i);
                (t.deviations.saturating_add(t.unmodelled), i)
            })
            .unwrap_or(0)
    }

    /// Pools evicted (per-registrar bound) and registrations not modelled for a full pool.
    pub fn pool_bound_counts(&self) -> (u64, u64) {
        let evicted = self.registrars.values().map(|s| s.pools_evicted).sum();
        let full = self
            .registrars
            .values()
            .flat_map(|s| s.pools.values())
            .map(|e| e.membership.refused_full)
            .sum();
        (evicted, full)
    }

    pub fn totals(&self, id: RegistrarId, profile: usize) -> Totals {
        self.registrars
            .get(&id)
            .map(|s| s.totals(profile))
            .unwrap_or_default()
    }

    // ----- directory, with its changes mirrored at once -----

    /// Counts pools and members again (after merges and evictions, which move or drop many).
    fn recount(&mut self) {
        self.pools_total = self.registrars.values().map(|s| s.pools.len()).sum();
        self.members_total = self
            .registrars
            .values()
            .flat_map(|s| s.pools.values())
            .map(|e| e.membership.len())
            .sum();
    }

    fn sync(&mut self) {
        let changes = self.directory.take_changes();
        if changes.is_empty() {
            return;
        }
        for change in changes {
            match change {
                Change::Named { id, was } => self.renames.push((was, id)),
                Change::Merged { from, into, was } => {
                    self.renames.push((was, into));
                    if let Some(theirs) = self.registrars.remove(&from) {
                        let rebuilt = self.registrars.entry(into).or_default().absorb(theirs);
                        self.counters.pools_rebuilt += rebuilt;
                    }
                    for h in self.held.iter_mut().flatten() {
                        if h.registrar == from {
                            h.registrar = into;
                        }
                    }
                    let moved: Vec<(Tally, u64)> = self
                        .tallies
                        .iter()
                        .filter(|(t, _)| t.registrar == from)
                        .map(|(t, n)| (t.clone(), *n))
                        .collect();
                    for (mut t, n) in moved {
                        self.tallies.remove(&t);
                        t.registrar = into;
                        *self.tallies.entry(t).or_default() += n;
                    }
                }
                Change::Evicted(id) => {
                    if self.registrars.remove(&id).is_some() {
                        self.counters.registrars_forgotten += 1;
                    }
                }
            }
        }
        self.recount();
    }

    /// Findings made under a registrar's earlier name (its ASAP endpoint, before a keep-alive or
    /// an announce told its server id) take the name it has now, in the report and among those
    /// held: one name per registrar in a report.
    pub(super) fn apply_renames(&mut self, report: &mut Report) {
        if self.renames.is_empty() {
            return;
        }
        let renames: Vec<(String, String)> = std::mem::take(&mut self.renames)
            .into_iter()
            .map(|(was, id)| (was, self.directory.name(id)))
            .filter(|(was, now)| was != now)
            .collect();
        if renames.is_empty() {
            return;
        }
        report.findings.rewrite(|f| rename(f, &renames));
        for (was, now) in &renames {
            report.timeline.rename_source(was, now);
        }
        for h in self.held.iter_mut().flatten() {
            rename(&mut h.finding, &renames);
        }
    }

    fn asap_registrar(&mut self, ep: Endpoint) -> RegistrarId {
        let id = self.directory.asap(ep);
        self.sync();
        id
    }

    fn enrp_registrar(&mut self, ep: Endpoint) -> RegistrarId {
        let id = self.directory.enrp(ep);
        self.sync();
        id
    }

    fn server_registrar(&mut self, server_id: u32) -> Option<RegistrarId> {
        let id = self.directory.server(server_id);
        self.sync();
        id
    }

    fn link_asap(&mut self, ep: Endpoint, server_id: u32) {
        self.directory.link_asap(ep, server_id);
        self.sync();
    }

    fn link_enrp(&mut self, ep: Endpoint, server_id: u32) {
        self.directory.link_enrp(ep, server_id);
        self.sync();
    }

    fn entry(
        &mut self,
        reg: RegistrarId,
        pool: &PoolHandle,
        create: bool,
    ) -> Option<&mut PoolEntry> {
        if !create {
            return self
                .registrars
                .get_mut(&reg)?
                .pool(pool, false, &self.profiles);
        }
        let exists = self
            .registrars
            .get(&reg)
            .is_some_and(|s| s.pools.contains_key(pool));
        if !exists {
            if self.pools_total >= MAX_TOTAL_POOLS {
                self.counters.pools_refused += 1;
                return None;
            }
            let state = self.registrars.entry(reg).or_default();
            let evicted_before = state.pools_evicted;
            state.pool(pool, true, &self.profiles);
            if state.pools_evicted == evicted_before {
                self.pools_total += 1;
            } else {
                self.recount();
            }
        }
        self.registrars
            .get_mut(&reg)?
            .pool(pool, false, &self.profiles)
    }

    // ----- findings -----

    #[allow(clippy::too_many_arguments)]
    fn emit(
        &mut self,
        report: &mut Report,
        reg: RegistrarId,
        pool: &PoolHandle,
        scope: Scope,
        frame: u64,
        time: Timestamp,
        d: Draft,
    ) {
        let registrar = self.directory.name(reg);
        let finding = Finding {
            frame,
            time: None,
            rule: d.rule.id(),
            severity: d.rule.severity(),
            subject: subject(pool),
            message: format!("registrar {registrar}: {}", d.message),
            // One registrar's findings are not alike another's.
            group: registrar,
            expected: d.expected,
            observed: d.observed,
        };
        match scope {
            Scope::Profile(i) if self.auto => match self.held.get_mut(i) {
                Some(buf) if buf.len() < self.held_limit => buf.push(Held::new(reg, time, finding)),
                _ => {
                    self.counters.findings_not_held += 1;
                    let window = report
                        .timeline
                        .window_start(time)
                        .filter(|_| self.tallies.len() < MAX_TALLIES);
                    let key = Tally {
                        profile: i,
                        registrar: reg,
                        rule: finding.rule,
                        severity: finding.severity,
                        subject: finding.subject,
                        window,
                    };
                    *self.tallies.entry(key).or_default() += 1;
                }
            },
            _ => report.push(finding, time),
        }
    }

    /// A finding that does not depend on the profile, counted as a deviation of the pool when it
    /// is one.
    fn emit_common(
        &mut self,
        report: &mut Report,
        reg: RegistrarId,
        pool: &PoolHandle,
        at: At,
        d: Draft,
    ) {
        if d.rule.deviation() {
            if let Some(e) = self.entry(reg, pool, false) {
                e.common_deviations += 1;
            }
        }
        self.emit(report, reg, pool, Scope::Common, at.frame, at.time, d);
    }

    // ----- membership, mirrored into every profile and the timeline -----

    /// The membership changed: the series' name follows.
    fn changed(e: &mut PoolEntry) {
        e.refresh_kind();
        e.most_members = e.most_members.max(e.membership.len());
    }

    /// The pool's members at every registrar together (each registrar holds its own view of a
    /// pool, a peer's learnt by ENRP) go to the timeline: its windows list every one registered
    /// in them and count them. Called on a change of members only, not on every answer. (A
    /// registrar or a pool evicted at the bounds shows in the timeline at the pool's next change.)
    fn publish_members(&self, report: &mut Report, t: Timestamp, pool: &PoolHandle, kind: &str) {
        if !report.timeline.recording() {
            return;
        }
        let ids: std::collections::BTreeSet<u32> = self
            .registrars
            .values()
            .filter_map(|s| s.pools.get(pool))
            .flat_map(|e| e.membership.members().iter().map(|m| m.pe_id))
            .collect();
        report
            .timeline
            .set_members(t, &subject(pool), kind, ids.into_iter().map(pe_hex));
    }

    /// Something that happened at a registrar: into its log, and marked on each pool's series.
    fn registrar_event(&mut self, report: &mut Report, reg: RegistrarId, e: RegistrarEvent) {
        if report.timeline.recording() {
            let source = self.directory.name(reg);
            let text = e.describe();
            for pool in &e.pools {
                let kind = self
                    .registrars
                    .get(&reg)
                    .and_then(|s| s.pools.get(pool))
                    .map_or("", |p| p.kind.as_str())
                    .to_string();
                let mark = SeriesEvent {
                    time: e.time,
                    offset_ns: 0,
                    frame: e.frame,
                    kind: e.kind.name(),
                    source: source.clone(),
                    text: text.clone(),
                };
                report.timeline.mark(&subject(pool), &kind, mark);
            }
        }
        self.registrars.entry(reg).or_default().events.push(e);
    }

    /// Removes the members whose time ran out (see `membership.rs`), reporting each.
    fn sweep(&mut self, report: &mut Report, reg: RegistrarId, pool: &PoolHandle, at: At) {
        let Some(e) = self.entry(reg, pool, false) else {
            return;
        };
        let gone = e.membership.due(at.time, at.frame);
        if gone.is_empty() {
            return;
        }
        self.members_total = self.members_total.saturating_sub(gone.len());
        let Some(e) = self.entry(reg, pool, false) else {
            return;
        };
        let empty = e.membership.is_empty();
        for r in &gone {
            for p in &mut e.profiles {
                p.removed(r.pe_id, empty);
            }
        }
        e.describe_due = true;
        Self::changed(e);
        let kind = e.kind.clone();
        self.publish_members(report, at.time, pool, &kind);
        for r in gone {
            let d = removal_draft(&r);
            self.emit_common(report, reg, pool, at, d);
        }
    }

    fn add_member(
        &mut self,
        report: &mut Report,
        reg: RegistrarId,
        pool: &PoolHandle,
        pe: &PeInfo,
        origin: Origin,
        meta: &Meta,
    ) -> Option<Added> {
        self.sweep(report, reg, pool, meta.into());
        let full = self.members_total >= MAX_TOTAL_MEMBERS;
        let e = self.entry(reg, pool, true)?;
        if full && e.membership.member(pe.pe_id).is_none() {
            self.counters.members_refused += 1;
            return Some(Added::Full);
        }
        let added = e.membership.add(pe, origin, meta.time, meta.frame);
        if added == Added::New {
            self.members_total += 1;
        }
        let e = self.entry(reg, pool, false)?;
        if matches!(added, Added::New | Added::Updated) {
            if let Some(info) = e.membership.member(pe.pe_id).cloned() {
                for p in &mut e.profiles {
                    p.registered(&info);
                }
                e.describe_due = true;
                Self::changed(e);
                if added == Added::New {
                    let kind = e.kind.clone();
                    self.publish_members(report, meta.time, pool, &kind);
                }
                if let Some(s) = info
                    .policy
                    .settings
                    .filter(|_| report.timeline.describing())
                {
                    report.timeline.describe(
                        &subject(pool),
                        &pe_hex(pe.pe_id),
                        describe_settings(&s),
                        None,
                    );
                }
            }
        }
        Some(added)
    }

    fn remove_member(
        &mut self,
        report: &mut Report,
        reg: RegistrarId,
        pool: &PoolHandle,
        pe_id: u32,
        reason: Reason,
        meta: &Meta,
    ) -> bool {
        self.sweep(report, reg, pool, meta.into());
        let Some(e) = self.entry(reg, pool, false) else {
            return false;
        };
        if !e.membership.remove(pe_id, reason, meta.frame) {
            return false;
        }
        self.members_total = self.members_total.saturating_sub(1);
        let Some(e) = self.entry(reg, pool, false) else {
            return false;
        };
        let empty = e.membership.is_empty();
        for p in &mut e.profiles {
            p.removed(pe_id, empty);
        }
        e.describe_due = true;
        Self::changed(e);
        let kind = e.kind.clone();
        self.publish_members(report, meta.time, pool, &kind);
        true
    }

    /// The end of the capture: removals that fell due, the goodness-of-fit tests, and under
    /// `auto` each registrar's findings of the profile it follows.
    pub fn finish(&mut self, report: &mut Report) {
        if let Some(time) = self.last_time {
            let at = At {
                frame: self.last_frame,
                time,
            };
            let keys: Vec<(RegistrarId, PoolHandle)> = self
                .registrars
                .iter()
                .flat_map(|(r, s)| s.pools.keys().map(move |h| (*r, h.clone())))
                .collect();
            for (reg, pool) in keys {
                self.sweep(report, reg, &pool, at);
                let mut drafts = Vec::new();
                if let Some(e) = self.entry(reg, &pool, false) {
                    for (i, p) in e.profiles.iter_mut().enumerate() {
                        let frame = p.fit_frame;
                        for d in fit_drafts(p) {
                            drafts.push((i, frame, d));
                        }
                    }
                }
                for (i, frame, d) in drafts {
                    self.emit(report, reg, &pool, Scope::Profile(i), frame, time, d);
                }
            }
        }
        self.apply_renames(report);
        if self.auto {
            let best: HashMap<RegistrarId, usize> = self
                .registrars
                .keys()
                .map(|id| (*id, self.best_profile(*id)))
                .collect();
            let held: Vec<Vec<Held>> = self.held.iter_mut().map(std::mem::take).collect();
            for (i, buf) in held.into_iter().enumerate() {
                for h in buf {
                    if best.get(&h.registrar).copied().unwrap_or(0) == i {
                        let time = h.time;
                        report.push(h.into_finding(), time);
                    }
                }
            }
            let end = self.last_time.unwrap_or_default();
            for (t, n) in std::mem::take(&mut self.tallies) {
                if best.get(&t.registrar).copied().unwrap_or(0) == t.profile {
                    report.tally(t.rule, t.severity, &t.subject, t.window.unwrap_or(end), n);
                }
            }
        }
    }
}

/// A finding of this replay named after a registrar's earlier name takes its new one (`was`
/// to `now`, in order); whether it changed.
fn rename(f: &mut Finding, renames: &[(String, String)]) -> bool {
    if !f.rule.starts_with("rserpool.") {
        return false;
    }
    let mut changed = false;
    for (was, now) in renames {
        if f.group != *was {
            continue;
        }
        f.group.clone_from(now);
        if let Some(rest) = f.message.strip_prefix(&format!("registrar {was}: ")) {
            f.message = format!("registrar {now}: {rest}");
        }
        changed = true;
    }
    changed
}

/// The info finding of a removal the capture implies.
pub(super) fn removal_draft(r: &Removal) -> Draft {
    let rule = match r.reason {
        Reason::Expired { .. } => Rule::Expired,
        Reason::KeepAliveFailed { .. } => Rule::KeepAliveFailed,
        _ => Rule::UnreachableRemoved,
    };
    Draft::new(
        rule,
        serde_json::Value::Null,
        pe_hex(r.pe_id).into(),
        format!("{} {}", pe_hex(r.pe_id), r.reason.describe(r.frame)),
    )
}
