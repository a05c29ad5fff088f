//! A small seeded PRNG (xoshiro256** seeded through SplitMix64), written here so that a seed gives
//! the same answers whatever crate versions the build picks up.

/// Pseudo-random numbers for the randomised policies. Not for anything secret.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// SplitMix64: spreads one 64-bit seed over the four state words.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform value in `0..bound` (0 when `bound` is 0), without modulo bias: draws that fall
    /// in the incomplete last block of `bound`-sized blocks are thrown away.
    pub fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            return 0;
        }
        // Values >= zone belong to the incomplete last block.
        let zone = u64::MAX - (u64::MAX % bound);
        loop {
            let v = self.next_u64();
            if v < zone {
                return v % bound;
            }
        }
    }

    /// A uniform value in [0, 1).
    pub fn unit(&mut self) -> f64 {
        // The top 53 bits fill a double's mantissa exactly.
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::policy::chi_square::chi_square_p;

    #[test]
    fn splitmix64_matches_its_published_first_output() {
        // SplitMix64 from state 0 yields 0xe220a8397b1dcdaf first (the value quoted with the
        // reference implementation, and by every port that tests against it).
        let mut s = 0u64;
        assert_eq!(splitmix64(&mut s), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn same_seed_same_sequence_different_seed_different_sequence() {
        let a: Vec<u64> = (0..8)
            .scan(Rng::new(42), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..8)
            .scan(Rng::new(42), |r, _| Some(r.next_u64()))
            .collect();
        let c: Vec<u64> = (0..8)
            .scan(Rng::new(43), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn below_is_uniform_and_in_range() {
        let mut r = Rng::new(7);
        let mut counts = [0u64; 6];
        for _ in 0..60_000 {
            let v = r.below(6);
            assert!(v < 6);
            counts[v as usize] += 1;
        }
        let p = chi_square_p(&counts, &[1.0 / 6.0; 6]).expect("enough draws");
        assert!(
            p > 0.001,
            "die of six faces looks loaded: p = {p}, {counts:?}"
        );
        assert_eq!(r.below(0), 0);
        assert_eq!(r.below(1), 0);
        let u = r.unit();
        assert!((0.0..1.0).contains(&u));
    }
}
