//! The replay engine: events in; registrars, pools and reference selection state updated;
//! answers checked; findings and the timeline out.

use std::collections::{BTreeMap, HashMap};

use super::directory::{Change, Directory, RegistrarId};
use super::event::{Endpoint, Event, Meta, PeInfo};
use super::handle::{pe_hex, pe_list, pe_text, PoolHandle};
use super::membership::{Added, Origin, Reason, Removal};
use super::pending::{Pending, Request};
use super::rules::{Draft, Rule};
use super::selection::describe_settings;
use super::state::{PoolEntry, RegistrarState, Totals};
use crate::analyse::finding::{Finding, Subject};
use crate::analyse::policy::Profile;
use crate::analyse::Report;
use crate::proto::rserpool::UpdateAction;
use crate::source::Timestamp;

/// Registrars tracked at once.
const MAX_REGISTRARS: usize = 1024;
/// Associations with requests waiting at once.
const MAX_ASSOCIATIONS: usize = 65_536;
/// Findings held per profile under `auto` until the end decides which profile's are reported.
const MAX_BUFFERED: usize = 100_000;
/// Pools and members held across all registrars (each registrar and pool has its own bound too;
/// these keep their product in check). New ones beyond are not modelled, and counted.
const MAX_TOTAL_POOLS: usize = 65_536;
const MAX_TOTAL_MEMBERS: usize = 262_144;
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
    /// Findings not held under `auto` (past the bound); they are counted nowhere else.
    pub findings_not_held: u64,
    /// Pools and members not modelled because the totals were reached.
    pub pools_refused: u64,
    pub members_refused: u64,
}

struct Held {
    registrar: RegistrarId,
    time: Timestamp,
    finding: Finding,
}

/// Where a finding goes: reported at once, or held per profile until the end (`auto`).
#[derive(Clone, Copy)]
enum Scope {
    Common,
    Profile(usize),
}

