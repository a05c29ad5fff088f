//! `poolshark probe -i IFACE --dhcpv4|--dhcpv6 [--buckets all|A-B|LIST] [--rate N/s]
//! [--profile P] [--hba SPEC] [--server ROLE=ID]... [--config FILE]... [--format text|json]
//! [--dry-run]`: asks a live server pair which server serves each hash bucket, with one
//! DISCOVER / SOLICIT per bucket from a made-up client that hashes there, and compares the
//! answers with the expected map. Exit 0 when every bucket is served as expected, 1 when one
//! is not, 2 when the probe could not run (or was interrupted).

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::ArgGroup;

use crate::analyse::dhcp_lb::config::{ConfigFile, ConfiguredServer, Overrides, Settings};
use crate::analyse::dhcp_lb::events::ServerIdent;
use crate::analyse::dhcp_lb::from_setup;
use crate::analyse::dhcp_lb::Role;
use crate::probe::report::{DryRun, ProbeReport};
use crate::probe::{self, keys, packets, BucketSet, Expected, Family, KeyKind, Pace};
use crate::run::anyhow_like::{Error, Result};
use crate::run::exit;

/// Probes a second by default: 256 buckets in 13 s, a load no server notices.
pub const DEFAULT_RATE: f64 = 20.0;
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

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
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

/// The pair's settings from `--config` files, read as `check --config` reads them (the servers'
/// own dhcpd.conf or Kea configuration, and poolshark's TOML over them), and the command line;
/// the probe judges by what they give (map, profile, servers and roles) through
/// [`Expected::from_settings`].
pub fn settings(
    configs: &[PathBuf],
    profile: Option<&str>,
    hba: Option<&str>,
    servers: &[String],
) -> Result<Settings> {
    let merged: Option<ConfigFile> = if configs.is_empty() {
        None
    } else {
        let loaded = crate::run::configs::load(configs)?;
        let (from_servers, notes) = from_setup::config_file(&loaded.servers);
        for note in notes {
            eprintln!("poolshark: --config: {note}");
        }
        Some(match loaded.toml {
            None => from_servers,
            Some(t) => from_setup::merged(from_servers, t),
        })
    };
    let overrides = Overrides {
        profile: profile.map(str::to_string),
        hba: hba.map(str::to_string),
        ..Overrides::default()
    };
    let mut s = Settings::resolve(merged.as_ref(), &overrides)?;
    for spec in servers {
        let (role, ident) = server_spec(spec)?;
        match s.servers.iter_mut().find(|c| c.role == Some(role)) {
            Some(c) => c.identifiers.push(ident),
            None => s.servers.push(ConfiguredServer {
                name: ident.text(),
                role: Some(role),
                identifiers: vec![ident],
            }),
        }
    }
    Ok(s)
}

/// `primary=192.0.2.1`, `secondary=00:01:00:01:...`.
fn server_spec(spec: &str) -> Result<(Role, ServerIdent)> {
    let bad = || {
        Error::msg(format!(
            "--server {spec}: give ROLE=ID, the role primary or secondary and the server's \
             address or DUID (primary=192.0.2.1)"
        ))
    };
    let (role, id) = spec.split_once('=').ok_or_else(bad)?;
    let role = match role.trim().to_ascii_lowercase().as_str() {
        "primary" => Role::Primary,
        "secondary" => Role::Secondary,
        _ => return Err(bad()),
    };
    let ident = ServerIdent::parse(id).ok_or_else(bad)?;
    Ok((role, ident))
}

/// Transaction ids start from a number of this run's (the clock and the process), so that two
/// probes on one link do not take each other's answers.
fn xid_base() -> u32 {
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    (t.subsec_nanos() ^ (t.as_secs() as u32).rotate_left(16) ^ std::process::id().rotate_left(8))
        & 0xffff_0000
}

fn write_json(v: &serde_json::Value) -> Result<()> {
    let mut out = io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, v)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

