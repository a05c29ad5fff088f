//! Analysers: typed events in, reference algorithms, findings out. Policy lives here, apart from
//! parsing.
//!
//! An [`Analyser`] sees every decoded message of a run (in frame order, retransmissions already
//! left out by the pipeline), keeps the protocol state it needs (bounded), and reports
//! [`finding::Finding`]s as it goes or at the end. `poolshark check`, `stats` and the TUI drive the
//! same analysers.

pub mod dhcp_lb;
pub mod episodes;
pub mod failover;
pub mod finding;
pub mod msgstats;
pub mod observe;
pub mod policy;
pub mod rserpool;
pub mod rules;
pub mod setup;
pub mod timeline;
pub mod usage;

use crate::base::Timestamp;
use crate::pipeline::Decoded;
use crate::proto::AppProtocol;
use finding::Findings;
use timeline::Timeline;

/// A client's or server's identifying bytes kept in an analyser's events and state (chaddr,
/// DUID, client identifier): inline up to 24 bytes, which holds every hardware address and the
/// usual DUIDs and identifiers, so that making, copying and comparing them allocates nothing;
/// longer ones go to the heap. Reads as a `&[u8]`.
#[derive(Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyBytes(smallvec::SmallVec<[u8; 24]>);

impl KeyBytes {
    pub fn from_slice(bytes: &[u8]) -> Self {
        KeyBytes(smallvec::SmallVec::from_slice(bytes))
    }

    pub fn with_capacity(n: usize) -> Self {
        KeyBytes(smallvec::SmallVec::with_capacity(n))
    }

    pub fn push(&mut self, b: u8) {
        self.0.push(b);
    }
}

impl Clone for KeyBytes {
    /// One copy of the bytes (SmallVec's own clone goes byte by byte).
    fn clone(&self) -> Self {
        KeyBytes::from_slice(&self.0)
    }
}

impl std::ops::Deref for KeyBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for KeyBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0[..], f)
    }
}

impl From<&[u8]> for KeyBytes {
    fn from(bytes: &[u8]) -> Self {
        KeyBytes::from_slice(bytes)
    }
}

impl FromIterator<u8> for KeyBytes {
    fn from_iter<I: IntoIterator<Item = u8>>(iter: I) -> Self {
        KeyBytes(iter.into_iter().collect())
    }
}

impl From<Vec<u8>> for KeyBytes {
    fn from(bytes: Vec<u8>) -> Self {
        KeyBytes::from_slice(&bytes)
    }
}

/// What analysers write into: findings, and the series the statistics and the TUI show; and,
/// for whoever asked, every record as it is made ([`observe`]).
pub struct Report {
    pub findings: Findings,
    pub timeline: Timeline,
    pub observer: Option<Box<dyn observe::Observer>>,
    /// While set, findings outside its agreed set are held back rather than recorded.
    hold: Option<Hold>,
}

