//! The rules of the RSerPool replay: ids, severities, and the draft a check produces (the replay
//! adds the frame, the pool and the registrar).

use crate::analyse::finding::Severity;

/// One kind of finding. Several variants may share an id when the same rule is broken in ways
/// of different weight (a registrar accepting an inconsistent policy is worse than one refusing
/// a consistent one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    DuplicatePe,
    UnknownPe,
    TooMany,
    TooFew,
    ZeroWeight,
    Order,
    NotLeast,
    RrHeadStuck,
    Sequence,
    /// Weighted round robin under the texts: a round of answers off the weights.
    WrrRatio,
    /// Weighted round robin under the texts: a PE first twice in a row where the list need not.
    WrrRepeat,
    Distribution,
    /// A registration with another policy than the pool's was accepted.
    PolicyAccepted,
    /// A registration was rejected for an inconsistent policy the pool does not have.
    PolicyRejected,
    /// An answer lists PEs whose policies differ from the pool's.
    PolicyInAnswer,
    /// A negative answer (unknown pool) while the reference holds members.
    NotFound,
    /// An answer for a pool this registrar was never seen to hold (not checked).
    UnknownPool,
    Expired,
    KeepAliveFailed,
    UnreachableRemoved,
}

impl Rule {
    /// Every variant.
    pub const ALL: [Rule; 20] = [
        Rule::DuplicatePe,
        Rule::UnknownPe,
        Rule::TooMany,
        Rule::TooFew,
        Rule::ZeroWeight,
        Rule::Order,
        Rule::NotLeast,
        Rule::RrHeadStuck,
        Rule::Sequence,
        Rule::WrrRatio,
        Rule::WrrRepeat,
        Rule::Distribution,
        Rule::PolicyAccepted,
        Rule::PolicyRejected,
        Rule::PolicyInAnswer,
        Rule::NotFound,
        Rule::UnknownPool,
        Rule::Expired,
        Rule::KeepAliveFailed,
        Rule::UnreachableRemoved,
    ];

