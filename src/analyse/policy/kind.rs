//! What the reference implementations make of a selection policy: which policies they run, the
//! names the command line takes, how each policy turns a pool into an answer and which settings
//! it reads. The policy itself is the protocol's [`PolicyKind`] (its wire codes in each encoding
//! are in `proto::rserpool::policy`): one type from the wire to the replay.

use std::fmt;

pub use crate::proto::rserpool::PolicyKind;

/// How a policy turns the pool into an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The first N members in the order of a per-member key (ties by sequence number).
    Sorted,
    /// N members drawn at random without replacement, each with a per-member weight.
    Random,
}

impl PolicyKind {
    /// The policies poolshark's reference implementations run.
    ///
    /// RSPLIB's delay-penalty policies (WRAND-DPF 0xb0002001, LU-DPF 0xb0002002, LUD-DPF
    /// 0xb0002003) are not among them: NOTES.md gives their wire words but not how the distance
    /// and the DPF words enter the selection.
    pub const RUNNABLE: [PolicyKind; 13] = {
        // KNOWN's first thirteen: all but the three delay-penalty policies it ends with.
        let k = PolicyKind::KNOWN;
        [
            k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10], k[11], k[12],
        ]
    };

    /// Whether a reference implementation runs this policy (one of [`PolicyKind::RUNNABLE`]).
    pub fn runnable(self) -> bool {
        PolicyKind::RUNNABLE.contains(&self)
    }

    /// The short name used on the command line and in reports (`rr`, `lud`, ...).
    pub fn cli_name(self) -> &'static str {
        match self {
            PolicyKind::RoundRobin => "rr",
            PolicyKind::WeightedRoundRobin => "wrr",
            PolicyKind::Random => "rand",
            PolicyKind::WeightedRandom => "wrand",
            PolicyKind::Priority => "priority",
            PolicyKind::LeastUsed => "lu",
            PolicyKind::LeastUsedDegradation => "lud",
            PolicyKind::PriorityLeastUsed => "plu",
            PolicyKind::RandomizedLeastUsed => "rlu",
            PolicyKind::RandomizedPriorityLeastUsed => "rplu",
            PolicyKind::RandomizedLeastUsedDegradation => "rlud",
            PolicyKind::PriorityLeastUsedDegradation => "plud",
            PolicyKind::RandomizedPriorityLeastUsedDegradation => "rplud",
            PolicyKind::WeightedRandomDpf => "wrand-dpf",
            PolicyKind::LeastUsedDpf => "lu-dpf",
            PolicyKind::LeastUsedDegradationDpf => "lud-dpf",
            PolicyKind::Unknown => "unknown",
        }
    }

    /// The runnable policy the command line names (`rr`, `LUD`, ...: any case).
    pub fn from_cli_name(name: &str) -> Option<PolicyKind> {
        let lower = name.to_ascii_lowercase();
        PolicyKind::RUNNABLE
            .into_iter()
            .find(|k| k.cli_name() == lower)
    }

    pub fn title(self) -> &'static str {
        match self {
            PolicyKind::RoundRobin => "Round Robin",
            PolicyKind::WeightedRoundRobin => "Weighted Round Robin",
            PolicyKind::Random => "Random",
            PolicyKind::WeightedRandom => "Weighted Random",
            PolicyKind::Priority => "Priority",
            PolicyKind::LeastUsed => "Least Used",
            PolicyKind::LeastUsedDegradation => "Least Used with Degradation",
            PolicyKind::PriorityLeastUsed => "Priority Least Used",
            PolicyKind::RandomizedLeastUsed => "Randomized Least Used",
            PolicyKind::RandomizedPriorityLeastUsed => "Randomized Priority Least Used",
            PolicyKind::RandomizedLeastUsedDegradation => "Randomized Least Used with Degradation",
            PolicyKind::PriorityLeastUsedDegradation => "Priority Least Used with Degradation",
            PolicyKind::RandomizedPriorityLeastUsedDegradation => {
                "Randomized Priority Least Used with Degradation"
            }
            PolicyKind::WeightedRandomDpf => "Weighted Random with Delay Penalty Factor",
            PolicyKind::LeastUsedDpf => "Least Used with Delay Penalty Factor",
            PolicyKind::LeastUsedDegradationDpf => {
                "Least Used with Degradation and Delay Penalty Factor"
            }
            PolicyKind::Unknown => "Unknown",
        }
    }

    /// Whether the policy sorts the pool or draws from it.
    pub fn method(self) -> Method {
        match self {
            PolicyKind::Random
            | PolicyKind::WeightedRandom
            | PolicyKind::RandomizedLeastUsed
            | PolicyKind::RandomizedPriorityLeastUsed
            | PolicyKind::RandomizedLeastUsedDegradation
            | PolicyKind::RandomizedPriorityLeastUsedDegradation => Method::Random,
            _ => Method::Sorted,
        }
    }

    /// Whether the policy keeps a per-member degradation counter that grows with each selection.
    pub fn degrades(self) -> bool {
        matches!(
            self,
            PolicyKind::LeastUsedDegradation
                | PolicyKind::RandomizedLeastUsedDegradation
                | PolicyKind::PriorityLeastUsedDegradation
                | PolicyKind::RandomizedPriorityLeastUsedDegradation
        )
    }

    /// Which settings the policy reads (the words its policy parameter carries).
    pub fn uses(self) -> Uses {
        let (weight, priority, load, load_degradation) = match self {
            PolicyKind::RoundRobin | PolicyKind::Random => (false, false, false, false),
            PolicyKind::WeightedRoundRobin | PolicyKind::WeightedRandom => {
                (true, false, false, false)
            }
            PolicyKind::Priority => (false, true, false, false),
            PolicyKind::LeastUsed | PolicyKind::RandomizedLeastUsed => (false, false, true, false),
            PolicyKind::LeastUsedDegradation
            | PolicyKind::PriorityLeastUsed
            | PolicyKind::RandomizedPriorityLeastUsed
            | PolicyKind::RandomizedLeastUsedDegradation
            | PolicyKind::PriorityLeastUsedDegradation
            | PolicyKind::RandomizedPriorityLeastUsedDegradation => (false, false, true, true),
            // Not run (see [`PolicyKind::RUNNABLE`]): the settings their words carry.
            PolicyKind::WeightedRandomDpf => (true, false, false, false),
            PolicyKind::LeastUsedDpf => (false, false, true, false),
            PolicyKind::LeastUsedDegradationDpf => (false, false, true, true),
            PolicyKind::Unknown => (false, false, false, false),
        };
        Uses {
            weight,
            priority,
            load,
            load_degradation,
        }
    }
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({})",
            self.title(),
            self.cli_name().to_ascii_uppercase()
        )
    }
}

