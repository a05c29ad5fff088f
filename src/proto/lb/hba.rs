//! Hash Bucket Assignment: which of the two servers of a pair serves each of the 256 buckets.
//!
//! The map is 256 bits, 32 bytes, as it travels in a failover CONNECT (option 11): bucket `b` is
//! bit `1 << (b & 7)` of byte `b >> 3`. poolshark uses ISC DHCP's orientation: a set bit means the
//! PRIMARY serves the bucket (draft-ietf-dhc-failover-12 says the secondary; ISC's
//! `load_balance_mine` does the opposite, and ISC is what is deployed).
//!
//! Text forms: `split:N` (ISC's `split N`: the primary owns buckets 0..N-1), `kea` (Kea's
//! load-balancing rule `hash % 2`: even buckets to the primary, i.e. every byte 0x55), or the 32
//! bytes as 64 hex digits, with or without a colon between bytes.

use std::fmt;
use std::str::FromStr;

use super::hash;

/// One server of a failover or load-balancing pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Primary,
    Secondary,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Primary => "primary",
            Role::Secondary => "secondary",
        }
    }

    /// The other server of the pair.
    pub fn peer(self) -> Role {
        match self {
            Role::Primary => Role::Secondary,
            Role::Secondary => Role::Primary,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A 256-bit hash bucket assignment (set bit: the primary serves the bucket).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Hba([u8; Hba::LEN]);

/// Why a text or wire form is not a hash bucket assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HbaError(String);

impl fmt::Display for HbaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HbaError {}

/// Kea's rule: even buckets (bits 0, 2, 4, 6 of every byte) belong to the primary.
const KEA_BYTE: u8 = 0x55;

impl Hba {
    /// Bytes on the wire.
    pub const LEN: usize = 32;
    /// Number of buckets.
    pub const BUCKETS: u16 = 256;

    pub const fn from_bytes(bytes: [u8; Hba::LEN]) -> Self {
        Hba(bytes)
    }

    /// ISC's `split N`: the primary owns buckets `0..n`, the secondary the rest. `n` is at most 256.
    pub fn split(n: u16) -> Result<Self, HbaError> {
        if n > Hba::BUCKETS {
            return Err(HbaError(format!(
                "split {n} is out of range: a split counts buckets, 0 to 256"
            )));
        }
        let mut bytes = [0u8; Hba::LEN];
        for b in 0..n {
            // b < 256, so b >> 3 < 32.
            bytes[usize::from(b >> 3)] |= 1 << (b & 7);
        }
        Ok(Hba(bytes))
    }

    /// Kea's load-balancing rule (`hash % 2`: even buckets to the primary).
    pub const fn kea() -> Self {
        Hba([KEA_BYTE; Hba::LEN])
    }

    pub fn bytes(&self) -> &[u8; Hba::LEN] {
        &self.0
    }

    /// Which server serves `bucket`.
    pub fn owner(&self, bucket: u8) -> Role {
        if self.0[usize::from(bucket >> 3)] & (1 << (bucket & 7)) != 0 {
            Role::Primary
        } else {
            Role::Secondary
        }
    }

    /// The bucket of a service transaction id and the server that serves it.
    pub fn owner_of_key(&self, stid: &[u8]) -> (u8, Role) {
        let b = hash::bucket(stid);
        (b, self.owner(b))
    }

    /// How many buckets the primary serves.
    pub fn primary_buckets(&self) -> u16 {
        self.0.iter().map(|b| b.count_ones() as u16).sum()
    }

    /// `Some(n)` when this is exactly ISC's `split n`.
    pub fn as_split(&self) -> Option<u16> {
        let n = self.primary_buckets();
        match Hba::split(n) {
            Ok(s) if s == *self => Some(n),
            _ => None,
        }
    }

    pub fn is_kea(&self) -> bool {
        *self == Hba::kea()
    }
}

impl TryFrom<&[u8]> for Hba {
    type Error = HbaError;

    /// The payload of a failover CONNECT's hash-bucket-assignment option: exactly 32 bytes.
    fn try_from(b: &[u8]) -> Result<Self, HbaError> {
        <[u8; Hba::LEN]>::try_from(b).map(Hba).map_err(|_| {
            HbaError(format!(
                "a hash bucket assignment is {} bytes, not {}",
                Hba::LEN,
                b.len()
            ))
        })
    }
}

impl FromStr for Hba {
    type Err = HbaError;

    fn from_str(s: &str) -> Result<Self, HbaError> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("kea") {
            return Ok(Hba::kea());
        }
        if let Some(n) = strip_prefix_ignore_case(s, "split:") {
            let n: u16 = n.trim().parse().map_err(|_| {
                HbaError(format!("split:{n} needs a number of buckets from 0 to 256"))
            })?;
            return Hba::split(n);
        }
        parse_hex(s).map(Hba)
    }
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    if head.eq_ignore_ascii_case(prefix) {
        s.get(prefix.len()..)
    } else {
        None
    }
}

/// 64 hex digits, or 32 two-digit groups separated by colons.
fn parse_hex(s: &str) -> Result<[u8; Hba::LEN], HbaError> {
    let expected = || {
        HbaError(format!(
            "'{s}' is not a hash bucket assignment: expected split:N (0-256), kea, \
             or 32 bytes as 64 hex digits (optionally colon-separated, 55:55:...)"
        ))
    };
    let digits: Vec<u8> = if s.contains(':') {
        let groups: Vec<&str> = s.split(':').collect();
        if groups.len() != Hba::LEN || groups.iter().any(|g| g.len() != 2) {
            return Err(expected());
        }
        groups.concat().into_bytes()
    } else {
        s.as_bytes().to_vec()
    };
    if digits.len() != 2 * Hba::LEN {
        return Err(expected());
    }
    let mut out = [0u8; Hba::LEN];
    for (o, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
        let &[hi, lo] = pair else {
            return Err(expected());
        };
        let hi = hex_digit(hi).ok_or_else(expected)?;
        let lo = hex_digit(lo).ok_or_else(expected)?;
        *o = hi << 4 | lo;
    }
    Ok(out)
}

fn hex_digit(c: u8) -> Option<u8> {
    char::from(c).to_digit(16).map(|d| d as u8)
}

impl fmt::Display for Hba {
    /// The shortest text form that parses back to the same map.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = self.as_split() {
            write!(f, "split:{n}")
        } else if self.is_kea() {
            f.write_str("kea")
        } else {
            f.write_str(&crate::field::hex(&self.0))
        }
    }
}

