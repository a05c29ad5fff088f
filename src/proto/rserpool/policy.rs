//! Pool member selection policies in the three encodings, with a normalised view for analysers.
//!
//! * RFC 5356: a 32-bit policy type, then 32-bit words; load and degradation 0..0xffffffff.
//! * The seed draft (draft-ietf-rserpool-policies-01) and RSPLIB 2007: an 8-bit policy type and a
//!   24-bit value sharing the first word; further words hold 8 reserved bits and a 24-bit value;
//!   load and degradation 0..0xffffff. The two number the policies differently (7 is PLU in the
//!   draft, RLU in RSPLIB 2007).
//!
//! A [`Policy`] keeps the wire values as they were (so emit reproduces the bytes, reserved bits
//! included); [`Policy::kind`] and the accessors give the normalised view.

use nom::combinator::iterator;
use nom::IResult;

use crate::error::DecodeError;
use crate::proto::be::be_u32;

use super::Encoding;

/// Every policy any of the encodings defines: the one policy type from the wire to the replay
/// (`analyse::policy` adds what its reference implementations make of each, and which they run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PolicyKind {
    RoundRobin,
    WeightedRoundRobin,
    Random,
    WeightedRandom,
    Priority,
    LeastUsed,
    LeastUsedDegradation,
    PriorityLeastUsed,
    RandomizedLeastUsed,
    /// RSPLIB: randomized priority least used.
    RandomizedPriorityLeastUsed,
    /// RSPLIB: randomized least used with degradation.
    RandomizedLeastUsedDegradation,
    /// RSPLIB: priority least used with degradation.
    PriorityLeastUsedDegradation,
    /// RSPLIB: randomized priority least used with degradation.
    RandomizedPriorityLeastUsedDegradation,
    /// RSPLIB: weighted random with delay penalty factor.
    WeightedRandomDpf,
    /// RSPLIB: least used with delay penalty factor.
    LeastUsedDpf,
    /// RSPLIB: least used with degradation and delay penalty factor.
    LeastUsedDegradationDpf,
    /// A type number this encoding does not define.
    Unknown,
}

/// Every policy the encoding numbers.
pub fn policies(enc: Encoding) -> Vec<PolicyKind> {
    use PolicyKind::*;
    [
        RoundRobin,
        WeightedRoundRobin,
        Random,
        WeightedRandom,
        Priority,
        LeastUsed,
        LeastUsedDegradation,
        PriorityLeastUsed,
        RandomizedLeastUsed,
        RandomizedPriorityLeastUsed,
        RandomizedLeastUsedDegradation,
        PriorityLeastUsedDegradation,
        RandomizedPriorityLeastUsedDegradation,
        WeightedRandomDpf,
        LeastUsedDpf,
        LeastUsedDegradationDpf,
    ]
    .into_iter()
    .filter(|k| policy_code(*k, enc).is_some())
    .collect()
}

/// What one value after the policy type means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Weight,
    Priority,
    Load,
    Degradation,
    WeightDpf,
    LoadDpf,
    Distance,
}

impl PolicyKind {
    /// Every policy an encoding defines (all but [`PolicyKind::Unknown`]).
    pub const KNOWN: [PolicyKind; 16] = [
        PolicyKind::RoundRobin,
        PolicyKind::WeightedRoundRobin,
        PolicyKind::Random,
        PolicyKind::WeightedRandom,
        PolicyKind::Priority,
        PolicyKind::LeastUsed,
        PolicyKind::LeastUsedDegradation,
        PolicyKind::PriorityLeastUsed,
        PolicyKind::RandomizedLeastUsed,
        PolicyKind::RandomizedPriorityLeastUsed,
        PolicyKind::RandomizedLeastUsedDegradation,
        PolicyKind::PriorityLeastUsedDegradation,
        PolicyKind::RandomizedPriorityLeastUsedDegradation,
        PolicyKind::WeightedRandomDpf,
        PolicyKind::LeastUsedDpf,
        PolicyKind::LeastUsedDegradationDpf,
    ];

