//! What the traffic says when the configuration does not: which two servers form the pair, the
//! profile whose rules explain which messages both answer, the hash bucket assignment that
//! explains who answered which bucket, the roles, and the delayed-service threshold.
//!
//! The evidence is the learning buffer (the whole capture when it is smaller than the bound),
//! replayed once through the transaction tracker. Only messages that tell something count:
//! balanced messages both servers received while both were answering (each answered something
//! within `down_after` of it) and, under the `isc` profile with failover traffic present, while
//! the pair was NORMAL; and, once a model is found, outside the spans in which a server was out
//! by that model (its peer-silent, takeover and recovery episodes: `outages`), the inference
//! runs again on what is left, so that a takeover's answers cannot bend the map.
//!
//! * Profile: each candidate scores +1 for a balanced message answered by its owner alone or an
//!   unbalanced one answered by both, -1 for a balanced one answered by both or by the non-owner
//!   alone (before the delay); the best wins, ties to `isc` when failover traffic is present, then
//!   `kea`, then `draft`.
//! * Bucket map: among `split:N` (every N, either server primary), `kea` (either server primary)
//!   and the per-bucket majority itself, the map that explains most single answers; the majority
//!   map is chosen only when it explains clearly more (more than 2 % of the answers, at least 3)
//!   than the best named map, which is then reported as hex.
//! * Roles: the server that owns bucket 0 is the primary (ISC's orientation: `split N` gives the
//!   primary buckets 0..N-1, Kea's first server the even ones); a failover CONNECT carrying the
//!   map names its sender primary.
//! * Threshold: the values (whole seconds) that best separate non-owner answers (above) from
//!   non-owner silence (at or below), and among them the one nearest 3 s (the value ISC's
//!   examples use); 3 s when the non-owner never answered.

use std::collections::BTreeMap;
use std::net::IpAddr;

use super::classify::{classify, delayed, Class};
use super::config::{Settings, Source};
use super::events::{DhcpEvent, FailoverKind, ServerIdent};
use super::model::Pair;
use super::profile::{Ownership, Profile, StateGate, DRAFT, ISC, KEA};
use super::servers::Registry;
use super::state::{FailoverTimeline, PairState};
use super::transactions::{answer_types, Tracker, Transmission};
use crate::base::Timestamp;
use crate::proto::lb::{Family, Hba, Role};

/// The default delayed-service threshold (seconds).
pub const DEFAULT_THRESHOLD: u32 = 3;

/// One candidate map and how many single answers it explains.
#[derive(Clone, Debug, PartialEq)]
pub struct HbaCandidate {
    pub hba: Hba,
    /// Registry index of the server the map calls primary.
    pub primary: usize,
    pub explains: u64,
}

