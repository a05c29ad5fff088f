//! RSPLIB's Randomized Least Used with Degradation (0xb0001002): RLU on load + the degradation
//! counter (which grows as LUD's does).

use super::load_sum;
use super::member::Member;
use super::profile::Profile;

pub fn weight(profile: &Profile, m: &Member) -> u64 {
    load_sum::headroom(profile, &[u64::from(m.settings.load), m.degradation])
}
