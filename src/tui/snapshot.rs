//! What the loader sends the UI: how far reading got, and now and then a copy of what the
//! analysers have found (the series of every subject and the findings added since the last copy).

use crate::analyse::finding::{Finding, Subject};
use crate::analyse::timeline::Series;
use crate::analyse::Report;
use crate::base::Timestamp;

/// Where reading stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LoadState {
    /// Reading a file.
    #[default]
    Loading,
    /// Capturing on an interface: it goes on until stopped.
    Live,
    /// The whole input was read.
    Done,
    /// Reading stopped on an error; what was read before it is shown.
    Failed(String),
}

/// How far reading got.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub state: LoadState,
    pub frames: u64,
    pub messages: u64,
    /// Bytes of the file read so far, when they can be counted.
    pub bytes_read: Option<u64>,
    /// The file's size, when known (not for standard input).
    pub total_bytes: Option<u64>,
    /// Messages and frames with decode errors, and problems reading the capture.
    pub decode_errors: u64,
    /// Problems reading the capture (counted in `decode_errors` too): a record cut short or
    /// skipped, a file that ends inside a record.
    pub source_errors: u64,
    /// The latest problem reading the capture.
    pub last_source_error: Option<String>,
}

impl Progress {
    /// Fraction of the file read, when its size is known.
    pub fn fraction(&self) -> Option<f64> {
        let total = self.total_bytes.filter(|&t| t > 0)?;
        let read = self.bytes_read?;
        Some((read as f64 / total as f64).clamp(0.0, 1.0))
    }

    pub fn is_running(&self) -> bool {
        matches!(self.state, LoadState::Loading | LoadState::Live)
    }
}

/// A copy of the analysers' results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Data {
    /// Every subject's series (the whole set: it replaces the previous copy).
    pub series: Vec<(Subject, Series)>,
    /// Findings reported since the previous copy, in the order reported; every finding kept
    /// when `all_findings` (some were rewritten since, e.g. a registrar's name).
    pub new_findings: Vec<Finding>,
    pub all_findings: bool,
    /// Findings reported in all, kept or not.
    pub findings_total: u64,
    /// Findings not kept because of `--max-findings`.
    pub findings_dropped: u64,
    /// Subjects the timeline does not track because of its bound.
    pub dropped_subjects: u64,
    /// The capture's first frame: the windows' (and the chart's) time zero, from which the
    /// episodes' times are placed on the chart.
    pub origin: Option<Timestamp>,
}

impl Data {
    /// A copy of `report`, with the findings from index `sent` of its list on.
    /// The results now; `sent` findings were sent before, `revision` their
    /// [`crate::analyse::finding::Findings::revision`] then.
    pub fn from_report(report: &Report, sent: usize, revision: u64) -> Data {
        let list = report.findings.list();
        let all = report.findings.revision() != revision;
        let sent = if all { 0 } else { sent };
        Data {
            series: report
                .timeline
                .series()
                .iter()
                .map(|(s, v)| (s.clone(), v.clone()))
                .collect(),
            new_findings: list.get(sent..).unwrap_or_default().to_vec(),
            all_findings: all,
            findings_total: report.findings.total(),
            findings_dropped: report.findings.dropped(),
            dropped_subjects: report.timeline.dropped_subjects(),
            origin: report.timeline.origin(),
        }
    }
}

/// One message from the loader.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Update {
    pub progress: Progress,
    /// A new copy of the results, when one was made.
    pub data: Option<Data>,
}
