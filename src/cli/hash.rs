//! `poolshark hash KEY [--hba SPEC] [--format text|json]`: the RFC 3074 bucket of a client key and,
//! given a hash bucket assignment, the server that owns it.

use std::io::Write;

use super::anyhow_like::Result;
use crate::analyse::dhcp_lb::{self, Hba};

#[derive(clap::Args, Debug)]
pub struct HashArgs {
    /// The client's key (STID) in hex, with or without colons between bytes: option 61's whole
    /// payload (type byte included), the chaddr bytes, or a DHCPv6 DUID. "" is the empty key.
    pub key: String,

    /// Which server owns each bucket: split:N (the primary owns 0..N-1), kea (even buckets to
    /// the primary), or the 32-byte map as 64 hex digits (set bit = primary).
    #[arg(long, value_name = "SPEC")]
    pub hba: Option<String>,

    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

pub fn run(args: HashArgs) -> Result<i32> {
    let key = parse_key(&args.key)?;
    let hba = match &args.hba {
        Some(spec) => Some(spec.parse::<Hba>().map_err(|e| format!("--hba: {e}"))?),
        None => None,
    };
    let bucket = dhcp_lb::bucket(&key);
    let owner = hba.map(|h| h.owner(bucket));

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match args.format {
        Format::Text => match owner {
            Some(role) => writeln!(out, "{bucket} {role}")?,
            None => writeln!(out, "{bucket}")?,
        },
        Format::Json => {
            let v = serde_json::json!({
                "key": crate::field::hex(&key),
                "bucket": bucket,
                "owner": owner.map(|r| r.name()),
                "hba": hba.map(|h| h.to_string()),
            });
            serde_json::to_writer(&mut out, &v)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(super::exit::OK)
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