/// What the inference found for one family.
#[derive(Clone, Debug, Default)]
pub struct FamilyReport {
    pub family: Option<Family>,
    /// Why no pair is checked, when none is.
    pub no_pair: Option<String>,
    /// Profile scores (name, score).
    pub profile_scores: Vec<(&'static str, i64)>,
    /// Single answers the map was chosen on.
    pub samples: u64,
    pub best: Option<HbaCandidate>,
    /// The best split, kea and majority candidates.
    pub candidates: Vec<(String, HbaCandidate)>,
    pub threshold_range: Option<(u32, u32)>,
    pub connect_hba: Option<(Hba, usize)>,
    /// The models of the profiles that scored as high as the chosen one (empty when the
    /// evidence decided): the pair is flagged only where they all agree.
    pub undecided: Vec<Pair>,
}

/// The result: pairs to check, and what was inferred.
#[derive(Clone, Debug, Default)]
pub struct Inferred {
    pub pairs: Vec<Pair>,
    pub reports: Vec<FamilyReport>,
}

/// What the tracker made of the buffer.
pub struct Replayed {
    pub registry: Registry,
    pub transmissions: Vec<Transmission>,
    pub timeline: FailoverTimeline,
    /// The hash bucket assignment each failover endpoint sent in its first CONNECT.
    pub connects: BTreeMap<IpAddr, Hba>,
    /// Answer times per server, sorted.
    pub answer_times: BTreeMap<usize, Vec<Timestamp>>,
    pub end: Timestamp,
}

/// Runs the buffer through identification and transaction matching.
pub fn replay(events: &[DhcpEvent], settings: &Settings) -> Replayed {
    let mut registry = Registry::new(&settings.servers, settings.max_servers);
    let mut tracker = Tracker::new(
        settings.answer_window_ns,
        settings.lookahead_ns,
        settings.max_transactions,
        usize::MAX,
    );
    let mut timeline = FailoverTimeline::new(settings.link_timeout_ns);
    let mut connects = BTreeMap::new();
    let mut answer_times: BTreeMap<usize, Vec<Timestamp>> = BTreeMap::new();
    let mut end = Timestamp::default();
    for e in events {
        end = end.max(e.time());
        timeline.start(e.time());
        match e {
            DhcpEvent::Request(r) => {
                tracker.request(r.clone());
            }
            DhcpEvent::Answer(a) => {
                if let Some(s) = registry.identify(a) {
                    tracker.answer(a, s);
                    answer_times.entry(s).or_default().push(a.time);
                }
            }
            DhcpEvent::Failover(f) => {
                timeline.message(f.src, f.time);
                match &f.kind {
                    FailoverKind::State { state, since } => {
                        timeline.state(f.src, *state, *since, f.time)
                    }
                    // The first map a server sent is the reference; a later different one is
                    // reported as a conflict by the judge.
                    FailoverKind::Connect { hba: Some(h) } => {
                        connects.entry(f.src).or_insert(*h);
                    }
                    _ => {}
                }
            }
        }
    }
    tracker.tick(end);
    let mut transmissions = Vec::new();
    while let Some(t) = tracker.pop_any() {
        transmissions.push(t);
    }
    for v in answer_times.values_mut() {
        v.sort_unstable();
    }
    Replayed {
        registry,
        transmissions,
        timeline,
        connects,
        answer_times,
        end,
    }
}

fn ns(t: Timestamp) -> i128 {
    i128::from(t.secs) * 1_000_000_000 + i128::from(t.nanos)
}

impl Replayed {
    /// Whether `server` answered anything within `window` of `t`.
    fn alive(&self, server: usize, t: Timestamp, window_ns: u64) -> bool {
        let Some(v) = self.answer_times.get(&server) else {
            return false;
        };
        let i = v.partition_point(|x| *x < t);
        let near = |x: &Timestamp| (ns(*x) - ns(t)).abs() <= i128::from(window_ns);
        v.get(i).is_some_and(near) || i.checked_sub(1).and_then(|j| v.get(j)).is_some_and(near)
    }

