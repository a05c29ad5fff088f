//! The operator's own setup, as the servers' configuration files describe it: ISC dhcpd's
//! `dhcpd.conf` ([`dhcpd`]) and Kea's `kea-dhcp4.conf` / `kea-dhcp6.conf` ([`kea`]), read into one
//! model ([`ServerConfig`]): the failover or high-availability relationship the server is in
//! (roles, addresses, bucket map, delayed-service threshold, pool balance statements), its
//! identifiers, and its address ranges with their subnets, shared networks and pools.
//!
//! `--config` also takes poolshark's own TOML file (`crate::analyse::dhcp_lb::ConfigFile`);
//! [`detect`] tells the three kinds apart by their content. The parsers are pure functions over
//! text; [`read`] is the one place that touches the file system (the file, and the files a
//! dhcpd.conf `include`s). A file with errors is refused whole, as the servers refuse it: every
//! error is reported as `FILE:LINE:COLUMN: what`, and the run goes on without that file.
//!
//! [`compare`] lists where the configurations of the two servers of a pair disagree.

pub mod compare;
pub mod dhcpd;
mod jsonc;
pub mod kea;
mod read;

use std::fmt;
use std::net::IpAddr;

pub use read::{read, Loaded};

use crate::proto::lb::{Family, Hba, Role};

/// What a `--config` file is, as its content tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// poolshark's own TOML (`profile = ...`, `[[server]]`).
    Poolshark,
    /// ISC dhcpd's `dhcpd.conf`.
    Dhcpd,
    /// Kea's JSON (with comments): `{"Dhcp4": ...}` or `{"Dhcp6": ...}`.
    Kea,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Poolshark => "poolshark",
            Kind::Dhcpd => "dhcpd",
            Kind::Kea => "kea",
        }
    }
}

/// Tells the kind of a configuration file by its first statement: Kea's is a JSON object (`{`,
/// after comments), poolshark's TOML opens with a table (`[`) or a `key = value` line, and
/// anything else (an empty file too) is read as a dhcpd.conf, whose statements are a keyword
/// and its arguments ended by `;` or a block.
pub fn detect(text: &[u8]) -> Kind {
    let mut rest = text;
    loop {
        let trimmed = trim_start(rest);
        if trimmed.starts_with(b"#") || trimmed.starts_with(b"//") {
            let end = trimmed
                .iter()
                .position(|&b| b == b'\n')
                .unwrap_or(trimmed.len());
            rest = &trimmed[end..];
            continue;
        }
        if trimmed.starts_with(b"/*") {
            rest = match trimmed.windows(2).position(|w| w == b"*/") {
                Some(i) => &trimmed[i + 2..],
                None => &[],
            };
            continue;
        }
        return match trimmed.first() {
            Some(b'{') => Kind::Kea,
            Some(b'[') => Kind::Poolshark,
            Some(_) => {
                let line_end = trimmed
                    .iter()
                    .position(|&b| b == b'\n')
                    .unwrap_or(trimmed.len());
                let line = &trimmed[..line_end];
                let word_end = line
                    .iter()
                    .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-'))
                    .unwrap_or(line.len());
                // TOML: `key = value` (dhcpd has no statement of a bare word then `=`).
                if word_end > 0 && trim_start(&line[word_end..]).starts_with(b"=") {
                    Kind::Poolshark
                } else {
                    Kind::Dhcpd
                }
            }
            None => Kind::Dhcpd,
        };
    }
}

fn trim_start(s: &[u8]) -> &[u8] {
    let i = s
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(s.len());
    &s[i..]
}

/// A configuration error, where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The file as given (or as an `include` named it).
    pub file: String,
    /// 1-based line and column (the column in bytes from the line's start); 0 when the error
    /// concerns the whole file.
    pub line: usize,
    pub col: usize,
    pub what: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.what)
        } else {
            write!(f, "{}:{}:{}: {}", self.file, self.line, self.col, self.what)
        }
    }
}

/// Where a statement was read: file, line, column.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct At {
    pub file: String,
    pub line: usize,
    pub col: usize,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// Which server software wrote the configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Product {
    Dhcpd,
    Kea,
}

impl Product {
    pub fn name(self) -> &'static str {
        match self {
            Product::Dhcpd => "dhcpd",
            Product::Kea => "kea",
        }
    }
}

/// One server's configuration file, as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    /// The file as given on the command line.
    pub file: String,
    pub product: Product,
    /// DHCPv4 or DHCPv6 (dhcpd: `subnet6` makes a `dhcpd -6` file).
    pub family: Family,
    /// dhcpd's `failover peer` declarations, in order.
    pub failover: Vec<FailoverPeer>,
    /// Kea's `libdhcp_ha.so` relationship.
    pub ha: Option<HaConfig>,
    /// What the server puts in its Server Identifier: Kea's `server-id` DUID (DHCPv6), dhcpd's
    /// `server-identifier` address.
    pub server_ids: Vec<ServerId>,
    /// Every address range (and DHCPv6 prefix pool), in the order declared.
    pub ranges: Vec<Range>,
    /// The shared networks declared, in order.
    pub shared_networks: Vec<String>,
}

