//! When a scenario's next exchange starts, and the small random choices every scenario makes,
//! all from one seeded generator so that a seed gives the same capture on every machine.

use crate::analyse::policy::Rng;

use super::batch::NS;

/// 2024-01-01T00:00:00Z: where generated captures start unless told otherwise.
pub const DEFAULT_START_SECS: u64 = 1_704_067_200;

/// A seeded source of choices and gaps.
#[derive(Clone, Debug)]
pub struct Dice {
    rng: Rng,
}

impl Dice {
    /// The dice of scenario `name` under `seed`: each scenario gets its own stream, so adding a
    /// scenario to a mix does not change what the others say.
    pub fn new(seed: u64, name: &str) -> Self {
        // FNV-1a of the name, folded into the seed.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        Dice {
            rng: Rng::new(seed ^ h),
        }
    }

    /// The generator itself, for the reference policies' random draws.
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    pub fn u32(&mut self) -> u32 {
        (self.rng.next_u64() >> 32) as u32
    }

    /// A value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.rng.below(n as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.rng.unit() < p
    }

    /// An index drawn in proportion to `weights` (0 when they are all 0).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        let mut v = self.rng.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if v < u64::from(w) {
                return i;
            }
            v -= u64::from(w);
        }
        0
    }

    /// A gap of mean `mean_ns`, exponentially distributed (arrivals of a Poisson process), at
    /// least 1 µs and at most 20 means.
    pub fn gap(&mut self, mean_ns: u64) -> u64 {
        let u = self.rng.unit();
        // 1 - u lies in (0, 1]: its logarithm is finite.
        let x = -(1.0 - u).ln() * mean_ns as f64;
        (x as u64).clamp(1_000, mean_ns.saturating_mul(20).max(1_000))
    }

    /// A gap of `mean_ns` give or take a quarter, for timers (keep-alives, announces).
    pub fn jitter(&mut self, mean_ns: u64) -> u64 {
        let quarter = mean_ns / 4;
        mean_ns - quarter + self.rng.below(quarter.saturating_mul(2).max(1))
    }
}

/// Mean time between exchanges for `per_second` exchanges a second.
pub fn mean_gap_ns(per_second: f64) -> u64 {
    if per_second > 0.0 {
        ((NS as f64) / per_second).max(1_000.0) as u64
    } else {
        NS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_by_name_and_repeat_by_seed() {
        let a: Vec<u32> = (0..4)
            .scan(Dice::new(1, "dhcp"), |d, _| Some(d.u32()))
            .collect();
        let b: Vec<u32> = (0..4)
            .scan(Dice::new(1, "dhcp"), |d, _| Some(d.u32()))
            .collect();
        let c: Vec<u32> = (0..4)
            .scan(Dice::new(1, "rserpool"), |d, _| Some(d.u32()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn gaps_average_their_mean() {
        let mut d = Dice::new(3, "x");
        let n = 20_000u64;
        let total: u64 = (0..n).map(|_| d.gap(1_000_000)).sum();
        let mean = total / n;
        assert!((900_000..1_100_000).contains(&mean), "{mean}");
        let w = [0, 3, 1];
        let mut counts = [0u32; 3];
        for _ in 0..4000 {
            counts[d.weighted(&w)] += 1;
        }
        assert_eq!(counts[0], 0);
        assert!(counts[1] > 2 * counts[2], "{counts:?}");
    }
}
