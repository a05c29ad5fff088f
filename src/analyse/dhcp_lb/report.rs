//! What `check` shows of the DHCP pairs besides the findings, as data: the model (the fixed one,
//! else live the provisional one), the servers, the pairs with their shares and episodes, the
//! counters. `output::report::dhcp_lb` writes it as text and JSON; the metrics read it too.

use super::inference::Inferred;
use super::judge::PairStats;
use super::model::Pair;
use super::servers::Registry;
use super::transactions::Counters;
use super::{DhcpLbAnalyser, Run};
use crate::analyse::dhcp_lb::config::Settings;

impl DhcpLbAnalyser {
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The model: the fixed one, else (live, while learning) the provisional one.
    pub fn inferred(&self) -> &Inferred {
        match (&self.run, &self.provisional) {
            (None, Some(p)) => &p.inferred,
            _ => &self.inferred,
        }
    }

    /// The tail: the run's, else (live, while learning) the provisional one's.
    fn tail(&self) -> Option<&Run> {
        self.run
            .as_ref()
            .or(self.provisional.as_ref().map(|p| &p.run))
    }

    pub fn registry(&self) -> Option<&Registry> {
        self.tail().map(|r| &r.registry)
    }

    pub fn pairs(&self) -> Vec<(&Pair, &PairStats)> {
        self.tail()
            .map(|r| r.pairs.iter().map(|(p, s)| (p, s)).collect())
            .unwrap_or_default()
    }

    pub fn counters(&self) -> Counters {
        self.tail().map(|r| r.tracker.counters).unwrap_or_default()
    }

    /// Whether the model shown is provisional (learnt from the buffer so far, live).
    pub fn provisional(&self) -> bool {
        self.run.is_none() && self.provisional.is_some()
    }

    pub fn events(&self) -> u64 {
        self.events
    }
}
