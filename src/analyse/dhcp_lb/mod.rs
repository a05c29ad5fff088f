//! DHCP load balancing: the reference (the RFC 3074 hash, the hash bucket assignment shared by a
//! server pair, the per-implementation rules as profiles: pure modules, no I/O, no dependency on
//! the decoders) and the replay that checks a capture against it in `poolshark check`.
//!
//! The replay's layers, in the order data flows: `events` (typed events from decoded messages),
//! `servers` (which server sent an answer), `transactions` (which answer belongs to which client
//! transmission), `state` (failover state and server silences), `classify` (what a profile says
//! of a message), `inference` and `config` (the pair's model; `from_setup` turns the operator's
//! dhcpd.conf or Kea configuration into `config`'s form), `episodes` (what the pair was doing
//! when: normal, peer-silent, takeover, recovery), `share` (each server's share against its
//! episode's reference), `judge` (findings), this file (the analyser), `report` (what `check` shows of it,
//! which `output::report::dhcp_lb` writes as text and JSON).
//!
//! # The analyser
//!
//! One pass, in two stages. First the events are buffered (up to `learn_limit`, the whole
//! capture when smaller) and the model is fixed from the configuration and what the buffer shows
//! (`inference`). Then every event, the buffered ones first, goes through the tail (server
//! identification, transaction matching, failover timeline, server silences) and each client
//! transmission is judged once `lookahead` of capture time has passed after it (`judge`), so that
//! the client's retry, a late answer, or a failover STATE saying since when a server was in its
//! state is known when the verdict is given. Memory is bounded by the buffer, the pending
//! transmissions and the tracker's tables.
//!
//! Live (`capture --check` with metrics), the buffer may take long to fill: until it does, each
//! snapshot of the state ([`Analyser::refresh`]) learns a provisional model from the buffer so
//! far and replays it through a tail of its own, as a run that ended there would, so that the
//! metrics show the pairs, their shares and episodes while they happen. The provisional run
//! writes into a report of its own and is dropped once the model is fixed: what the run reports
//! is the same as without it.

pub mod classify;
pub mod config;
pub mod episodes;
pub mod events;
pub mod from_setup;
pub mod inference;
pub mod judge;
pub mod model;
pub mod profile;
mod report;
pub mod rules;
pub mod servers;
pub mod share;
pub mod state;
pub mod transactions;
pub mod undecided;

/// The load-balancing vocabulary the analyser and its users speak (from [`crate::proto::lb`]).
pub use crate::proto::lb::{bucket, Hba, HbaError, Role};
pub use config::{ConfigFile, Overrides, Settings};
pub use profile::{KeyOutcome, Profile, Stid, StidSource};

use std::collections::BTreeMap;
use std::net::IpAddr;

use self::classify::{classify, Class};
use self::events::{DhcpEvent, FailoverKind};
use self::inference::{reached_request, Inferred};
use self::judge::{Context, PairStats};
use self::model::Pair;
use self::servers::Registry;
use self::state::{FailoverTimeline, Silences};
use self::transactions::Tracker;
use self::undecided::Undecided;
use crate::analyse::finding::Subject;
use crate::analyse::{Analyser, Report, View};
use crate::base::Timestamp;
use crate::pipeline::Decoded;
use crate::proto::AppProtocol;

/// The tail: everything that follows the traffic event by event.
struct Run {
    registry: Registry,
    tracker: Tracker,
    timeline: FailoverTimeline,
    silences: Silences,
    pairs: Vec<(Pair, PairStats)>,
    connects: BTreeMap<IpAddr, Hba>,
    now: Timestamp,
}

pub struct DhcpLbAnalyser {
    settings: Settings,
    /// Events awaiting the model (`None` once it is fixed).
    learning: Option<Vec<DhcpEvent>>,
    run: Option<Run>,
    inferred: Inferred,
    events: u64,
    /// While learning, the model and tail of the buffer so far ([`Analyser::refresh`]).
    provisional: Option<Provisional>,
}

/// A provisional model and the tail it drove, made from the buffer's first `events`.
struct Provisional {
    inferred: Inferred,
    run: Run,
    events: usize,
}

