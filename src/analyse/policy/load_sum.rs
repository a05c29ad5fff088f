//! Sums of load-scale values, capped at 100 % or not as the profile says, and the headroom the
//! randomised least-used policies turn into a selection weight.

use super::profile::Profile;
use super::settings::MAX_VALUE;

/// `parts` added up: capped at 100 % for RSPLIB, otherwise saturating only at u64's end (which no
/// sum of a few 32-bit words and a counter reaches in practice).
pub fn sum(profile: &Profile, parts: &[u64]) -> u64 {
    let total = parts.iter().fold(0u64, |a, &p| a.saturating_add(p));
    if profile.cap_sums {
        total.min(u64::from(MAX_VALUE))
    } else {
        total
    }
}

/// 100 % minus `parts`, never below the profile's floor (RSPLIB: 1, so that a fully loaded member
/// is still drawn now and then; the texts: 0, never drawn).
pub fn headroom(profile: &Profile, parts: &[u64]) -> u64 {
    let used = parts.iter().fold(0u64, |a, &p| a.saturating_add(p));
    u64::from(MAX_VALUE)
        .saturating_sub(used)
        .max(profile.random_load_weight_floor)
}

/// The degradation counter after one more selection.
pub fn degraded(profile: &Profile, degradation: u64, load_degradation: u32) -> u64 {
    sum(profile, &[degradation, u64::from(load_degradation)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::policy::profile::{RFC5356, RSPLIB};

    #[test]
    fn rsplib_caps_and_the_text_does_not() {
        let max = u64::from(MAX_VALUE);
        assert_eq!(sum(&RSPLIB, &[max, 5]), max);
        assert_eq!(sum(&RFC5356, &[max, 5]), max + 5);
        assert_eq!(headroom(&RSPLIB, &[max]), 1);
        assert_eq!(headroom(&RFC5356, &[max]), 0);
        assert_eq!(headroom(&RFC5356, &[max, max]), 0);
        assert_eq!(headroom(&RSPLIB, &[0]), max);
        assert_eq!(degraded(&RSPLIB, max - 1, 10), max);
        assert_eq!(degraded(&RFC5356, u64::MAX, 10), u64::MAX);
    }
}
