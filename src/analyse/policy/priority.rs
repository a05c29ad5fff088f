//! Priority (RFC 5356 4.5; not in draft-01): the highest priorities first, round robin between
//! equal priorities.

use super::member::{Member, SortKey};

pub fn key(m: &Member) -> SortKey {
    SortKey::new(order_key(m), 0, m.seq)
}

/// Ascending in a correct answer: the priority turned upside down.
pub fn order_key(m: &Member) -> u64 {
    u64::from(u32::MAX - m.settings.priority)
}