impl DhcpLbAnalyser {
    pub fn new(settings: Settings) -> Self {
        DhcpLbAnalyser {
            settings,
            learning: Some(Vec::new()),
            run: None,
            inferred: Inferred::default(),
            events: 0,
            provisional: None,
        }
    }

    /// A tail for the model `inferred`, its servers' roles set.
    fn start_run(settings: &Settings, inferred: &Inferred) -> Run {
        let mut run = Run {
            registry: Registry::new(&settings.servers, settings.max_servers),
            tracker: Tracker::new(
                settings.answer_window_ns,
                settings.lookahead_ns,
                settings.max_transactions,
                settings.max_pending,
            ),
            timeline: FailoverTimeline::new(settings.link_timeout_ns),
            silences: Silences::new(settings.down_after_ns, settings.down_min_messages),
            pairs: inferred
                .pairs
                .iter()
                .map(|p| {
                    let mut stats = PairStats::new(settings.max_pending);
                    let tied = inferred.reports.iter().find(|r| r.family == Some(p.family));
                    stats.undecided =
                        tied.and_then(|r| Undecided::new(&r.undecided, settings.max_pending));
                    (p.clone(), stats)
                })
                .collect(),
            connects: BTreeMap::new(),
            now: Timestamp::default(),
        };
        // The same events in the same order give the same server indices as the inference's.
        for p in &inferred.pairs {
            run.registry.set_role(p.primary, Role::Primary);
            run.registry.set_role(p.secondary, Role::Secondary);
        }
        run
    }

    /// Fixes the model from the buffer and replays the buffer through the tail.
    fn learn(&mut self, report: &mut Report) {
        let Some(buffer) = self.learning.take() else {
            return;
        };
        self.provisional = None;
        let replayed = inference::replay(&buffer, &self.settings);
        self.inferred = inference::infer(&replayed, &self.settings);
        let mut run = Self::start_run(&self.settings, &self.inferred);
        for e in buffer {
            run.ingest(e, &self.settings, report);
        }
        self.run = Some(run);
    }

    fn event(&mut self, e: DhcpEvent, report: &mut Report) {
        self.events += 1;
        if let Some(buf) = &mut self.learning {
            buf.push(e);
            if buf.len() >= self.settings.learn_limit {
                self.learn(report);
            }
            return;
        }
        if let Some(run) = &mut self.run {
            run.ingest(e, &self.settings, report);
        }
    }
}

