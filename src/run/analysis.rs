//! How the analysers are set up, from the options `check`, `stats`, `export`, `capture --check`
//! and the TUI share: the reference profiles, `--config` files, the DHCP load-balancing and the
//! failover settings; and the analysers made from them.
//!
//! These option groups derive `clap::Args` here, beside the code that reads them, so that each
//! command flattens the same definition (help texts and defaults in one place) and the library's
//! other users (the TUI, the fuzz targets, the tests and benchmarks) make them as the command
//! line does, without `cli`.

use super::anyhow_like::{Error, Result};
use super::configs::{self, Configs};
use crate::analyse::dhcp_lb::config::Source;
use crate::analyse::dhcp_lb::{from_setup, ConfigFile, DhcpLbAnalyser, Overrides, Settings};
use crate::analyse::failover::from_config::FailoverSetup;
use crate::analyse::failover::{self, FailoverAnalyser, Params, PoolRange};
use crate::analyse::setup::SetupAnalyser;
use crate::analyse::Analyser;

/// How the analysers are set up: shared by `check`, `stats` and the TUI.
#[derive(clap::Args, Debug, Clone)]
pub struct AnalysisArgs {
    /// Reference profiles, by name (repeatable): RSerPool rfc5356|draft01|rsplib|auto (default
    /// auto), DHCP load balancing draft|kea|isc, failover balance isc-code|isc-doc.
    #[arg(long = "profile", value_name = "NAME")]
    pub profiles: Vec<String>,

    /// Findings kept in the report (counts stay exact beyond it).
    #[arg(long, default_value_t = 100_000)]
    pub max_findings: usize,

    /// A server's own configuration, one per server (repeatable): ISC dhcpd's dhcpd.conf or
    /// Kea's kea-dhcp4.conf / kea-dhcp6.conf, the reference for the pair (servers, roles, bucket
    /// map, delayed-service threshold, pool balance options, failover pools); or poolshark's
    /// TOML file. The kind is told by the content. A file with errors is reported
    /// (FILE:LINE:COLUMN) and left out.
    #[arg(long = "config", value_name = "FILE")]
    pub configs: Vec<std::path::PathBuf>,

    /// The `--config` files, read once (their errors reported once).
    #[arg(skip)]
    pub loaded: std::sync::OnceLock<std::result::Result<Configs, String>>,

    #[command(flatten)]
    pub dhcp_lb: DhcpLbArgs,

    #[command(flatten)]
    pub failover: FailoverArgs,
}

/// The failover pair's pool balance settings: the options, else the failover peer statements
/// of `--config`'s dhcpd.conf, else dhcpd's defaults.
#[derive(clap::Args, Debug, Clone)]
#[command(next_help_heading = "ISC DHCP failover")]
pub struct FailoverArgs {
    /// max-lease-misbalance, percent [default: the config's, else 15].
    #[arg(long, value_name = "PERCENT")]
    pub max_lease_misbalance: Option<u32>,
    /// max-lease-ownership, percent [default: the config's, else 10].
    #[arg(long, value_name = "PERCENT")]
    pub max_lease_ownership: Option<u32>,
    /// min-balance, seconds [default: the config's, else 60].
    #[arg(long, value_name = "SECONDS")]
    pub min_balance: Option<u32>,
    /// max-balance, seconds [default: the config's, else 3600].
    #[arg(long, value_name = "SECONDS")]
    pub max_balance: Option<u32>,
    /// A failover pool as `NAME=FIRST-LAST` (repeatable); without any, the config's pools with a
    /// failover peer, else one pool per /24.
    #[arg(long = "failover-pool", value_name = "NAME=FIRST-LAST")]
    pub pools: Vec<PoolRange>,
}

impl FailoverArgs {
    /// The balance options: each option given, else `from_config`'s, else dhcpd's default; and
    /// where they came from (the command line when any option is given, else the config when
    /// there is one, else the defaults).
    pub fn params(&self, from_config: Option<Params>) -> (Params, Source) {
        let base = from_config.unwrap_or_default();
        let p = Params {
            max_lease_misbalance: self
                .max_lease_misbalance
                .unwrap_or(base.max_lease_misbalance),
            max_lease_ownership: self.max_lease_ownership.unwrap_or(base.max_lease_ownership),
            min_balance: self.min_balance.unwrap_or(base.min_balance),
            max_balance: self.max_balance.unwrap_or(base.max_balance),
        };
        let given = [
            self.max_lease_misbalance,
            self.max_lease_ownership,
            self.min_balance,
            self.max_balance,
        ];
        let source = if given.iter().any(Option::is_some) {
            Source::CommandLine
        } else if from_config.is_some() {
            Source::ConfigFile
        } else {
            Source::Default
        };
        (p, source)
    }

    /// The pools: `--failover-pool`, else `from_config`'s, else one per /24.
    pub fn pool_map(&self, from_config: &[PoolRange]) -> Result<failover::PoolMap> {
        let ranges = if self.pools.is_empty() {
            from_config
        } else {
            &self.pools
        };
        if ranges.is_empty() {
            Ok(failover::PoolMap::default())
        } else {
            failover::PoolMap::ranges(ranges.to_vec()).map_err(Error::msg)
        }
    }

    /// The failover replay's configuration, under the failover `profile`, for the pair that
    /// `setup` (read from `--config`) describes.
    pub fn config(&self, profile: Option<&str>, setup: &FailoverSetup) -> Result<failover::Config> {
        let profile = failover::Profile::by_name(profile.unwrap_or("isc-code"))
            .ok_or_else(|| Error::msg("unknown failover profile"))?;
        // One set of options for the replay: the primary's (the secondary's files are told
        // apart by config.mismatch when they differ).
        let (params, params_source) =
            self.params(setup.params_for(crate::analyse::dhcp_lb::Role::Primary));
        Ok(failover::Config {
            profile,
            params,
            params_source: params_source.name(),
            pools: self.pool_map(&setup.pools)?,
            hba: setup.hba,
            ..failover::Config::default()
        })
    }
}

