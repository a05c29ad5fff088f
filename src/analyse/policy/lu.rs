//! Least Used (RFC 5356 5.1, draft-01 4.1): the lowest loads, ascending by load, round robin
//! between equal loads.

use super::member::{Member, SortKey};

pub fn key(m: &Member) -> SortKey {
    SortKey::new(order_key(m), 0, m.seq)
}

pub fn order_key(m: &Member) -> u64 {
    u64::from(m.settings.load)
}
