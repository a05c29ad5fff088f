//! From a policy kind to its module: the sort key or the draw weight, and the state update.

use super::kind::PolicyKind;
use super::member::{Member, SortKey};
use super::profile::Profile;
use super::{lu, lud, plu, plud, priority, rand, rlu, rlud, rplu, rplud, rr, wrand, wrr};

/// The order of a sorted policy (RSPLIB's WRR rule; the spread list has no key).
pub fn sort_key(kind: PolicyKind, profile: &Profile, m: &Member) -> SortKey {
    match kind {
        PolicyKind::WeightedRoundRobin => wrr::key(m),
        PolicyKind::Priority => priority::key(m),
        PolicyKind::LeastUsed => lu::key(m),
        PolicyKind::LeastUsedDegradation => lud::key(profile, m),
        PolicyKind::PriorityLeastUsed => plu::key(profile, m),
        PolicyKind::PriorityLeastUsedDegradation => plud::key(profile, m),
        // Round robin, and the randomised policies should they ever be sorted: the circle.
        _ => rr::key(m),
    }
}

/// The weight of a randomised policy's draw.
pub fn draw_weight(kind: PolicyKind, profile: &Profile, m: &Member) -> u64 {
    match kind {
        PolicyKind::Random => rand::weight(m),
        PolicyKind::WeightedRandom => wrand::weight(m),
        PolicyKind::RandomizedLeastUsed => rlu::weight(profile, m),
        PolicyKind::RandomizedPriorityLeastUsed => rplu::weight(profile, m),
        PolicyKind::RandomizedLeastUsedDegradation => rlud::weight(profile, m),
        PolicyKind::RandomizedPriorityLeastUsedDegradation => rplud::weight(profile, m),
        _ => 1,
    }
}

/// The key a correct answer is ascending in, where the policy promises an order a reader of the
/// wire can check (LU by load; LUD and PLU by load + degradation; PRIORITY by priority,
/// descending, given here upside down).
pub fn order_key(kind: PolicyKind, profile: &Profile, m: &Member) -> Option<u64> {
    match kind {
        PolicyKind::Priority => Some(priority::order_key(m)),
        PolicyKind::LeastUsed => Some(lu::order_key(m)),
        PolicyKind::LeastUsedDegradation => Some(lud::order_key(profile, m)),
        PolicyKind::PriorityLeastUsed => Some(plu::order_key(profile, m)),
        PolicyKind::PriorityLeastUsedDegradation => Some(plud::order_key(profile, m)),
        _ => None,
    }
}

/// The policy's own update of a member that advances (RSPLIB's "update function").
pub fn update(kind: PolicyKind, profile: &Profile, m: &mut Member) {
    if kind == PolicyKind::WeightedRoundRobin {
        wrr::update(m);
    } else if kind.degrades() {
        lud::update(profile, m);
    }
}
