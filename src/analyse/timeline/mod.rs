//! What the statistics and the terminal UI plot: for every subject (an RSerPool pool, a DHCP
//! server pair, a failover pool), per time window, how often each member was chosen against what
//! the reference predicts, gauges (free and backup leases), the members registered, and the
//! findings (a DHCP pair's also per server); and a subject's episodes (a DHCP pair's outages and
//! takeovers), as its analyser tells them.
//!
//! Analysers record into it as they replay; windows are `interval` long from the first frame.
//! Memory is bounded: past `max_windows` windows a subject's series is coarsened (neighbouring
//! windows merged, the interval doubled), so a long capture costs the same as a short one.
//!
//! A subject whose membership the analyser gives ([`Timeline::set_members`]: an RSerPool pool)
//! lists in every window each member registered at any time in it, chosen or not, and counts
//! them at the window's start, at its end and at the most; its windows run without gaps while
//! it has members (a window with no answers is one in which the members were all idle).

mod members;

use std::collections::{BTreeMap, BTreeSet};

use foldhash::HashMap;

pub use members::Members;

use super::episodes::{Episode, MAX_EPISODES};
use super::finding::Subject;
use crate::base::Timestamp;

/// Sources ([`Series::answers_by`]) counted per series; answers of others are counted in the
/// windows only.
const MAX_SOURCES: usize = 64;

/// Counts of one member in one window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemberCounts {
    /// Answers with this member in first place (the one a pool user uses).
    pub first: u64,
    /// Answers with this member anywhere.
    pub any: u64,
    /// Sum over the window's answers of the probability the reference gives this member of being
    /// first: the expected count of `first`.
    pub expected_first: f64,
    /// The same for being anywhere in the answer.
    pub expected_any: f64,
    /// Findings about this member (a DHCP server of a pair: counted in the pair's window too).
    pub findings: u64,
    /// Of `first` and `any`, those in answers the reference could not judge
    /// ([`Window::unjudged`]).
    pub unjudged_first: u64,
    pub unjudged_any: u64,
}

impl MemberCounts {
    /// The share of `answers` with this member first.
    pub fn share(&self, answers: u64) -> Option<f64> {
        (answers > 0).then(|| self.first as f64 / answers as f64)
    }

    /// The share of first places of this member in the answers the reference judged
    /// (`judged`: [`Window::judged`]): what [`MemberCounts::expected_share`] is to be compared
    /// with.
    pub fn judged_share(&self, judged: u64) -> Option<f64> {
        (judged > 0).then(|| self.first.saturating_sub(self.unjudged_first) as f64 / judged as f64)
    }

    /// The share of first places the reference expected of this member over the answers it
    /// judged: the one expected share per window that `check`, `stats` and the TUI show.
    pub fn expected_share(&self, judged: u64) -> Option<f64> {
        (judged > 0).then(|| self.expected_first / judged as f64)
    }

    pub fn add(&mut self, o: &MemberCounts) {
        self.unjudged_first = self.unjudged_first.saturating_add(o.unjudged_first);
        self.unjudged_any = self.unjudged_any.saturating_add(o.unjudged_any);
        self.first = self.first.saturating_add(o.first);
        self.any = self.any.saturating_add(o.any);
        self.expected_first += o.expected_first;
        self.expected_any += o.expected_any;
        self.findings = self.findings.saturating_add(o.findings);
    }
}

/// How many members were registered in a window (subjects whose membership is tracked).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Registered {
    /// At the window's start.
    pub start: u64,
    /// At its end (for the last window: at the capture's end).
    pub end: u64,
    /// The most at any time in it.
    pub max: u64,
}

impl Registered {
    /// `later` follows this window: the start stays, the end is the later one's.
    pub fn merge(&mut self, later: &Registered) {
        self.end = later.end;
        self.max = self.max.max(later.max);
    }
}

/// One time window of one subject.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Window {
    /// Index of the window since the start (start = origin + index x interval).
    pub index: u64,
    /// Answers (resolutions, DHCP replies) in the window.
    pub answers: u64,
    /// Of those, answers the reference could not judge (an RSerPool pool the registrar was not
    /// seen to hold, a policy not modelled): none of the members' expected counts come from
    /// them, so expected shares are of the others ([`Window::judged`]).
    pub unjudged: u64,
    pub members: Members,
    /// Last value in the window of each gauge (e.g. "free", "backup"): the value at its end.
    pub gauges: BTreeMap<String, f64>,
    pub findings: u64,
    /// Members registered (a subject whose membership is tracked, else `None`).
    pub registered: Option<Registered>,
}

/// The name under which [`Window::level`] gives the members registered at a window's end.
pub const REGISTERED_LEVEL: &str = "pes";

impl Window {
    /// The value at the window's end of a gauge, or of the members registered
    /// ([`REGISTERED_LEVEL`], a pool's PEs): what a chart of levels plots.
    pub fn level(&self, name: &str) -> Option<f64> {
        match self.gauges.get(name) {
            Some(v) => Some(*v),
            None if name == REGISTERED_LEVEL => self.registered.map(|r| r.end as f64),
            None => None,
        }
    }

