//! Every finding rule of every analyser in one list: its id, the severities it can carry and
//! what it means in a line. Each analyser keeps its own rules in its `rules.rs` (an enum); this
//! module gathers them, for `check --list-rules` and for the documentation's test.

use super::finding::Severity;
use super::{dhcp_lb, failover, rserpool, setup};

/// One rule id as the findings carry it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleInfo {
    /// `family.name`, e.g. `dhcp.lb.wrong-server`.
    pub id: &'static str,
    /// The severities its findings can carry, least first.
    pub severities: Vec<Severity>,
    /// What a finding of it says, in a line.
    pub meaning: &'static str,
}

/// A rule enum's variants as [`RuleInfo`]s: variants sharing an id (one rule broken in ways of
/// different weight) are one entry with each severity once; the first variant's meaning stands.
fn gather(
    out: &mut Vec<RuleInfo>,
    variants: impl IntoIterator<Item = (&'static str, &'static [Severity], &'static str)>,
) {
    for (id, severities, meaning) in variants {
        let at = match out.iter().position(|r| r.id == id) {
            Some(i) => i,
            None => {
                out.push(RuleInfo {
                    id,
                    severities: Vec::new(),
                    meaning,
                });
                out.len() - 1
            }
        };
        let s = &mut out[at].severities;
        s.extend_from_slice(severities);
        s.sort();
        s.dedup();
    }
}

/// Every rule, analyser by analyser (RSerPool, DHCP load balancing, failover, configuration),
/// each in its analyser's order.
pub fn all() -> Vec<RuleInfo> {
    let mut out = Vec::new();
    gather(
        &mut out,
        rserpool::rules::Rule::ALL
            .iter()
            .map(|r| (r.id(), r.severities(), r.meaning())),
    );
    gather(
        &mut out,
        dhcp_lb::rules::Rule::ALL
            .iter()
            .map(|r| (r.id(), r.severities(), r.meaning())),
    );
    gather(
        &mut out,
        failover::rules::Rule::ALL
            .iter()
            .map(|r| (r.id(), r.severities(), r.meaning())),
    );
    gather(
        &mut out,
        setup::Rule::ALL
            .iter()
            .map(|r| (r.id(), r.severities(), r.meaning())),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_of_their_family_and_carry_a_severity_and_a_meaning() {
        let rules = all();
        let mut ids: Vec<&str> = rules.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), rules.len());
        for r in &rules {
            let family = ["rserpool.", "dhcp.lb.", "failover.", "config."];
            assert!(family.iter().any(|f| r.id.starts_with(f)), "{}", r.id);
            assert!(!r.severities.is_empty() && !r.meaning.is_empty(), "{r:?}");
        }
        let policy = rules
            .iter()
            .find(|r| r.id == "rserpool.policy-inconsistent")
            .expect("the policy rule");
        assert_eq!(policy.severities, [Severity::Warning, Severity::Error]);
    }
}