impl Hba {
    /// A reading of the map for people: its name when it has one (`split:N`, `kea`), else the
    /// named map it is closest to with the buckets that differ, when few do ("kea except bucket
    /// 105 (secondary)"), else how many buckets the primary owns and the map's hex (what `--hba`
    /// takes).
    pub fn describe(&self) -> String {
        if self.as_split().is_some() || self.is_kea() {
            return self.to_string();
        }
        let differing = |other: &Hba| -> Vec<u8> {
            (0..=255u8)
                .filter(|&b| self.owner(b) != other.owner(b))
                .collect()
        };
        let nearest_split = Hba::split(self.primary_buckets()).ok();
        let (named, diff) = [Some(Hba::kea()), nearest_split]
            .into_iter()
            .flatten()
            .map(|h| {
                let d = differing(&h);
                (h, d)
            })
            .min_by_key(|(_, d)| d.len())
            .unwrap_or((Hba::kea(), differing(&Hba::kea())));
        const FEW: usize = 4;
        if diff.len() <= FEW {
            let buckets: Vec<String> = diff
                .iter()
                .map(|&b| format!("{b} ({})", self.owner(b).name()))
                .collect();
            let noun = if diff.len() == 1 { "bucket" } else { "buckets" };
            format!("{named} except {noun} {}", buckets.join(", "))
        } else {
            format!(
                "a map of its own ({} of 256 buckets the primary's; --hba {self})",
                self.primary_buckets()
            )
        }
    }
}