pub fn run(args: ProbeArgs) -> Result<i32> {
    let family = args.family();
    let kind = args.key_kind()?;
    let pace = args.pace()?;
    let wanted: BucketSet = args.buckets.parse().map_err(Error::msg)?;
    let settings = settings(
        &args.configs,
        args.profile.as_deref(),
        args.hba.as_deref(),
        &args.servers,
    )?;
    let expected = Expected::from_settings(&settings);
    let profiles = keys::rule_profiles(family, expected.profile).map_err(|e| e.to_string())?;
    let keys = probe::find_keys(kind, &wanted, &profiles).map_err(|e| e.to_string())?;
    let base = xid_base();
    if args.dry_run {
        return dry_run(&args, &keys, &profiles, base);
    }
    live(args, keys, pace, expected, base)
}

fn dry_run(
    args: &ProbeArgs,
    keys: &[probe::ProbeKey],
    profiles: &[&'static crate::analyse::dhcp_lb::Profile],
    base: u32,
) -> Result<i32> {
    let source = match &args.interface {
        #[cfg(target_os = "linux")]
        Some(i) => probe::link::interface(i)?.source,
        #[cfg(not(target_os = "linux"))]
        Some(_) => packets::LinkSource::placeholder(),
        None => packets::LinkSource::placeholder(),
    };
    let mut frames = Vec::with_capacity(keys.len());
    for (n, k) in keys.iter().enumerate() {
        let xid = probe::exchange::xid_of(k.kind.family(), base, n as u32);
        frames.push((xid, packets::frame(k, xid, &source)?));
    }
    let d = DryRun {
        keys,
        frames: &frames,
        profiles,
        interface: args.interface.as_deref(),
    };
    match args.format {
        Format::Json => write_json(&d.to_json())?,
        Format::Text => {
            let mut out = io::stdout().lock();
            d.write_text(&mut out)?;
            out.flush()?;
        }
    }
    Ok(exit::OK)
}

#[cfg(target_os = "linux")]
fn live(
    args: ProbeArgs,
    keys: Vec<probe::ProbeKey>,
    pace: Pace,
    expected: Expected,
    base: u32,
) -> Result<i32> {
    use crate::probe::link::{self, LiveNetwork};
    use crate::source::live::interrupt;

    let name = args.interface.clone().unwrap_or_default();
    let iface = link::interface(&name)?;
    let family = args.family();
    if family == Family::V6 && iface.source.link_local.is_none() {
        return Err(Error::msg(format!(
            "{name} has no IPv6 link-local address: a SOLICIT is sent from one (is IPv6 \
             disabled on it?)"
        )));
    }
    interrupt::install()?;
    let mut net = LiveNetwork::open(&iface, family)?;
    // The sockets are open: nothing else needs privileges.
    let dropped = crate::privileges::drop_to(&args.user)?;
    let count = keys.len();
    eprintln!(
        "poolshark: probing {count} buckets on {name} ({} keys, {}/s, about {:.1} s; {dropped}); \
         Ctrl-C stops",
        args.key_kind()?.name(),
        pace.rate,
        count as f64 / pace.rate + pace.wait.as_secs_f64(),
    );
    let started = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64();
    let run = probe::exchange::run(keys, &pace, &iface.source, base, &mut net)?;
    let (captured, dropped_by_kernel) = net.capture_stats();
    let comparison = probe::compare(&run, &expected);
    let report = ProbeReport {
        interface: &name,
        kind: args.key_kind()?,
        pace: &pace,
        expected: &expected,
        run: &run,
        comparison: &comparison,
        started,
        privileges: Some(dropped.to_string()),
    };
    match args.format {
        Format::Json => write_json(&report.to_json())?,
        Format::Text => {
            let mut out = io::stdout().lock();
            report.write_text(&mut out)?;
            out.flush()?;
        }
    }
    eprintln!(
        "poolshark: {captured} frames captured on {name} ({dropped_by_kernel} dropped by the \
         kernel), {} answers to other clients",
        run.foreign_answers
    );
    if run.interrupted {
        eprintln!("poolshark: interrupted: the map is incomplete");
        return Ok(exit::USAGE);
    }
    Ok(if comparison.deviations() > 0 {
        exit::FINDINGS
    } else {
        exit::OK
    })
}

#[cfg(not(target_os = "linux"))]
fn live(
    _args: ProbeArgs,
    _keys: Vec<probe::ProbeKey>,
    _pace: Pace,
    _expected: Expected,
    _base: u32,
) -> Result<i32> {
    Err(Error::msg(
        "probe sends through AF_PACKET sockets, which exist on Linux only (--dry-run works \
         anywhere)",
    ))
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

    #[test]
    fn servers_and_maps() {
        let s = settings(
            &[],
            Some("isc"),
            Some("split:100"),
            &["primary=192.0.2.1".into(), "Secondary=192.0.2.2".into()],
        )
        .unwrap();
        let e = Expected::from_settings(&s);
        assert_eq!(e.hba.map(|h| h.0.to_string()), Some("split:100".into()));
        assert_eq!(e.servers.len(), 2);
        assert_eq!(e.servers[1].role, Some(Role::Secondary));
        // Kea's map comes with its profile.
        let e = Expected::from_settings(&settings(&[], Some("kea"), None, &[]).unwrap());
        assert_eq!(e.hba.map(|h| h.0.to_string()), Some("kea".into()));
        // Nothing given: nothing expected.
        let e = Expected::from_settings(&settings(&[], None, None, &[]).unwrap());
        assert!(e.hba.is_none());
        for bad in ["primary", "boss=192.0.2.1", "primary=zz"] {
            let err = settings(&[], None, None, &[bad.into()]).unwrap_err();
            assert!(err.to_string().contains("ROLE=ID"), "{bad}: {err}");
        }
    }

    #[test]
    fn config_files_are_read_as_check_reads_them() {
        let dir = std::env::temp_dir();
        let conf = |name: &str| dir.join(format!("poolshark-probe-{name}-{}", std::process::id()));
        // An operator's pair: the primary's dhcpd.conf gives the map, the roles and addresses.
        let primary = conf("primary.conf");
        std::fs::write(
            &primary,
            "failover peer \"p\" {\n  primary;\n  address 192.0.2.1;\n  port 647;\n  \
             peer address 192.0.2.2;\n  peer port 647;\n  mclt 60;\n  split 64;\n  \
             load balance max seconds 3;\n}\nsubnet 192.0.2.0 netmask 255.255.255.0 {\n  \
             pool {\n    failover peer \"p\";\n    range 192.0.2.100 192.0.2.199;\n  }\n}\n",
        )
        .unwrap();
        let s = settings(std::slice::from_ref(&primary), None, None, &[]).unwrap();
        let e = Expected::from_settings(&s);
        assert_eq!(e.hba.map(|h| h.0.to_string()), Some("split:64".into()));
        assert_eq!(e.profile.map(|p| p.name), Some("isc"));
        assert_eq!(e.servers.len(), 2);
        // poolshark's TOML over it, and the command line over both.
        let toml = conf("pair.toml");
        std::fs::write(&toml, "hba = \"split:128\"\n").unwrap();
        let both = [primary.clone(), toml.clone()];
        let s = settings(&both, None, None, &[]).unwrap();
        assert_eq!(s.hba.map(|h| h.0.to_string()), Some("split:128".into()));
        let s = settings(&both, None, Some("kea"), &[]).unwrap();
        assert_eq!(s.hba.map(|h| h.0.to_string()), Some("kea".into()));
        // No file can be used: an error naming why.
        let missing = dir.join("poolshark-probe-no-such-file.toml");
        assert!(settings(&[missing], None, None, &[])
            .unwrap_err()
            .to_string()
            .contains("no --config file could be used"));
        let _ = std::fs::remove_file(primary);
        let _ = std::fs::remove_file(toml);
    }
}
