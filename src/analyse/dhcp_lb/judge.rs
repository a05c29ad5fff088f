//! The verdict on one client transmission, once its lookahead has passed: which server of the
//! pair had to answer, which did, and the findings that follow.
//!
//! Rules (each finding names the server it is about):
//!
//! | rule | severity | when |
//! |---|---|---|
//! | `dhcp.lb.wrong-server` | warning | in a normal episode the non-owner alone answered a balanced message before the delay; or a server answered a message naming another server |
//! | `dhcp.lb.double-answer` | warning | the same, but the owner answered too |
//! | `dhcp.lb.no-answer` | warning | in a normal episode the owner of a balanced message did not answer although the client retried or the other server answered; in the others nobody answered it although the client retried (clients left without service are reported, also while a server is down), about the server the episode's reference names: the owner, or the taker in a takeover |
//! | `dhcp.lb.delayed-service` | info | the non-owner answered after secs / elapsed time passed the threshold |
//! | `dhcp.lb.directed-ignored` | warning | a message naming a server of the pair (and exempt from balancing under the profile) got no answer from it although it was answering other messages |
//! | `dhcp.lb.takeover` | info | a takeover episode (a server answered nothing for a while and the other served its buckets), reported once it ended, with its start and end |
//!
//! Each balanced message is judged against the reference of its episode ([`super::episodes`]),
//! and the findings say which ("while balancing", "while server2 was down and server1 had not
//! taken over", "during the resync of server2") with the message's capture time.
//!
//! `dhcp.lb.stid-truncated` and `dhcp.lb.hba-conflict` are judged over many messages (see
//! `aggregate`).

use serde_json::json;

use super::classify::{classify, delayed, Class};
use super::config::Settings;
use super::episodes::{Evidence, FirstTakeover, PairEpisodes, Reference, Seen};
use super::inference::{failover_state, reached};
use super::model::Pair;
use super::profile::ServerIdRule;
use super::rules::Rule;
use super::servers::Registry;
use super::share::{idx, weights, Shares};
use super::state::{serves, FailoverTimeline, PairState, Silences};
use super::transactions::{answer_types, Transmission};
use crate::analyse::episodes::{clock, EpisodeKind, Mark};
use crate::analyse::finding::{Finding, Severity, Subject};
use crate::analyse::Report;
use crate::base::Timestamp;
use crate::field::hex;
use crate::proto::failover::ServerState;
use crate::proto::lb::{Family, Hba, Role};

/// Per-bucket outcomes while balancing, counted per distinct client (a client's DISCOVER and
/// REQUEST are one piece of evidence, not two): both answered, none (with evidence), owner alone,
/// non-owner alone; and the first frame of each.
#[derive(Clone, Copy, Debug, Default)]
pub struct BucketStats {
    pub both: Distinct,
    pub none: Distinct,
    pub owner: Distinct,
    pub other: Distinct,
    pub first_frame: Option<u64>,
}

/// How many distinct clients, up to two (all the bucket rules need), in constant space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Distinct {
    seen: [Option<u64>; 2],
}

impl Distinct {
    pub fn add(&mut self, key: &[u8]) {
        // FNV-1a: a fingerprint of the client key, enough to tell two clients apart.
        let h = key.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
        });
        match self.seen {
            [None, _] => self.seen[0] = Some(h),
            [Some(a), None] if a != h => self.seen[1] = Some(h),
            _ => {}
        }
    }

    /// Distinct clients seen, 0, 1 or 2 (meaning two or more).
    pub fn count(&self) -> u32 {
        self.seen.iter().filter(|x| x.is_some()).count() as u32
    }
}