/// A server identifier the configuration states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerId {
    Addr(IpAddr),
    Duid(Vec<u8>),
}

/// One dhcpd `failover peer "NAME" { ... }` declaration (dhcpd.conf(5), "DHCP FAILOVER").
/// Statements left out are `None`; [`FailoverPeer::effective`] fills in dhcpd's defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FailoverPeer {
    pub name: String,
    /// `primary;` or `secondary;` (dhcpd takes a declaration without either as the primary's).
    pub role: Option<Role>,
    /// `address`: this server's (an address or a host name, as written).
    pub address: Option<String>,
    pub port: Option<u16>,
    /// `peer address`: the partner's.
    pub peer_address: Option<String>,
    pub peer_port: Option<u16>,
    /// `split N` or `hba XX:...` (the primary's), as a bucket map.
    pub hba: Option<Hba>,
    /// How the map was written (`split 128`, `hba ...`).
    pub hba_text: Option<String>,
    pub mclt: Option<u32>,
    /// `load balance max seconds N`.
    pub load_balance_max_seconds: Option<u32>,
    pub max_lease_misbalance: Option<u32>,
    pub max_lease_ownership: Option<u32>,
    pub min_balance: Option<u32>,
    pub max_balance: Option<u32>,
    pub max_response_delay: Option<u32>,
    pub max_unacked_updates: Option<u32>,
    pub auto_partner_down: Option<u32>,
    pub at: At,
}

/// dhcpd's defaults for the statements a failover peer leaves out (dhcpd.conf(5); the pool
/// balance ones also NOTES.md section 3).
pub mod defaults {
    pub const PORT: u16 = 647;
    pub const MAX_LEASE_MISBALANCE: u32 = 15;
    pub const MAX_LEASE_OWNERSHIP: u32 = 10;
    pub const MIN_BALANCE: u32 = 60;
    pub const MAX_BALANCE: u32 = 3600;
    /// 0: load balancing off (dhcpd 4.4 warns so at start-up).
    pub const LOAD_BALANCE_MAX_SECONDS: u32 = 0;
}

impl FailoverPeer {
    /// The role dhcpd gives the declaration: primary unless it says `secondary`.
    pub fn effective_role(&self) -> Role {
        self.role.unwrap_or(Role::Primary)
    }

    /// The pool balance statements with dhcpd's defaults filled in.
    pub fn balance(&self) -> Balance {
        Balance {
            max_lease_misbalance: self
                .max_lease_misbalance
                .unwrap_or(defaults::MAX_LEASE_MISBALANCE),
            max_lease_ownership: self
                .max_lease_ownership
                .unwrap_or(defaults::MAX_LEASE_OWNERSHIP),
            min_balance: self.min_balance.unwrap_or(defaults::MIN_BALANCE),
            max_balance: self.max_balance.unwrap_or(defaults::MAX_BALANCE),
        }
    }

    /// `load balance max seconds`, dhcpd's 0 when left out.
    pub fn threshold(&self) -> u32 {
        self.load_balance_max_seconds
            .unwrap_or(defaults::LOAD_BALANCE_MAX_SECONDS)
    }
}

/// A failover peer's pool balance statements, defaults filled in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Balance {
    pub max_lease_misbalance: u32,
    pub max_lease_ownership: u32,
    pub min_balance: u32,
    pub max_balance: u32,
}

/// Kea's `libdhcp_ha.so` hook parameters: one `high-availability` relationship.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HaConfig {
    pub this_server_name: String,
    /// `load-balancing`, `hot-standby`, `passive-backup`.
    pub mode: String,
    pub peers: Vec<HaPeer>,
    pub max_unacked_clients: Option<u32>,
    pub max_ack_delay: Option<u32>,
    pub max_response_delay: Option<u32>,
    pub heartbeat_delay: Option<u32>,
    pub at: At,
}

impl HaConfig {
    /// The peer this file's server is.
    pub fn this_peer(&self) -> Option<&HaPeer> {
        self.peers.iter().find(|p| p.name == self.this_server_name)
    }
}

/// One of Kea's HA `peers`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HaPeer {
    pub name: String,
    pub url: String,
    /// The URL's host when it is an address.
    pub host: Option<IpAddr>,
    /// `primary`, `secondary`, `standby`, `backup`.
    pub role: String,
    pub auto_failover: Option<bool>,
}

/// What a range hands out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeKind {
    /// Addresses (dhcpd `range`, `range6`; Kea `pools`).
    Addresses,
    /// DHCPv6 temporary addresses (dhcpd `range6 ... temporary`).
    Temporary,
    /// DHCPv6 delegated prefixes of this length (dhcpd `prefix6`, Kea `pd-pools`).
    Prefixes(u8),
}

/// One address range or prefix pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    pub first: IpAddr,
    pub last: IpAddr,
    pub kind: RangeKind,
    /// The subnet it lies in (`192.0.2.0/24`).
    pub subnet: String,
    /// Kea's subnet `id`.
    pub subnet_id: Option<u32>,
    /// The declared shared network it belongs to, if any.
    pub shared_network: Option<String>,
    /// The pool it belongs to: ranges of one pool share the number (dhcpd balances a pool as one).
    pub pool: usize,
    /// The pool's `failover peer` (dhcpd).
    pub failover_peer: Option<String>,
    pub at: At,
}

