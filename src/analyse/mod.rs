//! Analysers: typed events in, reference algorithms, findings out. Policy lives here, apart from
//! parsing.
//!
//! An [`Analyser`] sees every decoded message of a run (in frame order, retransmissions already
//! left out by the pipeline), keeps the protocol state it needs (bounded), and reports
//! [`finding::Finding`]s as it goes or at the end. `poolshark check`, `stats` and the TUI drive the
//! same analysers.

pub mod dhcp_lb;
pub mod failover;
pub mod finding;
pub mod msgstats;
pub mod policy;
pub mod rserpool;
pub mod timeline;

use crate::pipeline::Decoded;
use crate::proto::AppProtocol;
use crate::source::Timestamp;
use finding::Findings;
use timeline::Timeline;

/// What analysers write into: findings, and the series the statistics and the TUI show.
pub struct Report {
    pub findings: Findings,
    pub timeline: Timeline,
}

impl Report {
    pub fn new(max_findings: usize, interval_ns: u64) -> Self {
        Report {
            findings: Findings::new(max_findings),
            timeline: Timeline::new(interval_ns),
        }
    }

    /// A report of findings only, for a run that never shows the timeline (`check`): the
    /// timeline keeps its origin (for [`Timeline::window_start`], a minute apart) and records
    /// nothing else.
    pub fn for_findings(max_findings: usize) -> Self {
        Report {
            findings: Findings::new(max_findings),
            timeline: Timeline::new(60_000_000_000).not_recording(),
        }
    }

    /// Records a finding and counts it in its subject's window.
    pub fn push(&mut self, f: finding::Finding, t: Timestamp) {
        self.timeline.finding(t, &f.subject);
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
        self.findings.count_unlisted(rule, severity, n);
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

    /// Human-readable summary lines (pools, servers) for `check`'s text output.
    fn report_text(&self, _out: &mut String) {}

    /// Sections of `check`'s JSON output, e.g. `"pools": [...]`.
    fn report_json(&self, _out: &mut serde_json::Map<String, serde_json::Value>) {}
}