/// Findings an analyser has not decided on: while a [`Report`] holds, it records only the
/// findings in `agreed` (by rule and frame) and keeps the others aside. The DHCP analyser holds
/// when the evidence does not decide between two profiles: only what every tied profile flags
/// is recorded.
#[derive(Debug, Default)]
struct Hold {
    agreed: std::collections::BTreeSet<(&'static str, u64)>,
    held: Vec<finding::Finding>,
    recorded: Vec<(&'static str, u64)>,
}

impl Report {
    pub fn new(max_findings: usize, interval_ns: u64) -> Self {
        Report {
            findings: Findings::new(max_findings),
            timeline: Timeline::new(interval_ns),
            observer: None,
            hold: None,
        }
    }

    /// A report of findings only, for a run that never shows the timeline (`check`): the
    /// timeline keeps its origin (for [`Timeline::window_start`], a minute apart) and records
    /// nothing else.
    pub fn for_findings(max_findings: usize) -> Self {
        Report {
            findings: Findings::new(max_findings),
            timeline: Timeline::new(60_000_000_000).not_recording(),
            observer: None,
            hold: None,
        }
    }

    /// From now on, records only the findings in `agreed` until [`Report::release`].
    pub fn hold(&mut self, agreed: std::collections::BTreeSet<(&'static str, u64)>) {
        self.hold = Some(Hold {
            agreed,
            ..Hold::default()
        });
    }

    /// Ends a [`Report::hold`]: the findings held back, and the rule and frame of those
    /// recorded meanwhile.
    pub fn release(&mut self) -> (Vec<finding::Finding>, Vec<(&'static str, u64)>) {
        self.hold
            .take()
            .map(|h| (h.held, h.recorded))
            .unwrap_or_default()
    }

    /// `f` when it is to be recorded, `None` when a hold keeps it aside.
    fn held(&mut self, f: finding::Finding) -> Option<finding::Finding> {
        match &mut self.hold {
            Some(h) if !h.agreed.contains(&(f.rule, f.frame)) => {
                h.held.push(f);
                None
            }
            Some(h) => {
                h.recorded.push((f.rule, f.frame));
                Some(f)
            }
            None => Some(f),
        }
    }

    /// The same report, its records handed to `o` as they are made.
    pub fn observed(mut self, o: Box<dyn observe::Observer>) -> Self {
        self.observer = Some(o);
        self
    }

    /// The observer, when there is one: analysers build a record only then.
    pub fn observing(&mut self) -> Option<&mut (dyn observe::Observer + 'static)> {
        self.observer.as_deref_mut()
    }

    /// Records a finding and counts it in its subject's window.
    pub fn push(&mut self, mut f: finding::Finding, t: Timestamp) {
        f.time = Some(t);
        let Some(f) = self.held(f) else { return };
        self.timeline.finding(t, &f.subject);
        if let Some(o) = &mut self.observer {
            o.finding(&f);
        }
        self.findings.push(f);
    }

    /// Records a finding counted in the window of `series` rather than its own subject's, and
    /// under `member` there: a DHCP server's finding in its pair's series, where the server's
    /// answers are (the server has no series of its own).
    pub fn push_in(
        &mut self,
        mut f: finding::Finding,
        t: Timestamp,
        series: &finding::Subject,
        member: Option<&str>,
    ) {
        f.time = Some(t);
        let Some(f) = self.held(f) else { return };
        self.timeline.member_finding(t, series, member);
        if let Some(o) = &mut self.observer {
            o.finding(&f);
        }
        self.findings.push(f);
    }

    /// Counts `n` findings of one rule, subject and time that are not listed.
    pub fn tally(
        &mut self,
        rule: &'static str,
        severity: finding::Severity,
        subject: &finding::Subject,
        t: Timestamp,
        n: u64,
    ) {
        self.timeline.findings(t, subject, n);
        if let Some(o) = &mut self.observer {
            o.unlisted(rule, severity, subject, t, n);
        }
        self.findings.count_unlisted(rule, severity, subject, n);
    }
}

/// One replay: RSerPool pools, DHCP load balancing, failover pool balance.
pub trait Analyser: Send {
    /// Short name for reports, e.g. "rserpool".
    fn name(&self) -> &'static str;

    /// The protocols whose messages it reads; it is handed no others, and a run that feeds
    /// only analysers of some protocols need not decode the rest.
    fn protocols(&self) -> &'static [AppProtocol] {
        &AppProtocol::ALL
    }

    /// A decoded message, in frame order.
    fn message(&mut self, d: &Decoded<'_>, report: &mut Report);

    /// The capture ended at `last` (the time of its last frame): flush what waits for more.
    fn finish(&mut self, _last: Option<Timestamp>, _report: &mut Report) {}

    /// Before a snapshot of its state while the run goes on (a live capture's metrics): an
    /// analyser that waits for enough traffic before judging shows what it can of the traffic
    /// so far. Never called by a run that reads a file, whose reports it must not change.
    fn refresh(&mut self) {}

    /// What its report shows besides the findings (pools, servers), for `output::report` to
    /// write as `check`'s text and the sections of its JSON (e.g. `"pools": [...]`).
    fn view(&self) -> View<'_> {
        View::Nothing
    }
}

/// An analyser's report as data: a borrowed view of the analyser, whose `report` module gives
/// what the report reads. The text and JSON are written by `output::report`.
pub enum View<'a> {
    /// No report besides the findings.
    Nothing,
    Rserpool(&'a rserpool::RserpoolAnalyser),
    DhcpLb(&'a dhcp_lb::DhcpLbAnalyser),
    Failover(&'a failover::FailoverAnalyser),
    Setup(&'a setup::SetupAnalyser),
}