    /// The names [`Window::level`] answers for in this window.
    pub fn level_names(&self) -> impl Iterator<Item = &str> {
        let registered = self
            .registered
            .filter(|_| !self.gauges.contains_key(REGISTERED_LEVEL))
            .map(|_| REGISTERED_LEVEL);
        self.gauges.keys().map(String::as_str).chain(registered)
    }

    /// The answers the reference judged: what its expected counts are counts of.
    pub fn judged(&self) -> u64 {
        self.answers.saturating_sub(self.unjudged)
    }

    /// Counts one answer: `chosen` in the order given (first place first) and, when the
    /// reference judged it, per member the probability it gave of being first and of being in
    /// the answer. `max_members`: members counted at most (others are not, the answer is).
    pub fn count_answer(
        &mut self,
        chosen: &[String],
        expected: Option<&[(String, f64, f64)]>,
        max_members: usize,
    ) {
        let room =
            |members: &Members, m: &str| members.len() < max_members || members.contains_key(m);
        self.count(
            chosen.iter().map(|m| m.as_str()),
            expected.map(|e| e.iter().map(|(m, f, a)| (m.as_str(), *f, *a))),
            |members, m| room(members, m).then(|| members.entry_mut(m)),
        );
    }

    /// Counts one answer as [`Window::count_answer`] does, reaching each member (`K`: a name,
    /// a key) through `at`.
    fn count<K>(
        &mut self,
        chosen: impl Iterator<Item = K>,
        expected: Option<impl Iterator<Item = (K, f64, f64)>>,
        mut at: impl FnMut(&mut Members, K) -> Option<&mut MemberCounts>,
    ) {
        self.answers += 1;
        let judged = expected.is_some();
        for (i, m) in chosen.enumerate() {
            if let Some(c) = at(&mut self.members, m) {
                c.any += 1;
                c.unjudged_any += u64::from(!judged);
                if i == 0 {
                    c.first += 1;
                    c.unjudged_first += u64::from(!judged);
                }
            }
        }
        let Some(expected) = expected else {
            self.unjudged += 1;
            return;
        };
        for (m, first, any) in expected {
            if let Some(c) = at(&mut self.members, m) {
                c.expected_first += first;
                c.expected_any += any;
            }
        }
    }

    /// Adds `o`, the window that follows this one.
    pub fn merge(&mut self, o: Window) {
        self.answers = self.answers.saturating_add(o.answers);
        self.unjudged = self.unjudged.saturating_add(o.unjudged);
        for (k, v) in &o.members {
            self.members.entry_mut(k).add(v);
        }
        // The later window's gauges are the later values.
        self.gauges.extend(o.gauges);
        self.findings = self.findings.saturating_add(o.findings);
        self.registered = match (self.registered, o.registered) {
            (Some(mut a), Some(b)) => {
                a.merge(&b);
                Some(a)
            }
            (a, b) => a.or(b),
        };
    }
}

/// A member that left a subject: how it was described and its expected share while it was in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Former {
    pub description: String,
    pub expected_share: Option<f64>,
}

/// Something that happened to a subject at one instant, marked on its chart and listed with it
/// (an RSerPool pool: a PE deregistering or registering again at a registrar, a registrar
/// taking over a peer's PEs).
#[derive(Clone, Debug, PartialEq)]
pub struct SeriesEvent {
    pub time: Timestamp,
    /// Nanoseconds from the timeline's origin to `time` (set by [`Timeline::mark`]).
    pub offset_ns: u64,
    pub frame: u64,
    /// What kind of thing ("deregistration", "reregistration", "takeover").
    pub kind: &'static str,
    /// Who it happened at (the registrar).
    pub source: String,
    /// What happened, in words.
    pub text: String,
}

/// Marks kept per series (the rest are counted in [`Series::marks_dropped`]).
const MAX_MARKS: usize = 256;

/// The series of one subject.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    /// What the subject is, for people: "RSerPool pool (policy LU)", "DHCP pair (kea)", ...
    pub kind: String,
    /// The window length of this series in nanoseconds (a multiple of the timeline's interval).
    pub interval_ns: u64,
    pub windows: Vec<Window>,
    /// Current description of each member (e.g. "weight 3", "load 50.0 %"), by member id.
    pub members: BTreeMap<String, String>,
    /// Expected long-run share of first places by member, as the reference currently predicts.
    pub expected_share: BTreeMap<String, f64>,
    /// Members that were registered and left (tracked subjects), as they were last described;
    /// one that comes back leaves this list.
    pub left: BTreeMap<String, Former>,
    /// The members registered now, for a subject whose membership is tracked
    /// ([`Timeline::set_members`]); `None` for the others.
    pub registered: Option<BTreeSet<String>>,
    /// Answers by who gave them (an RSerPool pool's registrars), over the whole series.
    pub answers_by: BTreeMap<String, u64>,
    /// What happened to the subject, in time order.
    pub marks: Vec<SeriesEvent>,
    pub marks_dropped: u64,
    /// Its episodes in time order (a DHCP pair's: normal, peer-silent, takeover, recovery), as
    /// its analyser last told them (up to [`MAX_EPISODES`]).
    pub episodes: Vec<Episode>,
    /// The members answers name by key ([`Timeline::answer_by_key`]), numbered: the timeline's
    /// own bookkeeping, public only so that a series can be made field by field.
    pub slots: Slots,
}

