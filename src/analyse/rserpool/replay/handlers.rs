//! What each event does to the registrars: the handlers behind `Engine::handle`.

use super::{removal_draft, Engine, CAUSE_POLICY_INCONSISTENT};
use crate::analyse::rserpool::directory::RegistrarId;
use crate::analyse::rserpool::events::{Event, Meta, PeInfo};
use crate::analyse::rserpool::handle::{pe_hex, PoolHandle};
use crate::analyse::rserpool::membership::{Added, Origin, Reason, Removal};
use crate::analyse::rserpool::pending::Request;
use crate::analyse::rserpool::registrar_events::{RegistrarEvent, MAX_EVENT_POOLS};
use crate::analyse::rserpool::rules::{Draft, Rule};
use crate::analyse::Report;
use crate::proto::rserpool::UpdateAction;

impl Engine {
    /// One event, in frame order.
    pub fn handle(&mut self, meta: &Meta, event: Event, report: &mut Report) {
        self.counters.events += 1;
        self.last_frame = meta.frame;
        self.last_time = Some(meta.time);
        self.event(meta, event, report);
        self.apply_renames(report);
    }

    fn event(&mut self, meta: &Meta, event: Event, report: &mut Report) {
        match event {
            Event::Registration { pool, pe } => {
                self.pending.push(meta, pool, Request::Registration { pe })
            }
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
                    // The registrar may have dropped the PE already (its Handle Update to its
                    // peers can come first): the accepted deregistration is the event.
                    self.remove_member(report, reg, &pool, pe_id, Reason::Deregistered, meta);
                    let e = RegistrarEvent::deregistration(meta.frame, meta.time, &pool, pe_id);
                    self.registrar_event(report, reg, e);
                }
            }
            Event::HandleResolution { pool, items } => {
                self.pending.push(meta, pool, Request::Resolution { items })
            }
            Event::HandleResolutionResponse { pool, pes, causes } => {
                let waiting = self
                    .pending
                    .take(meta, &pool, |r| matches!(r, Request::Resolution { .. }));
                let reg = self.asap_registrar(meta.src);
                match waiting.map(|w| w.request) {
                    Some(Request::Resolution { items }) => {
                        self.resolution(report, meta, reg, &pool, items, &pes, &causes)
                    }
                    _ => {
                        // Counted with the pool all the same, not checked (the items asked
                        // for are not known).
                        self.counters.responses_without_request += 1;
                        let observed: Vec<u32> = pes.iter().map(|p| p.pe_id).collect();
                        self.registrars.entry(reg).or_default().unchecked_answer(
                            &pool,
                            &observed,
                            &mut self.tally_room,
                        );
                        self.record_answer(report, meta, reg, &pool, &observed, None);
                    }
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
            Event::AsapError { .. } => self.pending.error(meta),
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
                // The pools holding PEs whose home was the target, at any registrar, and how
                // many PEs (each counted once).
                let mut pools = std::collections::BTreeSet::new();
                let mut taken = std::collections::BTreeSet::new();
                for state in self.registrars.values() {
                    for (h, e) in &state.pools {
                        for m in e.membership.members() {
                            if m.home_server_id == target {
                                pools.insert(h.clone());
                                taken.insert((h.clone(), m.pe_id));
                            }
                        }
                    }
                }
                for (id, state) in self.registrars.iter_mut() {
                    let is_self = Some(*id) == new_home;
                    for e in state.pools.values_mut() {
                        e.membership.takeover(target, sender, is_self);
                    }
                }
                if let Some(reg) = new_home {
                    let pes = taken
                        .iter()
                        .map(|(_, id)| *id)
                        .collect::<std::collections::BTreeSet<_>>();
                    let e = RegistrarEvent::takeover(
                        meta.frame,
                        meta.time,
                        target,
                        pools.into_iter().take(MAX_EVENT_POOLS).collect(),
                        pes.len(),
                    );
                    self.registrar_event(report, reg, e);
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
            meta,
            pool,
            |r| matches!(r, Request::Registration { pe } if pe_id.is_none_or(|id| id == pe.pe_id)),
        );
        let reg = self.asap_registrar(meta.src);
        let Some(Request::Registration { pe }) = waiting.map(|w| w.request) else {
            self.counters.responses_without_request += 1;
            return;
        };
        if !rejected {
            // What the PE had registered here before, if it had (a re-registration).
            let before = self
                .entry(reg, pool, false)
                .and_then(|e| e.membership.member(pe.pe_id))
                .filter(|m| m.registered_here)
                .map(|m| m.policy.settings);
            let added = self.add_member(report, reg, pool, &pe, Origin::Home, meta);
            if let (Some(before), Some(Added::Updated)) = (before, &added) {
                let now = pe.policy.as_ref().and_then(|p| p.settings);
                let changes = match (before, now) {
                    (Some(b), Some(n)) => b.changes_to(&n),
                    _ => Vec::new(),
                };
                let e =
                    RegistrarEvent::reregistration(meta.frame, meta.time, pool, pe.pe_id, &changes);
                self.registrar_event(report, reg, e);
            }
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
}
