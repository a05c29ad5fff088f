//! What `check` shows of the failover replay besides the findings, as data: the pair's roles,
//! the lease seeds and what became of them, and the replay's pools and balance runs.
//! `output::report::failover` writes it as text and JSON.

use super::seed::{LeaseSeed, Outcome};
use super::{FailoverAnalyser, Replay, Roles};

impl FailoverAnalyser {
    /// The seeds given and what became of them (known once the first message was seen).
    pub fn seeds(&self) -> &[(LeaseSeed, Outcome)] {
        &self.seeds
    }

    pub fn replay(&self) -> &Replay {
        &self.replay
    }

    /// Failover messages seen: none, and the report says only what became of the seeds.
    pub fn messages(&self) -> u64 {
        self.events.messages()
    }

    /// The servers' roles, learnt from CONNECT / CONNECTACK.
    pub fn roles(&self) -> &Roles {
        self.events.roles()
    }
}
