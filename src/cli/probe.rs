//! `poolshark probe`: its arguments and the checks that refuse them (the family and its key
//! kind, the rate and its bounds, the wait, the retries, the buckets), for [`crate::run::probe`].

use std::path::PathBuf;
use std::time::Duration;

use clap::ArgGroup;

use crate::probe::{BucketSet, Family, KeyKind, Pace};
use crate::run::anyhow_like::{Error, Result};
use crate::run::probe::{self, Format};

/// The highest rate taken without --force: a pair that serves a few hundred clients a second
/// at its busiest should not see the probe double that.
pub const MAX_RATE: f64 = 100.0;
/// The highest rate taken at all.
pub const MAX_FORCED_RATE: f64 = 10_000.0;
const MAX_RETRIES: u32 = 10;
const MAX_WAIT: f64 = 60.0;

#[derive(clap::Args, Debug)]
#[command(group(ArgGroup::new("family").required(true).args(["dhcpv4", "dhcpv6"])))]
pub struct ProbeArgs {
    /// Interface on the servers' link (`ip link` lists them); not needed with --dry-run.
    #[arg(
        short = 'i',
        long = "interface",
        value_name = "IFACE",
        required_unless_present = "dry_run"
    )]
    pub interface: Option<String>,

    /// Probe DHCPv4: a DHCPDISCOVER per bucket, broadcast (needs CAP_NET_RAW).
    #[arg(long)]
    pub dhcpv4: bool,

    /// Probe DHCPv6: a SOLICIT per bucket, to ff02::1:2.
    #[arg(long)]
    pub dhcpv6: bool,

    /// The buckets to probe: all, a range A-B, or a list such as 0-15,100.
    #[arg(long, value_name = "all|A-B|LIST", default_value = "all")]
    pub buckets: String,

    /// Probes sent per second (retries included), e.g. 20 or 20/s; above 100/s only with
    /// --force.
    #[arg(long, value_name = "N/s", default_value = "20")]
    pub rate: String,

    /// Seconds the answers to one probe are awaited (ISC dhcpd pings an address for a second
    /// before offering it, unless ping-check is off).
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0)]
    pub wait: f64,

    /// How many times a bucket nobody answered is asked again (a new transaction, still with
    /// secs / elapsed time 0).
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub retries: u32,

    /// What identifies the made-up clients (what the servers hash): chaddr or client-id
    /// (option 61) for DHCPv4, duid-ll or duid-en for DHCPv6.
    #[arg(long, value_enum, value_name = "KIND")]
    pub key: Option<KeyArg>,

    /// The DHCP load-balancing profile: draft, kea (its map is fixed: even buckets to the
    /// primary) or isc; the keys are searched under its key rule (without it, under every
    /// profile's at once).
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,

    /// The expected map: split:N (the primary owns 0..N-1), kea, or the 32-byte map as 64 hex
    /// digits (set bit = primary).
    #[arg(long, value_name = "SPEC")]
    pub hba: Option<String>,

    /// A server of the pair and its role, by an address it answers from, its Server
    /// Identifier or its DUID: primary=192.0.2.1 (repeatable). Without roles they are inferred
    /// from the answers.
    #[arg(long = "server", value_name = "ROLE=ID")]
    pub servers: Vec<String>,

    /// A server's own configuration (ISC dhcpd's dhcpd.conf or Kea's kea-dhcp4/6.conf, one per
    /// server) or poolshark's TOML (profile, hba, servers with their roles and identifiers), as
    /// `check --config` takes them (repeatable); the expected map, profile and roles come from
    /// them. The command line overrides the files.
    #[arg(long = "config", value_name = "FILE")]
    pub configs: Vec<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    /// Print the packets the probe would send, with their buckets and keys, and send nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Take a rate above 100 probes a second.
    #[arg(long)]
    pub force: bool,

    /// After opening its sockets, run as this user (as tcpdump -Z): root's privileges are
    /// given up; `-Z root` keeps them.
    #[arg(short = 'Z', long = "user", value_name = "USER", default_value = crate::privileges::DEFAULT_USER)]
    pub user: String,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyArg {
    Chaddr,
    ClientId,
    DuidLl,
    DuidEn,
}

impl ProbeArgs {
    fn family(&self) -> Family {
        if self.dhcpv6 {
            Family::V6
        } else {
            Family::V4
        }
    }

    fn key_kind(&self) -> Result<KeyKind> {
        let kind = match (self.key, self.family()) {
            (None, Family::V4) => KeyKind::Chaddr,
            (None, Family::V6) => KeyKind::DuidLl,
            (Some(KeyArg::Chaddr), _) => KeyKind::Chaddr,
            (Some(KeyArg::ClientId), _) => KeyKind::ClientId,
            (Some(KeyArg::DuidLl), _) => KeyKind::DuidLl,
            (Some(KeyArg::DuidEn), _) => KeyKind::DuidEn,
        };
        if kind.family() != self.family() {
            return Err(Error::msg(format!(
                "--key {} is a {} key: use {}",
                kind.name(),
                if kind.family() == Family::V4 {
                    "DHCPv4"
                } else {
                    "DHCPv6"
                },
                if self.family() == Family::V4 {
                    "chaddr or client-id with --dhcpv4"
                } else {
                    "duid-ll or duid-en with --dhcpv6"
                }
            )));
        }
        Ok(kind)
    }