impl fmt::Debug for Hba {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hba({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_is_described_by_its_name_or_the_nearest_named_one() {
        assert_eq!(Hba::kea().describe(), "kea");
        assert_eq!(Hba::split(100).unwrap().describe(), "split:100");
        // Kea's map with bucket 212 (even: the primary's) given to the secondary.
        let mut bytes = *Hba::kea().bytes();
        bytes[212 >> 3] &= !(1 << (212 & 7));
        let m = Hba::from_bytes(bytes);
        assert_eq!(m.owner(212), Role::Secondary);
        assert_eq!(m.describe(), "kea except bucket 212 (secondary)");
        // split:10 with buckets 200 and 201 the primary's too: the split compared is the one
        // with as many primary buckets (12), from which buckets 10, 11, 200 and 201 differ.
        let mut bytes = *Hba::split(10).unwrap().bytes();
        // Buckets 200 and 201: byte 25, bits 0 and 1.
        bytes[25] |= 0b11;
        assert_eq!(
            Hba::from_bytes(bytes).describe(),
            "split:12 except buckets 10 (secondary), 11 (secondary), 200 (primary), 201 (primary)"
        );
        // Far from both: the count and the map itself, as --hba takes it.
        let mut bytes = [0u8; 32];
        bytes[..8].fill(0xff);
        bytes[20] = 0x0f;
        let m = Hba::from_bytes(bytes);
        let d = m.describe();
        assert_eq!(
            d,
            format!("a map of its own (68 of 256 buckets the primary's; --hba {m})")
        );
        assert_eq!(
            d.rsplit("--hba ")
                .next()
                .map(|h| h.trim_end_matches(')').parse::<Hba>().ok()),
            Some(Some(m))
        );
    }

    #[test]
    fn bit_layout_is_byte_b_shr_3_bit_b_and_7() {
        // Only bucket 10 set: byte 1, bit 1 << 2.
        let mut bytes = [0u8; 32];
        bytes[1] = 0x04;
        let hba = Hba::from_bytes(bytes);
        for b in 0..=255u8 {
            let expected = if b == 10 {
                Role::Primary
            } else {
                Role::Secondary
            };
            assert_eq!(hba.owner(b), expected, "bucket {b}");
        }
        // Bucket 255 is the top bit of the last byte.
        let mut bytes = [0u8; 32];
        bytes[31] = 0x80;
        assert_eq!(Hba::from_bytes(bytes).owner(255), Role::Primary);
        assert_eq!(Hba::from_bytes(bytes).owner(254), Role::Secondary);
    }

    #[test]
    fn split_128_is_what_isc_sends_in_connect() {
        // The primary's CONNECT in isc-dhcpd-4.4.3-failover.pcap (split 128) carries 16 bytes of
        // ff then 16 bytes of 00 (tshark's dhcpfo.hashbucketassignment).
        let mut wire = [0u8; 32];
        wire[..16].fill(0xff);
        let hba = Hba::split(128).unwrap();
        assert_eq!(hba.bytes(), &wire);
        assert_eq!(hba.owner(0), Role::Primary);
        assert_eq!(hba.owner(127), Role::Primary);
        assert_eq!(hba.owner(128), Role::Secondary);
        assert_eq!(hba.owner(255), Role::Secondary);
        assert_eq!(hba.to_string(), "split:128");
    }

    #[test]
    fn split_edges() {
        assert_eq!(Hba::split(0).unwrap().bytes(), &[0u8; 32]);
        assert_eq!(Hba::split(256).unwrap().bytes(), &[0xffu8; 32]);
        // split 3: buckets 0, 1, 2 -> byte 0 = 0b111.
        assert_eq!(Hba::split(3).unwrap().bytes()[0], 0x07);
        assert_eq!(Hba::split(3).unwrap().bytes()[1..], [0u8; 31]);
        assert!(Hba::split(257).is_err());
        assert_eq!(Hba::split(0).unwrap().to_string(), "split:0");
        assert_eq!(Hba::split(256).unwrap().to_string(), "split:256");
    }

    #[test]
    fn kea_gives_even_buckets_to_the_primary() {
        let hba = Hba::kea();
        for b in 0..=255u8 {
            let expected = if b % 2 == 0 {
                Role::Primary
            } else {
                Role::Secondary
            };
            assert_eq!(hba.owner(b), expected, "bucket {b}");
        }
        assert_eq!(hba.primary_buckets(), 128);
        assert_eq!(hba.as_split(), None);
        assert_eq!(hba.to_string(), "kea");
        // NOTES.md: `hba 55:55:...` is the same map.
        let colons = vec!["55"; 32].join(":");
        assert_eq!(colons.parse::<Hba>().unwrap(), hba);
    }

    #[test]
    fn parse_text_forms() {
        assert_eq!(
            "split:128".parse::<Hba>().unwrap(),
            Hba::split(128).unwrap()
        );
        assert_eq!("SPLIT:7".parse::<Hba>().unwrap(), Hba::split(7).unwrap());
        assert_eq!("kea".parse::<Hba>().unwrap(), Hba::kea());
        let hex = format!("{}{}", "ff".repeat(16), "00".repeat(16));
        assert_eq!(hex.parse::<Hba>().unwrap(), Hba::split(128).unwrap());
        assert_eq!(
            hex.to_uppercase().parse::<Hba>().unwrap(),
            Hba::split(128).unwrap()
        );
        let odd = format!("01{}", "00".repeat(31));
        let hba: Hba = odd.parse().unwrap();
        assert_eq!(hba.owner(0), Role::Primary);
        assert_eq!(hba.as_split(), Some(1));
    }

    #[test]
    fn parse_rejects_with_a_clear_message() {
        for bad in [
            "",
            "split:",
            "split:300",
            "split:-1",
            "kay",
            "ff",
            &"f".repeat(63),
            &"f".repeat(65),
            &"zz".repeat(32),
            &vec!["5"; 32].join(":"),
            &vec!["55"; 31].join(":"),
            &format!("{}:", vec!["55"; 32].join(":")),
            "é".repeat(32).as_str(),
        ] {
            let e = bad.parse::<Hba>().unwrap_err();
            assert!(!e.to_string().is_empty(), "{bad:?}");
        }
    }

    #[test]
    fn display_is_the_shortest_form_and_round_trips() {
        let mut irregular = [0u8; 32];
        irregular[5] = 0xa5;
        irregular[31] = 0x01;
        let cases = [
            Hba::split(0).unwrap(),
            Hba::split(1).unwrap(),
            Hba::split(200).unwrap(),
            Hba::kea(),
            Hba::from_bytes(irregular),
            Hba::from_bytes([0xaa; 32]),
        ];
        for hba in cases {
            let text = hba.to_string();
            assert_eq!(text.parse::<Hba>().unwrap(), hba, "{text}");
        }
        assert_eq!(
            Hba::from_bytes([0xaa; 32]).to_string(),
            "aa".repeat(32),
            "the odd buckets are neither a split nor kea"
        );
    }

    #[test]
    fn from_wire_needs_32_bytes() {
        assert_eq!(
            Hba::try_from(&[0xffu8; 32][..]).unwrap(),
            Hba::split(256).unwrap()
        );
        assert!(Hba::try_from(&[0u8; 31][..]).is_err());
        assert!(Hba::try_from(&[0u8; 33][..]).is_err());
    }

    #[test]
    fn owner_of_key_uses_the_rfc3074_hash() {
        // Key 0e hashes to 232 (ISC's unit test): an even bucket, above split 128.
        assert_eq!(Hba::kea().owner_of_key(&[0x0e]), (232, Role::Primary));
        assert_eq!(
            Hba::split(128).unwrap().owner_of_key(&[0x0e]),
            (232, Role::Secondary)
        );
    }
}