/// Members numbered per series in the order they were first counted by key (an RSerPool PE by
/// its identifier, a DHCP server by its place in the pair), with their names: what
/// [`Members::slot_mut`] reaches a window's member by. At most [`MAX_SLOTS`]; members past it are
/// counted by name.
#[derive(Clone, Debug, Default)]
pub struct Slots {
    by_key: HashMap<u64, usize>,
    names: Vec<String>,
}

/// Bookkeeping, not content: two series are equal whatever order their members were numbered in.
impl PartialEq for Slots {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Members numbered per series at most.
const MAX_SLOTS: usize = 4096;

impl Slots {
    /// The slot of `key` (numbered now when new, while there is room) and the member's name.
    fn of<K: Copy + Into<u64>>(
        &mut self,
        key: K,
        name: &impl Fn(K) -> String,
    ) -> Option<(usize, &str)> {
        let i = match self.by_key.get(&key.into()) {
            Some(&i) => i,
            None if self.names.len() < MAX_SLOTS => {
                self.names.push(name(key));
                self.by_key.insert(key.into(), self.names.len() - 1);
                self.names.len() - 1
            }
            None => return None,
        };
        self.names.get(i).map(|n| (i, n.as_str()))
    }
}

impl Series {
    /// Whether the windows up to now run without gaps: members are registered.
    fn filling(&self) -> bool {
        self.registered.as_ref().is_some_and(|r| !r.is_empty())
    }

    /// Windows [`Series::window`] would add for `index`.
    fn windows_needed(&self, index: u64) -> u64 {
        match self.windows.last() {
            Some(w) if w.index >= index => 0,
            Some(w) if self.filling() => index - w.index,
            _ => 1,
        }
    }

    /// A new window: with every member registered now, idle so far.
    fn new_window(&self, index: u64) -> Window {
        let mut w = Window {
            index,
            ..Window::default()
        };
        if let Some(now) = &self.registered {
            let n = now.len() as u64;
            w.registered = Some(Registered {
                start: n,
                end: n,
                max: n,
            });
            w.members = now
                .iter()
                .map(|m| (m.clone(), MemberCounts::default()))
                .collect();
        }
        w
    }

    fn window(&mut self, index: u64) -> &mut Window {
        // Windows arrive in time order; a late one (reordered capture) joins the last window.
        // While members are registered, the windows in between are made too: they were there.
        let from = match self.windows.last() {
            Some(w) if w.index >= index => None,
            Some(w) if self.filling() => Some(w.index + 1),
            _ => Some(index),
        };
        if let Some(from) = from {
            // Only the last window is counted into by slot: the one before forgets where its
            // members are, so that every window but one holds its members alone.
            if let Some(w) = self.windows.last_mut() {
                w.members.forget_slots();
            }
            for i in from..=index {
                let w = self.new_window(i);
                self.windows.push(w);
            }
        }
        let last = self.windows.len() - 1;
        &mut self.windows[last]
    }

    /// Merges neighbouring windows: half as many, twice as long.
    fn coarsen(&mut self) {
        let old = std::mem::take(&mut self.windows);
        for mut w in old {
            w.index /= 2;
            match self.windows.last_mut() {
                Some(last) if last.index == w.index => last.merge(w),
                _ => self.windows.push(w),
            }
        }
        self.interval_ns = self.interval_ns.saturating_mul(2);
    }

    /// Totals over all windows.
    pub fn totals(&self) -> Window {
        let mut t = Window::default();
        for w in &self.windows {
            t.merge(w.clone());
        }
        t
    }
}

pub struct Timeline {
    interval_ns: u64,
    max_windows: usize,
    max_subjects: usize,
    origin: Option<Timestamp>,
    series: BTreeMap<Subject, Series>,
    /// Subjects not tracked because of `max_subjects`.
    dropped_subjects: u64,
    /// Windows of all subjects together: past `max_total_windows` the subject with the most
    /// windows is coarsened, so many subjects cannot each fill `max_windows`.
    total_windows: usize,
    max_total_windows: usize,
    /// False for a run that never shows the series (`check`): only the origin is kept, so
    /// [`Timeline::window_start`] still answers, and every record is a no-op.
    recording: bool,
    /// False for a run that reads the windows only (`export`): members are not described
    /// ([`Timeline::describe`]), and analysers need not work out what a description says.
    describing: bool,
}

impl Timeline {
    pub fn new(interval_ns: u64) -> Self {
        Timeline {
            interval_ns: interval_ns.max(1),
            max_windows: 4096,
            max_subjects: 4096,
            origin: None,
            series: BTreeMap::new(),
            dropped_subjects: 0,
            total_windows: 0,
            max_total_windows: 1 << 18,
            recording: true,
            describing: true,
        }
    }

    /// A timeline that records nothing but its origin: for a run whose series nobody reads
    /// (`check` prints findings and summaries only). Analysers ask [`Timeline::recording`]
    /// before they build what they would record.
    pub fn not_recording(mut self) -> Self {
        self.recording = false;
        self
    }

