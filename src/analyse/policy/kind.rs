//! Which selection policy a pool uses: the wire codes of RFC 5356 and RSPLIB, the short names the
//! command line takes, and what each policy reads from a pool element's settings.

use std::fmt;

/// A pool member selection policy poolshark can run.
///
/// RSPLIB's delay-penalty policies (WRAND-DPF 0xb0002001, LU-DPF 0xb0002002, LUD-DPF 0xb0002003)
/// are not here: NOTES.md gives their wire words but not how the distance and the DPF words enter
/// the selection, so [`PolicyKind::from_code`] returns `None` for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PolicyKind {
    RoundRobin,
    WeightedRoundRobin,
    Random,
    WeightedRandom,
    Priority,
    LeastUsed,
    LeastUsedDegradation,
    PriorityLeastUsed,
    RandomizedLeastUsed,
    /// RSPLIB: RLU over load + load degradation.
    RandomizedPriorityLeastUsed,
    /// RSPLIB: RLU over load + the degradation counter.
    RandomizedLeastUsedDegradation,
    /// RSPLIB: PLU plus the degradation counter.
    PriorityLeastUsedDegradation,
    /// RSPLIB: RLU over load + load degradation + the degradation counter.
    RandomizedPriorityLeastUsedDegradation,
}

/// How a policy turns the pool into an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The first N members in the order of a per-member key (ties by sequence number).
    Sorted,
    /// N members drawn at random without replacement, each with a per-member weight.
    Random,
}

impl PolicyKind {
    pub const ALL: [PolicyKind; 13] = [
        PolicyKind::RoundRobin,
        PolicyKind::WeightedRoundRobin,
        PolicyKind::Random,
        PolicyKind::WeightedRandom,
        PolicyKind::Priority,
        PolicyKind::LeastUsed,
        PolicyKind::LeastUsedDegradation,
        PolicyKind::PriorityLeastUsed,
        PolicyKind::RandomizedLeastUsed,
        PolicyKind::RandomizedPriorityLeastUsed,
        PolicyKind::RandomizedLeastUsedDegradation,
        PolicyKind::PriorityLeastUsedDegradation,
        PolicyKind::RandomizedPriorityLeastUsedDegradation,
    ];

    /// The policy type word of the Pool Member Selection Policy parameter (RFC 5356 numbering,
    /// RSPLIB's private range for its own policies).
    pub fn code(self) -> u32 {
        match self {
            PolicyKind::RoundRobin => 0x0000_0001,
            PolicyKind::WeightedRoundRobin => 0x0000_0002,
            PolicyKind::Random => 0x0000_0003,
            PolicyKind::WeightedRandom => 0x0000_0004,
            PolicyKind::Priority => 0x0000_0005,
            PolicyKind::LeastUsed => 0x4000_0001,
            PolicyKind::LeastUsedDegradation => 0x4000_0002,
            PolicyKind::PriorityLeastUsed => 0x4000_0003,
            PolicyKind::RandomizedLeastUsed => 0x4000_0004,
            PolicyKind::RandomizedPriorityLeastUsed => 0xb000_1001,
            PolicyKind::RandomizedLeastUsedDegradation => 0xb000_1002,
            PolicyKind::PriorityLeastUsedDegradation => 0xb000_1003,
            PolicyKind::RandomizedPriorityLeastUsedDegradation => 0xb000_1004,
        }
    }

    pub fn from_code(code: u32) -> Option<PolicyKind> {
        PolicyKind::ALL.into_iter().find(|k| k.code() == code)
    }

    /// The short name used on the command line and in reports.
    pub fn name(self) -> &'static str {
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
        }
    }

    pub fn from_name(name: &str) -> Option<PolicyKind> {
        let lower = name.to_ascii_lowercase();
        PolicyKind::ALL.into_iter().find(|k| k.name() == lower)
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
        }
    }

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
            _ => (false, false, true, true),
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
        write!(f, "{} ({})", self.title(), self.name().to_ascii_uppercase())
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
    fn codes_follow_rfc5356_and_rsplib_numbering() {
        // NOTES.md section 1, policy table.
        assert_eq!(PolicyKind::from_code(1), Some(PolicyKind::RoundRobin));
        assert_eq!(PolicyKind::from_code(5), Some(PolicyKind::Priority));
        assert_eq!(
            PolicyKind::from_code(0x4000_0003),
            Some(PolicyKind::PriorityLeastUsed)
        );
        assert_eq!(
            PolicyKind::from_code(0xb000_1003),
            Some(PolicyKind::PriorityLeastUsedDegradation)
        );
        assert_eq!(PolicyKind::from_code(0xb000_2001), None);
        assert_eq!(PolicyKind::from_code(0), None);
        for k in PolicyKind::ALL {
            assert_eq!(PolicyKind::from_code(k.code()), Some(k));
            assert_eq!(PolicyKind::from_name(k.name()), Some(k));
        }
        assert_eq!(
            PolicyKind::from_name("LUD"),
            Some(PolicyKind::LeastUsedDegradation)
        );
    }
}