    /// The severity as a one-element list (see [`crate::analyse::rules`]).
    pub fn severities(self) -> &'static [Severity] {
        self.severity().alone()
    }

    /// What a finding of the rule says, in a line.
    pub fn meaning(self) -> &'static str {
        match self {
            Rule::DuplicatePe => "an answer lists one pool element twice",
            Rule::UnknownPe => {
                "an answer lists a pool element that never registered, deregistered or expired"
            }
            Rule::TooMany => "an answer lists more pool elements than the pool user asked for",
            Rule::TooFew => "an answer lists fewer pool elements than the pool could have given",
            Rule::ZeroWeight => "a weighted policy answered with a pool element of weight 0",
            Rule::Order => "a sorted policy's list is out of the order its keys give",
            Rule::NotLeast => "a least-used policy left out a pool element with a better key",
            Rule::RrHeadStuck => "round robin: the head of the list did not advance",
            Rule::Sequence => "a deterministic policy's answer differs from the reference's",
            Rule::WrrRatio => "a round of weighted round robin answers is off the weights",
            Rule::WrrRepeat => "weighted round robin puts one pool element first twice in a row",
            Rule::Distribution => "a randomised policy's answers fail a goodness-of-fit test",
            Rule::PolicyAccepted | Rule::PolicyRejected | Rule::PolicyInAnswer => {
                "a registration with another policy than the pool's was accepted, or a consistent one refused"
            }
            Rule::NotFound => "the registrar answered pool not found while the pool has members",
            Rule::UnknownPool => "an answer for a pool whose registrations came before the capture",
            Rule::Expired => "a pool element's registration lifetime ran out",
            Rule::KeepAliveFailed => "a keep-alive to a pool element went unanswered",
            Rule::UnreachableRemoved => "a pool element was removed after Endpoint Unreachable reports",
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Rule::DuplicatePe => "rserpool.duplicate-pe",
            Rule::UnknownPe => "rserpool.unknown-pe",
            Rule::TooMany => "rserpool.too-many",
            Rule::TooFew => "rserpool.too-few",
            Rule::ZeroWeight => "rserpool.zero-weight",
            Rule::Order => "rserpool.order",
            Rule::NotLeast => "rserpool.not-least",
            Rule::RrHeadStuck => "rserpool.rr-head-stuck",
            Rule::Sequence => "rserpool.sequence",
            Rule::WrrRatio => "rserpool.wrr-ratio",
            Rule::WrrRepeat => "rserpool.wrr-repeat",
            Rule::Distribution => "rserpool.distribution",
            Rule::PolicyAccepted | Rule::PolicyRejected | Rule::PolicyInAnswer => {
                "rserpool.policy-inconsistent"
            }
            Rule::NotFound => "rserpool.not-found",
            Rule::UnknownPool => "rserpool.unknown-pool",
            Rule::Expired => "rserpool.expired",
            Rule::KeepAliveFailed => "rserpool.keep-alive-failed",
            Rule::UnreachableRemoved => "rserpool.unreachable-removed",
        }
    }

    /// Errors: the answer is impossible under any reading of the policy (a PE that is not a
    /// member, twice, or one the policy never picks; more than asked for; a policy mix the
    /// registrar must refuse). Warnings: the answer is possible but not the one the reference
    /// gives, or the registrar's view of the pool looks wrong. Info: events of the pool's life the
    /// capture implies (expiry, failed keep-alive), and answers that cannot be checked.
    pub fn severity(self) -> Severity {
        match self {
            Rule::DuplicatePe
            | Rule::UnknownPe
            | Rule::TooMany
            | Rule::ZeroWeight
            | Rule::PolicyAccepted
            | Rule::PolicyInAnswer => Severity::Error,
            Rule::TooFew
            | Rule::Order
            | Rule::NotLeast
            | Rule::RrHeadStuck
            | Rule::Sequence
            | Rule::WrrRatio
            | Rule::WrrRepeat
            | Rule::Distribution
            | Rule::PolicyRejected
            | Rule::NotFound => Severity::Warning,
            Rule::UnknownPool
            | Rule::Expired
            | Rule::KeepAliveFailed
            | Rule::UnreachableRemoved => Severity::Info,
        }
    }

    /// Whether the finding counts as a deviation from the reference (a registrar's or a pool's
    /// `deviations`): every warning and error.
    pub fn deviation(self) -> bool {
        self.severity() >= Severity::Warning
    }

    /// Whether it judges an answer against one profile's reading (the `auto` profile ranks the
    /// profiles by these); the others are the same under every profile.
    pub fn per_profile(self) -> bool {
        matches!(
            self,
            Rule::DuplicatePe
                | Rule::UnknownPe
                | Rule::TooMany
                | Rule::TooFew
                | Rule::ZeroWeight
                | Rule::Order
                | Rule::NotLeast
                | Rule::RrHeadStuck
                | Rule::Sequence
                | Rule::WrrRatio
                | Rule::WrrRepeat
                | Rule::Distribution
        )
    }
}

/// A finding before the replay places it (frame, pool, registrar).
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    pub rule: Rule,
    pub expected: serde_json::Value,
    pub observed: serde_json::Value,
    pub message: String,
}

impl Draft {
    pub fn new(
        rule: Rule,
        expected: serde_json::Value,
        observed: serde_json::Value,
        message: impl Into<String>,
    ) -> Self {
        Draft {
            rule,
            expected,
            observed,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_issue_and_severities_order_the_rules() {
        assert_eq!(Rule::RrHeadStuck.id(), "rserpool.rr-head-stuck");
        assert_eq!(Rule::PolicyRejected.id(), Rule::PolicyAccepted.id());
        assert_eq!(Rule::UnknownPe.severity(), Severity::Error);
        assert_eq!(Rule::Sequence.severity(), Severity::Warning);
        assert_eq!(Rule::Expired.severity(), Severity::Info);
        assert!(Rule::Distribution.deviation());
        assert!(!Rule::KeepAliveFailed.deviation());
        assert!(Rule::Sequence.per_profile());
        assert!(!Rule::NotFound.per_profile());
    }
}
