//! Randomized Least Used (RFC 5356 5.4, draft-01 4.4): WRAND with weight 100 % - load.

use super::load_sum;
use super::member::Member;
use super::profile::Profile;

pub fn weight(profile: &Profile, m: &Member) -> u64 {
    load_sum::headroom(profile, &[u64::from(m.settings.load)])
}
