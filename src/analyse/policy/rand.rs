//! Random (RFC 5356 4.3, draft-01 3.3): every member equally likely, none twice in an answer.

use super::member::Member;

pub fn weight(_m: &Member) -> u64 {
    1
}
