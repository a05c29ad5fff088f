//! The operator's configuration files as an analyser: what each file configures, where the
//! files of one pair disagree ([`crate::config::compare`]), reported once as `config.mismatch`
//! findings, and what of the files the replays could not use. It reads no message: the
//! findings are about the files, not a frame (their frame is 0, and they have no time).
//!
//! `rules.rs` holds its one rule; `report.rs` what `check` shows of it, which
//! `output::report::setup` writes as text and JSON.

use serde_json::json;

pub(crate) mod report;
pub mod rules;

pub use rules::Rule;

use crate::analyse::finding::{Finding, Subject};
use crate::analyse::{Analyser, Report, View};
use crate::base::Timestamp;
use crate::config::compare::{self, Disagreement};
use crate::config::ServerConfig;
use crate::pipeline::Decoded;
use crate::proto::AppProtocol;
use report::values_json;

pub struct SetupAnalyser {
    configs: Vec<ServerConfig>,
    mismatches: Vec<Disagreement>,
    /// What the replays could not take from the files.
    notes: Vec<String>,
    reported: bool,
}

impl SetupAnalyser {
    pub fn new(configs: Vec<ServerConfig>, notes: Vec<String>) -> Self {
        let mismatches = compare::disagreements(&configs);
        SetupAnalyser {
            configs,
            mismatches,
            notes,
            reported: false,
        }
    }

    fn finding(d: &Disagreement) -> Finding {
        let values: Vec<String> = d.values.iter().map(|(f, v)| format!("{f}: {v}")).collect();
        Finding {
            frame: 0,
            time: None,
            rule: Rule::Mismatch.id(),
            severity: Rule::severity_of(d.impact),
            subject: Subject::Server(d.pair.clone()),
            group: d.setting.clone(),
            expected: json!({ "same": d.setting }),
            observed: values_json(d),
            message: format!(
                "{}: the configurations disagree on {} ({}): {}",
                d.pair,
                d.setting,
                values.join("; "),
                d.why
            ),
        }
    }
}

impl Analyser for SetupAnalyser {
    fn name(&self) -> &'static str {
        "config"
    }

    fn protocols(&self) -> &'static [AppProtocol] {
        &[]
    }

    fn message(&mut self, _d: &Decoded<'_>, _report: &mut Report) {}

    fn finish(&mut self, _last: Option<Timestamp>, report: &mut Report) {
        if std::mem::replace(&mut self.reported, true) {
            return;
        }
        for d in &self.mismatches {
            report.findings.push(Self::finding(d));
        }
    }

    fn view(&self) -> View<'_> {
        View::Setup(self)
    }
}