/// DHCP load-balancing settings.
#[derive(clap::Args, Debug, Clone)]
#[command(next_help_heading = "DHCP load balancing")]
pub struct DhcpLbArgs {
    /// The hash bucket assignment (split:N, kea, or 64 hex digits).
    #[arg(long, value_name = "SPEC")]
    pub hba: Option<String>,

    /// Seconds a client waits (secs / elapsed time) before the server
    /// that does not own its bucket may answer.
    #[arg(long, value_name = "SECONDS")]
    pub lb_threshold: Option<u32>,

    /// DHCP transactions (client, xid) followed at once; the least recent are evicted and
    /// counted [default: 100000].
    #[arg(long, value_name = "N")]
    pub max_dhcp_transactions: Option<usize>,

    /// Client transmissions awaiting a verdict at once; the oldest are judged early, counted
    /// [default: 200000].
    #[arg(long, value_name = "N")]
    pub max_dhcp_pending: Option<usize>,
}

/// The profile chosen for each family of reference algorithms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profiles {
    /// rfc5356, draft01, rsplib or auto.
    pub rserpool: Option<String>,
    /// draft, kea or isc.
    pub dhcp: Option<String>,
    /// isc-code or isc-doc.
    pub failover: Option<String>,
}

const RSERPOOL_PROFILES: &[&str] = &["rfc5356", "draft01", "rsplib", "auto"];
const DHCP_PROFILES: &[&str] = &["draft", "kea", "isc"];
const FAILOVER_PROFILES: &[&str] = &["isc-code", "isc-doc"];

impl Profiles {
    /// Sorts `--profile` values into their families by name (the names do not overlap).
    pub fn from_names(names: &[String]) -> Result<Profiles> {
        let mut p = Profiles::default();
        for n in names {
            let slot = if RSERPOOL_PROFILES.contains(&n.as_str()) {
                &mut p.rserpool
            } else if DHCP_PROFILES.contains(&n.as_str()) {
                &mut p.dhcp
            } else if FAILOVER_PROFILES.contains(&n.as_str()) {
                &mut p.failover
            } else {
                return Err(Error::msg(format!(
                    "unknown --profile {n:?}: RSerPool {}, DHCP load balancing {}, failover {}",
                    RSERPOOL_PROFILES.join("|"),
                    DHCP_PROFILES.join("|"),
                    FAILOVER_PROFILES.join("|")
                )));
            };
            if let Some(old) = slot.replace(n.clone()) {
                if old != *n {
                    return Err(Error::msg(format!(
                        "--profile {old} and --profile {n} are of the same family: give one"
                    )));
                }
            }
        }
        Ok(p)
    }
}

impl AnalysisArgs {
    /// The `--config` files, read (and their errors reported) the first time they are asked for.
    pub fn configs(&self) -> Result<&Configs> {
        self.loaded
            .get_or_init(|| configs::load(&self.configs).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| Error::msg(e.clone()))
    }
}

/// The analysers `check` runs, configured from the command line.
pub fn analysers(args: &AnalysisArgs) -> Result<Vec<Box<dyn Analyser>>> {
    analysers_seeded(args, Vec::new())
}

/// [`analysers`] with the failover replay starting from lease files.
pub fn analysers_seeded(
    args: &AnalysisArgs,
    seeds: Vec<failover::seed::LeaseSeed>,
) -> Result<Vec<Box<dyn Analyser>>> {
    let profiles = Profiles::from_names(&args.profiles)?;
    let configs = args.configs()?;
    // RSerPool: every Handle Resolution Response against the reference selection policies.
    let rserpool = crate::analyse::rserpool::RserpoolAnalyser::from_profile_name(
        profiles.rserpool.as_deref(),
    )?;
    let failover_setup = failover::from_config::setup(&configs.servers);
    let (lb_file, notes) = from_setup::config_file(&configs.servers);
    let mut a: Vec<Box<dyn Analyser>> = vec![Box::new(rserpool)];
    if !configs.servers.is_empty() {
        a.push(Box::new(SetupAnalyser::new(configs.servers.clone(), notes)));
    }
    a.push(Box::new(dhcp_lb_analyser(
        &args.dhcp_lb,
        &profiles,
        configs,
        lb_file,
    )?));
    a.push(Box::new(FailoverAnalyser::with_seeds(
        args.failover
            .config(profiles.failover.as_deref(), &failover_setup)?,
        seeds,
    )));
    Ok(a)
}

/// The DHCP load-balancing replay, from `--config` (the servers' files, then poolshark's TOML
/// over them), `--hba`, `--lb-threshold` and the DHCP `--profile`.
fn dhcp_lb_analyser(
    args: &DhcpLbArgs,
    profiles: &Profiles,
    configs: &Configs,
    from_servers: ConfigFile,
) -> Result<DhcpLbAnalyser> {
    let file = match (&configs.toml, configs.servers.is_empty()) {
        (None, true) => None,
        (None, false) => Some(from_servers),
        (Some(t), _) => Some(from_setup::merged(from_servers, t.clone())),
    };
    let cli = Overrides {
        profile: profiles.dhcp.clone(),
        hba: args.hba.clone(),
        threshold: args.lb_threshold,
        max_transactions: args.max_dhcp_transactions,
        max_pending: args.max_dhcp_pending,
    };
    Ok(DhcpLbAnalyser::new(Settings::resolve(file.as_ref(), &cli)?))
}
