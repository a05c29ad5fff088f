//! Which pool an address belongs to. The failover protocol names addresses, never pools, so pools
//! come from configuration (address ranges, as dhcpd.conf's `range` statements in a `pool` with a
//! `failover peer`) or, without one, are inferred: one pool per /24, named like the shared network
//! in ISC's logs (`192.0.2.0/24`). A /24 is what a range usually lies in, it is the same for every
//! address whatever order the addresses are seen in (a contiguous-run rule would merge and split
//! pools as addresses appear), and it needs no state.

use std::fmt;
use std::net::Ipv4Addr;
use std::str::FromStr;

use crate::analyse::KeyBytes;

/// One configured pool: an inclusive address range with a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolRange {
    pub name: String,
    pub first: Ipv4Addr,
    pub last: Ipv4Addr,
}

impl PoolRange {
    pub fn contains(&self, a: Ipv4Addr) -> bool {
        self.first <= a && a <= self.last
    }
}

impl FromStr for PoolRange {
    type Err = String;

    /// `FIRST-LAST` or `NAME=FIRST-LAST` (the name defaults to the range as written).
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, range) = match s.split_once('=') {
            Some((n, r)) => (n.trim().to_string(), r.trim()),
            None => (s.trim().to_string(), s.trim()),
        };
        let (a, b) = range.split_once('-').ok_or_else(|| {
            format!("pool range {s:?}: expected FIRST-LAST, e.g. 192.0.2.100-192.0.2.159")
        })?;
        let first: Ipv4Addr = a
            .trim()
            .parse()
            .map_err(|_| format!("pool range {s:?}: {a:?} is not an IPv4 address"))?;
        let last: Ipv4Addr = b
            .trim()
            .parse()
            .map_err(|_| format!("pool range {s:?}: {b:?} is not an IPv4 address"))?;
        if first > last {
            return Err(format!(
                "pool range {s:?}: the first address is above the last"
            ));
        }
        if name.is_empty() {
            return Err(format!("pool range {s:?}: empty name"));
        }
        Ok(PoolRange { name, first, last })
    }
}

/// A pool's name as [`PoolMap::pool_of`] gives it: kept inline when short (every /24's name
/// is), so that finding an address's pool allocates nothing. Reads as a `&str`.
#[derive(Clone, PartialEq, Eq)]
pub struct PoolName(KeyBytes);

impl PoolName {
    fn new(s: &str) -> Self {
        PoolName(KeyBytes::from_slice(s.as_bytes()))
    }

    pub fn as_str(&self) -> &str {
        // Only ever made from a `&str` or from ASCII digits and punctuation: always UTF-8.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl std::ops::Deref for PoolName {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for PoolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for PoolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How addresses map to pools.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum PoolMap {
    /// One pool per /24.
    #[default]
    PerSlash24,
    /// Configured ranges; addresses outside all of them belong to no pool.
    Ranges(Vec<PoolRange>),
}

impl PoolMap {
    /// Configured ranges, which must not overlap.
    pub fn ranges(mut ranges: Vec<PoolRange>) -> Result<PoolMap, String> {
        ranges.sort_by_key(|r| r.first);
        for w in ranges.windows(2) {
            if let [a, b] = w {
                if b.first <= a.last {
                    return Err(format!("pools {} and {} overlap", a.name, b.name));
                }
            }
        }
        Ok(PoolMap::Ranges(ranges))
    }

    /// The name of the pool holding `a`, or `None` when no configured range holds it.
    pub fn pool_of(&self, a: Ipv4Addr) -> Option<PoolName> {
        match self {
            PoolMap::PerSlash24 => {
                // `x.y.z.0/24`, written digit by digit: this runs for every lease update.
                let mut buf = [0u8; 16];
                let mut n = 0;
                for octet in &a.octets()[..3] {
                    for (i, d) in [octet / 100, octet / 10 % 10, octet % 10]
                        .into_iter()
                        .enumerate()
                    {
                        if d != 0 || i == 2 || (i == 1 && *octet >= 100) {
                            buf[n] = b'0' + d;
                            n += 1;
                        }
                    }
                    buf[n] = b'.';
                    n += 1;
                }
                buf[n..n + 4].copy_from_slice(b"0/24");
                Some(PoolName(KeyBytes::from_slice(&buf[..n + 4])))
            }
            PoolMap::Ranges(rs) => {
                // Sorted and disjoint: the last range starting at or below `a` is the only one
                // that can hold it.
                let i = rs.partition_point(|r| r.first <= a);
                let r = rs.get(i.checked_sub(1)?)?;
                r.contains(a).then(|| PoolName::new(&r.name))
            }
        }
    }
}

impl fmt::Display for PoolMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PoolMap::PerSlash24 => f.write_str("one pool per /24"),
            PoolMap::Ranges(rs) => {
                let parts: Vec<String> = rs
                    .iter()
                    .map(|r| format!("{}={}-{}", r.name, r.first, r.last))
                    .collect();
                f.write_str(&parts.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> Ipv4Addr {
        s.parse().unwrap()
    }

    #[test]
    fn per_slash_24_names_like_isc_logs() {
        let m = PoolMap::default();
        assert_eq!(
            m.pool_of(ip("192.0.2.100")).as_deref(),
            Some("192.0.2.0/24")
        );
        assert_eq!(m.pool_of(ip("192.0.3.1")).as_deref(), Some("192.0.3.0/24"));
        // Every octet value, written as the standard formatter writes it.
        for o in 0..=255u8 {
            for a in [[o, 0, 255, 7], [10, o, 1, 1], [255, 100, o, 0]] {
                let [x, y, z, _] = a;
                assert_eq!(
                    m.pool_of(Ipv4Addr::from(a)).as_deref(),
                    Some(format!("{x}.{y}.{z}.0/24").as_str())
                );
            }
        }
    }

    #[test]
    fn configured_ranges() {
        let m = PoolMap::ranges(vec![
            "b=10.0.0.50-10.0.0.99".parse().unwrap(),
            "10.0.0.1-10.0.0.9".parse().unwrap(),
        ])
        .unwrap();
        assert_eq!(
            m.pool_of(ip("10.0.0.1")).as_deref(),
            Some("10.0.0.1-10.0.0.9")
        );
        assert_eq!(
            m.pool_of(ip("10.0.0.9")).as_deref(),
            Some("10.0.0.1-10.0.0.9")
        );
        assert_eq!(m.pool_of(ip("10.0.0.10")), None);
        assert_eq!(m.pool_of(ip("10.0.0.99")).as_deref(), Some("b"));
        assert_eq!(m.pool_of(ip("10.0.0.0")), None);
        assert_eq!(m.pool_of(ip("10.0.0.100")), None);
    }

    #[test]
    fn bad_ranges() {
        assert!("10.0.0.9-10.0.0.1".parse::<PoolRange>().is_err());
        assert!("10.0.0.1".parse::<PoolRange>().is_err());
        assert!("x=10.0.0.1-10.0.0.300".parse::<PoolRange>().is_err());
        assert!("=10.0.0.1-10.0.0.3".parse::<PoolRange>().is_err());
        let overlapping = PoolMap::ranges(vec![
            "a=10.0.0.1-10.0.0.9".parse().unwrap(),
            "b=10.0.0.9-10.0.0.20".parse().unwrap(),
        ]);
        assert!(overlapping.is_err());
    }
}
