//! A pool element's policy settings, normalised to RFC 5356's scale: every value a full 32-bit
//! word, load and load degradation 0..=0xffffffff for 0..=100 %.

use super::kind::PolicyKind;

/// 100 % on RFC 5356's scale for load and load degradation.
pub const MAX_VALUE: u32 = u32::MAX;

/// What a pool element registered: its policy and the words the policy parameter carried.
/// Words the policy does not carry are 0 (weight: 1, so that a weighted policy fed settings that
/// never named a weight behaves like its unweighted sibling).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PeSettings {
    pub policy: PolicyKind,
    pub weight: u32,
    /// Larger is better (RFC 5356 Priority policy).
    pub priority: u32,
    pub load: u32,
    pub load_degradation: u32,
}

impl PeSettings {
    pub fn new(policy: PolicyKind) -> Self {
        PeSettings {
            policy,
            weight: 1,
            priority: 0,
            load: 0,
            load_degradation: 0,
        }
    }

    pub fn with_weight(mut self, weight: u32) -> Self {
        self.weight = weight;
        self
    }

    pub fn with_priority(mut self, priority: u32) -> Self {
        self.priority = priority;
        self
    }

    pub fn with_load(mut self, load: u32) -> Self {
        self.load = load;
        self
    }

    pub fn with_load_degradation(mut self, load_degradation: u32) -> Self {
        self.load_degradation = load_degradation;
        self
    }

    /// What differs between `self` (the old settings) and `new`, in the words the policy reads.
    pub fn changes_to(&self, new: &PeSettings) -> Vec<SettingChange> {
        let uses = new.policy.uses();
        let mut out = Vec::new();
        if uses.weight && self.weight != new.weight {
            out.push(SettingChange::Weight {
                from: self.weight,
                to: new.weight,
            });
        }
        if uses.priority && self.priority != new.priority {
            out.push(SettingChange::Priority {
                from: self.priority,
                to: new.priority,
            });
        }
        if uses.load && self.load != new.load {
            out.push(SettingChange::Load {
                from: self.load,
                to: new.load,
            });
        }
        if uses.load_degradation && self.load_degradation != new.load_degradation {
            out.push(SettingChange::LoadDegradation {
                from: self.load_degradation,
                to: new.load_degradation,
            });
        }
        out
    }
}

/// One setting a re-registration changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingChange {
    Weight { from: u32, to: u32 },
    Priority { from: u32, to: u32 },
    Load { from: u32, to: u32 },
    LoadDegradation { from: u32, to: u32 },
}

/// A percentage (0..=100) on RFC 5356's 32-bit scale, rounded to the nearest word, halves to
/// even as C's `rint` does: RSPLIB encodes 30 % as 1288490188 (0x4ccccccc, from 1288490188.5) and
/// 50 % as 0x80000000 (from 2147483647.5), as `rsplib-multi-pe.pcap` shows.
pub fn scaled_from_percent(percent: f64) -> Option<u32> {
    if !percent.is_finite() || !(0.0..=100.0).contains(&percent) {
        return None;
    }
    // Multiplying first keeps whole percentages exact: 30 x 0xffffffff / 100 is exactly
    // 1288490188.5, where 0.3 x 0xffffffff is not.
    let raw = (percent * f64::from(MAX_VALUE) / 100.0).round_ties_even();
    // `as` saturates, and the range check above keeps `raw` within 0..=MAX_VALUE anyway.
    Some(raw as u32)
}

/// A load or degradation of the legacy encodings (draft-01 and RSPLIB of 2007: 24 bits,
/// 0xffffff = 100 %) on RFC 5356's 32-bit scale, rounded to the nearest word. Bits above the 24
/// are not part of the value and are ignored. Weights are not percentages: keep them as they are.
pub fn scaled_from_legacy_24bit(value: u32) -> u32 {
    const LEGACY_MAX: u64 = 0x00ff_ffff;
    let v = u64::from(value) & LEGACY_MAX;
    let scaled = (v * u64::from(MAX_VALUE) + LEGACY_MAX / 2) / LEGACY_MAX;
    u32::try_from(scaled).unwrap_or(MAX_VALUE)
}