/// The settings a policy reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uses {
    pub weight: bool,
    pub priority: bool,
    pub load: bool,
    pub load_degradation: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runnable_policies_have_rfc5356_or_rsplib_codes_and_names() {
        use crate::proto::rserpool::{policy_code, policy_kind, Encoding};
        // NOTES.md section 1, policy table.
        let rfc = |c| policy_kind(c, Encoding::Rfc);
        assert_eq!(rfc(1), PolicyKind::RoundRobin);
        assert_eq!(rfc(5), PolicyKind::Priority);
        assert_eq!(rfc(0x4000_0003), PolicyKind::PriorityLeastUsed);
        assert_eq!(rfc(0xb000_1003), PolicyKind::PriorityLeastUsedDegradation);
        assert!(!rfc(0xb000_2001).runnable());
        assert!(!rfc(0).runnable());
        for k in PolicyKind::RUNNABLE {
            let code = policy_code(k, Encoding::Rfc).expect("an RFC 5356 or RSPLIB code");
            assert_eq!(rfc(code), k);
            assert_eq!(PolicyKind::from_cli_name(k.cli_name()), Some(k));
        }
        assert_eq!(
            PolicyKind::from_cli_name("LUD"),
            Some(PolicyKind::LeastUsedDegradation)
        );
        assert_eq!(PolicyKind::from_cli_name("lu-dpf"), None);
    }
}
