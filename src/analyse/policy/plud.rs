//! RSPLIB's Priority Least Used with Degradation (0xb0001003): PLU's key plus LUD's counter.

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
            m.degradation,
        ],
    )
}
