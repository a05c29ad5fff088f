//! One client key per bucket: made-up clients whose RFC 3074 hash, under the key rule of the
//! profile (or of every profile when none is chosen), falls in the bucket. Found by a search
//! over a counter, so the same keys come out at every run and a finding can be reproduced
//! (`poolshark hash KEY`).
//!
//! The made-up addresses are locally administered unicast MACs, `02:70:73:xx:xx:xx` ("ps"),
//! which no vendor hands out; a DUID-EN uses the enterprise number RFC 5612 reserves for
//! documentation (32473).

use std::fmt;

use super::buckets::BucketSet;
use crate::analyse::dhcp_lb::profile::{self, KeyOutcome, Profile, CHADDR_LEN};

/// The first three bytes of every made-up hardware address.
pub const MAC_PREFIX: [u8; 3] = [0x02, 0x70, 0x73];
/// RFC 5612's enterprise number for documentation, in the probe's DUID-EN keys.
pub const DOCUMENTATION_PEN: u32 = 32473;
/// The DUID-EN identifier starts with these bytes, then the counter's three.
const DUID_EN_TAG: &[u8] = b"probe";
/// How many candidates the search tries: 2^24, every made-up address. The 256 buckets are all
/// found within a few thousand.
const SEARCH_LIMIT: u32 = 1 << 24;

/// DHCPv4 or DHCPv6.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    V4,
    V6,
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::V4 => "dhcpv4",
            Family::V6 => "dhcpv6",
        }
    }
}

/// What identifies a probe's client, and so what the servers hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// DHCPv4 without option 61: the 6-byte chaddr is hashed.
    Chaddr,
    /// DHCPv4 with option 61 (type 1 and the chaddr): its whole payload is hashed.
    ClientId,
    /// DHCPv6 DUID-LL (type 3, Ethernet): the whole DUID is hashed.
    DuidLl,
    /// DHCPv6 DUID-EN (type 2).
    DuidEn,
}

impl KeyKind {
    pub fn family(self) -> Family {
        match self {
            KeyKind::Chaddr | KeyKind::ClientId => Family::V4,
            KeyKind::DuidLl | KeyKind::DuidEn => Family::V6,
        }
    }

    /// The name `--key` takes and the JSON gives.
    pub fn name(self) -> &'static str {
        match self {
            KeyKind::Chaddr => "chaddr",
            KeyKind::ClientId => "client-id",
            KeyKind::DuidLl => "duid-ll",
            KeyKind::DuidEn => "duid-en",
        }
    }
}

/// What a probe's client sends to identify itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Client {
    /// DHCPv4: the hardware address, and option 61's payload when the key is a client
    /// identifier.
    V4 {
        chaddr: [u8; 6],
        client_id: Option<Vec<u8>>,
    },
    /// DHCPv6: the client DUID.
    V6 { duid: Vec<u8> },
}

impl Client {
    /// The bytes an answer echoes to name its client: chaddr (v4), the client DUID (v6).
    pub fn echo(&self) -> &[u8] {
        match self {
            Client::V4 { chaddr, .. } => chaddr,
            Client::V6 { duid } => duid,
        }
    }
}

/// A client whose key hashes to `bucket`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeKey {
    pub bucket: u8,
    pub kind: KeyKind,
    pub client: Client,
    /// The bytes the servers hash (the service transaction id): what `poolshark hash` takes.
    pub stid: Vec<u8>,
}

/// Why no keys could be found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyError(String);

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeyError {}

/// The profiles whose key rule a key must satisfy: the one chosen, else every profile that
/// balances the family (the keys then hash alike whichever implementation the servers are).
pub fn rule_profiles(
    family: Family,
    chosen: Option<&'static Profile>,
) -> Result<Vec<&'static Profile>, KeyError> {
    let balances = |p: &Profile| match family {
        Family::V4 => p.v4.is_some(),
        Family::V6 => p.v6.is_some(),
    };
    match chosen {
        Some(p) if balances(p) => Ok(vec![p]),
        Some(p) => Err(KeyError(format!(
            "profile {} does not balance {} ({})",
            p.name,
            if family == Family::V4 {
                "DHCPv4"
            } else {
                "DHCPv6"
            },
            p.summary
        ))),
        None => Ok(profile::ALL.into_iter().filter(|p| balances(p)).collect()),
    }
}

/// The `n`th made-up client of a kind (`n` below 2^24).
fn candidate(kind: KeyKind, n: u32) -> Client {
    let [_, a, b, c] = n.to_be_bytes();
    let mac = [MAC_PREFIX[0], MAC_PREFIX[1], MAC_PREFIX[2], a, b, c];
    match kind {
        KeyKind::Chaddr => Client::V4 {
            chaddr: mac,
            client_id: None,
        },
        KeyKind::ClientId => {
            // Type 1 (Ethernet) and the address, as most clients send it.
            let mut id = vec![1];
            id.extend_from_slice(&mac);
            Client::V4 {
                chaddr: mac,
                client_id: Some(id),
            }
        }
        KeyKind::DuidLl => {
            let mut duid = vec![0, 3, 0, 1];
            duid.extend_from_slice(&mac);
            Client::V6 { duid }
        }
        KeyKind::DuidEn => {
            let mut duid = vec![0, 2];
            duid.extend_from_slice(&DOCUMENTATION_PEN.to_be_bytes());
            duid.extend_from_slice(DUID_EN_TAG);
            duid.extend_from_slice(&[a, b, c]);
            Client::V6 { duid }
        }
    }
}

