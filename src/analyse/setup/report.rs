//! What `check` shows of the configuration files besides the findings, as data: the files, what
//! the replays could not take from them, and where the files of one pair disagree.

use serde_json::{json, Value};

use super::SetupAnalyser;
use crate::config::compare::Disagreement;
use crate::config::ServerConfig;

impl SetupAnalyser {
    /// The files, in the order given.
    pub fn configs(&self) -> &[ServerConfig] {
        &self.configs
    }

    /// Where the files of one pair disagree.
    pub fn mismatches(&self) -> &[Disagreement] {
        &self.mismatches
    }

    /// What the replays could not take from the files.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
}

/// A disagreement's values, file by file: `[{"file", "value"}]`.
pub(crate) fn values_json(d: &Disagreement) -> Value {
    d.values
        .iter()
        .map(|(f, v)| json!({ "file": f, "value": v }))
        .collect()
}