    /// A timeline whose windows are all that is read (`export`'s `windows` table): the
    /// members' descriptions and long-run shares are not kept ([`Timeline::describing`]).
    pub fn windows_only(mut self) -> Self {
        self.describing = false;
        self
    }

    /// Whether members' descriptions are kept (see [`Timeline::windows_only`]): an analyser
    /// asks before it works one out.
    pub fn describing(&self) -> bool {
        self.recording && self.describing
    }

    /// Whether records are kept (see [`Timeline::not_recording`]).
    pub fn recording(&self) -> bool {
        self.recording
    }

    /// Bounds all subjects' windows together (at least `max_windows`).
    pub fn with_total_windows(mut self, max_total_windows: usize) -> Self {
        self.max_total_windows = max_total_windows.max(self.max_windows);
        self
    }

    /// Windows held by all subjects together.
    pub fn total_windows(&self) -> usize {
        self.total_windows
    }

    /// Halves the windows of the subject that holds the most.
    fn coarsen_largest(&mut self) {
        if let Some(s) = self.series.values_mut().max_by_key(|s| s.windows.len()) {
            let before = s.windows.len();
            s.coarsen();
            self.total_windows = self.total_windows + s.windows.len() - before;
        }
    }

    pub fn with_bounds(mut self, max_windows: usize, max_subjects: usize) -> Self {
        self.max_windows = max_windows.max(2);
        self.max_subjects = max_subjects.max(1);
        self
    }

    pub fn interval_ns(&self) -> u64 {
        self.interval_ns
    }

    /// The start of window 0 (the first frame's time, set by the first record).
    pub fn origin(&self) -> Option<Timestamp> {
        self.origin
    }

    pub fn series(&self) -> &BTreeMap<Subject, Series> {
        &self.series
    }

    pub fn dropped_subjects(&self) -> u64 {
        self.dropped_subjects
    }

    /// Takes in the series of `other`, a timeline of the same run kept apart (`check`'s parts,
    /// each with analysers of its own, hence subjects of its own; all start at the run's first
    /// frame). A subject both have keeps this timeline's series.
    pub fn absorb(&mut self, other: Timeline) {
        self.origin = match (self.origin, other.origin) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.dropped_subjects += other.dropped_subjects;
        for (subject, series) in other.series {
            if !self.series.contains_key(&subject) {
                self.total_windows += series.windows.len();
                self.series.insert(subject, series);
            }
        }
    }

    /// Sets the origin (call with the first frame's time; later calls are ignored).
    pub fn start(&mut self, t: Timestamp) {
        self.origin.get_or_insert(t);
    }

    fn at(&mut self, t: Timestamp, subject: &Subject, kind: &str) -> Option<&mut Window> {
        self.series_at(t, subject, kind)?.windows.last_mut()
    }

    /// The series of `subject` with its window of `t` made (the last one), `None` when not
    /// recording or past the subjects kept.
    fn series_at(&mut self, t: Timestamp, subject: &Subject, kind: &str) -> Option<&mut Series> {
        let origin = *self.origin.get_or_insert(t);
        if !self.recording {
            return None;
        }
        if !self.series.contains_key(subject) {
            if self.series.len() >= self.max_subjects {
                self.dropped_subjects += 1;
                return None;
            }
            self.series.insert(
                subject.clone(),
                Series {
                    kind: kind.to_string(),
                    interval_ns: self.interval_ns,
                    ..Series::default()
                },
            );
        }
        if self.total_windows >= self.max_total_windows {
            self.coarsen_largest();
        }
        let s = self.series.get_mut(subject)?;
        if !kind.is_empty() && s.kind != kind {
            s.kind = kind.to_string();
        }
        let ns = elapsed_ns(origin, t);
        let before = s.windows.len();
        // Coarsened until the new windows fit (a gap filled may need several halvings; each
        // halves the gap too, and 64 leave any interval past u64::MAX).
        for _ in 0..64 {
            let need = s.windows_needed(ns / s.interval_ns);
            let held = s.windows.len() as u64;
            if need == 0 || held.saturating_add(need) <= self.max_windows as u64 {
                break;
            }
            s.coarsen();
        }
        s.window(ns / s.interval_ns);
        // The count before may be above or below: coarsening removed, window() added.
        self.total_windows = (self.total_windows + s.windows.len()).saturating_sub(before);
        Some(s)
    }

    /// Records one answer: `chosen` in the order given (first place first) and, per member, the
    /// reference's probability of being first and of being in the answer.
    pub fn answer(
        &mut self,
        t: Timestamp,
        subject: &Subject,
        kind: &str,
        chosen: &[String],
        expected: &[(String, f64, f64)],
    ) {
        if let Some(w) = self.at(t, subject, kind) {
            w.count_answer(chosen, Some(expected), usize::MAX);
        }
    }