    /// The values after the type, in wire order.
    pub fn roles(self) -> &'static [Role] {
        use Role::*;
        match self {
            PolicyKind::RoundRobin | PolicyKind::Random | PolicyKind::Unknown => &[],
            PolicyKind::WeightedRoundRobin | PolicyKind::WeightedRandom => &[Weight],
            PolicyKind::Priority => &[Priority],
            PolicyKind::LeastUsed | PolicyKind::RandomizedLeastUsed => &[Load],
            PolicyKind::LeastUsedDegradation
            | PolicyKind::PriorityLeastUsed
            | PolicyKind::RandomizedPriorityLeastUsed
            | PolicyKind::RandomizedLeastUsedDegradation
            | PolicyKind::PriorityLeastUsedDegradation
            | PolicyKind::RandomizedPriorityLeastUsedDegradation => &[Load, Degradation],
            PolicyKind::WeightedRandomDpf => &[Weight, WeightDpf, Distance],
            PolicyKind::LeastUsedDpf => &[Load, LoadDpf, Distance],
            PolicyKind::LeastUsedDegradationDpf => &[Load, Degradation, LoadDpf, Distance],
        }
    }

    /// The short name used in listings (`poolshark.policy`).
    pub fn short_name(self) -> &'static str {
        match self {
            PolicyKind::RoundRobin => "RR",
            PolicyKind::WeightedRoundRobin => "WRR",
            PolicyKind::Random => "RAND",
            PolicyKind::WeightedRandom => "WRAND",
            PolicyKind::Priority => "PRI",
            PolicyKind::LeastUsed => "LU",
            PolicyKind::LeastUsedDegradation => "LUD",
            PolicyKind::PriorityLeastUsed => "PLU",
            PolicyKind::RandomizedLeastUsed => "RLU",
            PolicyKind::RandomizedPriorityLeastUsed => "RPLU",
            PolicyKind::RandomizedLeastUsedDegradation => "RLUD",
            PolicyKind::PriorityLeastUsedDegradation => "PLUD",
            PolicyKind::RandomizedPriorityLeastUsedDegradation => "RPLUD",
            PolicyKind::WeightedRandomDpf => "WRAND-DPF",
            PolicyKind::LeastUsedDpf => "LU-DPF",
            PolicyKind::LeastUsedDegradationDpf => "LUD-DPF",
            PolicyKind::Unknown => "unknown",
        }
    }

    /// The long name, as Wireshark writes it where it knows the policy.
    pub fn long_name(self) -> &'static str {
        match self {
            PolicyKind::RoundRobin => "Round Robin (RR)",
            PolicyKind::WeightedRoundRobin => "Weighted Round Robin (WRR)",
            PolicyKind::Random => "Random (RAND)",
            PolicyKind::WeightedRandom => "Weighted Random (WRAND)",
            PolicyKind::Priority => "Priority (PRI)",
            PolicyKind::LeastUsed => "Least Used (LU)",
            PolicyKind::LeastUsedDegradation => "Least Used with Degradation (LUD)",
            PolicyKind::PriorityLeastUsed => "Priority Least Used (PLU)",
            PolicyKind::RandomizedLeastUsed => "Randomized Least Used (RLU)",
            PolicyKind::RandomizedPriorityLeastUsed => "Randomized Priority Least Used (RPLU)",
            PolicyKind::RandomizedLeastUsedDegradation => {
                "Randomized Least Used with Degradation (RLUD)"
            }
            PolicyKind::PriorityLeastUsedDegradation => {
                "Priority Least Used with Degradation (PLUD)"
            }
            PolicyKind::RandomizedPriorityLeastUsedDegradation => {
                "Randomized Priority Least Used with Degradation (RPLUD)"
            }
            PolicyKind::WeightedRandomDpf => {
                "Weighted Random with Delay Penalty Factor (WRAND-DPF)"
            }
            PolicyKind::LeastUsedDpf => "Least Used with Delay Penalty Factor (LU-DPF)",
            PolicyKind::LeastUsedDegradationDpf => {
                "Least Used with Degradation and Delay Penalty Factor (LUD-DPF)"
            }
            PolicyKind::Unknown => "Unknown",
        }
    }
}

