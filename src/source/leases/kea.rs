//! Kea's memfile lease files, `kea-leases4.csv` and `kea-leases6.csv` (Kea ARM, "Memfile -
//! Basic Storage for Leases"): a header line naming the columns, then one row per lease change.
//! The file is only ever appended to: the last row for an address is the lease, and a row with
//! a valid lifetime of 0 records that the lease was deleted. Columns are found by their header
//! names, so files of every schema version Kea writes read alike; commas inside a value are
//! escaped by Kea (`&#x2c`), so a row splits on every comma.
//!
//! What is kept of a lease: its address (and prefix length and type for DHCPv6), the subnet id,
//! `expire` (the client's last transaction plus the valid lifetime, in seconds since the epoch)
//! and `state` (0 assigned, 1 declined, 2 expired and reclaimed). A lease in state 0 whose
//! `expire` has passed has expired but not yet been reclaimed.

use std::collections::BTreeMap;
use std::net::IpAddr;

use super::LeaseError;

/// Kea's lease states.
pub const STATE_DEFAULT: u32 = 0;
pub const STATE_DECLINED: u32 = 1;
pub const STATE_EXPIRED_RECLAIMED: u32 = 2;

/// The state's name, as Kea's `lease4-get` commands print it.
pub fn state_name(state: u32) -> &'static str {
    match state {
        STATE_DEFAULT => "default",
        STATE_DECLINED => "declined",
        STATE_EXPIRED_RECLAIMED => "expired-reclaimed",
        _ => "other",
    }
}

/// A DHCPv6 lease's type (`lease_type`): 0 IA_NA, 1 IA_TA, 2 IA_PD.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LeaseType {
    /// A DHCPv4 lease, or a DHCPv6 IA_NA address.
    Address,
    Temporary,
    Prefix(u8),
}

/// One lease: the last row read for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeaLease {
    pub address: IpAddr,
    pub kind: LeaseType,
    pub subnet_id: u32,
    pub valid_lifetime: u32,
    /// Seconds since the epoch.
    pub expire: i64,
    pub state: u32,
    /// Line of the row (1 is the header).
    pub line: usize,
}

impl KeaLease {
    /// The client's last transaction time.
    pub fn cltt(&self) -> i64 {
        self.expire.saturating_sub(i64::from(self.valid_lifetime))
    }
}

/// A memfile lease file, read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeaLeaseFile {
    pub v6: bool,
    /// Live leases (rows not superseded, not deleted), in address order.
    pub leases: Vec<KeaLease>,
    /// Rows read (the header not counted).
    pub rows: usize,
    /// Leases whose last row deleted them (valid lifetime 0).
    pub deleted: usize,
    pub errors: Vec<LeaseError>,
}

/// Whether `first_line` is a memfile header: `address,hwaddr,...` (v4) or `address,duid,...`
/// (v6), with an `expire` column. `Some(true)` for DHCPv6.
pub fn header_family(first_line: &str) -> Option<bool> {
    let cols: Vec<&str> = first_line.trim_end().split(',').collect();
    if cols.first() != Some(&"address") || !cols.contains(&"expire") {
        return None;
    }
    if cols.contains(&"duid") && cols.contains(&"lease_type") {
        Some(true)
    } else if cols.contains(&"hwaddr") {
        Some(false)
    } else {
        None
    }
}