/// The percentage a 32-bit load or degradation word stands for.
pub fn percent_of(raw: u32) -> f64 {
    f64::from(raw) * 100.0 / f64::from(MAX_VALUE)
}

/// Parses a load or degradation given as a percentage (`50%`, `12.5%`) or as a raw 32-bit word
/// (`2147483648`, `0x80000000`).
pub fn parse_scaled(text: &str) -> Result<u32, String> {
    let t = text.trim();
    if let Some(p) = t.strip_suffix('%') {
        let v: f64 = p
            .trim()
            .parse()
            .map_err(|_| format!("`{text}` is not a percentage such as 50% or 12.5%"))?;
        return scaled_from_percent(v).ok_or_else(|| format!("`{text}` is outside 0%..100%"));
    }
    parse_u32(t).map_err(|_| {
        format!(
            "`{text}` is neither a percentage (50%) nor a 32-bit value (0..4294967295 or 0x...)"
        )
    })
}

/// A 32-bit number in decimal or with a `0x` prefix.
pub fn parse_u32(text: &str) -> Result<u32, std::num::ParseIntError> {
    let t = text.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => t.parse(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_map_onto_the_32_bit_scale() {
        // 50 % is 0x80000000 when rounded (0x7fffffff.8); tshark prints it as 50.0000000116415 %.
        assert_eq!(parse_scaled("50%"), Ok(0x8000_0000));
        assert_eq!(parse_scaled("100%"), Ok(u32::MAX));
        assert_eq!(parse_scaled("0%"), Ok(0));
        assert_eq!(parse_scaled("20%"), Ok(858_993_459));
        // The words RSPLIB put on the wire for these percentages (rsplib-multi-pe.pcap, as tshark
        // prints them: 29.9999999883585 %, 10.0000000116415 %, 1.00000000116415 %,
        // 5.00000000582077 %, 74.9999999941792 %).
        assert_eq!(parse_scaled("30%"), Ok(1_288_490_188));
        assert_eq!(parse_scaled("10%"), Ok(429_496_730));
        assert_eq!(parse_scaled("1%"), Ok(42_949_673));
        assert_eq!(parse_scaled("5%"), Ok(214_748_365));
        assert_eq!(parse_scaled("75%"), Ok(3_221_225_471));
        assert_eq!(parse_scaled("0x10"), Ok(16));
        assert_eq!(parse_scaled("4294967295"), Ok(u32::MAX));
        assert!(parse_scaled("101%").is_err());
        assert!(parse_scaled("-1%").is_err());
        assert!(parse_scaled("4294967296").is_err());
        assert!(parse_scaled("NaN%").is_err());
        assert!(parse_scaled("abc").is_err());
        assert!((percent_of(0x8000_0000) - 50.000_000_011_641_5).abs() < 1e-9);
    }

    #[test]
    fn legacy_24_bit_values_scale_onto_32_bits() {
        assert_eq!(scaled_from_legacy_24bit(0), 0);
        assert_eq!(scaled_from_legacy_24bit(0x00ff_ffff), u32::MAX);
        assert_eq!(scaled_from_legacy_24bit(0xff00_0000), 0);
        // 0x800000 / 0xffffff is a hair above one half.
        assert_eq!(scaled_from_legacy_24bit(0x0080_0000), 0x8000_0080);
    }

    #[test]
    fn changes_name_only_the_words_the_policy_reads() {
        let old = PeSettings::new(PolicyKind::LeastUsed).with_load(10);
        let new = old.with_load(20).with_weight(9);
        assert_eq!(
            old.changes_to(&new),
            vec![SettingChange::Load { from: 10, to: 20 }]
        );
    }
}
