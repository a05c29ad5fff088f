//! Priority Least Used (RFC 5356 5.3, draft-01 4.3): like LU on load + load degradation, the load
//! the member would have after accepting one more request. No counter: the key does not move.

use super::load_sum;
use super::member::{Member, SortKey};
use super::profile::Profile;

pub fn key(profile: &Profile, m: &Member) -> SortKey {
    SortKey::new(order_key(profile, m), 0, m.seq)
}

pub fn order_key(profile: &Profile, m: &Member) -> u64 {
    load_sum::sum(
        profile,
        &[
            u64::from(m.settings.load),
            u64::from(m.settings.load_degradation),
        ],
    )
}