/// Reads a memfile lease file. `None` when its first line is no memfile header.
pub fn parse(input: &[u8]) -> Option<KeaLeaseFile> {
    // Line by line, so that only one row at a time is copied out of the input.
    let mut lines = input
        .split(|b| *b == b'\n')
        .map(|l| String::from_utf8_lossy(l.strip_suffix(b"\r").unwrap_or(l)));
    let header = lines.next()?;
    let v6 = header_family(&header)?;
    let cols: Vec<String> = header.trim_end().split(',').map(str::to_string).collect();
    let col = |name: &str| cols.iter().position(|c| c == name);
    let (address, expire, valid, subnet) = (
        col("address")?,
        col("expire")?,
        col("valid_lifetime")?,
        col("subnet_id")?,
    );
    let state = col("state");
    let (lease_type, prefix_len) = (col("lease_type"), col("prefix_len"));
    let mut file = KeaLeaseFile {
        v6,
        ..KeaLeaseFile::default()
    };
    let mut live: BTreeMap<(IpAddr, LeaseType), KeaLease> = BTreeMap::new();
    let mut deleted: std::collections::BTreeSet<(IpAddr, LeaseType)> = Default::default();
    for (i, row) in lines.enumerate() {
        let line = i + 2;
        if row.trim().is_empty() {
            continue;
        }
        file.rows += 1;
        let fields: Vec<&str> = row.split(',').collect();
        let get = |c: usize, what: &str| -> Result<&str, String> {
            fields
                .get(c)
                .copied()
                .ok_or_else(|| format!("row of {} columns has no {what}", fields.len()))
        };
        let num = |c: usize, what: &str| -> Result<u64, String> {
            let v = get(c, what)?;
            v.trim()
                .parse()
                .map_err(|_| format!("{what} '{v}' is not a number"))
        };
        let parsed = (|| -> Result<KeaLease, String> {
            let a = get(address, "address")?;
            let addr: IpAddr = a
                .parse()
                .map_err(|_| format!("address '{a}' is not an IP address"))?;
            if addr.is_ipv6() != v6 {
                return Err(format!(
                    "address '{a}' is of the other IP version than the file"
                ));
            }
            let kind = match lease_type.map(|c| num(c, "lease_type")).transpose()? {
                None | Some(0) => LeaseType::Address,
                Some(1) => LeaseType::Temporary,
                Some(2) => {
                    let len = prefix_len
                        .map(|c| num(c, "prefix_len"))
                        .transpose()?
                        .unwrap_or(128);
                    LeaseType::Prefix(
                        u8::try_from(len)
                            .ok()
                            .filter(|l| *l <= 128)
                            .ok_or_else(|| format!("prefix_len {len} is not a prefix length"))?,
                    )
                }
                Some(t) => return Err(format!("lease_type {t} is none of 0 (NA), 1 (TA), 2 (PD)")),
            };
            let valid_lifetime = u32::try_from(num(valid, "valid_lifetime")?)
                .map_err(|_| "valid_lifetime is beyond 32 bits".to_string())?;
            let expire = i64::try_from(num(expire, "expire")?)
                .map_err(|_| "expire is beyond 63 bits".to_string())?;
            let subnet_id = u32::try_from(num(subnet, "subnet_id")?)
                .map_err(|_| "subnet_id is beyond 32 bits".to_string())?;
            // Files written before the state column (Kea 1.0) have every lease assigned.
            let state = match state {
                Some(c) if fields.get(c).is_some_and(|v| !v.is_empty()) => {
                    u32::try_from(num(c, "state")?)
                        .map_err(|_| "state is beyond 32 bits".to_string())?
                }
                _ => STATE_DEFAULT,
            };
            Ok(KeaLease {
                address: addr,
                kind,
                subnet_id,
                valid_lifetime,
                expire,
                state,
                line,
            })
        })();
        match parsed {
            Ok(l) if l.valid_lifetime == 0 => {
                live.remove(&(l.address, l.kind));
                deleted.insert((l.address, l.kind));
            }
            Ok(l) => {
                deleted.remove(&(l.address, l.kind));
                live.insert((l.address, l.kind), l);
            }
            Err(what) => file.errors.push(LeaseError { line, col: 1, what }),
        }
    }
    file.leases = live.into_values().collect();
    file.deleted = deleted.len();
    Some(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    const V4: &str = "address,hwaddr,client_id,valid_lifetime,expire,subnet_id,fqdn_fwd,fqdn_rev,hostname,state,user_context
192.0.2.10,02:00:00:00:00:01,01:02:00:00:00:00:01,3600,1800003600,1,0,0,host&#x2c one,0,
192.0.2.11,02:00:00:00:00:02,,3600,1800003600,1,0,0,,0,{ \"a\": 1 }
192.0.2.10,02:00:00:00:00:01,01:02:00:00:00:00:01,3600,1800007200,1,0,0,,0,
192.0.2.11,02:00:00:00:00:02,,0,1800000000,1,0,0,,0,
192.0.2.12,,,3600,1800003600,1,0,0,,1,
192.0.2.300,,,3600,1800003600,1,0,0,,0,
";

    #[test]
    fn the_last_row_wins_and_a_zero_lifetime_deletes() {
        let f = parse(V4.as_bytes()).unwrap();
        assert!(!f.v6);
        assert_eq!(f.rows, 6);
        assert_eq!(f.errors.len(), 1);
        assert_eq!(f.errors[0].line, 7);
        let kept: Vec<(String, i64, u32)> = f
            .leases
            .iter()
            .map(|l| (l.address.to_string(), l.expire, l.state))
            .collect();
        assert_eq!(
            kept,
            [
                ("192.0.2.10".to_string(), 1_800_007_200, STATE_DEFAULT),
                ("192.0.2.12".to_string(), 1_800_003_600, STATE_DECLINED),
            ]
        );
        assert_eq!(f.leases[0].cltt(), 1_800_003_600);
        assert_eq!(f.deleted, 1, "192.0.2.11");
    }

    #[test]
    fn v6_types_and_prefixes() {
        let f = parse(
            b"address,duid,valid_lifetime,expire,subnet_id,pref_lifetime,lease_type,iaid,prefix_len,fqdn_fwd,fqdn_rev,hostname,hwaddr,state,user_context\n\
              2001:db8:1::100,00:03:00:01:02:00:00:00:00:01,4000,1800004000,1,3000,0,1,128,0,0,,,0,\n\
              2001:db8:8::,00:03:00:01:02:00:00:00:00:01,4000,1800004000,1,3000,2,2,56,0,0,,,2,\n",
        )
        .unwrap();
        assert!(f.v6);
        assert_eq!(f.leases.len(), 2);
        assert_eq!(f.leases[1].kind, LeaseType::Prefix(56));
        assert_eq!(f.leases[1].state, STATE_EXPIRED_RECLAIMED);
        assert!(parse(b"lease 10.0.0.1 { }\n").is_none());
        assert!(parse(b"").is_none());
    }

    #[test]
    fn never_panics_on_mangled_input() {
        let mut state = 11u32;
        for _ in 0..3000 {
            let mut v = V4.as_bytes().to_vec();
            for _ in 0..4 {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let i = (state >> 8) as usize % v.len();
                v[i] = (state >> 20) as u8;
            }
            let cut = (state as usize) % (v.len() + 1);
            let _ = parse(&v[..cut]);
            let _ = parse(&v);
        }
    }
}