impl Range {
    /// Addresses (or prefixes) in the range, which for IPv6 can pass 2^64.
    pub fn size(&self) -> u128 {
        let span = match (self.first, self.last) {
            (IpAddr::V4(a), IpAddr::V4(b)) => u128::from(u32::from(b).saturating_sub(u32::from(a))),
            (IpAddr::V6(a), IpAddr::V6(b)) => u128::from(b).saturating_sub(u128::from(a)),
            _ => return 0,
        };
        match self.kind {
            RangeKind::Prefixes(len) => {
                let shift = 128u32.saturating_sub(u32::from(len));
                span.checked_shr(shift).unwrap_or(0).saturating_add(1)
            }
            _ => span.saturating_add(1),
        }
    }

    /// Whether `a` lies in the range (for a prefix pool: the prefix starts in it).
    pub fn contains(&self, a: IpAddr) -> bool {
        match (self.first, self.last, a) {
            (IpAddr::V4(f), IpAddr::V4(l), IpAddr::V4(x)) => f <= x && x <= l,
            (IpAddr::V6(f), IpAddr::V6(l), IpAddr::V6(x)) => f <= x && x <= l,
            _ => false,
        }
    }

    /// `FIRST-LAST`, with `/LEN` for a prefix pool.
    pub fn text(&self) -> String {
        match self.kind {
            RangeKind::Prefixes(len) => format!("{}-{}/{len}", self.first, self.last),
            _ => format!("{}-{}", self.first, self.last),
        }
    }
}

impl ServerConfig {
    /// A one-line account of what the file configures, for reports.
    pub fn summary(&self) -> String {
        let mut parts = vec![format!("{} ({})", self.product.name(), self.family.name())];
        for p in &self.failover {
            parts.push(format!(
                "failover peer \"{}\" {}{}",
                p.name,
                p.effective_role(),
                p.hba_text
                    .as_ref()
                    .map(|h| format!(", {h}"))
                    .unwrap_or_default()
            ));
        }
        if let Some(ha) = &self.ha {
            let role = ha.this_peer().map_or("?", |p| p.role.as_str());
            parts.push(format!(
                "HA {} as \"{}\" ({role})",
                ha.mode, ha.this_server_name
            ));
        }
        let pools: std::collections::BTreeSet<usize> = self.ranges.iter().map(|r| r.pool).collect();
        parts.push(format!(
            "{} ranges in {} pools, {} shared networks",
            self.ranges.len(),
            pools.len(),
            self.shared_networks.len()
        ));
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_content() {
        assert_eq!(detect(b""), Kind::Dhcpd);
        assert_eq!(detect(b"# only a comment\n"), Kind::Dhcpd);
        assert_eq!(
            detect(b"failover peer \"a\" {\n primary;\n}\n"),
            Kind::Dhcpd
        );
        assert_eq!(detect(b"  # c\ninclude \"x\";"), Kind::Dhcpd);
        assert_eq!(detect(b"authoritative;\n"), Kind::Dhcpd);
        assert_eq!(detect(b"// kea\n/* x */ {\"Dhcp4\": {}}"), Kind::Kea);
        assert_eq!(detect(b"# kea too\n{ }"), Kind::Kea);
        assert_eq!(detect(b"profile = \"isc\"\n"), Kind::Poolshark);
        assert_eq!(
            detect(b"# mine\n[[server]]\nname = \"a\"\n"),
            Kind::Poolshark
        );
        assert_eq!(detect(b"hba=\"kea\""), Kind::Poolshark);
        assert_eq!(detect(b"/* never closed"), Kind::Dhcpd);
    }

    #[test]
    fn range_sizes() {
        let r = |f: &str, l: &str, kind| Range {
            first: f.parse().unwrap(),
            last: l.parse().unwrap(),
            kind,
            subnet: String::new(),
            subnet_id: None,
            shared_network: None,
            pool: 0,
            failover_peer: None,
            at: At::default(),
        };
        assert_eq!(r("10.0.0.1", "10.0.0.20", RangeKind::Addresses).size(), 20);
        assert_eq!(r("10.0.0.1", "10.0.0.1", RangeKind::Addresses).size(), 1);
        assert_eq!(
            r(
                "dead:abba:1000::2",
                "dead:abba:1000:ff:ffff:ffff:ffff:ffff",
                RangeKind::Addresses
            )
            .size(),
            (1u128 << 72) - 2
        );
        // dead:abba:1000:0100:: to dead:abba:1000:ff00:: in /56s: 0x01 to 0xff, 255 prefixes.
        assert_eq!(
            r(
                "dead:abba:1000:100::",
                "dead:abba:1000:ff00::",
                RangeKind::Prefixes(56)
            )
            .size(),
            255
        );
        assert_eq!(
            r(
                "::",
                "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                RangeKind::Addresses
            )
            .size(),
            u128::MAX
        );
    }
}