    /// Records one answer as [`Timeline::answer`] does, its members given by key (an RSerPool
    /// PE's identifier, a DHCP server's place in its pair) and named by `name` the first time a
    /// series meets them, so that an answer costs no name built and one look-up per member;
    /// `expected` `None` for an answer the reference could not judge; `source`: who gave it (an
    /// RSerPool pool's registrar, [`Series::answers_by`]).
    #[allow(clippy::too_many_arguments)]
    pub fn answer_by_key<K: Copy + Into<u64>>(
        &mut self,
        t: Timestamp,
        subject: &Subject,
        kind: &str,
        source: Option<&str>,
        chosen: &[K],
        expected: Option<&[(K, f64, f64)]>,
        name: impl Fn(K) -> String,
    ) {
        let Some(s) = self.series_at(t, subject, kind) else {
            return;
        };
        let Some(w) = s.windows.last_mut() else {
            return;
        };
        let slots = &mut s.slots;
        w.count(
            chosen.iter().copied(),
            expected.map(|e| e.iter().copied()),
            |members, key| match slots.of(key, &name) {
                Some((slot, n)) => Some(members.slot_mut(slot, n)),
                None => Some(members.entry_mut(&name(key))),
            },
        );
        if let Some(source) = source {
            if let Some(n) = s.answers_by.get_mut(source) {
                *n += 1;
            } else if s.answers_by.len() < MAX_SOURCES {
                s.answers_by.insert(source.to_string(), 1);
            }
        }
    }

    /// A source named `was` is now named `now` (an RSerPool registrar whose server id became
    /// known): its answers and marks so far go under the new name.
    pub fn rename_source(&mut self, was: &str, now: &str) {
        for s in self.series.values_mut() {
            if let Some(n) = s.answers_by.remove(was) {
                *s.answers_by.entry(now.to_string()).or_default() += n;
            }
            for m in s.marks.iter_mut().filter(|m| m.source == was) {
                m.source = now.to_string();
            }
        }
    }

    /// Marks something that happened to `subject` (see [`SeriesEvent`]).
    pub fn mark(&mut self, subject: &Subject, kind: &str, mut mark: SeriesEvent) {
        if self.at(mark.time, subject, kind).is_none() {
            return;
        }
        if let Some(origin) = self.origin {
            mark.offset_ns = elapsed_ns(origin, mark.time);
        }
        if let Some(s) = self.series.get_mut(subject) {
            if s.marks.len() < MAX_MARKS {
                // Marks come in frame order; one reported late goes to its place.
                let at = s.marks.partition_point(|m| m.frame <= mark.frame);
                s.marks.insert(at, mark);
            } else {
                s.marks_dropped += 1;
            }
        }
    }

    /// Sets a gauge (its last value in the window is kept).
    pub fn gauge(&mut self, t: Timestamp, subject: &Subject, kind: &str, name: &str, value: f64) {
        if let Some(w) = self.at(t, subject, kind) {
            // Looked up first: a gauge is set at every answer, its name rarely new.
            match w.gauges.get_mut(name) {
                Some(v) => *v = value,
                None => {
                    w.gauges.insert(name.to_string(), value);
                }
            }
        }
    }

    /// Counts a finding in its window.
    pub fn finding(&mut self, t: Timestamp, subject: &Subject) {
        self.findings(t, subject, 1);
    }

    /// Counts `n` findings at `t`. A finding reported late (held until the end of the run) goes
    /// into the window that holds `t`, or the last one before it, not into the last window.
    pub fn findings(&mut self, t: Timestamp, subject: &Subject, n: u64) {
        self.count_findings(t, subject, None, n);
    }

    /// Counts a finding about `member` of `subject` (a server of a DHCP pair): in the subject's
    /// window, and in the member's counts there.
    pub fn member_finding(&mut self, t: Timestamp, subject: &Subject, member: Option<&str>) {
        self.count_findings(t, subject, member, 1);
    }

    fn count_findings(&mut self, t: Timestamp, subject: &Subject, member: Option<&str>, n: u64) {
        let add = |w: &mut Window| {
            w.findings = w.findings.saturating_add(n);
            if let Some(m) = member {
                let c = w.members.entry_mut(m);
                c.findings = c.findings.saturating_add(n);
            }
        };
        if let (Some(origin), Some(s)) = (self.origin, self.series.get_mut(subject)) {
            let index = elapsed_ns(origin, t) / s.interval_ns;
            if s.windows.last().is_some_and(|w| w.index > index) {
                let at = s.windows.partition_point(|w| w.index <= index);
                if let Some(w) = s.windows.get_mut(at.saturating_sub(1)) {
                    add(w);
                }
                return;
            }
        }
        if let Some(w) = self.at(t, subject, "") {
            add(w);
        }
    }

    /// The start of the base window (of `interval_ns`) that holds `t`: a time that stays in the
    /// same window of every series, however much they coarsen. `None` before the first record.
    pub fn window_start(&self, t: Timestamp) -> Option<Timestamp> {
        let origin = self.origin?;
        let ns = elapsed_ns(origin, t);
        let start = u128::from(ns - ns % self.interval_ns.max(1)) + u128::from(origin.nanos);
        let secs = i64::try_from(start / 1_000_000_000).ok()?;
        let nanos = u32::try_from(start % 1_000_000_000).ok()?;
        Some(Timestamp::new(origin.secs.saturating_add(secs), nanos))
    }