const RFC_CODES: &[(u32, PolicyKind)] = &[
    (0x0000_0001, PolicyKind::RoundRobin),
    (0x0000_0002, PolicyKind::WeightedRoundRobin),
    (0x0000_0003, PolicyKind::Random),
    (0x0000_0004, PolicyKind::WeightedRandom),
    (0x0000_0005, PolicyKind::Priority),
    (0x4000_0001, PolicyKind::LeastUsed),
    (0x4000_0002, PolicyKind::LeastUsedDegradation),
    (0x4000_0003, PolicyKind::PriorityLeastUsed),
    (0x4000_0004, PolicyKind::RandomizedLeastUsed),
    (0xb000_1001, PolicyKind::RandomizedPriorityLeastUsed),
    (0xb000_1002, PolicyKind::RandomizedLeastUsedDegradation),
    (0xb000_1003, PolicyKind::PriorityLeastUsedDegradation),
    (
        0xb000_1004,
        PolicyKind::RandomizedPriorityLeastUsedDegradation,
    ),
    (0xb000_2001, PolicyKind::WeightedRandomDpf),
    (0xb000_2002, PolicyKind::LeastUsedDpf),
    (0xb000_2003, PolicyKind::LeastUsedDegradationDpf),
];

/// The seed draft's IANA list (section 6): 8 is not assigned.
const DRAFT01_CODES: &[(u32, PolicyKind)] = &[
    (0x01, PolicyKind::RoundRobin),
    (0x02, PolicyKind::WeightedRoundRobin),
    (0x03, PolicyKind::Random),
    (0x04, PolicyKind::WeightedRandom),
    (0x05, PolicyKind::LeastUsed),
    (0x06, PolicyKind::LeastUsedDegradation),
    (0x07, PolicyKind::PriorityLeastUsed),
    (0x09, PolicyKind::RandomizedLeastUsed),
];

/// RSPLIB 2007's numbering. The capture holds RR only; the value layouts of the others are taken
/// to be those of the RFC-era RSPLIB policies with 24-bit values (load, then a word with the
/// degradation; the delay-penalty ones their 3 or 4 values), which is how the 2007 code's
/// successors lay them out. Whatever the layout, the words are kept as they came.
const RSPLIB2007_CODES: &[(u32, PolicyKind)] = &[
    (0x01, PolicyKind::RoundRobin),
    (0x02, PolicyKind::WeightedRoundRobin),
    (0x03, PolicyKind::Random),
    (0x04, PolicyKind::WeightedRandom),
    (0x05, PolicyKind::LeastUsed),
    (0x06, PolicyKind::LeastUsedDegradation),
    (0x07, PolicyKind::RandomizedLeastUsed),
    (0x08, PolicyKind::RandomizedLeastUsedDegradation),
    (0x09, PolicyKind::PriorityLeastUsed),
    (0x0a, PolicyKind::PriorityLeastUsedDegradation),
    (0x0b, PolicyKind::RandomizedPriorityLeastUsed),
    (0x0c, PolicyKind::RandomizedPriorityLeastUsedDegradation),
    (0x20, PolicyKind::WeightedRandomDpf),
    (0x21, PolicyKind::LeastUsedDpf),
    (0x22, PolicyKind::LeastUsedDegradationDpf),
];

fn codes(enc: Encoding) -> &'static [(u32, PolicyKind)] {
    match enc {
        Encoding::Rfc => RFC_CODES,
        Encoding::Draft01 => DRAFT01_CODES,
        Encoding::Rsplib2007 => RSPLIB2007_CODES,
    }
}

/// The policy type number of `kind` in `enc` (`None` when the encoding lacks it).
pub fn policy_code(kind: PolicyKind, enc: Encoding) -> Option<u32> {
    codes(enc).iter().find(|(_, k)| *k == kind).map(|(c, _)| *c)
}

/// The kind of policy type number `code` in `enc`.
pub fn policy_kind(code: u32, enc: Encoding) -> PolicyKind {
    codes(enc)
        .iter()
        .find(|(c, _)| *c == code)
        .map_or(PolicyKind::Unknown, |(_, k)| *k)
}

/// Largest load/degradation value of the legacy encodings (24 bits = 100 %).
pub const LEGACY_FULL: u32 = 0x00ff_ffff;

