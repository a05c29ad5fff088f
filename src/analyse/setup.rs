//! The operator's configuration files as an analyser: what each file configures, where the
//! files of one pair disagree ([`crate::config::compare`]), reported once as `config.mismatch`
//! findings, and what of the files the replays could not use. It reads no message: the
//! findings are about the files, not a frame (their frame is 0, and they have no time).
//!
//! JSON: `"config": {"files": [{"file", "product", "family", "summary"}], "notes": [...],
//! "mismatches": [{"pair", "setting", "values": [{"file", "value"}], "severity", "why"}]}`.

use serde_json::{json, Map, Value};

use super::finding::{Finding, Severity, Subject};
use super::{Analyser, Report};
use crate::base::Timestamp;
use crate::config::compare::{self, Disagreement};
use crate::config::ServerConfig;
use crate::pipeline::Decoded;
use crate::proto::AppProtocol;

/// The one rule of the configuration files: two files of a pair disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    Mismatch,
}

impl Rule {
    /// Every rule.
    pub const ALL: [Rule; 1] = [Rule::Mismatch];

    pub fn id(self) -> &'static str {
        match self {
            Rule::Mismatch => "config.mismatch",
        }
    }

    /// Errors where the disagreement breaks the load balancing itself (roles, addresses, bucket
    /// maps, HA modes, peers), warnings where it changes timing or balance ([`compare`] says
    /// which).
    pub fn severities(self) -> &'static [Severity] {
        match self {
            Rule::Mismatch => &[Severity::Warning, Severity::Error],
        }
    }

    /// What a finding of the rule says, in a line.
    pub fn meaning(self) -> &'static str {
        match self {
            Rule::Mismatch => "two configuration files of one pair disagree",
        }
    }
}

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
            severity: d.severity,
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

fn values_json(d: &Disagreement) -> Value {
    d.values
        .iter()
        .map(|(f, v)| json!({ "file": f, "value": v }))
        .collect()
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

    fn report_text(&self, out: &mut String) {
        for c in &self.configs {
            out.push_str(&format!("config {}: {}\n", c.file, c.summary()));
        }
        for n in &self.notes {
            out.push_str(&format!("config: {n}\n"));
        }
    }

    fn report_json(&self, out: &mut Map<String, Value>) {
        let files: Vec<Value> = self
            .configs
            .iter()
            .map(|c| {
                json!({
                    "file": c.file,
                    "product": c.product.name(),
                    "family": c.family.name(),
                    "summary": c.summary(),
                })
            })
            .collect();
        let mismatches: Vec<Value> = self
            .mismatches
            .iter()
            .map(|d| {
                json!({
                    "pair": d.pair,
                    "setting": d.setting,
                    "values": values_json(d),
                    "severity": d.severity.name(),
                    "why": d.why,
                })
            })
            .collect();
        out.insert(
            "config".into(),
            json!({ "files": files, "notes": self.notes, "mismatches": mismatches }),
        );
    }
}
