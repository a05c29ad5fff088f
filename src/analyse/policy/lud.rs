//! Least Used with Degradation (RFC 5356 5.2, draft-01 4.2): like LU on load + a degradation
//! counter that grows each time the member is handed out and is reset by (re-)registration. How
//! much it grows, and when it is reset, is the profile's business (see `profile.rs`).

use super::load_sum;
use super::member::{Member, SortKey};
use super::profile::Profile;

pub fn key(profile: &Profile, m: &Member) -> SortKey {
    SortKey::new(order_key(profile, m), 0, m.seq)
}

pub fn order_key(profile: &Profile, m: &Member) -> u64 {
    load_sum::sum(profile, &[u64::from(m.settings.load), m.degradation])
}

/// One selection's worth of degradation.
pub fn update(profile: &Profile, m: &mut Member) {
    m.degradation = load_sum::degraded(profile, m.degradation, m.settings.load_degradation);
}
