//! The run of `poolshark probe -i IFACE --dhcpv4|--dhcpv6 [--buckets all|A-B|LIST] [--rate N/s]
//! [--profile P] [--hba SPEC] [--server ROLE=ID]... [--config FILE]... [--format text|json]
//! [--dry-run]`: asks a live server pair which server serves each hash bucket, with one
//! DISCOVER / SOLICIT per bucket from a made-up client that hashes there, and compares the
//! answers with the expected map. Exit 0 when every bucket is served as expected, 1 when one
//! is not, 2 when the probe could not run (or was interrupted).

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::analyse::dhcp_lb::config::{ConfigFile, ConfiguredServer, Overrides, Settings};
use crate::analyse::dhcp_lb::events::ServerIdent;
use crate::analyse::dhcp_lb::from_setup;
use crate::analyse::dhcp_lb::Role;
use crate::probe::report::{DryRun, ProbeReport};
use crate::probe::{self, keys, packets, BucketSet, Expected, Family, KeyKind, Pace};
use crate::run::anyhow_like::{Error, Result};
use crate::run::exit;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
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

/// What `probe` is given, already checked: the family, the kind of key, the pace, the buckets,
/// the settings' sources (`--config`, `--profile`, `--hba`, `--server`, read by [`settings`]),
/// the interface, whether to send nothing, the output format and the user to run as.
pub struct Options {
    pub family: Family,
    pub kind: KeyKind,
    pub pace: Pace,
    pub wanted: BucketSet,
    pub configs: Vec<PathBuf>,
    pub profile: Option<String>,
    pub hba: Option<String>,
    pub servers: Vec<String>,
    pub interface: Option<String>,
    pub dry_run: bool,
    pub format: Format,
    pub user: String,
}

/// Reads the expected map, finds a key per bucket, and prints the probes (`dry_run`) or sends
/// them and reports the answers.
pub fn run(args: Options) -> Result<i32> {
    let family = args.family;
    let kind = args.kind;
    let settings = settings(
        &args.configs,
        args.profile.as_deref(),
        args.hba.as_deref(),
        &args.servers,
    )?;
    let expected = Expected::from_settings(&settings);
    let profiles = keys::rule_profiles(family, expected.profile).map_err(|e| e.to_string())?;
    let keys = probe::find_keys(kind, &args.wanted, &profiles).map_err(|e| e.to_string())?;
    let base = xid_base();
    if args.dry_run {
        return dry_run(&args, &keys, &profiles, base);
    }
    let pace = args.pace;
    live(args, keys, pace, expected, base)
}

fn dry_run(
    args: &Options,
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
    args: Options,
    keys: Vec<probe::ProbeKey>,
    pace: Pace,
    expected: Expected,
    base: u32,
) -> Result<i32> {
    use crate::probe::link::{self, LiveNetwork};
    use crate::source::live::interrupt;

    let name = args.interface.clone().unwrap_or_default();
    let iface = link::interface(&name)?;
    let family = args.family;
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
        args.kind.name(),
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
        kind: args.kind,
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
    _args: Options,
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