    /// The failover state of the pair (a, b) at `t`, when the capture has failover traffic
    /// from their addresses.
    fn failover(&self, a: usize, b: usize, t: Timestamp) -> PairState {
        failover_state(&self.registry, &self.timeline, a, b, t, self.end)
    }
}

/// The pair's failover state, trying every address each server is known by.
pub fn failover_state(
    reg: &Registry,
    timeline: &FailoverTimeline,
    a: usize,
    b: usize,
    t: Timestamp,
    now: Timestamp,
) -> PairState {
    for x in Pair::addresses(reg, a) {
        for y in Pair::addresses(reg, b) {
            let s = timeline.pair(x, y, t, now);
            if s != PairState::Unknown {
                return s;
            }
        }
    }
    PairState::Unknown
}

/// Whether a packet sent to `dst` reaches `server`: multicast or broadcast, one of its
/// addresses, or an address no known server has (a relay's hop we cannot place).
fn reaches(reg: &Registry, dst: &IpAddr, mine: &[IpAddr]) -> bool {
    dst.is_multicast()
        || matches!(dst, IpAddr::V4(v) if v.is_broadcast())
        || mine.contains(dst)
        || reg.lookup(&ServerIdent::Addr(*dst)).is_none()
}

/// Whether a transmission (any of its copies) reached `server`.
pub fn reached(reg: &Registry, t: &Transmission, server: usize) -> bool {
    let mine = Pair::addresses(reg, server);
    t.dsts.iter().any(|d| reaches(reg, d, &mine))
}

/// Whether a client message reached `server`.
pub fn reached_request(reg: &Registry, r: &super::events::Request, server: usize) -> bool {
    reaches(reg, &r.dst, &Pair::addresses(reg, server))
}

/// Infers every pair the configuration leaves open. The model found is checked against the
/// traffic once more without the spans in which a server was out (a takeover answers the silent
/// server's buckets and says nothing of the map), and taken from that second look when it still
/// finds the pair.
pub fn infer(r: &Replayed, settings: &Settings) -> Inferred {
    let mut out = Inferred::default();
    for family in [Family::V4, Family::V6] {
        let (mut pair, mut report) = infer_family(r, settings, family, &[]);
        if let Some(p) = &pair {
            let spans = outages(r, settings, p);
            if !spans.is_empty() {
                let (again, again_report) = infer_family(r, settings, family, &spans);
                if again.is_some() {
                    (pair, report) = (again, again_report);
                }
            }
        }
        if pair.is_some() || report.no_pair.is_some() {
            out.reports.push(report);
        }
        out.pairs.extend(pair);
    }
    out
}

/// The spans in which a server of `pair` was out: from the first message of its buckets it left
/// unanswered (its partner answering it, or the client retrying) in a silence of at least
/// `down_after` holding `down_min_messages` such messages, to its next answer (the episodes'
/// rule, [`super::episodes`]). Only the normal episodes outside them say who owns a bucket.
pub fn outages(r: &Replayed, settings: &Settings, pair: &Pair) -> Vec<(Timestamp, Timestamp)> {
    let role = |id: &ServerIdent| r.registry.lookup(id).and_then(|s| pair.role_of(s));
    // Each server's misses: a balanced message of its buckets it did not answer, the other
    // server answering it or the client left waiting. Transmissions answered by both servers
    // (most of them by one) are passed over before the hash.
    let mut misses: [Vec<Timestamp>; 2] = [Vec::new(), Vec::new()];
    for t in r
        .transmissions
        .iter()
        .filter(|t| t.req.family == pair.family)
    {
        let by = [Role::Primary, Role::Secondary].map(|x| t.answered_by(pair.server(x)).is_some());
        if by == [true, true] {
            continue;
        }
        let Some(Class::Balanced { bucket, .. }) = classify(&t.req, pair.profile, &role) else {
            continue;
        };
        let x = pair.hba.owner(bucket);
        let k = usize::from(x == Role::Secondary);
        let missed = !by[k]
            && (by[1 - k]
                || ((t.retried.is_some() || t.window_passed)
                    && reached(&r.registry, t, pair.server(x))));
        if missed {
            misses[k].push(t.req.time);
        }
    }
    let mut spans = Vec::new();
    for (x, mut misses) in [Role::Primary, Role::Secondary].into_iter().zip(misses) {
        let sx = pair.server(x);
        misses.sort_unstable();
        let answers = r.answer_times.get(&sx).map_or(&[][..], Vec::as_slice);
        let mut i = 0;
        while let Some(&first) = misses.get(i) {
            // The silence holding this miss: from the answer before it to the one after.
            let next = answers.partition_point(|a| *a <= first);
            let from = next.checked_sub(1).and_then(|j| answers.get(j)).copied();
            let to = answers.get(next).copied();
            let n = misses[i..]
                .iter()
                .take_while(|m| to.is_none_or(|to| **m < to))
                .count()
                .max(1);
            let end = to.unwrap_or(r.end);
            let long = ns(end) - ns(from.unwrap_or(first)) >= i128::from(settings.down_after_ns);
            if long && n >= settings.down_min_messages as usize {
                spans.push((first, end));
            }
            i += n;
        }
    }
    spans
}

fn candidates_for(family: Family, settings: &Settings, failover: bool) -> Vec<&'static Profile> {
    if let Some((p, _)) = settings.profile {
        return vec![p];
    }
    let mut v: Vec<&'static Profile> = match family {
        Family::V4 if failover => vec![&ISC, &KEA, &DRAFT],
        Family::V4 => vec![&KEA, &DRAFT, &ISC],
        Family::V6 => vec![&KEA, &DRAFT],
    };
    v.retain(|p| match family {
        Family::V4 => p.v4.is_some(),
        Family::V6 => p.v6.is_some(),
    });
    v
}

