//! `poolshark hash KEY [--profile P [--key-type T]] [--hba SPEC] [--format text|json]`: its
//! arguments, parsed and checked (the key's hex, the profile's and the map's names), for
//! [`crate::run::hash`].

use crate::analyse::dhcp_lb::{Hba, Profile};
use crate::run::anyhow_like::Result;
use crate::run::hash::{self, Format, KeyType};

#[derive(clap::Args, Debug)]
pub struct HashArgs {
    /// The client's key (STID) in hex, with or without colons between bytes: option 61's whole
    /// payload (type byte included), the chaddr bytes, or a DHCPv6 DUID. "" is the empty key.
    pub key: String,

    /// Which server owns each bucket: split:N (the primary owns 0..N-1), kea (even buckets to
    /// the primary), or the 32-byte map as 64 hex digits (set bit = primary).
    /// With --profile and no --hba: the profile's own map where it fixes one (kea).
    #[arg(long, value_name = "SPEC")]
    pub hba: Option<String>,

    /// Hash the key as this DHCP load-balancing profile reads a request's key (as `check
    /// --profile` does): `draft` hashes at most the first 16 bytes of a DHCPv4 key (RFC 3074's
    /// limit) and a DHCPv6 DUID whole; `kea` hashes DHCPv4 keys whole and pads a chaddr longer
    /// than 16 bytes with zeros up to 20; `isc` hashes DHCPv4 keys whole, drops a chaddr longer
    /// than 16 bytes and does not balance DHCPv6. Without it, the whole key is hashed.
    #[arg(long, value_name = "PROFILE", value_parser = ["draft", "kea", "isc"])]
    pub profile: Option<String>,

    /// With --profile, what the key is: option 61's payload (client-id), the hardware address
    /// (chaddr, its length taken as hlen), or a DHCPv6 client DUID (duid).
    #[arg(long, value_enum, default_value_t = KeyType::ClientId, requires = "profile")]
    pub key_type: KeyType,

    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(args: HashArgs) -> Result<i32> {
    let key = parse_key(&args.key)?;
    let profile = match &args.profile {
        Some(name) => Some(
            Profile::by_name(name).ok_or_else(|| format!("--profile: unknown profile {name}"))?,
        ),
        None => None,
    };
    let hba = match &args.hba {
        Some(spec) => Some(spec.parse::<Hba>().map_err(|e| format!("--hba: {e}"))?),
        None => profile.and_then(|p| p.fixed_hba()),
    };
    hash::run(hash::Options {
        key,
        profile,
        hba,
        key_type: args.key_type,
        format: args.format,
    })
}

/// Hex bytes, either contiguous (`010203`) or one two-digit group per byte separated by colons
/// (`01:02:03`). The empty string is the empty key.
fn parse_key(s: &str) -> Result<Vec<u8>> {
    let s = s.trim();
    let bad = |why: &str| {
        format!(
            "key '{s}': {why}; give the key as hex bytes, e.g. 01000b8201fc42 or \
             01:00:0b:82:01:fc:42 (\"\" for the empty key)"
        )
    };
    // A stray character first: "01 02" or "0x0102" is not hex, whatever its length.
    if let Some((i, c)) = s
        .chars()
        .enumerate()
        .find(|(_, c)| !(c.is_ascii_hexdigit() || *c == ':'))
    {
        return Err(bad(&format!("character {} ({c:?}) is not a hex digit", i + 1)).into());
    }
    let digits: String = if s.contains(':') {
        let groups: Vec<&str> = s.split(':').collect();
        if groups.iter().any(|g| g.len() != 2) {
            return Err(bad("every colon-separated group must be two hex digits").into());
        }
        groups.concat()
    } else {
        s.to_string()
    };
    if digits.len() % 2 != 0 {
        return Err(bad("an odd number of hex digits").into());
    }
    let mut key = Vec::with_capacity(digits.len() / 2);
    for pair in digits.as_bytes().chunks_exact(2) {
        let &[hi, lo] = pair else {
            return Err(bad("an odd number of hex digits").into());
        };
        match (hex_value(hi), hex_value(lo)) {
            (Some(h), Some(l)) => key.push(h << 4 | l),
            _ => return Err(bad("not a hex digit").into()),
        }
    }
    Ok(key)
}

fn hex_value(c: u8) -> Option<u8> {
    char::from(c).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_forms() {
        assert_eq!(parse_key("").unwrap(), Vec::<u8>::new());
        assert_eq!(parse_key("0e").unwrap(), [0x0e]);
        assert_eq!(parse_key("0E").unwrap(), [0x0e]);
        assert_eq!(parse_key("01:00:0b").unwrap(), [1, 0, 0x0b]);
        assert_eq!(parse_key("01000b").unwrap(), [1, 0, 0x0b]);
        for bad in ["0", "0g", "01:0", "01::02", ":01", "1:2", "é", "01 02"] {
            assert!(parse_key(bad).is_err(), "{bad:?}");
        }
        // The message names the stray character: "01 02" has an even number of digits and used
        // to be called "an odd number of hex digits".
        let why = |k: &str| parse_key(k).unwrap_err().to_string();
        assert!(
            why("01 02").contains("character 3 (' ') is not a hex digit"),
            "{}",
            why("01 02")
        );
        assert!(
            why("0x0102").contains("character 2 ('x')"),
            "{}",
            why("0x0102")
        );
        assert!(
            why("010").contains("an odd number of hex digits"),
            "{}",
            why("010")
        );
    }
}