/// The STID of a client under one profile's key rule (`None`: the profile would drop it).
pub fn stid_under(p: &Profile, client: &Client) -> Option<Vec<u8>> {
    let outcome = match client {
        Client::V4 { chaddr, client_id } => {
            let mut field = [0u8; CHADDR_LEN];
            field[..chaddr.len()].copy_from_slice(chaddr);
            p.v4?
                .key
                .stid(client_id.as_deref(), &field, chaddr.len() as u8)
        }
        Client::V6 { duid } => p.v6?.stid(Some(duid)),
    };
    match outcome {
        KeyOutcome::Key(s) => Some(s.bytes.to_vec()),
        KeyOutcome::Dropped(_) => None,
    }
}

/// One key per bucket of `wanted`, in bucket order, each satisfying every profile of
/// `profiles` (all must hash it to the same bytes).
pub fn find_keys(
    kind: KeyKind,
    wanted: &BucketSet,
    profiles: &[&'static Profile],
) -> Result<Vec<ProbeKey>, KeyError> {
    let mut found: Vec<Option<ProbeKey>> = vec![None; 256];
    let mut missing = wanted.len();
    for n in 0..SEARCH_LIMIT {
        if missing == 0 {
            break;
        }
        let client = candidate(kind, n);
        let Some(stid) = agreed_stid(profiles, &client) else {
            continue;
        };
        let bucket = crate::analyse::dhcp_lb::bucket(&stid);
        let slot = &mut found[usize::from(bucket)];
        if wanted.contains(bucket) && slot.is_none() {
            *slot = Some(ProbeKey {
                bucket,
                kind,
                client,
                stid,
            });
            missing -= 1;
        }
    }
    if missing > 0 {
        let lacking: Vec<u8> = wanted
            .iter()
            .filter(|b| found[usize::from(*b)].is_none())
            .collect();
        return Err(KeyError(format!(
            "no {} key hashes to bucket(s) {} under the key rules of {}",
            kind.name(),
            super::buckets::ranges(lacking),
            names(profiles)
        )));
    }
    Ok(found.into_iter().flatten().collect())
}

/// The STID every profile gives the client, when they agree.
fn agreed_stid(profiles: &[&'static Profile], client: &Client) -> Option<Vec<u8>> {
    let mut agreed: Option<Vec<u8>> = None;
    for p in profiles {
        let s = stid_under(p, client)?;
        match &agreed {
            Some(a) if *a != s => return None,
            Some(_) => {}
            None => agreed = Some(s),
        }
    }
    agreed
}

fn names(profiles: &[&'static Profile]) -> String {
    profiles
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::dhcp_lb::profile::{DRAFT, ISC, KEA};

    #[test]
    fn one_key_per_bucket_of_each_kind() {
        for kind in [
            KeyKind::Chaddr,
            KeyKind::ClientId,
            KeyKind::DuidLl,
            KeyKind::DuidEn,
        ] {
            let profiles = rule_profiles(kind.family(), None).unwrap();
            let keys = find_keys(kind, &BucketSet::all(), &profiles).unwrap();
            assert_eq!(keys.len(), 256, "{kind:?}");
            for (i, k) in keys.iter().enumerate() {
                assert_eq!(usize::from(k.bucket), i);
                assert_eq!(crate::analyse::dhcp_lb::bucket(&k.stid), k.bucket);
                for p in &profiles {
                    assert_eq!(stid_under(p, &k.client).as_deref(), Some(&k.stid[..]));
                }
            }
        }
    }

    #[test]
    fn keys_are_what_the_servers_hash() {
        let profiles = [&KEA];
        let keys = find_keys(KeyKind::Chaddr, &"7".parse().unwrap(), &profiles).unwrap();
        let Client::V4 { chaddr, client_id } = &keys[0].client else {
            panic!("v4")
        };
        assert_eq!(client_id, &None);
        assert_eq!(keys[0].stid, chaddr, "the chaddr, without htype");
        assert_eq!(chaddr[..3], MAC_PREFIX);

        let keys = find_keys(KeyKind::ClientId, &"7".parse().unwrap(), &profiles).unwrap();
        let Client::V4 { chaddr, client_id } = &keys[0].client else {
            panic!("v4")
        };
        let id = client_id.as_ref().unwrap();
        assert_eq!(id[0], 1, "type byte");
        assert_eq!(&id[1..], chaddr);
        assert_eq!(&keys[0].stid, id, "option 61 whole, type byte included");

        let keys = find_keys(KeyKind::DuidEn, &"200".parse().unwrap(), &[&DRAFT]).unwrap();
        let Client::V6 { duid } = &keys[0].client else {
            panic!("v6")
        };
        assert_eq!(duid[..6], [0, 2, 0, 0, 0x7e, 0xd9]);
        assert_eq!(&keys[0].stid, duid);
    }

    #[test]
    fn the_same_keys_every_run() {
        let a = find_keys(KeyKind::DuidLl, &BucketSet::all(), &[&KEA]).unwrap();
        let b = find_keys(KeyKind::DuidLl, &BucketSet::all(), &[&KEA]).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn a_subset_and_a_profile_without_the_family() {
        let keys = find_keys(KeyKind::Chaddr, &"3,100-101".parse().unwrap(), &[&ISC]).unwrap();
        assert_eq!(
            keys.iter().map(|k| k.bucket).collect::<Vec<_>>(),
            [3, 100, 101]
        );
        let e = rule_profiles(Family::V6, Some(&ISC)).unwrap_err();
        assert!(e.to_string().contains("does not balance DHCPv6"), "{e}");
        assert_eq!(rule_profiles(Family::V6, None).unwrap().len(), 2);
        assert_eq!(rule_profiles(Family::V4, None).unwrap().len(), 3);
    }
}
