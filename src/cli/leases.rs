//! `poolshark leases FILE`: its arguments (the alarm and failover balance option groups are
//! [`crate::run::leases::pool_usage::AlarmArgs`] and [`crate::run::analysis::FailoverArgs`]),
//! for [`crate::run::leases`].

use std::path::PathBuf;

use crate::analyse::dhcp_lb::Role;
use crate::run::analysis::FailoverArgs;
use crate::run::anyhow_like::{Error, Result};
use crate::run::leases::pool_usage::AlarmArgs;
use crate::run::leases::{self, Format};

#[derive(clap::Args, Debug)]
pub struct LeasesArgs {
    /// A server's lease file: ISC dhcpd's dhcpd.leases (DHCPv4 or DHCPv6), or Kea's memfile
    /// kea-leases4.csv / kea-leases6.csv.
    pub file: PathBuf,

    /// The server's configuration (repeatable; the kind told by the content): ISC dhcpd's
    /// dhcpd.conf or Kea's kea-dhcp4.conf / kea-dhcp6.conf. Its ranges and shared networks are
    /// counted; its failover peer gives the role, the balance options, the bucket map and the
    /// failover pools (the options below override them).
    #[arg(long = "config", value_name = "FILE")]
    pub configs: Vec<PathBuf>,

    /// The server that wrote the file, when its failover peer state does not tell (dhcpd writes
    /// `mclt` there only on the secondary); without it, the config's role.
    #[arg(long, value_enum, value_name = "primary|secondary")]
    pub role: Option<RoleArg>,

    /// Failover balance profile: isc-code (what ISC DHCP 4.4 does) or isc-doc (the man page).
    #[arg(long, value_name = "NAME", default_value = "isc-code", value_parser = ["isc-code", "isc-doc"])]
    pub profile: String,

    /// The moment to judge, in seconds since the epoch (leases in use or expired, lease ages,
    /// next run); default: the latest time the file shows as past.
    #[arg(long, value_name = "EPOCH")]
    pub now: Option<i64>,

    /// Output format (CSV: the ranges and shared networks of --config, one row each).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    #[command(flatten)]
    pub alarms: AlarmArgs,

    // Last: the flattened options set the help heading of whatever follows.
    #[command(flatten)]
    pub failover: FailoverArgs,

    /// The pair's hash bucket assignment, for pass 1 (affinity): split:N as in dhcpd.conf
    /// (the primary owns buckets 0..N-1), kea, or 64 hex digits (set bit = primary). Without it,
    /// the config's split or hba; without either no lease is given away by affinity.
    #[arg(long, value_name = "SPEC", help_heading = "ISC DHCP failover")]
    pub hba: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RoleArg {
    Primary,
    Secondary,
}

impl From<RoleArg> for Role {
    fn from(r: RoleArg) -> Role {
        match r {
            RoleArg::Primary => Role::Primary,
            RoleArg::Secondary => Role::Secondary,
        }
    }
}

pub fn run(args: LeasesArgs) -> Result<i32> {
    let profile = crate::analyse::failover::Profile::by_name(&args.profile)
        .ok_or_else(|| Error::msg("unknown failover profile"))?;
    leases::run(leases::Options {
        file: args.file,
        configs: args.configs,
        role: args.role.map(Role::from),
        profile,
        now: args.now,
        format: args.format,
        alarms: args.alarms,
        failover: args.failover,
        hba: args.hba,
    })
}