/// A message that tells something about balancing: both servers answering, received by both,
/// in a state where the profile balances.
struct Informative<'a> {
    t: &'a Transmission,
    class: Class,
    /// Index 0 = server a, 1 = server b.
    answered: [bool; 2],
}

/// The transmissions of `family` that can tell something about the pair `ab` under any
/// profile: answerable, naming no server, received by both servers while both were answering.
/// The same for every profile tried (and either order of `ab`), so found once.
fn eligible<'a>(
    r: &'a Replayed,
    settings: &Settings,
    ab: [usize; 2],
    family: Family,
    excluded: &[(Timestamp, Timestamp)],
) -> Vec<&'a Transmission> {
    let window = settings.down_after_ns;
    r.transmissions
        .iter()
        .filter(|t| t.req.family == family)
        .filter(|t| {
            !excluded
                .iter()
                .any(|(a, b)| *a <= t.req.time && t.req.time < *b)
        })
        .filter(|t| !answer_types(family, t.req.msg_type).is_empty() && t.req.server_id.is_none())
        .filter(|t| {
            ab.iter().all(|s| reached(&r.registry, t, *s))
                && ab.iter().all(|s| r.alive(*s, t.req.time, window))
        })
        .collect()
}

/// Among the `eligible` transmissions, those sent in a state where `profile` balances, classified
/// with `ab[0]` as primary.
fn informative<'a>(
    r: &Replayed,
    eligible: &[&'a Transmission],
    profile: &Profile,
    ab: [usize; 2],
) -> Vec<Informative<'a>> {
    let provisional = |id: &ServerIdent| match r.registry.lookup(id) {
        Some(s) if s == ab[0] => Some(Role::Primary),
        Some(s) if s == ab[1] => Some(Role::Secondary),
        _ => None,
    };
    let mut out = Vec::new();
    for &t in eligible {
        if profile.state_gate == StateGate::FailoverNormal
            && matches!(
                r.failover(ab[0], ab[1], t.req.time),
                PairState::NotNormal { .. }
            )
        {
            continue;
        }
        let Some(class) = classify(&t.req, profile, &provisional) else {
            continue;
        };
        let answered = [
            t.answered_by(ab[0]).is_some(),
            t.answered_by(ab[1]).is_some(),
        ];
        out.push(Informative { t, class, answered });
    }
    out
}