/// Per server of the pair (index 0 primary, 1 secondary).
#[derive(Debug, Default)]
pub struct PairStats {
    /// The answered balanced messages of the whole run: who answered, against the reference of
    /// each one's episode.
    pub shares: Shares,
    pub deviations: [u64; 2],
    pub buckets: Vec<BucketStats>,
    /// v6 answers to DUIDs longer than 16 bytes where the whole DUID and its first 16 bytes hash
    /// to different owners: answers that fit the whole DUID, answers that fit the first 16 bytes,
    /// and the first frame of the latter.
    pub fit_whole: [u64; 2],
    pub fit_first16: [u64; 2],
    pub first16_frame: [Option<u64>; 2],
    /// The pair's episodes, each with its shares.
    pub episodes: PairEpisodes,
    /// When the evidence did not decide the profile: the other tied profiles, judged beside.
    pub undecided: Option<Box<super::undecided::Undecided>>,
    /// The pair's kind in the timeline, as last written, and the profile and map it names
    /// (made again only when they change, not at every answer).
    pub timeline_kind: Option<(&'static str, Hba, String)>,
}

impl PairStats {
    /// `max_pending`: the bound on transmissions awaiting a verdict, which also bounds the
    /// takeover answers the episodes look ahead to.
    pub fn new(max_pending: usize) -> Self {
        PairStats {
            buckets: vec![BucketStats::default(); 256],
            episodes: PairEpisodes::new(max_pending),
            ..PairStats::default()
        }
    }
}

/// What the judge reads.
pub struct Context<'a> {
    pub settings: &'a Settings,
    pub registry: &'a Registry,
    pub timeline: &'a FailoverTimeline,
    pub silences: &'a Silences,
    pub now: Timestamp,
}

fn finding(
    rule: Rule,
    frame: u64,
    server: &str,
    expected: serde_json::Value,
    observed: serde_json::Value,
    message: String,
) -> Finding {
    Finding {
        frame,
        time: None,
        group: String::new(),
        rule: rule.id(),
        severity: rule.severity(),
        subject: Subject::Server(server.to_string()),
        expected,
        observed,
        message,
    }
}

/// Records a finding, counted in its pair's series (where the pair's answers are, so that `stats`
/// and the TUI show the balance and its deviations together): one about a server under that
/// server's member entry, one about the pair under the pair alone. A server has no series of its
/// own, which would show its findings beside no answers.
fn push(report: &mut Report, pair: &Pair, f: Finding, time: Timestamp) {
    let member = match &f.subject {
        Subject::Server(s) if *s != pair.name => Some(s.clone()),
        _ => None,
    };
    let series = Subject::Server(pair.name.clone());
    report.push_in(f, time, &series, member.as_deref());
}

