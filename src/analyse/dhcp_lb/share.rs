//! A server's share of its pair's balanced answers against the share the reference expects: one
//! computation, per episode, per episode kind, over the whole run (`check`) and per window (the
//! timeline that `stats` and the TUI show, fed the same weights by the judge).
//!
//! Each answered balanced transmission counts once: for the server that answered it, or for its
//! owner when both did (share), and for the server its episode's reference names (expected
//! share): the bucket's owner in a normal episode, the serving server in the others (the taker
//! in a takeover, the partner of a silent or resyncing server).

use crate::proto::lb::Role;

/// Index 0 the primary, 1 the secondary.
pub fn idx(r: Role) -> usize {
    match r {
        Role::Primary => 0,
        Role::Secondary => 1,
    }
}

/// What the reference expects of one answered transmission: each server's weight, summing to 1.
pub fn weights(expected: Role) -> [f64; 2] {
    let mut w = [0.0; 2];
    w[idx(expected)] = 1.0;
    w
}

/// Counts over a set of answered balanced transmissions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shares {
    /// Answered transmissions.
    pub answered: u64,
    /// Transmissions each server answered (both, when both did).
    pub answers: [u64; 2],
    /// Transmissions counted for each server: the one that answered, the owner when both did.
    pub first: [u64; 2],
    /// The reference's weights summed: the count each server was expected to have.
    pub expected: [f64; 2],
}

impl Shares {
    /// One answered transmission: who answered (owner first), counted for `credited`, and the
    /// reference's `weights`.
    pub fn add(&mut self, answered_by: [bool; 2], credited: Role, weights: [f64; 2]) {
        self.answered += 1;
        for (i, yes) in answered_by.iter().enumerate() {
            if *yes {
                self.answers[i] += 1;
            }
        }
        self.first[idx(credited)] += 1;
        for (e, w) in self.expected.iter_mut().zip(weights) {
            *e += w;
        }
    }

    /// Server `r`'s share (`None` without answers).
    pub fn share(&self, r: Role) -> Option<f64> {
        (self.answered > 0).then(|| self.first[idx(r)] as f64 / self.answered as f64)
    }

    /// The share the reference expects of server `r`.
    pub fn expected_share(&self, r: Role) -> Option<f64> {
        (self.answered > 0).then(|| self.expected[idx(r)] / self.answered as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_count_each_transmission_once() {
        let mut s = Shares::default();
        assert_eq!(s.share(Role::Primary), None);
        // Normal: the primary's bucket, answered by it; the secondary's, answered by both.
        s.add([true, false], Role::Primary, weights(Role::Primary));
        s.add([true, true], Role::Secondary, weights(Role::Secondary));
        // Takeover by the primary: the secondary's bucket answered by the primary.
        s.add([true, false], Role::Primary, weights(Role::Primary));
        assert_eq!(s.answers, [3, 1]);
        assert_eq!(s.share(Role::Primary), Some(2.0 / 3.0));
        assert_eq!(s.share(Role::Secondary), Some(1.0 / 3.0));
        assert_eq!(s.expected_share(Role::Primary), Some(2.0 / 3.0));
        let sum =
            s.expected_share(Role::Primary).unwrap() + s.expected_share(Role::Secondary).unwrap();
        assert!((sum - 1.0).abs() < 1e-12);
    }
}
