//! RSPLIB's Randomized Priority Least Used (0xb0001001): RLU on load + load degradation.

use super::load_sum;
use super::member::Member;
use super::profile::Profile;

pub fn weight(profile: &Profile, m: &Member) -> u64 {
    load_sum::headroom(
        profile,
        &[
            u64::from(m.settings.load),
            u64::from(m.settings.load_degradation),
        ],
    )
}
