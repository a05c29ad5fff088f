//! Profiles: the three readings of the selection rules, as data. The policy modules and the pool
//! read these fields; no reading has code of its own.
//!
//! * `rfc5356`: RFC 5356's text as NOTES.md reads it. LUD: counter reset to 0 on (re-)registration,
//!   +1 per selection of each returned entry, key load + counter x load degradation. WRR: a circular
//!   list holding each PE in proportion to its weight, spread as evenly as possible, head advanced
//!   by one per resolution.
//! * `draft01`: draft-ietf-rserpool-policies-01 (the seed): LUD counter += the load-degradation
//!   constant per selection, key load + counter; no Priority policy and none of RSPLIB's own.
//! * `rsplib`: what RSPLIB's registrar does (NOTES.md "How the reference implementation selects"):
//!   every (re-)link into the selection set applies the policy update once more, so a selection
//!   updates twice and a registration once; sums are capped at 100 %; only the first maxIncrement
//!   PEs of an answer advance.
//!
//! `rfc5356` and `draft01` keep the LUD counter differently (a count of selections, an
//! accumulated load value) but, with every value on one 32-bit scale and no cap in either text,
//! `load + n x d` and `load + (d + ... + d)` are the same number: the two give the same answers.
//! What sets them apart here is which policies each text defines.

use super::kind::PolicyKind;

/// Which members of an answer have their degradation counter advanced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DegradationScope {
    /// Only the first maxIncrement members (RSPLIB).
    FirstMaxIncrement,
    /// Every member returned ("when an entry is selected for being returned", RFC 5356/draft).
    EveryReturned,
}

/// When a re-registration resets the degradation counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DegradationReset {
    /// Every re-registration ("added or updated by registration or reregistration").
    Always,
    /// RSPLIB: only when the policy settings changed or the counter is non-zero.
    WhenChangedOrDegraded,
}

/// How Weighted Round Robin orders its members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrrRule {
    /// RSPLIB: key (round counter, virtual counter, sequence number); an update decrements the
    /// virtual counter while it is above 1, else starts the member's next round.
    RoundCounter,
    /// The RFC text: a circular list where each member occurs in proportion to its weight, spread
    /// as evenly as possible (maximally spread, as `wrr.rs` defines it), head advanced by one.
    /// A registrar may hold any such list, so `check` judges its answers by the list's
    /// properties rather than by this one list's order.
    SpreadList,
}

#[derive(Debug, PartialEq, Eq)]
pub struct Profile {
    pub name: &'static str,
    pub summary: &'static str,
    /// The policies this reading defines; a pool of any other policy is refused.
    pub policies: &'static [PolicyKind],
    /// Items per answer when the request carries no Handle Resolution Option.
    pub default_items: u32,
    /// Upper bound on items per answer (besides the pool size).
    pub max_items: u32,
    /// How many of an answer's first members advance their state (sequence number, WRR counters,
    /// and degradation unless `degradation_scope` says otherwise).
    pub default_max_increment: u32,
    /// Whether linking a member into the selection set (registration, re-registration that
    /// changed something, and the end of every selection) applies the policy update once more.
    pub update_on_link: bool,
    pub degradation_scope: DegradationScope,
    pub degradation_reset: DegradationReset,
    pub wrr: WrrRule,
    /// Whether load sums (load + degradation, ...) are capped at 100 %.
    pub cap_sums: bool,
    /// The smallest selection weight of the randomised least-used policies (RSPLIB gives a fully
    /// loaded member 1, so that it is still picked now and then; the texts give it 0).
    pub random_load_weight_floor: u64,
}

const RFC_POLICIES: &[PolicyKind] = &[
    PolicyKind::RoundRobin,
    PolicyKind::WeightedRoundRobin,
    PolicyKind::Random,
    PolicyKind::WeightedRandom,
    PolicyKind::Priority,
    PolicyKind::LeastUsed,
    PolicyKind::LeastUsedDegradation,
    PolicyKind::PriorityLeastUsed,
    PolicyKind::RandomizedLeastUsed,
];