    fn pace(&self) -> Result<Pace> {
        let text = self.rate.trim();
        let number = text.strip_suffix("/s").unwrap_or(text).trim();
        let rate: f64 = number
            .parse()
            .ok()
            .filter(|r: &f64| r.is_finite() && *r > 0.0)
            .ok_or_else(|| {
                Error::msg(format!(
                    "--rate {text}: give probes per second, a number above 0 (e.g. 20 or 20/s)"
                ))
            })?;
        if rate > MAX_RATE && !self.force {
            return Err(Error::msg(format!(
                "--rate {text}: above {MAX_RATE}/s a probe is a load test for the servers; add \
                 --force if that is what you want"
            )));
        }
        if rate > MAX_FORCED_RATE {
            return Err(Error::msg(format!(
                "--rate {text}: at most {MAX_FORCED_RATE}/s, even with --force"
            )));
        }
        if !(self.wait.is_finite() && self.wait > 0.0 && self.wait <= MAX_WAIT) {
            return Err(Error::msg(format!(
                "--wait {}: give seconds above 0 and at most {MAX_WAIT}",
                self.wait
            )));
        }
        if self.retries > MAX_RETRIES {
            return Err(Error::msg(format!(
                "--retries {}: at most {MAX_RETRIES}",
                self.retries
            )));
        }
        Ok(Pace {
            rate,
            wait: Duration::from_secs_f64(self.wait),
            retries: self.retries,
        })
    }
}

pub fn run(args: ProbeArgs) -> Result<i32> {
    let family = args.family();
    let kind = args.key_kind()?;
    let pace = args.pace()?;
    let wanted: BucketSet = args.buckets.parse().map_err(Error::msg)?;
    probe::run(probe::Options {
        family,
        kind,
        pace,
        wanted,
        configs: args.configs,
        profile: args.profile,
        hba: args.hba,
        servers: args.servers,
        interface: args.interface,
        dry_run: args.dry_run,
        format: args.format,
        user: args.user,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct T {
        #[command(flatten)]
        a: ProbeArgs,
    }

    fn args(line: &[&str]) -> std::result::Result<ProbeArgs, String> {
        let mut v = vec!["probe"];
        v.extend_from_slice(line);
        T::try_parse_from(v).map(|t| t.a).map_err(|e| e.to_string())
    }

    #[test]
    fn rates_are_bounded() {
        let p = args(&["--dry-run", "--dhcpv4", "--rate", "50/s"]).unwrap();
        assert_eq!(p.pace().unwrap().rate, 50.0);
        let p = args(&["--dry-run", "--dhcpv4", "--rate", "0.5"]).unwrap();
        assert_eq!(p.pace().unwrap().rate, 0.5);
        let p = args(&["--dry-run", "--dhcpv4", "--rate", "500"]).unwrap();
        assert!(p.pace().unwrap_err().to_string().contains("--force"));
        let p = args(&["--dry-run", "--dhcpv4", "--rate", "500", "--force"]).unwrap();
        assert_eq!(p.pace().unwrap().rate, 500.0);
        for bad in ["0", "-3", "fast", "nan"] {
            let rate = format!("--rate={bad}");
            let p = args(&["--dry-run", "--dhcpv4", &rate]).unwrap();
            assert!(p.pace().is_err(), "{bad}");
        }
        let p = args(&["--dry-run", "--dhcpv4", "--rate", "1e9", "--force"]).unwrap();
        assert!(p
            .pace()
            .unwrap_err()
            .to_string()
            .contains("even with --force"));
    }

    #[test]
    fn family_interface_and_keys() {
        assert!(args(&["--dry-run"]).unwrap_err().contains("--dhcpv4"));
        assert!(args(&["--dhcpv4"]).unwrap_err().contains("--interface"));
        assert!(args(&["--dry-run", "--dhcpv4", "--dhcpv6"]).is_err());
        let p = args(&["--dry-run", "--dhcpv6"]).unwrap();
        assert_eq!(p.key_kind().unwrap(), KeyKind::DuidLl);
        let p = args(&["--dry-run", "--dhcpv6", "--key", "chaddr"]).unwrap();
        assert!(p.key_kind().unwrap_err().to_string().contains("DHCPv4 key"));
        let p = args(&["-i", "eth0", "--dhcpv4", "--key", "client-id"]).unwrap();
        assert_eq!(p.key_kind().unwrap(), KeyKind::ClientId);
        assert_eq!(p.user, "nobody");
    }
}
