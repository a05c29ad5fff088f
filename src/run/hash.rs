//! `poolshark hash KEY [--profile P [--key-type T]] [--hba SPEC] [--format text|json]`: the RFC
//! 3074 bucket of a client key and, given a hash bucket assignment, the server that owns it.
//!
//! Without `--profile` the whole key is hashed, as ISC dhcpd and Kea hash option 61's payload, a
//! chaddr or a DUID. With one, the key goes through that profile's key rule, the same code
//! `check --profile P` classifies a request with, so the two commands give the same bucket.

use std::io::Write;

use crate::analyse::dhcp_lb::profile::CHADDR_LEN;
use crate::analyse::dhcp_lb::{self, Hba, KeyOutcome, Profile};
use crate::run::anyhow_like::Result;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    ClientId,
    Chaddr,
    Duid,
}

impl KeyType {
    fn name(self) -> &'static str {
        match self {
            KeyType::ClientId => "client-id",
            KeyType::Chaddr => "chaddr",
            KeyType::Duid => "duid",
        }
    }
}

/// The bytes a profile hashes for `key`, or why its servers drop such a request.
fn profile_key(profile: &Profile, kind: KeyType, key: &[u8]) -> Result<KeyOutcome> {
    let no_family = |family: &str| {
        format!(
            "--profile {}: the profile does not balance {family}",
            profile.name
        )
    };
    Ok(match kind {
        KeyType::Duid => {
            let v6 = profile.v6.as_ref().ok_or_else(|| no_family("DHCPv6"))?;
            v6.stid(Some(key))
        }
        KeyType::ClientId | KeyType::Chaddr => {
            let v4 = profile.v4.as_ref().ok_or_else(|| no_family("DHCPv4"))?;
            if kind == KeyType::ClientId {
                v4.key.stid(Some(key), &[], 0)
            } else {
                // hlen is the address's length; the field holds its first 16 bytes.
                let hlen = u8::try_from(key.len()).map_err(|_| {
                    format!("a chaddr key of {} bytes: hlen is one byte", key.len())
                })?;
                let field = key.get(..CHADDR_LEN).unwrap_or(key);
                v4.key.stid(None, field, hlen)
            }
        }
    })
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// What `hash` is given, already parsed: the key's bytes, the profile whose key rule reads it
/// (none: the whole key is hashed), the bucket map, what the key is and the output format.
pub struct Options {
    pub key: Vec<u8>,
    pub profile: Option<&'static Profile>,
    pub hba: Option<Hba>,
    pub key_type: KeyType,
    pub format: Format,
}

/// Hashes the key and writes its bucket (and owner) to standard output.
pub fn run(args: Options) -> Result<i32> {
    let Options {
        key,
        profile,
        hba,
        key_type,
        format,
    } = args;
    let hashed = match profile {
        Some(p) => match profile_key(p, key_type, &key)? {
            KeyOutcome::Key(stid) => stid.bytes.to_vec(),
            KeyOutcome::Dropped(why) => {
                return Err(format!(
                    "--profile {}: no bucket: every server drops such a request ({why})",
                    p.name
                )
                .into())
            }
        },
        None => key.clone(),
    };
    let bucket = dhcp_lb::bucket(&hashed);
    let owner = hba.map(|h| h.owner(bucket));

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match format {
        Format::Text => {
            match owner {
                Some(role) => write!(out, "{bucket} {role}")?,
                None => write!(out, "{bucket}")?,
            }
            // Said only when the profile's rule changed the key, so that the plain form stays
            // one bucket (and owner) per line.
            if hashed != key {
                write!(
                    out,
                    " (hashed {} of the key's {} bytes: {})",
                    hashed.len(),
                    key.len(),
                    crate::field::hex(&hashed)
                )?;
            }
            writeln!(out)?;
        }
        Format::Json => {
            let v = serde_json::json!({
                "key": crate::field::hex(&key),
                "bucket": bucket,
                "owner": owner.map(|r| r.name()),
                "hba": hba.map(|h| h.to_string()),
                "profile": profile.map(|p| p.name),
                "key_type": profile.map(|_| key_type.name()),
                "hashed": crate::field::hex(&hashed),
            });
            serde_json::to_writer(&mut out, &v)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(crate::run::exit::OK)
}