    /// An episode of `subject` opened, or the one it told last changed (the same start frame:
    /// it closed, or grew).
    pub fn episode(&mut self, subject: &Subject, e: Episode) {
        if !self.recording {
            return;
        }
        if !self.series.contains_key(subject) && self.at(e.start.time, subject, "").is_none() {
            return;
        }
        let Some(s) = self.series.get_mut(subject) else {
            return;
        };
        let n = s.episodes.len();
        match s.episodes.last_mut() {
            Some(last) if last.start.frame == e.start.frame => *last = e,
            _ if n < MAX_EPISODES => s.episodes.push(e),
            _ => {}
        }
    }

    /// Describes a member as it is now (e.g. "weight 3"), and the reference's long-run share.
    pub fn describe(
        &mut self,
        subject: &Subject,
        member: &str,
        text: String,
        expected_share: Option<f64>,
    ) {
        if !self.describing() {
            return;
        }
        if let Some(s) = self.series.get_mut(subject) {
            s.left.remove(member);
            s.members.insert(member.to_string(), text);
            match expected_share {
                Some(x) => {
                    s.expected_share.insert(member.to_string(), x);
                }
                None => {
                    s.expected_share.remove(member);
                }
            }
        }
    }

    /// The capture ended at `t`: every subject with members registered gets its windows up to
    /// `t` (its members were there, idle, after its last record).
    pub fn extend_members(&mut self, t: Timestamp) {
        let open: Vec<Subject> = self
            .series
            .iter()
            .filter(|(_, s)| s.filling())
            .map(|(k, _)| k.clone())
            .collect();
        for subject in open {
            self.at(t, &subject, "");
        }
    }