pub struct Replay {
    profiles: Vec<&'static Profile>,
    auto: bool,
    directory: Directory,
    registrars: BTreeMap<RegistrarId, RegistrarState>,
    pending: Pending,
    held: Vec<Vec<Held>>,
    pub counters: Counters,
    last_frame: u64,
    last_time: Option<Timestamp>,
    pools_total: usize,
    members_total: usize,
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

impl Replay {
    /// A replay under `profiles` (the first one leads the timeline); `auto` holds the per-profile
    /// findings until the end and reports, per registrar, those of the profile it follows.
    pub fn new(profiles: Vec<&'static Profile>, auto: bool) -> Self {
        let n = profiles.len();
        Replay {
            profiles,
            auto,
            directory: Directory::new(MAX_REGISTRARS),
            registrars: BTreeMap::new(),
            pending: Pending::new(MAX_ASSOCIATIONS),
            held: (0..n).map(|_| Vec::new()).collect(),
            counters: Counters::default(),
            last_frame: 0,
            last_time: None,
            pools_total: 0,
            members_total: 0,
        }
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
                Change::Merged { from, into } => {
                    if let Some(theirs) = self.registrars.remove(&from) {
                        let rebuilt = self.registrars.entry(into).or_default().absorb(theirs);
                        self.counters.pools_rebuilt += rebuilt;
                    }
                    for h in self.held.iter_mut().flatten() {
                        if h.registrar == from {
                            h.registrar = into;
                        }
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
        let finding = Finding {
            frame,
            rule: d.rule.id(),
            severity: d.rule.severity(),
            subject: subject(pool),
            expected: d.expected,
            observed: d.observed,
            message: format!("registrar {}: {}", self.directory.name(reg), d.message),
        };
        match scope {
            Scope::Profile(i) if self.auto => match self.held.get_mut(i) {
                Some(buf) if buf.len() < MAX_BUFFERED => buf.push(Held {
                    registrar: reg,
                    time,
                    finding,
                }),
                _ => self.counters.findings_not_held += 1,
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

    /// The membership changed: the series' name and its `pes` gauge follow.
    fn gauge(report: &mut Report, t: Timestamp, e: &mut PoolEntry) {
        e.refresh_kind();
        report
            .timeline
            .gauge(t, &e.subject, &e.kind, "pes", e.membership.len() as f64);
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
            report.timeline.remove_member(&e.subject, &pe_hex(r.pe_id));
        }
        e.describe_due = true;
        Self::gauge(report, at.time, e);
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
                Self::gauge(report, meta.time, e);
                if let Some(s) = info.policy.settings {
                    report.timeline.describe(
                        &e.subject,
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
        report.timeline.remove_member(&e.subject, &pe_hex(pe_id));
        Self::gauge(report, meta.time, e);
        true
    }

    // ----- events -----

    /// One event, in frame order.
    pub fn handle(&mut self, meta: &Meta, event: Event, report: &mut Report) {
        self.counters.events += 1;
        self.last_frame = meta.frame;
        self.last_time = Some(meta.time);
        match event {
            Event::Registration { pool, pe } => self.pending.push(
                meta.association,
                pool,
                Request::Registration { pe },
                meta.frame,
                meta.time,
            ),
            Event::RegistrationResponse {
                pool,
                pe_id,
                rejected,
                causes,
            } => self.registration_response(report, meta, &pool, pe_id, rejected, &causes),
            Event::Deregistration { .. } => {}
            Event::DeregistrationResponse {
                pool,
                pe_id,
                refused,
            } => {
                let reg = self.asap_registrar(meta.src);
                if !refused {
                    self.remove_member(report, reg, &pool, pe_id, Reason::Deregistered, meta);
                }
            }
            Event::HandleResolution { pool, items } => self.pending.push(
                meta.association,
                pool,
                Request::Resolution { items },
                meta.frame,
                meta.time,
            ),
            Event::HandleResolutionResponse { pool, pes, causes } => {
                let waiting = self.pending.take(&meta.association, &pool, meta.time, |r| {
                    matches!(r, Request::Resolution { .. })
                });
                let reg = self.asap_registrar(meta.src);
                match waiting.map(|w| w.request) {
                    Some(Request::Resolution { items }) => {
                        self.resolution(report, meta, reg, &pool, items, &pes, &causes)
                    }
                    _ => self.counters.responses_without_request += 1,
                }
            }
            Event::KeepAlive {
                server_id,
                pool,
                pe_id,
                ..
            } => {
                self.link_asap(meta.src, server_id);
                let reg = self.asap_registrar(meta.src);
                if let (Some(pool), Some(pe_id)) = (pool, pe_id) {
                    self.sweep(report, reg, &pool, meta.into());
                    if let Some(e) = self.entry(reg, &pool, false) {
                        e.membership.keep_alive(pe_id, meta.time);
                    }
                }
            }
            Event::KeepAliveAck { pool, pe_id } => {
                let reg = self.asap_registrar(meta.dst);
                self.sweep(report, reg, &pool, meta.into());
                if let Some(e) = self.entry(reg, &pool, false) {
                    e.membership.keep_alive_ack(pe_id);
                }
            }
            Event::EndpointUnreachable { pool, pe_id } => {
                let reg = self.asap_registrar(meta.dst);
                self.sweep(report, reg, &pool, meta.into());
                let reports = self
                    .entry(reg, &pool, false)
                    .and_then(|e| e.membership.unreachable(pe_id));
                if let Some(reports) = reports {
                    let reason = Reason::Unreachable { reports };
                    if self.remove_member(report, reg, &pool, pe_id, reason.clone(), meta) {
                        let d = removal_draft(&Removal {
                            pe_id,
                            reason,
                            frame: meta.frame,
                        });
                        self.emit_common(report, reg, &pool, meta.into(), d);
                    }
                }
            }
            Event::ServerAnnounce {
                server_id,
                endpoints,
            } => {
                if endpoints.is_empty() {
                    self.link_asap(meta.src, server_id);
                }
                for ep in endpoints {
                    self.link_asap(ep, server_id);
                }
            }
            Event::AsapError { .. } => self.pending.error(&meta.association, meta.time),
            Event::HandleUpdate {
                sender,
                receiver,
                action,
                pool,
                pe,
            } => {
                self.enrp_names(meta, sender, receiver);
                self.handle_update(report, meta, sender, receiver, action, &pool, &pe);
            }
            Event::HandleTableResponse {
                sender,
                receiver,
                rejected,
                pools,
            } => {
                self.enrp_names(meta, sender, receiver);
                if rejected {
                    return;
                }
                let Some(reg) = self.receiver(meta, receiver) else {
                    return;
                };
                for (pool, pes) in pools {
                    for pe in pes {
                        self.peer_add(report, meta, reg, &pool, &pe);
                    }
                }
            }
            Event::TakeoverServer {
                sender,
                receiver,
                target,
            } => {
                self.enrp_names(meta, sender, receiver);
                let new_home = self.directory.find_server(sender);
                for (id, state) in self.registrars.iter_mut() {
                    let is_self = Some(*id) == new_home;
                    for e in state.pools.values_mut() {
                        e.membership.takeover(target, sender, is_self);
                    }
                }
            }
            Event::Enrp {
                sender,
                receiver,
                servers,
            } => {
                self.enrp_names(meta, sender, receiver);
                for (server_id, eps) in servers {
                    for ep in eps {
                        self.link_enrp(ep, server_id);
                    }
                }
            }
        }
    }

    /// An ENRP message names its sender at its source and, over SCTP, its receiver at its
    /// destination.
    fn enrp_names(&mut self, meta: &Meta, sender: u32, receiver: u32) {
        self.link_enrp(meta.src, sender);
        if meta.sctp {
            self.link_enrp(meta.dst, receiver);
        }
    }

    /// The registrar an ENRP message is for: its receiver id, else the SCTP destination.
    fn receiver(&mut self, meta: &Meta, receiver: u32) -> Option<RegistrarId> {
        if receiver != 0 {
            return self.server_registrar(receiver);
        }
        meta.sctp.then(|| self.enrp_registrar(meta.dst))
    }

    fn peer_add(
        &mut self,
        report: &mut Report,
        meta: &Meta,
        reg: RegistrarId,
        pool: &PoolHandle,
        pe: &PeInfo,
    ) {
        if let Some(Added::Inconsistent { .. }) =
            self.add_member(report, reg, pool, pe, Origin::Peer, meta)
        {
            self.counters.inconsistent_updates += 1;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn handle_update(
        &mut self,
        report: &mut Report,
        meta: &Meta,
        sender: u32,
        receiver: u32,
        action: UpdateAction,
        pool: &PoolHandle,
        pe: &PeInfo,
    ) {
        let target = self.receiver(meta, receiver);
        match action {
            UpdateAction::AddPe => {
                if let Some(reg) = target {
                    self.peer_add(report, meta, reg, pool, pe);
                }
            }
            UpdateAction::DeletePe => {
                let reason = Reason::DeletedByUpdate { by: sender };
                if let Some(reg) = target {
                    self.remove_member(report, reg, pool, pe.pe_id, reason.clone(), meta);
                }
                // The sender dropped the PE from its own pool too, whatever the reason it had
                // (a lost association, a failed keep-alive: see `membership.rs`).
                if let Some(own) = self.directory.find_server(sender) {
                    if Some(own) != target {
                        self.remove_member(report, own, pool, pe.pe_id, reason, meta);
                    }
                }
            }
            UpdateAction::Other(_) => {}
        }
    }

    fn registration_response(
        &mut self,
        report: &mut Report,
        meta: &Meta,
        pool: &PoolHandle,
        pe_id: Option<u32>,
        rejected: bool,
        causes: &[u16],
    ) {
        let waiting = self.pending.take(
            &meta.association,
            pool,
            meta.time,
            |r| matches!(r, Request::Registration { pe } if pe_id.is_none_or(|id| id == pe.pe_id)),
        );
        let reg = self.asap_registrar(meta.src);
        let Some(Request::Registration { pe }) = waiting.map(|w| w.request) else {
            self.counters.responses_without_request += 1;
            return;
        };
        if !rejected {
            let added = self.add_member(report, reg, pool, &pe, Origin::Home, meta);
            if let Some(Added::Inconsistent { pool: theirs }) = added {
                let offered = pe.policy.as_ref().map(|p| p.name()).unwrap_or_default();
                let d = Draft::new(
                    Rule::PolicyAccepted,
                    theirs.name().into(),
                    offered.clone().into(),
                    format!(
                        "accepted the registration of {} with policy {offered} into a pool using {}; \
                         a registrar must reject it (cause 0x5, pooling policy inconsistent)",
                        pe_hex(pe.pe_id),
                        theirs.name()
                    ),
                );
                self.emit_common(report, reg, pool, meta.into(), d);
            }
            return;
        }
        if !causes.contains(&CAUSE_POLICY_INCONSISTENT) {
            return;
        }
        self.sweep(report, reg, pool, meta.into());
        let current = self
            .entry(reg, pool, false)
            .and_then(|e| e.membership.policy().cloned());
        let offered = pe.policy.clone();
        let rightly = match (&current, &offered) {
            (Some(c), Some(o)) => !c.same_policy(o),
            _ => false,
        };
        if rightly {
            self.counters.rejected_inconsistent += 1;
            return;
        }
        let offered_name = offered.as_ref().map(|p| p.name()).unwrap_or_default();
        let why = match &current {
            None => "the pool has no members".to_string(),
            Some(c) => format!("the pool uses the same policy {}", c.name()),
        };
        self.entry(reg, pool, true);
        let d = Draft::new(
            Rule::PolicyRejected,
            current
                .as_ref()
                .map_or(serde_json::Value::Null, |c| c.name().into()),
            offered_name.clone().into(),
            format!(
                "rejected the registration of {} with policy {offered_name} as inconsistent \
                 (cause 0x5), but {why}",
                pe_hex(pe.pe_id)
            ),
        );
        self.emit_common(report, reg, pool, meta.into(), d);
    }

    #[allow(clippy::too_many_arguments)]
    fn resolution(
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
        let membership = &e.membership;
        for (i, p) in e.profiles.iter_mut().enumerate() {
            let Some(checked) = p.check(membership, items, &observed, meta.frame) else {
                continue;
            };
            if i == 0 {
                lead = Some(checked.probabilities.clone());
            }
            drafts.extend(checked.drafts.into_iter().map(|d| (Scope::Profile(i), d)));
            if p.fit.answers() >= FIT_BLOCK {
                for d in fit_drafts(p) {
                    drafts.push((Scope::Profile(i), d));
                }
                p.fit = Default::default();
            }
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
        report
            .timeline
            .gauge(meta.time, s, kind, "pes", e.membership.len() as f64);
        if !e.describe_due {
            return;
        }
        e.describe_due = false;
        let Some(p) = e.profiles.first().and_then(|p| p.pool()) else {
            return;
        };
        let shares = p.expected_share(p.items_for(items));
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
                        report.push(h.finding, h.time);
                    }
                }
            }
        }
    }
}

/// The goodness-of-fit findings of a randomised pool (counted as deviations of the profile).
fn fit_drafts(p: &mut super::selection::ProfilePool) -> Vec<Draft> {
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

/// The info finding of a removal the capture implies.
fn removal_draft(r: &Removal) -> Draft {
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