// The seed draft's IANA table: 1 RR, 2 WRR, 3 RAND, 4 WRAND, 5 LU, 6 LUD, 7 PLU, 9 RLU.
const DRAFT01_POLICIES: &[PolicyKind] = &[
    PolicyKind::RoundRobin,
    PolicyKind::WeightedRoundRobin,
    PolicyKind::Random,
    PolicyKind::WeightedRandom,
    PolicyKind::LeastUsed,
    PolicyKind::LeastUsedDegradation,
    PolicyKind::PriorityLeastUsed,
    PolicyKind::RandomizedLeastUsed,
];

pub static RFC5356: Profile = Profile {
    name: "rfc5356",
    summary: "RFC 5356's text: LUD counter +1 per returned entry, key load + counter x degradation",
    policies: RFC_POLICIES,
    // Neither text names a default or an upper bound for items; RSPLIB's are used.
    default_items: 3,
    max_items: 128,
    // "Then head SHOULD be advanced by one element."
    default_max_increment: 1,
    update_on_link: false,
    degradation_scope: DegradationScope::EveryReturned,
    degradation_reset: DegradationReset::Always,
    wrr: WrrRule::SpreadList,
    cap_sums: false,
    random_load_weight_floor: 0,
};

pub static DRAFT01: Profile = Profile {
    name: "draft01",
    summary: "draft-ietf-rserpool-policies-01: LUD counter += load degradation per returned entry",
    policies: DRAFT01_POLICIES,
    default_items: 3,
    max_items: 128,
    default_max_increment: 1,
    update_on_link: false,
    degradation_scope: DegradationScope::EveryReturned,
    degradation_reset: DegradationReset::Always,
    wrr: WrrRule::SpreadList,
    cap_sums: false,
    random_load_weight_floor: 0,
};

pub static RSPLIB: Profile = Profile {
    name: "rsplib",
    summary: "RSPLIB's registrar: double update, sums capped at 100 %, maxIncrement 1",
    policies: &PolicyKind::RUNNABLE,
    default_items: 3,
    max_items: 128,
    default_max_increment: 1,
    update_on_link: true,
    degradation_scope: DegradationScope::FirstMaxIncrement,
    degradation_reset: DegradationReset::WhenChangedOrDegraded,
    wrr: WrrRule::RoundCounter,
    cap_sums: true,
    random_load_weight_floor: 1,
};

pub static PROFILES: [&Profile; 3] = [&RFC5356, &DRAFT01, &RSPLIB];

impl Profile {
    pub fn by_name(name: &str) -> Option<&'static Profile> {
        let lower = name.to_ascii_lowercase();
        PROFILES.into_iter().find(|p| p.name == lower)
    }

    pub fn defines(&self, policy: PolicyKind) -> bool {
        self.policies.contains(&policy)
    }

    /// The number of members an answer holds: the Handle Resolution Option's items if present
    /// (0xffffffff = all), else the default; capped at `max_items` and the pool size.
    ///
    /// An option asking for 0 items gets the default: RSPLIB's selection code insists on at least
    /// one, and neither text says what 0 means.
    pub fn items_for(&self, requested: Option<u32>, pool_size: usize) -> usize {
        let wanted = match requested {
            None | Some(0) => self.default_items,
            Some(n) => n,
        };
        let capped = wanted.min(self.max_items);
        usize::try_from(capped).unwrap_or(usize::MAX).min(pool_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_follow_the_option_the_default_and_the_caps() {
        let p = &RSPLIB;
        assert_eq!(p.items_for(None, 5), 3);
        assert_eq!(p.items_for(Some(1), 5), 1);
        assert_eq!(p.items_for(Some(0xffff_ffff), 5), 5);
        assert_eq!(p.items_for(Some(0xffff_ffff), 500), 128);
        assert_eq!(p.items_for(None, 2), 2);
        assert_eq!(p.items_for(Some(7), 0), 0);
    }

    #[test]
    fn profiles_are_found_by_name_and_define_their_policies() {
        assert_eq!(Profile::by_name("RSPLIB").map(|p| p.name), Some("rsplib"));
        assert!(Profile::by_name("rfc9999").is_none());
        assert!(!DRAFT01.defines(PolicyKind::Priority));
        assert!(RFC5356.defines(PolicyKind::Priority));
        assert!(!RFC5356.defines(PolicyKind::PriorityLeastUsedDegradation));
        assert!(RSPLIB.defines(PolicyKind::PriorityLeastUsedDegradation));
    }
}
