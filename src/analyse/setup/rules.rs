//! The one rule of the configuration files, `config.mismatch`.

use crate::analyse::finding::Severity;
use crate::config::compare::Impact;

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

    /// A disagreement's severity: an error where it breaks the load balancing itself, a
    /// warning where it changes timing or balance.
    pub fn severity_of(impact: Impact) -> Severity {
        match impact {
            Impact::Breaks => Severity::Error,
            Impact::Shifts => Severity::Warning,
        }
    }
}
