//! Weighted Random (RFC 5356 4.4, draft-01 3.4): drawn in proportion to the weight, none twice in
//! an answer; a weight of 0 is never drawn.

use super::member::Member;

pub fn weight(m: &Member) -> u64 {
    u64::from(m.settings.weight)
}