/// The pair of `family`, from the transmissions outside the `excluded` spans.
fn infer_family(
    r: &Replayed,
    settings: &Settings,
    family: Family,
    excluded: &[(Timestamp, Timestamp)],
) -> (Option<Pair>, FamilyReport) {
    let mut report = FamilyReport {
        family: Some(family),
        ..FamilyReport::default()
    };
    // The pair: the configured primary and secondary, else the two servers answering most.
    let configured = {
        let p = r
            .registry
            .servers()
            .iter()
            .position(|s| s.configured && s.role == Some(Role::Primary));
        let s = r
            .registry
            .servers()
            .iter()
            .position(|s| s.configured && s.role == Some(Role::Secondary));
        p.zip(s)
    };
    let mut counts: BTreeMap<usize, u64> = BTreeMap::new();
    for t in r.transmissions.iter().filter(|t| t.req.family == family) {
        for a in &t.answers {
            *counts.entry(a.server).or_default() += 1;
        }
    }
    if counts.is_empty() {
        return (None, report);
    }
    let ab = match configured {
        Some((p, s)) => [p, s],
        None => {
            let mut v: Vec<(u64, usize)> = counts.iter().map(|(s, n)| (*n, *s)).collect();
            v.sort_unstable_by(|x, y| y.cmp(x));
            match v.as_slice() {
                [(_, a), (_, b), ..] => [*a.min(b), *a.max(b)],
                _ => {
                    report.no_pair = Some(format!(
                        "only one server ({}) answered: no load-balancing pair",
                        r.registry.name(v.first().map_or(0, |x| x.1))
                    ));
                    return (None, report);
                }
            }
        }
    };
    let failover_present = Pair::addresses(&r.registry, ab[0])
        .iter()
        .chain(Pair::addresses(&r.registry, ab[1]).iter())
        .any(|a| r.connects.contains_key(a))
        || !matches!(r.failover(ab[0], ab[1], r.end), PairState::Unknown);
    if let Some((p, _)) = settings.profile {
        let has_family = match family {
            Family::V4 => p.v4.is_some(),
            Family::V6 => p.v6.is_some(),
        };
        if !has_family {
            let others: Vec<&str> = candidates_for(family, &Settings::default(), false)
                .iter()
                .map(|p| p.name)
                .collect();
            let other = match family {
                Family::V4 => Family::V6,
                Family::V6 => Family::V4,
            };
            report.no_pair = Some(format!(
                "--profile {} does not balance {} (the server it models balances only {}): these servers are not replayed; --profile {} does",
                p.name,
                family.name(),
                other.name(),
                others.join(" or ")
            ));
            return (None, report);
        }
    }
    // Every candidate's score and map; the first of the highest wins, and the others with as
    // high a score are the profiles the evidence does not decide between.
    let mut tried: Vec<(i64, &'static Profile, Option<HbaChoice>)> = Vec::new();
    let eligible = eligible(r, settings, ab, family, excluded);
    for p in candidates_for(family, settings, failover_present) {
        let items = informative(r, &eligible, p, ab);
        let choice = choose_hba(r, settings, p, ab, &items, family);
        let score = choice
            .as_ref()
            .map_or(0, |c| score_profile(settings, p, &items, c, ab));
        report.profile_scores.push((p.name, score));
        tried.push((score, p, choice));
    }
    let top = tried.iter().map(|t| t.0).max();
    let mut tied = tried.into_iter().filter(|t| Some(t.0) == top);
    let Some((_, profile, Some(choice))) = tied.next() else {
        report.no_pair = Some("no profile balances this family".into());
        return (None, report);
    };
    let others: Vec<(&'static Profile, HbaChoice)> =
        tied.filter_map(|(_, p, c)| c.map(|c| (p, c))).collect();
    report.samples = choice.samples;
    report.best = Some(choice.best.clone());
    report.candidates = choice.candidates.clone();
    report.connect_hba = choice.connect;
    if configured.is_none() {
        let singles = choice.singles;
        if choice.samples < settings.min_pair_samples || singles.iter().any(|n| *n < 2) {
            report.no_pair = Some(format!(
                "{} and {} answered too few balanced messages alone ({} and {}; at least 2 each and {} in all are needed) to be called a load-balancing pair",
                r.registry.name(ab[0]),
                r.registry.name(ab[1]),
                singles[0],
                singles[1],
                settings.min_pair_samples
            ));
            return (None, report);
        }
    }
    let pair = model(
        r,
        settings,
        &eligible,
        (family, ab),
        profile,
        &choice,
        &mut report,
    );
    // The tied profiles' own models, judged alongside: the pair is flagged only where all agree
    // (`super::undecided`). Their threshold ranges are not the report's.
    let mut scratch = FamilyReport::default();
    report.undecided = others
        .iter()
        .map(|(p, c)| model(r, settings, &eligible, (family, ab), p, c, &mut scratch))
        .collect();
    (Some(pair), report)
}

/// The pair under `profile` with the map it chose.
#[allow(clippy::too_many_arguments)]
fn model(
    r: &Replayed,
    settings: &Settings,
    eligible: &[&Transmission],
    (family, ab): (Family, [usize; 2]),
    profile: &'static Profile,
    choice: &HbaChoice,
    report: &mut FamilyReport,
) -> Pair {
    let primary = choice.best.primary;
    let secondary = if primary == ab[0] { ab[1] } else { ab[0] };
    let (hba, hba_source) = (choice.best.hba, choice.source);
    let profile_source = settings.profile.map_or(Source::Inferred, |p| p.1);
    let (threshold, threshold_source) = threshold_for(
        r, eligible, settings, profile, family, &hba, primary, secondary, report,
    );
    Pair {
        family,
        primary,
        secondary,
        profile,
        profile_source,
        hba,
        hba_source,
        threshold,
        threshold_source,
        name: Pair::subject_name(&r.registry, family, primary, secondary),
    }
}

struct HbaChoice {
    best: HbaCandidate,
    source: Source,
    samples: u64,
    /// Single answers by server a and by server b.
    singles: [u64; 2],
    candidates: Vec<(String, HbaCandidate)>,
    connect: Option<(Hba, usize)>,
}

/// Per bucket, how often server a and server b answered alone.
fn bucket_counts(
    settings: &Settings,
    profile: &Profile,
    items: &[Informative<'_>],
) -> [[u64; 2]; 256] {
    let mut cnt = [[0u64; 2]; 256];
    let thr = settings.threshold.map_or(DEFAULT_THRESHOLD, |t| t.0);
    for i in items {
        let Class::Balanced { bucket, .. } = i.class else {
            continue;
        };
        if delayed(&i.t.req, profile, Some(thr), settings.byte_swap_check) {
            continue;
        }
        match i.answered {
            [true, false] => cnt[usize::from(bucket)][0] += 1,
            [false, true] => cnt[usize::from(bucket)][1] += 1,
            _ => {}
        }
    }
    cnt
}

fn explained(cnt: &[[u64; 2]; 256], hba: &Hba, primary_is_a: bool) -> u64 {
    (0..=255u8)
        .map(|b| {
            let a_owns = (hba.owner(b) == Role::Primary) == primary_is_a;
            cnt[usize::from(b)][usize::from(!a_owns)]
        })
        .sum()
}

/// For each bucket, the single answers of server a and of server b in the buckets below it
/// (and for 256, in all).
fn counts_below(cnt: &[[u64; 2]; 256]) -> [[u64; 2]; 257] {
    let mut below = [[0u64; 2]; 257];
    for b in 0..256 {
        below[b + 1] = [below[b][0] + cnt[b][0], below[b][1] + cnt[b][1]];
    }
    below
}

/// What `split n` explains (as [`explained`] counts it) from [`counts_below`]: a split gives
/// the primary the buckets below `n`, so the primary's single answers below it and the
/// secondary's above it.
fn split_explains(below: &[[u64; 2]; 257], n: u16, primary_is_a: bool) -> u64 {
    let n = usize::from(n.min(256));
    let (primary, secondary) = if primary_is_a { (0, 1) } else { (1, 0) };
    below[n][primary] + (below[256][secondary] - below[n][secondary])
}

fn choose_hba(
    r: &Replayed,
    settings: &Settings,
    profile: &Profile,
    ab: [usize; 2],
    items: &[Informative<'_>],
    _family: Family,
) -> Option<HbaChoice> {
    let cnt = bucket_counts(settings, profile, items);
    let samples: u64 = cnt.iter().map(|c| c[0] + c[1]).sum();
    let singles = [
        cnt.iter().map(|c| c[0]).sum(),
        cnt.iter().map(|c| c[1]).sum(),
    ];
    let cand = |hba: Hba, a_primary: bool| HbaCandidate {
        hba,
        primary: if a_primary { ab[0] } else { ab[1] },
        explains: explained(&cnt, &hba, a_primary),
    };
    // The map a CONNECT carried, with its sender as primary.
    let connect = ab.iter().find_map(|s| {
        Pair::addresses(&r.registry, *s)
            .iter()
            .find_map(|a| r.connects.get(a))
            .map(|h| (*h, *s))
    });
    // Every split and kea, both orientations.
    let below = counts_below(&cnt);
    // (explains, split, a primary) of the best: the most explained, then nearest to halves.
    let mut best: Option<(u64, u16, bool)> = None;
    let mut kea: Option<HbaCandidate> = None;
    for a_primary in [true, false] {
        for n in 1..=256u16 {
            let explains = split_explains(&below, n, a_primary);
            let better = best.is_none_or(|(e, m, _)| {
                explains > e || (explains == e && n.abs_diff(128) < m.abs_diff(128))
            });
            if better {
                best = Some((explains, n, a_primary));
            }
        }
        let k = cand(Hba::kea(), a_primary);
        if kea.as_ref().is_none_or(|b| k.explains > b.explains) {
            kea = Some(k);
        }
    }
    let best_split =
        best.and_then(|(_, n, a_primary)| Some(cand(Hba::split(n).ok()?, a_primary)))?;
    let kea = kea?;
    let named = if kea.explains >= best_split.explains {
        kea.clone()
    } else {
        best_split.clone()
    };
    // The per-bucket majority, oriented so that the owner of bucket 0 is the primary.
    let named_a_primary = named.primary == ab[0];
    let a_owner = |b: usize| -> bool {
        let c = cnt[b];
        if c[0] == c[1] {
            (named.hba.owner(b as u8) == Role::Primary) == named_a_primary
        } else {
            c[0] > c[1]
        }
    };
    let a_primary = a_owner(0);
    let mut bytes = [0u8; Hba::LEN];
    for b in 0..256usize {
        if a_owner(b) == a_primary {
            bytes[b >> 3] |= 1 << (b & 7);
        }
    }
    let majority = cand(Hba::from_bytes(bytes), a_primary);
    let margin = (samples / 50).max(3);
    let inferred = if majority.explains > named.explains.saturating_add(margin) {
        majority.clone()
    } else {
        named.clone()
    };
    let candidates = vec![
        ("split".to_string(), best_split),
        ("kea".to_string(), kea),
        ("majority".to_string(), majority),
    ];
    let (best, source) = if let Some((h, src)) = settings.hba {
        // A configured map: orient it by the configured roles, else by the data.
        let prim = r
            .registry
            .servers()
            .iter()
            .position(|s| s.configured && s.role == Some(Role::Primary))
            .filter(|p| ab.contains(p));
        let a_primary = match prim {
            Some(p) => p == ab[0],
            None => cand(h, true).explains >= cand(h, false).explains,
        };
        (cand(h, a_primary), src)
    } else if let (Ownership::FailoverConnect, Some((h, sender))) = (profile.ownership, connect) {
        (cand(h, sender == ab[0]), Source::FailoverConnect)
    } else if let Some(h) = profile.fixed_hba() {
        let prim = r
            .registry
            .servers()
            .iter()
            .position(|s| s.configured && s.role == Some(Role::Primary))
            .filter(|p| ab.contains(p));
        let a_primary = match prim {
            Some(p) => p == ab[0],
            None => cand(h, true).explains >= cand(h, false).explains,
        };
        (cand(h, a_primary), Source::Profile)
    } else {
        (inferred, Source::Inferred)
    };
    Some(HbaChoice {
        best,
        source,
        samples,
        singles,
        candidates,
        connect,
    })
}

fn score_profile(
    settings: &Settings,
    profile: &Profile,
    items: &[Informative<'_>],
    choice: &HbaChoice,
    ab: [usize; 2],
) -> i64 {
    let thr = settings.threshold.map_or(DEFAULT_THRESHOLD, |t| t.0);
    let a_primary = choice.best.primary == ab[0];
    let mut score = 0i64;
    for i in items {
        match &i.class {
            Class::Balanced { bucket, .. } => {
                let owner_is_a = (choice.best.hba.owner(*bucket) == Role::Primary) == a_primary;
                let late = delayed(&i.t.req, profile, Some(thr), settings.byte_swap_check);
                match i.answered {
                    [true, true] if !late => score -= 1,
                    [true, false] if owner_is_a => score += 1,
                    [false, true] if !owner_is_a => score += 1,
                    [true, false] | [false, true] if !late => score -= 1,
                    _ => {}
                }
            }
            Class::Unbalanced if i.answered == [true, true] => score += 1,
            _ => {}
        }
    }
    score
}

#[allow(clippy::too_many_arguments)]
fn threshold_for(
    r: &Replayed,
    eligible: &[&Transmission],
    settings: &Settings,
    profile: &Profile,
    family: Family,
    hba: &Hba,
    primary: usize,
    secondary: usize,
    report: &mut FamilyReport,
) -> (Option<u32>, Source) {
    let has_delay = match family {
        Family::V4 => profile.v4.and_then(|v| v.delayed_service).is_some(),
        Family::V6 => profile.v6.and_then(|v| v.delayed_service).is_some(),
    };
    if !has_delay {
        return (None, Source::Profile);
    }
    if let Some((t, src)) = settings.threshold {
        return (Some(t), src);
    }
    // The same pair as `eligible`'s, primary first.
    let items = informative(r, eligible, profile, [primary, secondary]);
    // (elapsed in the field's unit, the non-owner answered)
    let mut samples: Vec<(u32, bool)> = Vec::new();
    for i in &items {
        let Class::Balanced { bucket, .. } = i.class else {
            continue;
        };
        let Some(e) = i.t.req.elapsed else { continue };
        let non_owner = match hba.owner(bucket) {
            Role::Primary => 1,
            Role::Secondary => 0,
        };
        samples.push((u32::from(e), i.answered[non_owner]));
    }
    let Some(min_answered) = samples.iter().filter(|s| s.1).map(|s| s.0).min() else {
        return (Some(DEFAULT_THRESHOLD), Source::Default);
    };
    let mut values: Vec<u32> = samples.iter().map(|s| s.0).collect();
    values.sort_unstable();
    values.dedup();
    let mismatches = |thr: i64| {
        samples
            .iter()
            .filter(|(e, ans)| (i64::from(*e) > thr) != *ans)
            .count()
    };
    let mut best: Option<(usize, i64)> = None;
    for thr in std::iter::once(-1i64).chain(values.iter().map(|v| i64::from(*v))) {
        let m = mismatches(thr);
        if best.is_none_or(|b| m < b.0 || (m == b.0 && thr > b.1)) {
            best = Some((m, thr));
        }
    }
    let Some((_, thr_raw)) = best.filter(|b| b.1 >= 0) else {
        return (Some(DEFAULT_THRESHOLD), Source::Default);
    };
    let unit = match family {
        Family::V4 => 1,
        Family::V6 => 100,
    };
    // Every value from thr_raw up to the smallest answered value minus one separates as well:
    // in seconds, the whole seconds in that range; the one nearest the default is taken.
    let hi = (i64::from(min_answered) - 1).max(thr_raw);
    let lo_s = (thr_raw + unit - 1) / unit;
    let hi_s = hi / unit;
    let (lo_s, hi_s) = if lo_s <= hi_s {
        (lo_s, hi_s)
    } else {
        (thr_raw / unit, thr_raw / unit)
    };
    let to_s = |v: i64| u32::try_from(v).unwrap_or(u32::MAX);
    report.threshold_range = Some((to_s(lo_s), to_s(hi_s)));
    let chosen = i64::from(DEFAULT_THRESHOLD).clamp(lo_s, hi_s);
    (Some(to_s(chosen)), Source::Inferred)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::policy::rng::Rng;

    #[test]
    fn a_split_explains_from_the_counts_below_what_its_map_explains() {
        let mut rng = Rng::new(3074);
        for case in 0..40 {
            let mut cnt = [[0u64; 2]; 256];
            for c in cnt.iter_mut() {
                // Empty buckets, one-sided ones and both servers alone in one bucket.
                *c = match rng.below(4) {
                    0 => [0, 0],
                    1 => [rng.below(50), 0],
                    2 => [0, rng.below(50)],
                    _ => [rng.below(1000), rng.below(1000)],
                };
            }
            if case == 0 {
                cnt = [[0, 0]; 256];
            }
            let below = counts_below(&cnt);
            for n in 0..=256u16 {
                let hba = Hba::split(n).expect("a split");
                for a in [true, false] {
                    assert_eq!(
                        split_explains(&below, n, a),
                        explained(&cnt, &hba, a),
                        "case {case}, split {n}, a primary: {a}"
                    );
                }
            }
        }
    }
}