/// The first word of a policy value: the policy type (RFC), or the 8-bit type and the first
/// 24-bit value (the legacy encodings).
fn policy_type(i: &[u8], enc: Encoding) -> IResult<&[u8], (u32, PolicyValues)> {
    let (i, first) = be_u32(i)?;
    Ok((
        i,
        if enc == Encoding::Rfc {
            (first, PolicyValues::new())
        } else {
            (first >> 24, smallvec::smallvec![first & LEGACY_FULL])
        },
    ))
}

/// A policy's value words, inline up to four (no policy defines more).
pub type PolicyValues = smallvec::SmallVec<[u32; 4]>;

/// The value of a Pool Member Selection Policy parameter, as on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The encoding the policy was read in: fixes the numbering and the value scale.
    pub encoding: Encoding,
    /// The policy type number (32 bits in the RFC, 8 bits in the legacy encodings).
    pub code: u32,
    /// The values after the type, as on the wire. RFC: one per 32-bit word. Legacy: first the
    /// 24-bit value that shares the type's word (reserved for RR and RAND), then each following
    /// word whole (its 8 reserved bits included). Inline: a policy has at most four.
    pub values: PolicyValues,
    /// Bytes after the last whole word (a length that is not a multiple of 4).
    pub rest: Vec<u8>,
}

impl Policy {
    /// A policy of `kind` in `enc` with the given values (in the encoding's own scale).
    pub fn new(enc: Encoding, kind: PolicyKind, values: &[u32]) -> Option<Policy> {
        let code = policy_code(kind, enc)?;
        let mut values = PolicyValues::from_slice(values);
        if enc != Encoding::Rfc && values.is_empty() {
            values.push(0);
        }
        Some(Policy {
            encoding: enc,
            code,
            values,
            rest: Vec::new(),
        })
    }

    pub fn kind(&self) -> PolicyKind {
        policy_kind(self.code, self.encoding)
    }

    fn legacy(&self) -> bool {
        self.encoding != Encoding::Rfc
    }

    /// How many values the kind needs in this encoding.
    pub fn expected_values(&self) -> usize {
        let n = self.kind().roles().len();
        if self.legacy() {
            n.max(1)
        } else {
            n
        }
    }

