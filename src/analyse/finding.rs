//! Findings: what an analyser reports when what it saw deviates from its reference.
//!
//! Every finding names a rule id (`rserpool.duplicate-pe`, `dhcp.lb.wrong-server`, ...), the
//! frame (1-based), the pool or server it concerns, a severity, what the reference expected and
//! what was observed. Findings are kept up to a bound; counts per rule stay exact beyond it.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::base::Timestamp;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    /// The severity as a list of one, for a rule that always carries it.
    pub fn alone(self) -> &'static [Severity] {
        match self {
            Severity::Info => &[Severity::Info],
            Severity::Warning => &[Severity::Warning],
            Severity::Error => &[Severity::Error],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad` so that width and alignment apply (the findings listing aligns its columns).
        f.pad(self.name())
    }
}

impl std::str::FromStr for Severity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "info" => Ok(Severity::Info),
            "warning" => Ok(Severity::Warning),
            "error" => Ok(Severity::Error),
            _ => Err(format!(
                "unknown severity {s:?}: use info, warning or error"
            )),
        }
    }
}

/// What a finding is about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subject {
    /// An RSerPool pool, by its handle (text when printable, else hex).
    Pool(String),
    /// A DHCP server, or a pair of servers.
    Server(String),
    /// A failover pool (address range or subnet).
    FailoverPool(String),
}

impl Subject {
    /// The kind as reports key it (`pool`, `server`, `failover_pool`) and the name.
    pub fn kind_and_name(&self) -> (&'static str, &str) {
        match self {
            Subject::Pool(p) => ("pool", p),
            Subject::Server(s) => ("server", s),
            Subject::FailoverPool(p) => ("failover_pool", p),
        }
    }

    /// The kind as people read it (`pool`, `server`, `failover pool`).
    pub fn kind_text(&self) -> &'static str {
        match self {
            Subject::Pool(_) => "pool",
            Subject::Server(_) => "server",
            Subject::FailoverPool(_) => "failover pool",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub frame: u64,
    /// When: set as a report records the finding ([`crate::analyse::Report::push`]).
    pub time: Option<Timestamp>,
    pub rule: &'static str,
    pub severity: Severity,
    pub subject: Subject,
    /// What else findings of one rule, severity and subject share to be alike when a listing
    /// folds repeats ([`Findings::listing`]): the circumstance the message names ("while it was
    /// down"), the registrar that answered; empty when the rule and subject say it all.
    pub group: String,
    pub expected: serde_json::Value,
    pub observed: serde_json::Value,
    pub message: String,
}

impl Finding {
    /// The JSON object of a finding: `pool` or `server` by subject.
    pub fn to_json(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        m.insert("frame".into(), self.frame.into());
        if let Some(t) = self.time {
            m.insert("time".into(), t.as_f64().into());
        }
        m.insert("rule".into(), self.rule.into());
        m.insert("severity".into(), self.severity.name().into());
        let (k, v) = self.subject.kind_and_name();
        m.insert(k.into(), v.into());
        m.insert("expected".into(), self.expected.clone());
        m.insert("observed".into(), self.observed.clone());
        m.insert("message".into(), self.message.clone().into());
        serde_json::Value::Object(m)
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kind, name) = (self.subject.kind_text(), self.subject.kind_and_name().1);
        write!(
            f,
            "frame {:>6}  {:<7}  {:<28} ",
            self.frame, self.severity, self.rule
        )?;
        // A message that opens with its subject's name reads on from the subject ("server
        // 192.0.2.1 answered ..."), instead of naming it twice ("server 192.0.2.1: 192.0.2.1
        // answered ..."). The JSON message keeps the name: it stands alone there.
        match self.message.strip_prefix(name) {
            Some(rest) if rest.starts_with(' ') => write!(f, "{kind} {name}{rest}"),
            _ => write!(f, "{kind} {name}: {}", self.message),
        }
    }
}

/// Alike findings (one rule, severity, subject and [`Finding::group`]) follow one another in a
/// run while each comes within this many seconds of capture time of the one before; another
/// finding of the same subject ends the run too.
const RUN_GAP_SECONDS: f64 = 10.0;
/// Runs of at least this many findings are listed folded: their first finding, then a line
/// that counts the others.
pub const RUN_FOLDED: usize = 4;

/// Subjects whose findings are counted by rule and severity ([`Findings::by_subject`]); the
/// findings of others are counted in [`Findings::subjects_not_counted`].
pub const MAX_COUNTED_SUBJECTS: usize = 4096;

/// Counts of findings by rule and severity.
pub type RuleCounts = BTreeMap<(&'static str, Severity), u64>;

/// Adds `n` to `subject`'s count of `key`; false when the subject is not counted (past
/// [`MAX_COUNTED_SUBJECTS`]).
fn count_subject(
    counts: &mut BTreeMap<Subject, RuleCounts>,
    subject: &Subject,
    key: (&'static str, Severity),
    n: u64,
) -> bool {
    // Looked up first: a subject's findings rarely are its first, and the key is cloned only
    // for a new one.
    if let Some(c) = counts.get_mut(subject) {
        *c.entry(key).or_default() += n;
        return true;
    }
    if counts.len() >= MAX_COUNTED_SUBJECTS {
        return false;
    }
    *counts
        .entry(subject.clone())
        .or_default()
        .entry(key)
        .or_default() += n;
    true
}

/// Findings kept up to `limit`; counts per rule and severity (and per subject, for a bounded
/// number of subjects) stay exact past it.
#[derive(Debug)]
pub struct Findings {
    limit: usize,
    kept: Vec<Finding>,
    /// Bumped by each [`Findings::rewrite`] that changed a kept finding.
    revision: u64,
    dropped: u64,
    by_rule: BTreeMap<&'static str, u64>,
    by_severity: BTreeMap<Severity, u64>,
    by_rule_severity: RuleCounts,
    /// Per subject (up to [`MAX_COUNTED_SUBJECTS`]): what the metrics show per server and pool.
    by_subject: BTreeMap<Subject, RuleCounts>,
    subjects_not_counted: u64,
}

impl Findings {
    pub fn new(limit: usize) -> Self {
        Findings {
            limit,
            kept: Vec::new(),
            revision: 0,
            dropped: 0,
            by_rule: BTreeMap::new(),
            by_severity: BTreeMap::new(),
            by_rule_severity: BTreeMap::new(),
            by_subject: BTreeMap::new(),
            subjects_not_counted: 0,
        }
    }

    /// Counts `n` findings of `rule` and `severity` about `subject`.
    fn tally(&mut self, rule: &'static str, severity: Severity, subject: &Subject, n: u64) {
        *self.by_rule.entry(rule).or_default() += n;
        *self.by_severity.entry(severity).or_default() += n;
        *self.by_rule_severity.entry((rule, severity)).or_default() += n;
        if !count_subject(&mut self.by_subject, subject, (rule, severity), n) {
            self.subjects_not_counted += n;
        }
    }

    pub fn push(&mut self, f: Finding) {
        self.tally(f.rule, f.severity, &f.subject, 1);
        if self.kept.len() < self.limit {
            self.kept.push(f);
        } else {
            self.dropped += 1;
        }
    }

    /// Counts `n` findings about `subject` that are not listed (their analyser kept only a
    /// tally of them).
    pub fn count_unlisted(
        &mut self,
        rule: &'static str,
        severity: Severity,
        subject: &Subject,
        n: u64,
    ) {
        self.tally(rule, severity, subject, n);
        self.dropped += n;
    }

    pub fn list(&self) -> &[Finding] {
        &self.kept
    }

    /// Changes kept findings in place: `f` returns whether it changed one (an analyser that
    /// learnt a better name for what its earlier findings named, so that a report names it one
    /// way). Counts are not affected.
    pub fn rewrite(&mut self, mut f: impl FnMut(&mut Finding) -> bool) {
        let mut changed = false;
        for x in &mut self.kept {
            changed |= f(x);
        }
        if changed {
            self.revision += 1;
        }
    }

    /// How many [`Findings::rewrite`]s changed kept findings: a viewer holding copies of them
    /// takes them all again when it changes.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Findings not kept because the bound was reached (still counted per rule).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    pub fn by_rule(&self) -> &BTreeMap<&'static str, u64> {
        &self.by_rule
    }

    pub fn count(&self, s: Severity) -> u64 {
        self.by_severity.get(&s).copied().unwrap_or(0)
    }

    /// Every finding counted by rule and severity.
    pub fn by_rule_severity(&self) -> &RuleCounts {
        &self.by_rule_severity
    }

    /// The findings of each subject by rule and severity (up to [`MAX_COUNTED_SUBJECTS`]
    /// subjects).
    pub fn by_subject(&self) -> &BTreeMap<Subject, RuleCounts> {
        &self.by_subject
    }

    /// Findings about subjects past [`MAX_COUNTED_SUBJECTS`], counted in the totals only.
    pub fn subjects_not_counted(&self) -> u64 {
        self.subjects_not_counted
    }

    /// Whether any finding is at or above `s`.
    pub fn any_at_least(&self, s: Severity) -> bool {
        self.by_severity.range(s..).any(|(_, n)| *n > 0)
    }

    pub fn total(&self) -> u64 {
        self.by_severity.values().sum()
    }

    /// Adds the findings of another report of the same run (another thread's analysers). The
    /// counts add up; past the bound, the earliest findings by frame are the ones listed.
    pub fn absorb(&mut self, other: Findings) {
        for (rule, n) in other.by_rule {
            *self.by_rule.entry(rule).or_default() += n;
        }
        for (severity, n) in other.by_severity {
            *self.by_severity.entry(severity).or_default() += n;
        }
        for (key, n) in other.by_rule_severity {
            *self.by_rule_severity.entry(key).or_default() += n;
        }
        self.subjects_not_counted += other.subjects_not_counted;
        for (subject, counts) in other.by_subject {
            for (key, n) in counts {
                if !count_subject(&mut self.by_subject, &subject, key, n) {
                    self.subjects_not_counted += n;
                }
            }
        }
        self.dropped += other.dropped;
        self.kept.extend(other.kept);
        if self.kept.len() > self.limit {
            self.sort();
            self.dropped += (self.kept.len() - self.limit) as u64;
            self.kept.truncate(self.limit);
        }
    }

    /// Orders kept findings by frame (analysers may report late, e.g. at the end of a window).
    pub fn sort(&mut self) {
        self.kept.sort_by_key(|f| f.frame);
    }

    /// The kept findings as text, a line each in the order kept ([`Findings::sort`] first),
    /// except that, unless `every`, a run of [`RUN_FOLDED`] or more alike findings (an outage
    /// seen by each client it left without service) shows its first finding and a line that
    /// counts the rest, where it ended and how long it lasted.
    pub fn listing(&self, every: bool) -> String {
        let (runs, run_of) = runs(&self.kept);
        let mut s = String::new();
        for (i, f) in self.kept.iter().enumerate() {
            let run = run_of.get(i).and_then(|&r| runs.get(r));
            let folded = run.filter(|r| !every && r.len >= RUN_FOLDED);
            if folded.is_some_and(|r| r.first != i) {
                continue;
            }
            s.push_str(&f.to_string());
            s.push('\n');
            if let Some(r) = folded {
                let last = self.kept.get(r.last).unwrap_or(f);
                let after = match (f.time, last.time) {
                    (Some(a), Some(b)) => format!(", {:.1} s later", b.since(a)),
                    _ => String::new(),
                };
                s.push_str(&format!(
                    "{:FOLD_INDENT$}... and {} more like it, the last in frame {}{after} (--all-findings lists each)\n",
                    "",
                    r.len - 1,
                    last.frame,
                ));
            }
        }
        s
    }
}

/// Where a folded run's counting line starts: under the findings' messages.
const FOLD_INDENT: usize = "frame 123456  warning  ".len() + 29;

/// A run of alike findings: its first and last by index in the list, and how many.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    pub first: usize,
    pub last: usize,
    pub len: usize,
}

/// The runs of alike findings in `list` (in its order), and for each finding the index of its
/// run. A finding joins the open run of its subject when it is alike and within
/// [`RUN_GAP_SECONDS`] of the run's last; else it opens its subject's next run.
pub fn runs<F: Borrow<Finding>>(list: &[F]) -> (Vec<Run>, Vec<usize>) {
    let mut runs: Vec<Run> = Vec::new();
    let mut run_of = Vec::with_capacity(list.len());
    let mut open: std::collections::HashMap<&Subject, usize> = std::collections::HashMap::new();
    for (i, f) in list.iter().enumerate() {
        let f: &Finding = f.borrow();
        let joins = open.get(&f.subject).copied().filter(|&r| {
            let Some(run) = runs.get(r) else { return false };
            let (Some(head), Some(prev)) = (list.get(run.first), list.get(run.last)) else {
                return false;
            };
            let (head, prev): (&Finding, &Finding) = (head.borrow(), prev.borrow());
            let near = match (prev.time, f.time) {
                (Some(a), Some(b)) => b.since(a).abs() <= RUN_GAP_SECONDS,
                _ => true,
            };
            head.rule == f.rule && head.severity == f.severity && head.group == f.group && near
        });
        let r = match joins.and_then(|r| runs.get_mut(r).map(|run| (r, run))) {
            Some((r, run)) => {
                run.last = i;
                run.len += 1;
                r
            }
            None => {
                runs.push(Run {
                    first: i,
                    last: i,
                    len: 1,
                });
                open.insert(&f.subject, runs.len() - 1);
                runs.len() - 1
            }
        };
        run_of.push(r);
    }
    (runs, run_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(frame: u64, rule: &'static str, severity: Severity) -> Finding {
        Finding {
            frame,
            time: None,
            group: String::new(),
            rule,
            severity,
            subject: Subject::Pool("RR-Pool".into()),
            expected: serde_json::json!([1, 2]),
            observed: serde_json::json!([2, 1]),
            message: "m".into(),
        }
    }

    #[test]
    fn bounded_but_counted() {
        let mut fs = Findings::new(2);
        fs.push(f(9, "rserpool.order", Severity::Warning));
        fs.push(f(3, "rserpool.order", Severity::Warning));
        fs.push(f(5, "rserpool.too-many", Severity::Error));
        assert_eq!(fs.list().len(), 2);
        assert_eq!(fs.dropped(), 1);
        assert_eq!(fs.by_rule()["rserpool.order"], 2);
        assert!(fs.any_at_least(Severity::Error));
        assert!(fs.any_at_least(Severity::Info));
        assert_eq!(fs.count(Severity::Warning), 2);
        fs.sort();
        assert_eq!(fs.list()[0].frame, 3);
        let j = fs.list()[0].to_json();
        // Another thread's findings: counts add up, the earliest stay listed within the bound.
        let mut other = Findings::new(2);
        other.push(f(1, "dhcp-lb.no-answer", Severity::Warning));
        other.push(f(7, "dhcp-lb.no-answer", Severity::Info));
        other.push(f(8, "dhcp-lb.no-answer", Severity::Info));
        fs.absorb(other);
        let frames: Vec<u64> = fs.list().iter().map(|f| f.frame).collect();
        assert_eq!(frames, vec![1, 3]);
        assert_eq!(fs.total(), 6);
        assert_eq!(fs.dropped(), 4);
        assert_eq!(fs.by_rule()["dhcp-lb.no-answer"], 3);
        assert_eq!(fs.count(Severity::Info), 2);
        assert_eq!(j["pool"], "RR-Pool");
        assert_eq!(j["severity"], "warning");
        assert_eq!(format!("[{:<7}]", Severity::Info), "[info   ]");
    }

    #[test]
    fn findings_are_counted_per_subject_for_a_bounded_number_of_subjects() {
        let mut fs = Findings::new(0);
        let server = |i: usize| Subject::Server(format!("10.0.{}.{}", i / 256, i % 256));
        for i in 0..MAX_COUNTED_SUBJECTS + 3 {
            let mut x = f(i as u64, "dhcp.lb.no-answer", Severity::Warning);
            x.subject = server(i);
            fs.push(x);
        }
        fs.count_unlisted("dhcp.lb.no-answer", Severity::Warning, &server(0), 5);
        assert_eq!(fs.by_subject().len(), MAX_COUNTED_SUBJECTS);
        assert_eq!(fs.subjects_not_counted(), 3);
        assert_eq!(
            fs.by_subject()[&server(0)][&("dhcp.lb.no-answer", Severity::Warning)],
            6
        );
        assert_eq!(
            fs.by_rule_severity()[&("dhcp.lb.no-answer", Severity::Warning)],
            MAX_COUNTED_SUBJECTS as u64 + 8
        );
        // Another part's counts: a known subject adds up, a new one past the bound is counted.
        let mut other = Findings::new(0);
        other.push(f(1, "rserpool.order", Severity::Error));
        let mut known = f(2, "dhcp.lb.no-answer", Severity::Warning);
        known.subject = server(1);
        other.push(known);
        fs.absorb(other);
        assert_eq!(
            fs.by_subject()[&server(1)][&("dhcp.lb.no-answer", Severity::Warning)],
            2
        );
        assert_eq!(fs.subjects_not_counted(), 4);
        assert_eq!(
            fs.by_rule_severity()[&("rserpool.order", Severity::Error)],
            1
        );
    }

    #[test]
    fn a_message_opening_with_its_subject_names_it_once() {
        let server = |name: &str, message: &str| Finding {
            subject: Subject::Server(name.into()),
            message: message.into(),
            ..f(12, "dhcp.lb.no-answer", Severity::Warning)
        };
        let line = server("192.0.2.1", "192.0.2.1 did not answer").to_string();
        assert!(line.ends_with(" server 192.0.2.1 did not answer"), "{line}");
        // Another server whose name merely starts the same, and a message about something
        // else, keep the colon.
        let line = server("192.0.2.1", "192.0.2.10 answered").to_string();
        assert!(
            line.ends_with(" server 192.0.2.1: 192.0.2.10 answered"),
            "{line}"
        );
        let line = f(3, "rserpool.order", Severity::Info).to_string();
        assert!(line.ends_with(" pool RR-Pool: m"), "{line}");
        assert!(
            line.starts_with("frame      3  info     rserpool.order"),
            "{line}"
        );
        let fo = Finding {
            subject: Subject::FailoverPool("192.0.2.0/24".into()),
            ..f(4, "failover.ownership", Severity::Info)
        };
        assert!(fo.to_string().ends_with(" failover pool 192.0.2.0/24: m"));
        assert_eq!(fo.to_json()["failover_pool"], "192.0.2.0/24");
        // JSON keeps the message whole.
        assert_eq!(
            server("192.0.2.1", "192.0.2.1 did not answer").to_json()["message"],
            "192.0.2.1 did not answer"
        );
    }

    #[test]
    fn alike_findings_in_a_row_fold() {
        let at = |frame: u64, secs: i64, server: &str, rule: &'static str, group: &str| Finding {
            time: Some(Timestamp::new(1000 + secs, 0)),
            subject: Subject::Server(server.into()),
            group: group.into(),
            message: format!("{server} missed frame {frame}"),
            ..f(frame, rule, Severity::Warning)
        };
        let down = |frame, secs| at(frame, secs, "s2", "dhcp.lb.no-answer", "down");
        let mut fs = Findings::new(100);
        // s2: five alike within 10 s of each other (interleaved with s1's), then one alike but
        // 11 s after the last: a run of five, then a run of one.
        for (frame, secs) in [(1, 0), (2, 1), (4, 9), (5, 18), (7, 19)] {
            fs.push(down(frame, secs));
        }
        fs.push(down(9, 30));
        // s1: four alike but for the last's circumstance (not alike): no run of four.
        for (frame, group) in [(3, "up"), (6, "up"), (8, "up"), (10, "down")] {
            fs.push(at(frame, 5, "s1", "dhcp.lb.no-answer", group));
        }
        // s3: four alike, but another rule's finding of s3 in between ends the run.
        for (frame, rule) in [
            (11, "dhcp.lb.no-answer"),
            (12, "dhcp.lb.no-answer"),
            (13, "dhcp.lb.takeover"),
            (14, "dhcp.lb.no-answer"),
            (15, "dhcp.lb.no-answer"),
        ] {
            fs.push(at(frame, 40, "s3", rule, ""));
        }
        fs.sort();
        let text = fs.listing(false);
        let frames: Vec<u64> = text
            .lines()
            .filter_map(|l| {
                l.strip_prefix("frame ")?
                    .split_whitespace()
                    .next()?
                    .parse()
                    .ok()
            })
            .collect();
        assert_eq!(frames, [1, 3, 6, 8, 9, 10, 11, 12, 13, 14, 15], "{text}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[1],
            format!(
                "{:52}... and 4 more like it, the last in frame 7, 19.0 s later (--all-findings lists each)",
                ""
            ),
            "{text}"
        );
        assert_eq!(lines.len(), frames.len() + 1, "{text}");
        // Every finding when asked, and a run of three is never folded.
        let every = fs.listing(true);
        assert_eq!(every.lines().count(), 15, "{every}");
        assert!(!every.contains("more like it"));
        // Without times (a finding never recorded in a report), alike findings still fold.
        let mut untimed = Findings::new(100);
        for frame in 1..=4 {
            untimed.push(Finding {
                time: None,
                ..down(frame, 0)
            });
        }
        let text = untimed.listing(false);
        assert!(
            text.ends_with(
                "... and 3 more like it, the last in frame 4 (--all-findings lists each)\n"
            ),
            "{text}"
        );
    }
}