/// The timeline's record of one answered transmission: who answered (owner first), against the
/// reference's weights (the same that `check`'s shares add up: [`Shares`]).
fn record_answer(
    report: &mut Report,
    (time, kind): (Timestamp, &mut Option<(&'static str, Hba, String)>),
    pair: &Pair,
    reg: &Registry,
    answered: [(Role, bool); 2],
    weights: [f64; 2],
) {
    // The servers by their registry index, named the first time the pair's series meets them.
    let mut chosen = [0u64; 2];
    let mut n = 0;
    for (r, yes) in answered {
        if yes {
            chosen[n] = pair.server(r) as u64;
            n += 1;
        }
    }
    let expected = [Role::Primary, Role::Secondary].map(|r| {
        let w = weights[idx(r)];
        (pair.server(r) as u64, w, w)
    });
    let kind = match kind {
        Some((profile, hba, text)) if *profile == pair.profile.name && *hba == pair.hba => text,
        _ => {
            let text = format!(
                "DHCP pair (profile {}, buckets {})",
                pair.profile.name, pair.hba
            );
            &kind.insert((pair.profile.name, pair.hba, text)).2
        }
    };
    report.timeline.answer_by_key(
        time,
        &Subject::Server(pair.name.clone()),
        kind,
        None,
        &chosen[..n],
        Some(&expected),
        |server| {
            reg.name(usize::try_from(server).unwrap_or(usize::MAX))
                .to_string()
        },
    );
}

fn type_name(t: &Transmission) -> &'static str {
    use crate::proto::lb::Family;
    match (t.req.family, t.req.msg_type) {
        (Family::V4, Some(m)) => crate::proto::dhcpv4::names::message_type_name(m),
        (Family::V4, None) => "BOOTREQUEST",
        (Family::V6, Some(m)) => crate::proto::dhcpv6::names::message_type_name(m),
        (Family::V6, None) => "?",
    }
}

/// How the findings place a transmission: its type, frame, capture time and xid.
fn which(t: &Transmission, kind: &str) -> String {
    format!(
        "the {kind} of frame {} ({}, xid {:#x}",
        t.req.frame,
        clock(t.req.time),
        t.req.xid
    )
}

/// The failover state server `r` announced for `time`, if the capture says (read whatever the
/// profile: a server in RECOVER serves nobody, and is not held to a message naming it).
fn announced(ctx: &Context<'_>, pair: &Pair, r: Role, time: Timestamp) -> Option<ServerState> {
    if ctx.timeline.is_empty() {
        return None;
    }
    Pair::addresses(ctx.registry, pair.server(r))
        .iter()
        .find_map(|a| ctx.timeline.server_state(*a, time))
}

/// Whether a server's failover state, where the capture tells it, lets it serve at `time`.
fn failover_serves(ctx: &Context<'_>, pair: &Pair, r: Role, time: Timestamp) -> bool {
    announced(ctx, pair, r, time).is_none_or(serves)
}

/// Under a profile that follows the failover protocol, whether the pair's failover state at
/// `time` is NORMAL and each server's announced state; and each server's silence: what the
/// episodes are told.
fn episode_evidence(ctx: &Context<'_>, pair: &Pair, time: Timestamp) -> Evidence {
    let reg = ctx.registry;
    let gated = pair.profile.state_gate == super::profile::StateGate::FailoverNormal;
    let fo = if gated {
        failover_state(
            reg,
            ctx.timeline,
            pair.primary,
            pair.secondary,
            time,
            ctx.now,
        )
    } else {
        PairState::Unknown
    };
    let state = |r: Role| gated.then(|| announced(ctx, pair, r, time)).flatten();
    let down = |r: Role| ctx.silences.down_at(pair.server(r), time, ctx.now);
    Evidence {
        down: [down(Role::Primary), down(Role::Secondary)],
        states: [state(Role::Primary), state(Role::Secondary)],
        not_normal: matches!(fo, PairState::NotNormal { .. }),
    }
}

/// What an episode is, for people: "00:..:02 down, 00:..:01 had not taken over".
fn episode_what(r: Reference, name: &dyn Fn(Role) -> String) -> String {
    match (r.kind, r.server) {
        (EpisodeKind::Normal, _) => "both servers serving their buckets".into(),
        (EpisodeKind::PeerSilent, Some(x)) => {
            format!("{} down, {} had not taken over", name(x), name(x.peer()))
        }
        (EpisodeKind::PeerSilent, None) => {
            "the failover pair not NORMAL (out of touch): each server may answer any client".into()
        }
        (EpisodeKind::Takeover, Some(t)) => {
            format!("{} served {}'s buckets too", name(t), name(t.peer()))
        }
        (EpisodeKind::Recovery, Some(r)) => format!("resync of {}", name(r)),
        (_, None) => String::new(),
    }
}

/// Why a message went unanswered, as its episode says (the no-answer finding's circumstance,
/// also what alike findings are folded by).
fn unanswered_why(r: Reference, subject: Role, name: &dyn Fn(Role) -> String) -> String {
    match (r.kind, r.server) {
        (EpisodeKind::PeerSilent, Some(x)) if x == subject => {
            format!(
                "while it was down and {} had not taken over",
                name(x.peer())
            )
        }
        (EpisodeKind::PeerSilent, Some(x)) => format!(
            "while {} was down and {} had not taken over",
            name(x),
            name(x.peer())
        ),
        (EpisodeKind::PeerSilent, None) => {
            "while the failover pair was not NORMAL, and nobody else answered".into()
        }
        (EpisodeKind::Takeover, Some(t)) => format!(
            "while it served {}'s buckets (a takeover), and nobody else answered",
            name(t.peer())
        ),
        (EpisodeKind::Recovery, Some(x)) if x == subject => "during its resync".into(),
        (EpisodeKind::Recovery, Some(x)) => format!("during the resync of {}", name(x)),
        _ => "while balancing".into(),
    }
}

/// Judges one transmission for one pair, pushing findings into `report`.
pub fn judge(
    ctx: &Context<'_>,
    pair: &Pair,
    stats: &mut PairStats,
    t: &Transmission,
    report: &mut Report,
) {
    if t.req.family != pair.family || answer_types(t.req.family, t.req.msg_type).is_empty() {
        return;
    }
    let reg = ctx.registry;
    let named = |id: &super::events::ServerIdent| reg.lookup(id).and_then(|s| pair.role_of(s));
    let Some(class) = classify(&t.req, pair.profile, &named) else {
        return;
    };
    let name = |r: Role| reg.name(pair.server(r)).to_string();
    let answer = |r: Role| t.answered_by(pair.server(r));
    let time = t.req.time;
    let kind = type_name(t);
    let evidence = t.retried.is_some();
    match class {
        Class::Dropped(_) | Class::Unbalanced => {}
        Class::DirectedElsewhere => {
            for r in [Role::Primary, Role::Secondary] {
                if let Some(a) = answer(r) {
                    stats.deviations[idx(r)] += 1;
                    push(
                        report,
                        pair,
                        finding(
                            Rule::WrongServer,
                            a.frame,
                            &name(r),
                            json!({"answer_from": []}),
                            json!({"answer_from": [name(r)], "request_frame": t.req.frame}),
                            format!(
                                "{} answered {}), which names another server",
                                name(r),
                                which(t, kind)
                            ),
                        ),
                        a.time,
                    );
                }
            }
        }
        Class::Directed(to) => {
            let other = to.peer();
            if let Some(a) = answer(other) {
                stats.deviations[idx(other)] += 1;
                push(
                    report,
                    pair,
                    finding(
                        Rule::WrongServer,
                        a.frame,
                        &name(other),
                        json!({"answer_from": [name(to)]}),
                        json!({"answer_from": [name(other)], "request_frame": t.req.frame}),
                        format!(
                            "{} answered {}), which names {}",
                            name(other),
                            which(t, kind),
                            name(to)
                        ),
                    ),
                    a.time,
                );
            }
            if answer(to).is_none()
                && reached(reg, t, pair.server(to))
                && ctx
                    .silences
                    .down_at(pair.server(to), time, ctx.now)
                    .is_none()
                && failover_serves(ctx, pair, to, time)
                && (evidence || t.window_passed)
            {
                stats.deviations[idx(to)] += 1;
                push(
                    report,
                    pair,
                    finding(
                        Rule::DirectedIgnored,
                        t.req.frame,
                        &name(to),
                        json!({"answer_from": [name(to)]}),
                        json!({
                            "answer_from": t.answers.iter().filter(|a| !a.late).map(|a| reg.name(a.server)).collect::<Vec<_>>(),
                            "late_answers": t.answers.iter().filter(|a| a.late).count(),
                            "retried_in_frame": t.retried,
                        }),
                        format!(
                            "{}) names {} by its Server Identifier, and {} did not answer it",
                            which(t, kind),
                            name(to),
                            name(to)
                        ),
                    ),
                    time,
                );
            }
        }
        Class::Balanced { stid, bucket } => {
            let ev = episode_evidence(ctx, pair, time);
            balanced(ctx, pair, stats, t, report, (&stid.bytes, bucket), &ev);
        }
    }
}

/// Judges a balanced transmission against its episode's reference.
fn balanced(
    ctx: &Context<'_>,
    pair: &Pair,
    stats: &mut PairStats,
    t: &Transmission,
    report: &mut Report,
    (stid, bucket): (&[u8], u8),
    ev: &Evidence,
) {
    let reg = ctx.registry;
    let name = |r: Role| reg.name(pair.server(r)).to_string();
    let answer = |r: Role| t.answered_by(pair.server(r));
    let time = t.req.time;
    let kind = type_name(t);
    let evidence = t.retried.is_some();
    let owner = pair.hba.owner(bucket);
    let other = owner.peer();
    let (own_ans, oth_ans) = (answer(owner).cloned(), answer(other).cloned());
    let late = delayed(
        &t.req,
        pair.profile,
        pair.threshold,
        ctx.settings.byte_swap_check,
    );
    let by_role = |r: Role| if r == owner { &own_ans } else { &oth_ans };
    let answered = [
        by_role(Role::Primary).is_some(),
        by_role(Role::Secondary).is_some(),
    ];
    let nobody = own_ans.is_none() && oth_ans.is_none();
    let seen = Seen {
        time,
        owner,
        answered,
        // Asked only of a message nobody answered (most were answered).
        unanswered_counts: nobody
            && (evidence || t.window_passed)
            && reached(reg, t, pair.server(owner)),
    };
    let reference = stats.episodes.classify(&seen, ev);
    if let Some(o) = report.observing() {
        let expected = reference.serving().unwrap_or(owner);
        o.dhcp_transaction(&crate::analyse::observe::DhcpTransaction {
            pair: &pair.name,
            family: pair.family.name(),
            request_frame: t.req.frame,
            time,
            message_type: t.req.msg_type,
            xid: t.req.xid,
            key: stid,
            bucket,
            owner: reg.name(pair.server(owner)),
            other: reg.name(pair.server(other)),
            expected: reg.name(pair.server(expected)),
            owner_answer: own_ans.as_ref().map(|a| a.frame),
            other_answer: oth_ans.as_ref().map(|a| a.frame),
            episode: reference.kind.name(),
        });
    }
    // Who answered, against who the episode's reference expects: one computation for `check`'s
    // shares and the timeline's windows.
    let counted = (own_ans.is_some() || oth_ans.is_some()).then(|| {
        let credited = if own_ans.is_some() { owner } else { other };
        (
            answered,
            credited,
            weights(reference.serving().unwrap_or(owner)),
        )
    });
    if let Some((answered, credited, w)) = counted {
        stats.shares.add(answered, credited, w);
        if report.timeline.recording() {
            let order = [(owner, own_ans.is_some()), (other, oth_ans.is_some())];
            record_answer(
                report,
                (time, &mut stats.timeline_kind),
                pair,
                reg,
                order,
                w,
            );
        }
    }
    let last = t
        .answers
        .iter()
        .filter(|a| !a.late)
        .map(|a| Mark {
            frame: a.frame,
            time: a.time,
        })
        .fold(
            Mark {
                frame: t.req.frame,
                time,
            },
            |m, a| Mark {
                frame: m.frame.max(a.frame),
                time: m.time.max(a.time),
            },
        );
    let server_name = reference.server.map(name);
    let recorded = stats.episodes.record(
        reference,
        server_name.as_deref(),
        || episode_what(reference, &name),
        Mark {
            frame: t.req.frame,
            time,
        },
        last,
        counted,
    );
    if recorded.opened && report.timeline.recording() {
        // The one that closed (its end is known now) and the one that opened.
        let list = &stats.episodes.episodes.list;
        let subject = Subject::Server(pair.name.clone());
        for e in list.iter().skip(list.len().saturating_sub(2)) {
            report.timeline.episode(&subject, e.clone());
        }
    }
    if let Some((i, first)) = recorded.closed_takeover {
        takeover_finding(ctx, pair, stats, i, first, report);
    }
    // The first answer of a takeover to the silent server's buckets: its finding is made when
    // the takeover ends.
    if let (EpisodeKind::Takeover, Some(taker), Some(a)) =
        (reference.kind, reference.server, &oth_ans)
    {
        let silent = taker.peer();
        if owner == silent {
            if let Some(silence) = ev.down[idx(silent)] {
                stats.episodes.takeover_answer(|| FirstTakeover {
                    taker,
                    answer_frame: a.frame,
                    answer_time: a.time,
                    request_frame: t.req.frame,
                    message: kind,
                    silence,
                });
            }
        }
    }
    // Who had to answer: the owner, or the taker in a takeover.
    let expected_from = match reference.kind {
        EpisodeKind::Takeover => reference.serving().unwrap_or(owner),
        _ => owner,
    };
    // The evidence is built only for a finding: most transactions have none.
    let expected_v = || {
        json!({
            "bucket": bucket,
            "stid": hex(stid),
            "hba": pair.hba.to_string(),
            "profile": pair.profile.name,
            "answer_from": [name(expected_from)],
            "episode": reference.kind.name(),
        })
    };
    let observed = |extra: serde_json::Value| {
        let mut o = json!({
            "answer_from": t.answers.iter().filter(|a| !a.late).map(|a| reg.name(a.server)).collect::<Vec<_>>(),
            "request_frame": t.req.frame,
            "elapsed": t.req.elapsed,
        });
        if let (Some(m), Some(e)) = (o.as_object_mut(), extra.as_object()) {
            m.extend(e.clone());
        }
        o
    };
    if reference.kind != EpisodeKind::Normal {
        // Judged against the server that had to answer: nobody answering while the client
        // retried is a client left without service.
        let subject = expected_from;
        if own_ans.is_none()
            && oth_ans.is_none()
            && evidence
            && reached(reg, t, pair.server(subject))
            && failover_serves(ctx, pair, subject, time)
            && !named_elsewhere(pair, reg, t, subject)
        {
            stats.deviations[idx(subject)] += 1;
            let why = unanswered_why(reference, subject, &name);
            push(
                report,
                pair,
                no_answer(
                    t,
                    kind,
                    &name(subject),
                    bucket,
                    &pair.hba.to_string(),
                    expected_v(),
                    observed(json!({"retried_in_frame": t.retried, "pair_normal": false})),
                    &why,
                ),
                time,
            );
        }
        return;
    }
    if let Some(a) = &oth_ans {
        let (rule, why) = if late {
            (
                Rule::DelayedService,
                format!(
                    "after the client waited past {} s",
                    pair.threshold.unwrap_or(0)
                ),
            )
        } else if own_ans.is_some() {
            (
                Rule::DoubleAnswer,
                format!("as well as its owner {}", name(owner)),
            )
        } else {
            (
                Rule::WrongServer,
                format!("instead of its owner {}", name(owner)),
            )
        };
        if rule.severity() != Severity::Info {
            stats.deviations[idx(other)] += 1;
        }
        push(
            report,
            pair,
            finding(
                rule,
                a.frame,
                &name(other),
                expected_v(),
                observed(json!({})),
                format!(
                    "{} answered {}, bucket {bucket} under {}) {why}",
                    name(other),
                    which(t, kind),
                    pair.hba
                ),
            ),
            a.time,
        );
    }
    if own_ans.is_none()
        && (evidence || oth_ans.is_some())
        && reached(reg, t, pair.server(owner))
        && !named_elsewhere(pair, reg, t, owner)
    {
        stats.deviations[idx(owner)] += 1;
        push(
            report,
            pair,
            no_answer(
                t,
                kind,
                &name(owner),
                bucket,
                &pair.hba.to_string(),
                expected_v(),
                observed(json!({"retried_in_frame": t.retried})),
                "while balancing",
            ),
            time,
        );
    }
    if !late {
        let b = &mut stats.buckets[usize::from(bucket)];
        let outcome = match (own_ans.is_some(), oth_ans.is_some()) {
            (true, true) => Some(&mut b.both),
            (true, false) => Some(&mut b.owner),
            (false, true) => Some(&mut b.other),
            (false, false) if evidence => Some(&mut b.none),
            _ => None,
        };
        if let Some(n) = outcome {
            n.add(stid);
            b.first_frame.get_or_insert(t.req.frame);
        }
        truncation(pair, stats, t, stid, &own_ans, &oth_ans, owner);
    }
}

/// A balanced message naming the other server is discarded by `subject` (RFC 8415 section 16,
/// RFC 2131 section 4.3.2) when the profile ignores the name for balancing.
fn named_elsewhere(pair: &Pair, reg: &Registry, t: &Transmission, subject: Role) -> bool {
    let named_other = t
        .req
        .server_id
        .as_ref()
        .and_then(|id| reg.lookup(id))
        .is_some_and(|s| s != pair.server(subject));
    let ignores_names = match t.req.family {
        Family::V4 => pair.profile.v4.is_some_and(|v| !v.server_id_exempt),
        Family::V6 => pair
            .profile
            .v6
            .is_some_and(|v| v.server_id == ServerIdRule::Ignored),
    };
    named_other && ignores_names
}

/// The finding of a takeover episode that ended (the `i`th of the pair's episodes): the silent
/// server, since when and what it left unanswered, the taker, the takeover's start and end.
fn takeover_finding(
    ctx: &Context<'_>,
    pair: &Pair,
    stats: &mut PairStats,
    i: usize,
    first: FirstTakeover,
    report: &mut Report,
) {
    let Some(e) = stats.episodes.episodes.list.get(i) else {
        return;
    };
    let reg = ctx.registry;
    let taker_role = first.taker;
    let taker = reg.name(pair.server(taker_role)).to_string();
    let silent = reg.name(pair.server(taker_role.peer())).to_string();
    // The silence as known now (its end may have come since the first answer).
    let silence = ctx
        .silences
        .down_at(pair.server(taker_role.peer()), first.answer_time, ctx.now)
        .filter(|s| s.from == first.silence.from)
        .unwrap_or(first.silence);
    let last = stats.episodes.episodes.list.len() == i + 1;
    let until = if last {
        format!(
            "until the end ({}, frame {})",
            clock(e.end.time),
            e.end.frame
        )
    } else {
        format!("until {} (frame {})", clock(e.end.time), e.end.frame)
    };
    let f = finding(
        Rule::Takeover,
        first.answer_frame,
        &silent,
        json!({"answer_from": [silent]}),
        json!({
            "answer_from": [taker],
            "request_frame": first.request_frame,
            "silent_since": silence.from.as_f64(),
            "silent_until": silence.to.map(|x| x.as_f64()),
            "missed": silence.missed,
            "takeover_start": e.start.time.as_f64(),
            "takeover_end": e.end.time.as_f64(),
            "takeover_end_frame": e.end.frame,
            "episode": EpisodeKind::Takeover.name(),
        }),
        format!(
            "{silent} answered nothing after {} UTC ({} messages it owned went unanswered by it); {taker} served its buckets from {} (the {} of frame {}) {until}",
            silence.from.utc(),
            silence.missed,
            clock(first.answer_time),
            first.message,
            first.request_frame
        ),
    );
    push(report, pair, f, first.answer_time);
}

/// The run ended: the open episode reaches the pair's last frame, and a takeover still under
/// way is reported.
pub fn end_episodes(ctx: &Context<'_>, pair: &Pair, stats: &mut PairStats, report: &mut Report) {
    if report.timeline.recording() {
        if let Some(e) = stats.episodes.episodes.current() {
            report
                .timeline
                .episode(&Subject::Server(pair.name.clone()), e.clone());
        }
    }
    if let Some(first) = stats.episodes.first_takeover.take() {
        let i = stats.episodes.episodes.list.len().saturating_sub(1);
        takeover_finding(ctx, pair, stats, i, first, report);
    }
}

#[allow(clippy::too_many_arguments)]
fn no_answer(
    t: &Transmission,
    kind: &str,
    owner: &str,
    bucket: u8,
    hba: &str,
    expected: serde_json::Value,
    observed: serde_json::Value,
    why: &str,
) -> Finding {
    let evidence = match t.retried {
        Some(f) => format!("the client retried in frame {f}"),
        None => "the other server answered".to_string(),
    };
    let mut f = finding(
        Rule::NoAnswer,
        t.req.frame,
        owner,
        expected,
        observed,
        format!(
            "{owner} did not answer {}, bucket {bucket} under {hba}) {why}; {evidence}",
            which(t, kind)
        ),
    );
    // Unanswered while down and unanswered while balancing are not alike.
    f.group = why.to_string();
    f
}

/// Counts which STID a v6 answer fits when a long DUID's whole and first-16-byte hashes differ.
fn truncation(
    pair: &Pair,
    stats: &mut PairStats,
    t: &Transmission,
    stid: &[u8],
    own_ans: &Option<super::transactions::Answered>,
    oth_ans: &Option<super::transactions::Answered>,
    owner: Role,
) {
    if t.req.family != Family::V6 || stid.len() <= 16 {
        return;
    }
    let Some(first16) = stid.get(..16) else {
        return;
    };
    let owner16 = pair.hba.owner(crate::proto::lb::bucket(first16));
    if owner16 == owner {
        return;
    }
    for (r, a) in [(owner, own_ans), (owner.peer(), oth_ans)] {
        let Some(a) = a else { continue };
        let i = idx(r);
        if r == owner16 {
            stats.fit_first16[i] += 1;
            stats.first16_frame[i].get_or_insert(a.frame);
        } else {
            stats.fit_whole[i] += 1;
        }
    }
}

/// The findings judged over the whole run: a server hashing only 16 DUID bytes, and servers
/// whose maps overlap (buckets both serve) or leave gaps (buckets neither serves).
pub fn aggregate(ctx: &Context<'_>, pair: &Pair, stats: &mut PairStats, report: &mut Report) {
    let reg = ctx.registry;
    let last = ctx.now;
    for r in [Role::Primary, Role::Secondary] {
        let i = idx(r);
        let (whole, first16) = (stats.fit_whole[i], stats.fit_first16[i]);
        if first16 >= 2 && first16 > whole {
            let name = reg.name(pair.server(r)).to_string();
            stats.deviations[i] += 1;
            push(
                report,
                pair,
                finding(
                    Rule::StidTruncated,
                    stats.first16_frame[i].unwrap_or(0),
                    &name,
                    json!({"stid": "the whole client DUID"}),
                    json!({"fit_whole_duid": whole, "fit_first_16_bytes": first16}),
                    format!(
                        "{name}'s answers to clients with DUIDs longer than 16 bytes follow the hash of the first 16 bytes ({first16} answers) rather than of the whole DUID ({whole}): it limits the STID as RFC 3074 does for DHCPv4"
                    ),
                ),
                last,
            );
        }
    }
    let mut overlap = Vec::new();
    let mut gap = Vec::new();
    let mut contrary = Vec::new();
    let mut first = None::<u64>;
    for (b, s) in stats.buckets.iter().enumerate() {
        let mut hit = false;
        let (both, none, owner, other) = (
            s.both.count(),
            s.none.count(),
            s.owner.count(),
            s.other.count(),
        );
        // Two different clients are needed before a bucket says something about the maps; one
        // client answered by the wrong server is a wrong-server finding, not a conflict.
        if both >= 2 && owner == 0 && other == 0 {
            overlap.push(b);
            hit = true;
        }
        if none >= 2 && owner == 0 && other == 0 && both == 0 {
            gap.push(b);
            hit = true;
        }
        if other >= 2 && owner == 0 && both == 0 {
            contrary.push(b);
            hit = true;
        }
        if hit {
            first = match (first, s.first_frame) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
    }
    if !(overlap.is_empty() && gap.is_empty() && contrary.is_empty()) {
        let mut parts = Vec::new();
        if !overlap.is_empty() {
            parts.push(format!("both servers answer buckets {overlap:?}"));
        }
        if !gap.is_empty() {
            parts.push(format!("neither answers buckets {gap:?}"));
        }
        if !contrary.is_empty() {
            parts.push(format!("only the non-owner answers buckets {contrary:?}"));
        }
        push(
            report,
            pair,
            finding(
                Rule::HbaConflict,
                first.unwrap_or(0),
                &pair.name,
                json!({"hba": pair.hba.to_string()}),
                json!({"overlap": overlap, "gap": gap, "served_by_non_owner": contrary}),
                format!(
                    "the servers do not share the bucket map {}: {}",
                    pair.hba,
                    parts.join("; ")
                ),
            ),
            last,
        );
    }
}

/// A CONNECT whose map differs from the reference or from the sender's previous CONNECT.
pub fn connect_conflict(
    pair: &Pair,
    frame: u64,
    sender: &str,
    sent: &Hba,
    previous: Option<&Hba>,
) -> Option<Finding> {
    let (expected, why) = match previous {
        Some(p) if p != sent => (*p, "its previous CONNECT"),
        _ if *sent != pair.hba && pair.hba_source != super::config::Source::FailoverConnect => {
            (pair.hba, "the reference")
        }
        _ => return None,
    };
    Some(finding(
        Rule::HbaConflict,
        frame,
        &pair.name,
        json!({"hba": expected.to_string()}),
        json!({"hba": sent.to_string(), "sender": sender}),
        format!(
            "{sender}'s failover CONNECT carries the bucket map {sent}, which differs from {why} ({expected})"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::Distinct;

    #[test]
    fn distinct_counts_clients_not_messages() {
        let mut d = Distinct::default();
        assert_eq!(d.count(), 0);
        d.add(b"\x01\x02");
        d.add(b"\x01\x02");
        assert_eq!(d.count(), 1, "one client's DISCOVER and REQUEST");
        d.add(b"\x01\x03");
        assert_eq!(d.count(), 2);
        d.add(b"\x09");
        assert_eq!(d.count(), 2, "two means two or more");
    }
}