    /// Each value word with its role as `kind` (this policy's [`Policy::kind`], found once by
    /// the caller) lays them out, masked as [`Policy::raw`] masks them.
    pub fn words(&self, kind: PolicyKind) -> impl Iterator<Item = (Role, u32)> + '_ {
        let mask = if self.legacy() { LEGACY_FULL } else { u32::MAX };
        kind.roles()
            .iter()
            .zip(self.values.iter())
            .map(move |(r, v)| (*r, v & mask))
    }

    /// The raw value in the role `role`, masked to 24 bits in the legacy encodings.
    pub fn raw(&self, role: Role) -> Option<u32> {
        let i = self.kind().roles().iter().position(|r| *r == role)?;
        let v = *self.values.get(i)?;
        Some(if self.legacy() { v & LEGACY_FULL } else { v })
    }

    /// The full scale of load-like values in this encoding.
    fn full(&self) -> f64 {
        if self.legacy() {
            LEGACY_FULL as f64
        } else {
            u32::MAX as f64
        }
    }

    /// A load-like raw value on RFC 5356's scale.
    pub fn to_rfc_scale(&self, v: u32) -> u32 {
        if self.legacy() {
            // Rounded, so 0xffffff (100 %) maps to 0xffffffff.
            let x = (u64::from(v) * u64::from(u32::MAX) + u64::from(LEGACY_FULL / 2))
                / u64::from(LEGACY_FULL);
            u32::try_from(x).unwrap_or(u32::MAX)
        } else {
            v
        }
    }

    pub fn weight(&self) -> Option<u32> {
        self.raw(Role::Weight)
    }

    pub fn priority(&self) -> Option<u32> {
        self.raw(Role::Priority)
    }

    pub fn distance(&self) -> Option<u32> {
        self.raw(Role::Distance)
    }

    /// Load as a fraction of 100 % (1.0 = fully loaded).
    pub fn load(&self) -> Option<f64> {
        self.raw(Role::Load).map(|v| v as f64 / self.full())
    }

    /// Load degradation as a fraction of 100 %.
    pub fn degradation(&self) -> Option<f64> {
        self.raw(Role::Degradation).map(|v| v as f64 / self.full())
    }

    /// Load in percent, computed as Wireshark does (100 x value / full scale).
    pub fn load_percent(&self) -> Option<f64> {
        self.raw(Role::Load).map(|v| 100.0 * v as f64 / self.full())
    }

    /// Load degradation in percent, computed as Wireshark does.
    pub fn degradation_percent(&self) -> Option<f64> {
        self.raw(Role::Degradation)
            .map(|v| 100.0 * v as f64 / self.full())
    }

    /// Load on the RFC 5356 scale (0..0xffffffff), for the reference algorithms.
    pub fn load_rfc(&self) -> Option<u32> {
        self.raw(Role::Load).map(|v| self.to_rfc_scale(v))
    }

    /// Load degradation on the RFC 5356 scale.
    pub fn degradation_rfc(&self) -> Option<u32> {
        self.raw(Role::Degradation).map(|v| self.to_rfc_scale(v))
    }

    /// Load delay penalty factor as a fraction (Wireshark: value / full scale).
    pub fn load_dpf(&self) -> Option<f64> {
        self.raw(Role::LoadDpf).map(|v| v as f64 / self.full())
    }

    /// Weight delay penalty factor as a fraction.
    pub fn weight_dpf(&self) -> Option<f64> {
        self.raw(Role::WeightDpf).map(|v| v as f64 / self.full())
    }

    /// Decodes a policy value (the parameter without its TLV header). `base` is the value's
    /// offset in the message, for the errors.
    pub(crate) fn parse(
        value: &[u8],
        enc: Encoding,
        base: usize,
        errors: &mut Vec<DecodeError>,
    ) -> Option<Policy> {
        let Ok((words, (code, mut values))) = policy_type(value, enc) else {
            errors.push(DecodeError::new(
                base,
                format!(
                    "policy parameter has {} value bytes, needs at least 4 for the policy type",
                    value.len()
                ),
            ));
            return None;
        };
        // The value words, then what is left of a last word cut short.
        let mut it = iterator(words, be_u32);
        values.extend(&mut it);
        let rest = it.finish().map_or(&[][..], |(rest, ())| rest);
        let policy = Policy {
            encoding: enc,
            code,
            values,
            rest: rest.to_vec(),
        };
        if !policy.rest.is_empty() {
            errors.push(DecodeError::new(
                base + value.len() - policy.rest.len(),
                format!(
                    "policy value is {} bytes, not a whole number of 32-bit words",
                    value.len()
                ),
            ));
        }
        let kind = policy.kind();
        if kind != PolicyKind::Unknown && policy.values.len() != policy.expected_values() {
            errors.push(DecodeError::new(
                base,
                format!(
                    "policy {} needs {} value word(s) after the type, the parameter has {}",
                    kind.short_name(),
                    policy.kind().roles().len(),
                    words.len() / 4
                ),
            ));
        }
        Some(policy)
    }

    /// Appends the policy value (without the TLV header).
    pub(crate) fn emit_value(&self, out: &mut Vec<u8>) {
        let mut values = self.values.iter();
        if self.legacy() {
            let first = values.next().copied().unwrap_or(0);
            out.extend_from_slice(&((self.code << 24) | (first & LEGACY_FULL)).to_be_bytes());
        } else {
            out.extend_from_slice(&self.code.to_be_bytes());
        }
        for v in values {
            out.extend_from_slice(&v.to_be_bytes());
        }
        out.extend_from_slice(&self.rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(bytes: &[u8], enc: Encoding) -> (Policy, Vec<DecodeError>) {
        let mut e = Vec::new();
        let p = Policy::parse(bytes, enc, 100, &mut e).expect("policy");
        (p, e)
    }

    #[test]
    fn rfc_lu_load_is_computed_as_wireshark_does() {
        // 0x80000000 = 50 % plus half a step; Wireshark prints 50.0000000116415.
        let (p, e) = parse(&[0x40, 0, 0, 1, 0x80, 0, 0, 0], Encoding::Rfc);
        assert!(e.is_empty());
        assert_eq!(p.kind(), PolicyKind::LeastUsed);
        let pct = p.load_percent().unwrap();
        assert!((pct - 50.000_000_011_641_5).abs() < 1e-9, "{pct}");
        assert_eq!(p.load_rfc(), Some(0x8000_0000));
        assert_eq!(p.degradation(), None);
    }

    #[test]
    fn legacy_values_are_24_bit_and_scaled() {
        // Seed draft LUD: load 0x7fffff, reserved byte 0xaa, degradation 0xffffff.
        let bytes = [0x06, 0x7f, 0xff, 0xff, 0xaa, 0xff, 0xff, 0xff];
        let (p, e) = parse(&bytes, Encoding::Draft01);
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(p.kind(), PolicyKind::LeastUsedDegradation);
        // Same fraction of the RFC's full scale, rounded.
        let want = (f64::from(0x7f_ffffu32) / f64::from(LEGACY_FULL) * f64::from(u32::MAX)).round();
        assert_eq!(p.load_rfc(), Some(want as u32));
        assert_eq!(p.degradation_rfc(), Some(u32::MAX));
        assert_eq!(p.degradation_percent(), Some(100.0));
        // The reserved byte survives a round trip.
        let mut out = Vec::new();
        p.emit_value(&mut out);
        assert_eq!(out, bytes);
    }

    #[test]
    fn numbering_differs_between_draft_and_rsplib() {
        assert_eq!(
            policy_kind(7, Encoding::Draft01),
            PolicyKind::PriorityLeastUsed
        );
        assert_eq!(
            policy_kind(7, Encoding::Rsplib2007),
            PolicyKind::RandomizedLeastUsed
        );
        assert_eq!(
            policy_kind(9, Encoding::Draft01),
            PolicyKind::RandomizedLeastUsed
        );
        assert_eq!(
            policy_kind(9, Encoding::Rsplib2007),
            PolicyKind::PriorityLeastUsed
        );
        assert_eq!(policy_kind(8, Encoding::Draft01), PolicyKind::Unknown);
        assert_eq!(policy_kind(5, Encoding::Rfc), PolicyKind::Priority);
        assert_eq!(policy_kind(5, Encoding::Rsplib2007), PolicyKind::LeastUsed);
    }

    #[test]
    fn rsplib_2007_rr_from_frame_298() {
        // Frame 298 of the 2007 capture: policy TLV 0x0006 = 01 000000.
        let (p, e) = parse(&[1, 0, 0, 0], Encoding::Rsplib2007);
        assert!(e.is_empty());
        assert_eq!(p.kind(), PolicyKind::RoundRobin);
        assert_eq!(p.values.as_slice(), [0]);
    }

    #[test]
    fn wrong_lengths_are_errors_not_panics() {
        let mut e = Vec::new();
        assert!(Policy::parse(&[0, 0, 1], Encoding::Rfc, 8, &mut e).is_none());
        assert_eq!(e[0].offset, 8);
        // WRR without its weight.
        let (p, e) = parse(&[0, 0, 0, 2], Encoding::Rfc);
        assert_eq!(p.weight(), None);
        assert_eq!(e.len(), 1);
        assert!(e[0].what.contains("WRR"), "{}", e[0].what);
        // A word and a half.
        let (p, e) = parse(&[0, 0, 0, 2, 0, 0, 0, 3, 9, 9], Encoding::Rfc);
        assert_eq!(p.weight(), Some(3));
        assert_eq!(p.rest, vec![9, 9]);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].offset, 108);
        let mut out = Vec::new();
        p.emit_value(&mut out);
        assert_eq!(out, [0, 0, 0, 2, 0, 0, 0, 3, 9, 9]);
    }

    #[test]
    fn every_kind_round_trips_in_every_encoding_that_has_it() {
        for enc in [Encoding::Rfc, Encoding::Draft01, Encoding::Rsplib2007] {
            for (code, kind) in codes(enc) {
                let vals: Vec<u32> = (1..=kind.roles().len() as u32).collect();
                let p = Policy::new(enc, *kind, &vals).unwrap();
                assert_eq!(p.code, *code);
                let mut out = Vec::new();
                p.emit_value(&mut out);
                let (q, e) = parse(&out, enc);
                assert!(e.is_empty(), "{enc:?} {kind:?} {e:?}");
                assert_eq!(p, q);
                for (i, role) in kind.roles().iter().enumerate() {
                    assert_eq!(q.raw(*role), Some(i as u32 + 1));
                }
            }
        }
    }
}