impl Run {
    fn ingest(&mut self, e: DhcpEvent, settings: &Settings, report: &mut Report) {
        let t = e.time();
        self.now = self.now.max(t);
        self.timeline.start(t);
        self.silences.start(t);
        match e {
            DhcpEvent::Request(r) => {
                let seq = self.tracker.request(r);
                // The request as the tracker keeps it (not copied for this).
                if let Some(req) = seq
                    .and_then(|s| self.tracker.transmission(s))
                    .map(|t| &t.req)
                {
                    // Who should answer it: its silence counts toward being down.
                    let mut owner = None;
                    for (pair, _) in &self.pairs {
                        if pair.family != req.family {
                            continue;
                        }
                        let reg = &self.registry;
                        let named =
                            |id: &events::ServerIdent| reg.lookup(id).and_then(|s| pair.role_of(s));
                        let who = match classify(req, pair.profile, &named) {
                            Some(Class::Balanced { bucket, .. }) => {
                                let s = pair.server(pair.hba.owner(bucket));
                                owner = Some(s);
                                Some(s)
                            }
                            Some(Class::Directed(r)) => Some(pair.server(r)),
                            _ => None,
                        };
                        if let Some(s) = who.filter(|s| reached_request(reg, req, *s)) {
                            self.silences.expected(s);
                        }
                    }
                    if let (Some(seq), Some(o)) = (seq, owner) {
                        self.tracker.set_owner(seq, o);
                    }
                }
            }
            DhcpEvent::Answer(a) => {
                if let Some(s) = self.registry.identify(&a) {
                    let seq = self.tracker.answer(&a, s);
                    self.silences.answer(s, a.time);
                    self.takeover_evidence(seq, s);
                }
            }
            DhcpEvent::Failover(f) => {
                self.timeline.message(f.src, f.time);
                match f.kind {
                    FailoverKind::State { state, since } => {
                        self.timeline.state(f.src, state, since, f.time)
                    }
                    FailoverKind::Connect { hba: Some(h) } => {
                        let previous = self.connects.insert(f.src, h);
                        for (pair, _) in &self.pairs {
                            let primary_addrs = Pair::addresses(&self.registry, pair.primary);
                            if !primary_addrs.contains(&f.src) {
                                continue;
                            }
                            if let Some(finding) = judge::connect_conflict(
                                pair,
                                f.frame,
                                self.registry.name(pair.primary),
                                &h,
                                previous.as_ref(),
                            ) {
                                report.push(finding, f.time);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        self.tracker.tick(t);
        self.judge_ready(settings, report, false);
    }

    /// An answer of server `s` to transmission `seq`: when `s` does not own its bucket, the
    /// pair's episodes learn that its owner's buckets were served by the other (a takeover
    /// that may go on past the transmissions being judged).
    fn takeover_evidence(&mut self, seq: Option<u64>, s: usize) {
        let Some(t) = seq.and_then(|seq| self.tracker.transmission(seq)) else {
            return;
        };
        let Some(owner) = t.owner.filter(|o| *o != s) else {
            return;
        };
        if t.answered_by(s).is_none() {
            return;
        }
        let (family, time) = (t.req.family, t.req.time);
        for (pair, stats) in &mut self.pairs {
            if pair.family != family || pair.role_of(s).is_none() {
                continue;
            }
            if let Some(role) = pair.role_of(owner) {
                stats.episodes.answered_by_other(role, time);
            }
            for (p, st) in stats.undecided.iter_mut().flat_map(|u| u.others.iter_mut()) {
                if let Some(role) = p.role_of(owner) {
                    st.episodes.answered_by_other(role, time);
                }
            }
        }
    }

    /// What the judges read, beside the parts they update (the pairs' statistics, the tracker's
    /// transactions): borrowed apart.
    fn judging<'r>(
        &'r mut self,
        settings: &'r Settings,
    ) -> (Context<'r>, &'r mut Vec<(Pair, PairStats)>, &'r mut Tracker) {
        let ctx = Context {
            settings,
            registry: &self.registry,
            timeline: &self.timeline,
            silences: &self.silences,
            now: self.now,
        };
        (ctx, &mut self.pairs, &mut self.tracker)
    }

    fn judge_ready(&mut self, settings: &Settings, report: &mut Report, all: bool) {
        let (ctx, pairs, tracker) = self.judging(settings);
        tracker.judge_ready(all, |t| {
            for (pair, stats) in pairs.iter_mut() {
                undecided::judge(&ctx, pair, stats, t, report);
            }
        });
    }

    fn finish(&mut self, settings: &Settings, report: &mut Report) {
        self.judge_ready(settings, report, true);
        let (ctx, pairs, _) = self.judging(settings);
        for (pair, stats) in pairs.iter_mut() {
            undecided::finish(&ctx, pair, stats, report);
            let subject = Subject::Server(pair.name.clone());
            for r in [Role::Primary, Role::Secondary] {
                let buckets = match r {
                    Role::Primary => pair.hba.primary_buckets(),
                    Role::Secondary => 256 - pair.hba.primary_buckets(),
                };
                // The share `check` expects of it over the run (each answer against its
                // episode's reference), not its buckets' share of the hash space.
                report.timeline.describe(
                    &subject,
                    ctx.registry.name(pair.server(r)),
                    format!("{r}, {buckets} buckets of {}", pair.hba),
                    stats.shares.expected_share(r),
                );
            }
        }
    }
}

impl Analyser for DhcpLbAnalyser {
    fn name(&self) -> &'static str {
        "dhcp-lb"
    }

    /// The failover CONNECT tells the pair's split.
    fn protocols(&self) -> &'static [AppProtocol] {
        &[
            AppProtocol::Dhcpv4,
            AppProtocol::Dhcpv6,
            AppProtocol::Failover,
        ]
    }

    fn message(&mut self, d: &Decoded<'_>, report: &mut Report) {
        if let Some(e) = events::derive(d) {
            self.event(e, report);
        }
    }

    /// While the buffer fills (live), a provisional model learnt from it so far and its tail,
    /// made again when events came since the last: what a run that ended here would show (its
    /// transmissions judged without waiting for `lookahead`, those still unanswered as such).
    /// Costs a replay of the buffer (at most `learn_limit` events) per call with new events; the
    /// run's own report is not touched.
    fn refresh(&mut self) {
        let Some(buffer) = &self.learning else {
            return;
        };
        if buffer.is_empty() || self.provisional.as_ref().map(|p| p.events) == Some(buffer.len()) {
            return;
        }
        let replayed = inference::replay(buffer, &self.settings);
        let inferred = inference::infer(&replayed, &self.settings);
        let mut run = Self::start_run(&self.settings, &inferred);
        // Findings of a model that may still change are not reported: they go nowhere.
        let mut scratch = Report::for_findings(0);
        for e in buffer {
            run.ingest(e.clone(), &self.settings, &mut scratch);
        }
        run.finish(&self.settings, &mut scratch);
        self.provisional = Some(Provisional {
            inferred,
            run,
            events: buffer.len(),
        });
    }

    fn finish(&mut self, _last: Option<Timestamp>, report: &mut Report) {
        self.learn(report);
        let settings = self.settings.clone();
        if let Some(run) = &mut self.run {
            run.finish(&settings, report);
        }
    }

    fn view(&self) -> View<'_> {
        View::DhcpLb(self)
    }
}

#[cfg(test)]
mod tests {
    use super::events::{Answer, ClientKey, Request, ServerIdent};
    use super::*;
    use crate::analyse::finding::Subject;
    use crate::proto::lb::Family;

    fn at(tenths: i64) -> Timestamp {
        Timestamp::new(1_000 + tenths / 10, (tenths % 10) as u32 * 100_000_000)
    }

    /// A v6 SOLICIT from client `c` and the answer of server `s` (1 or 2) a tenth later.
    fn exchange(a: &mut DhcpLbAnalyser, r: &mut Report, frame: u64, c: u8, s: u8) {
        let duid = vec![0, 3, 0, 1, 2, 0, 0, 0, 0, c];
        let t = at(frame as i64);
        a.event(
            DhcpEvent::Request(Request {
                frame,
                time: t,
                family: Family::V6,
                msg_type: Some(1),
                xid: u32::from(c),
                match_key: duid.clone().into(),
                key: ClientKey::V6 {
                    duid: Some(duid.clone().into()),
                    leasequery: None,
                },
                elapsed: Some(0),
                server_id: None,
                relay_depth: 0,
                ciaddr_set: false,
                src: "fe80::c".parse().unwrap(),
                dst: "ff02::1:2".parse().unwrap(),
            }),
            r,
        );
        a.event(
            DhcpEvent::Answer(Answer {
                frame: frame + 1,
                time: at(frame as i64 + 1),
                family: Family::V6,
                msg_type: Some(2),
                xid: u32::from(c),
                match_key: duid.into(),
                server_id: Some(ServerIdent::Duid(vec![0, 3, 0, 1, s].into())),
                server_addr: None,
                relay_depth: 0,
            }),
            r,
        );
    }

    #[test]
    fn answers_reach_the_timeline_with_the_owner_expected() {
        let mut a = DhcpLbAnalyser::new(Settings::default());
        let mut r = Report::new(100, 1_000_000_000_000);
        let hba = Hba::kea();
        let mut frame = 1;
        for c in 0..40u8 {
            let duid = [0, 3, 0, 1, 2, 0, 0, 0, 0, c];
            let s = if hba.owner(bucket(&duid)) == Role::Primary {
                1
            } else {
                2
            };
            exchange(&mut a, &mut r, frame, c, s);
            frame += 2;
        }
        a.finish(None, &mut r);
        assert_eq!(r.findings.total(), 0, "{:?}", r.findings.list());
        let pair = &a.pairs()[0].0;
        assert_eq!(pair.hba, hba);
        let series = &r.timeline.series()[&Subject::Server(pair.name.clone())];
        let totals = series.totals();
        assert_eq!(totals.answers, 40);
        for (name, m) in &totals.members {
            assert_eq!(m.first as f64, m.expected_first, "{name}");
        }
        assert_eq!(series.expected_share.values().sum::<f64>(), 1.0);
    }
}
