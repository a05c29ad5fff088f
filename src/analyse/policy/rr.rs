//! Round Robin (RFC 5356 4.1, draft-01 3.1): members in a circle, each answer starts at the head
//! and the head moves on by one. The sequence number is the circle: the member that was first gets
//! the largest number.

use super::member::{Member, SortKey};

pub fn key(m: &Member) -> SortKey {
    SortKey::new(0, 0, m.seq)
}