    /// The members of `subject` registered from `t` on (after a registration or a removal):
    /// from now on its membership is tracked. The window at `t` lists those that were in before
    /// and those in now; those that left keep their last description in [`Series::left`].
    pub fn set_members(
        &mut self,
        t: Timestamp,
        subject: &Subject,
        kind: &str,
        now: impl IntoIterator<Item = String>,
    ) {
        if !self.recording {
            return;
        }
        let now: BTreeSet<String> = now.into_iter().collect();
        // The window made (with the members before the change), or the current one.
        if self.at(t, subject, kind).is_none() {
            return;
        }
        let Some(s) = self.series.get_mut(subject) else {
            return;
        };
        let before = s.registered.take().unwrap_or_default();
        for gone in before.difference(&now) {
            let description = s.members.remove(gone).unwrap_or_default();
            let expected_share = s.expected_share.remove(gone);
            s.left.insert(
                gone.clone(),
                Former {
                    description,
                    expected_share,
                },
            );
        }
        for back in now.difference(&before) {
            s.left.remove(back);
        }
        let n = now.len() as u64;
        if let Some(w) = s.windows.last_mut() {
            for m in &now {
                w.members.entry_mut(m);
            }
            let r = w.registered.get_or_insert(Registered {
                start: before.len() as u64,
                end: n,
                max: n,
            });
            r.end = n;
            r.max = r.max.max(n);
        }
        s.registered = Some(now);
    }
}

fn elapsed_ns(origin: Timestamp, t: Timestamp) -> u64 {
    let secs = t.secs.saturating_sub(origin.secs);
    let ns = i128::from(secs) * 1_000_000_000 + i128::from(t.nanos) - i128::from(origin.nanos);
    u64::try_from(ns.max(0)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn late_findings_go_to_the_window_of_their_time() {
        let mut tl = Timeline::new(1_000_000_000);
        let pool = Subject::Pool("P".into());
        let exp = vec![("a".to_string(), 1.0, 1.0)];
        for secs in [100, 102, 105] {
            tl.answer(Timestamp::new(secs, 0), &pool, "pool", &ids(&["a"]), &exp);
        }
        // Reported at the end, about times already past: into windows 2 and 0 (window 1 has no
        // answers: the window before it), not into the last one.
        tl.findings(Timestamp::new(102, 500_000_000), &pool, 3);
        tl.finding(Timestamp::new(101, 0), &pool);
        tl.finding(Timestamp::new(106, 0), &pool);
        let got: Vec<(u64, u64)> = tl.series()[&pool]
            .windows
            .iter()
            .map(|w| (w.index, w.findings))
            .collect();
        assert_eq!(got, vec![(0, 1), (2, 3), (5, 0), (6, 1)]);
        // The start of the base window holding a time.
        assert_eq!(
            tl.window_start(Timestamp::new(102, 999_999_999)),
            Some(Timestamp::new(102, 0))
        );
        assert_eq!(Timeline::new(1).window_start(Timestamp::new(1, 0)), None);
    }

    #[test]
    fn windows_count_answers_and_expectations() {
        let mut tl = Timeline::new(1_000_000_000);
        let pool = Subject::Pool("P".into());
        let exp = vec![("a".to_string(), 0.5, 1.0), ("b".to_string(), 0.5, 1.0)];
        tl.answer(
            Timestamp::new(100, 0),
            &pool,
            "pool",
            &ids(&["a", "b"]),
            &exp,
        );
        tl.answer(
            Timestamp::new(100, 500_000_000),
            &pool,
            "pool",
            &ids(&["b", "a"]),
            &exp,
        );
        tl.answer(Timestamp::new(102, 0), &pool, "pool", &ids(&["a"]), &exp);
        tl.finding(Timestamp::new(102, 1), &pool);
        let s = &tl.series()[&pool];
        assert_eq!(s.windows.len(), 2);
        assert_eq!(s.windows[0].index, 0);
        assert_eq!(s.windows[1].index, 2);
        assert_eq!(s.windows[0].members["a"].first, 1);
        assert_eq!(s.windows[0].members["b"].any, 2);
        assert!((s.windows[0].members["a"].expected_first - 1.0).abs() < 1e-12);
        assert_eq!(s.windows[1].findings, 1);
        assert_eq!(s.totals().answers, 3);
    }

    #[test]
    fn long_series_are_coarsened_not_grown() {
        let mut tl = Timeline::new(1_000_000_000).with_bounds(8, 4);
        let pool = Subject::Pool("P".into());
        for sec in 0..1000 {
            tl.answer(Timestamp::new(sec, 0), &pool, "pool", &ids(&["a"]), &[]);
        }
        let s = &tl.series()[&pool];
        assert!(s.windows.len() <= 8, "{}", s.windows.len());
        assert_eq!(s.totals().answers, 1000);
        assert_eq!(s.interval_ns % 1_000_000_000, 0);
        for i in 0..10 {
            tl.gauge(
                Timestamp::new(0, 0),
                &Subject::Pool(format!("q{i}")),
                "pool",
                "pes",
                1.0,
            );
        }
        assert_eq!(tl.series().len(), 4);
        assert_eq!(tl.dropped_subjects(), 7);
    }

    #[test]
    fn many_subjects_share_one_window_budget() {
        let mut tl = Timeline::new(1_000_000_000)
            .with_bounds(64, 100)
            .with_total_windows(256);
        for sec in 0..2000 {
            for p in 0..50 {
                let pool = Subject::Pool(format!("p{p}"));
                tl.answer(Timestamp::new(sec, 0), &pool, "pool", &ids(&["a"]), &[]);
            }
            let held: usize = tl.series().values().map(|s| s.windows.len()).sum();
            assert_eq!(held, tl.total_windows());
            assert!(held <= 257, "{held} windows at second {sec}");
        }
        // Nothing is lost by coarsening: every answer is still counted.
        for s in tl.series().values() {
            assert_eq!(s.totals().answers, 2000);
        }
    }

    /// Answers recorded by key give the series that the same answers recorded by name give:
    /// windows, members, counts, sources, through coarsening, tracked members, and past the
    /// members a series numbers.
    #[test]
    fn answers_by_key_count_as_answers_by_name() {
        let mut by_name = Timeline::new(1_000_000_000).with_bounds(16, 8);
        let mut by_key = Timeline::new(1_000_000_000).with_bounds(16, 8);
        let name = |k: u32| format!("0x{k:08x}");
        let mut state = 11u64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % n
        };
        for i in 0..20_000u64 {
            let pool = Subject::Pool(format!("p{}", next(3)));
            let t = Timestamp::new(i64::try_from(i / 40).unwrap_or(0), 0);
            // Half the time one of a few members, else one of many more than a series numbers.
            let member = |r: u64| {
                u32::try_from(if r % 2 == 0 { 100_000 + r / 2 } else { r % 7 }).unwrap_or(0)
            };
            let chosen: Vec<u32> = (0..1 + next(3)).map(|_| member(next(1 << 17))).collect();
            let expected: Vec<(u32, f64, f64)> = (0..next(4))
                .map(|j| (member(next(1 << 17)), 0.25 * j as f64, 0.5))
                .collect();
            let judged = next(5) > 0;
            let source = format!("r{}", next(2));
            if i % 1000 == 0 {
                let now: Vec<String> = (0..next(4))
                    .map(|k| name(u32::try_from(k).unwrap_or(0)))
                    .collect();
                by_name.set_members(t, &pool, "pool", now.clone());
                by_key.set_members(t, &pool, "pool", now);
            }
            let names: Vec<String> = chosen.iter().map(|k| name(*k)).collect();
            let named: Vec<(String, f64, f64)> = expected
                .iter()
                .map(|(k, f, a)| (name(*k), *f, *a))
                .collect();
            if let Some(w) = by_name.at(t, &pool, "pool") {
                w.count_answer(&names, judged.then_some(&named[..]), usize::MAX);
            }
            if let Some(s) = by_name.series.get_mut(&pool) {
                *s.answers_by.entry(source.clone()).or_default() += 1;
            }
            by_key.answer_by_key(
                t,
                &pool,
                "pool",
                Some(&source),
                &chosen,
                judged.then_some(&expected[..]),
                name,
            );
        }
        assert_eq!(by_name.series().len(), 3);
        for (subject, s) in by_name.series() {
            let k = &by_key.series()[subject];
            assert_eq!(k.windows, s.windows, "{subject:?}");
            assert_eq!(k.answers_by, s.answers_by);
            assert!(
                k.windows.iter().any(|w| w.members.len() > 7),
                "past the slots"
            );
            // Only the last window, the one answers are counted into, remembers its slots'
            // places (as many as the series numbers at most).
            let (last, before) = k.windows.split_last().expect("windows");
            assert!(before.iter().all(|w| w.members.slots_remembered() == 0));
            assert!(last.members.slots_remembered() <= MAX_SLOTS);
        }
        assert!(by_key
            .series()
            .values()
            .any(|s| s.slots.names.len() == MAX_SLOTS));
    }

    fn names(w: &Window) -> Vec<&str> {
        w.members.keys().map(String::as_str).collect()
    }

    #[test]
    fn tracked_members_are_listed_in_every_window_they_were_registered_in() {
        let mut tl = Timeline::new(10_000_000_000);
        let pool = Subject::Pool("P".into());
        let at = |s: i64| Timestamp::new(1000 + s, 0);
        tl.start(at(0));
        tl.set_members(at(2), &pool, "pool", ids(&["a"]));
        tl.set_members(at(3), &pool, "pool", ids(&["a", "b", "c"]));
        tl.describe(&pool, "c", "weight 1".into(), Some(0.0));
        // Only a is ever chosen; c is never even in an answer.
        let exp = vec![("a".to_string(), 1.0, 1.0), ("b".to_string(), 0.0, 1.0)];
        tl.answer(at(15), &pool, "pool", &ids(&["a", "b"]), &exp);
        // Nothing recorded from 20 s to 45 s; b leaves at 45 s, a and c at 52 s.
        tl.set_members(at(45), &pool, "pool", ids(&["a", "c"]));
        tl.set_members(at(52), &pool, "pool", Vec::new());
        tl.describe(&pool, "x", "late".into(), None);
        let s = &tl.series()[&pool];
        let got: Vec<(u64, Vec<&str>, Option<Registered>)> = s
            .windows
            .iter()
            .map(|w| (w.index, names(w), w.registered))
            .collect();
        let r = |start, end, max| Some(Registered { start, end, max });
        assert_eq!(
            got,
            vec![
                (0, vec!["a", "b", "c"], r(0, 3, 3)),
                (1, vec!["a", "b", "c"], r(3, 3, 3)),
                // The windows without records are there: the members were.
                (2, vec!["a", "b", "c"], r(3, 3, 3)),
                (3, vec!["a", "b", "c"], r(3, 3, 3)),
                (4, vec!["a", "b", "c"], r(3, 2, 3)),
                (5, vec!["a", "c"], r(2, 0, 2)),
            ]
        );
        assert_eq!(s.windows[1].members["c"], MemberCounts::default());
        assert_eq!(s.left["c"].description, "weight 1");
        assert_eq!(s.left["c"].expected_share, Some(0.0));
        assert!(!s.members.contains_key("c"));
        assert_eq!(s.registered.as_ref().map(BTreeSet::len), Some(0));
        // The members registered read as a level (the TUI plots it for a pool without answers).
        assert_eq!(s.windows[4].level("pes"), Some(2.0));
        assert_eq!(s.windows[4].level_names().collect::<Vec<_>>(), ["pes"]);
        // Merged windows: counts from the first's start to the second's end.
        let mut w = s.windows[4].clone();
        w.merge(s.windows[5].clone());
        assert_eq!(w.registered, r(3, 0, 3));
    }

    #[test]
    fn members_still_registered_reach_the_end_and_gaps_coarsen() {
        let mut tl = Timeline::new(1_000_000_000).with_bounds(8, 4);
        let pool = Subject::Pool("P".into());
        tl.set_members(Timestamp::new(0, 0), &pool, "pool", ids(&["a"]));
        // A gap of 100 windows cannot be filled within 8: the series coarsens until it fits.
        tl.extend_members(Timestamp::new(100, 0));
        let s = &tl.series()[&pool];
        assert!(s.windows.len() <= 8, "{}", s.windows.len());
        let last = s.windows.last().expect("a window");
        assert!(
            (last.index + 1) * s.interval_ns > 100_000_000_000,
            "up to the end"
        );
        for (i, w) in s.windows.iter().enumerate() {
            assert_eq!(w.index, i as u64, "no gaps");
            assert_eq!(names(w), ["a"]);
        }
        assert_eq!(tl.total_windows(), s.windows.len());
    }

    #[test]
    fn a_members_findings_count_under_it_and_in_the_window() {
        let mut tl = Timeline::new(1_000_000_000);
        let pair = Subject::Server("s1+s2".into());
        let exp = vec![("s1".to_string(), 1.0, 1.0), ("s2".to_string(), 0.0, 0.0)];
        tl.start(Timestamp::new(0, 0));
        tl.answer(Timestamp::new(1, 0), &pair, "pair", &ids(&["s1"]), &exp);
        tl.answer(Timestamp::new(5, 0), &pair, "pair", &ids(&["s1"]), &exp);
        tl.member_finding(Timestamp::new(5, 1), &pair, Some("s2"));
        tl.member_finding(Timestamp::new(5, 2), &pair, None);
        // Late, about an earlier time: into the window before it (1 s; none from 2 s to 5 s).
        tl.member_finding(Timestamp::new(3, 0), &pair, Some("s1"));
        let s = &tl.series()[&pair];
        assert_eq!(tl.series().len(), 1, "no series of a server alone");
        assert_eq!(s.windows[0].findings, 1);
        assert_eq!(s.windows[0].members["s1"].findings, 1);
        assert_eq!(s.windows[1].findings, 2);
        assert_eq!(s.windows[1].members["s2"].findings, 1);
        assert_eq!(s.windows[1].members["s1"].findings, 0);
    }
}
