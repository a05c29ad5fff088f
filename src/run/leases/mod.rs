//! `poolshark leases FILE`'s run: a DHCP server's lease file, ISC dhcpd's `dhcpd.leases` (DHCPv4 and
//! DHCPv6) or Kea's memfile CSV.
//!
//! * With `--config` (the server's dhcpd.conf or Kea configuration): every range and shared
//!   network counted as dhcpd-pools counts them (`pool_usage`), with its alarms and their
//!   Nagios exit code.
//! * For a dhcpd failover server's DHCPv4 file: the pool balancer's view, per pool the leases by
//!   binding state, the failover state and MCLT the file records, lts and its levels for the
//!   server's role, and the balancer's verdict now (balanced or not, the leases a run would move
//!   and by which pass, whether a POOLREQ is due), with the balance options, pools, role and
//!   bucket map of the config's failover peer unless the options give them.
//! * For a Kea file: leases per subnet and state, in use or expired at `--now` (`kea`).
//!
//! A file that is no lease file (a capture, JSON, binary) is refused with what it looks like.
//! Also the `--leases` seeds of `check`: reading them with their errors reported the same way.

mod kea;
pub mod pool_usage;

use std::io::Write;
use std::path::PathBuf;

use self::pool_usage::AlarmArgs;
use crate::analyse::dhcp_lb::config::Source;
use crate::analyse::dhcp_lb::{Hba, Role};
use crate::analyse::failover::balancer::{Level, Pass};
use crate::analyse::failover::from_config::{self, FailoverSetup};
use crate::analyse::failover::from_file::{self, FileRole};
use crate::analyse::failover::snapshot::{self, Balancing, Oldest, PoolVerdict, Settings};
use crate::analyse::usage::{self, Usage, Verdict};
use crate::config::ServerConfig;
use crate::proto::lb::Family;
use crate::run::analysis::FailoverArgs;
use crate::run::anyhow_like::{Error, Result};
use crate::source::leases::{self, LeaseFile, LeaseFormat, PeerStateLine};

/// What `leases` is given: the lease file, the server configurations, the role it is told, the
/// failover balance profile, the moment to judge, the output format, the alarms, the balance
/// options and the bucket map as written (`--hba`, parsed where the balancer's settings are
/// made, as before).
pub struct Options {
    pub file: PathBuf,
    pub configs: Vec<PathBuf>,
    pub role: Option<Role>,
    pub profile: &'static crate::analyse::failover::Profile,
    pub now: Option<i64>,
    pub format: Format,
    pub alarms: AlarmArgs,
    pub failover: FailoverArgs,
    pub hba: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Csv,
}

/// Where the role came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RoleFrom {
    File,
    Option,
    Config,
    Default,
}

impl RoleFrom {
    fn name(self) -> &'static str {
        match self {
            RoleFrom::File => "file",
            RoleFrom::Option => "option",
            RoleFrom::Config => "config",
            RoleFrom::Default => "default",
        }
    }
}

/// The role: the file's when it tells, else the option's, else the config's, else the
/// primary. A given role the file contradicts is reported.
fn role(
    file: &LeaseFile,
    given: Option<Role>,
    configured: Option<Role>,
    label: &str,
) -> (Role, RoleFrom) {
    let told = from_file::role_of(file);
    match (told.told(), given, configured) {
        (Some(t), Some(g), _) if t != g => {
            eprintln!(
                "poolshark: {label}: --role {g} not used: the file's failover peer state says {t} \
                 (dhcpd writes mclt there only on the secondary)"
            );
            (t, RoleFrom::File)
        }
        (Some(t), _, _) => (t, RoleFrom::File),
        (None, Some(g), _) => (g, RoleFrom::Option),
        (None, None, Some(c)) => (c, RoleFrom::Config),
        (None, None, None) => {
            if told == FileRole::Mixed {
                eprintln!(
                    "poolshark: {label}: its failover peers disagree on the server's role; \
                     taking the primary (give --role)"
                );
            }
            (Role::Primary, RoleFrom::Default)
        }
    }
}

pub(super) fn system_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The configuration whose ranges are counted: the first of the lease file's family.
pub(super) fn ranges_config(servers: &[ServerConfig], family: Family) -> Option<&ServerConfig> {
    servers.iter().find(|c| c.family == family)
}

pub fn run(args: Options) -> Result<i32> {
    let label = args.file.display().to_string();
    let bytes = std::fs::read(&args.file)
        .map_err(|e| Error::msg(format!("cannot read lease file {label}: {e}")))?;
    let format = leases::sniff(&bytes)
        .map_err(|what| Error::msg(format!("{label} is not a lease file: {what}")))?;
    let configs = crate::run::configs::load(&args.configs)?;
    if configs.toml.is_some() {
        eprintln!(
            "poolshark: leases: poolshark's own TOML --config is not used here (it configures check)"
        );
    }
    let code = match format {
        LeaseFormat::Dhcpd => dhcpd_file(&args, &label, &bytes, &configs.servers)?,
        LeaseFormat::Kea { v6 } => kea::run(&args, &label, &bytes, v6, &configs.servers)?,
    };
    Ok(code)
}

/// The exit code: the alarms' when asked for, else success.
pub(super) fn exit_code(verdict: Option<&Verdict>) -> i32 {
    verdict.map_or(crate::run::exit::OK, Verdict::exit_code)
}

/// Writes `s` to standard output.
pub(super) fn emit(s: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn dhcpd_file(args: &Options, label: &str, bytes: &[u8], servers: &[ServerConfig]) -> Result<i32> {
    let file = leases::parse(bytes);
    let declares = file.lease_blocks > 0
        || file.ia_blocks > 0
        || !file.peers.is_empty()
        || file.server_duid.is_some()
        || file.byte_order.is_some();
    if !declares {
        if let Some(first) = file.errors.first() {
            return Err(Error::msg(format!(
                "{label} is not a lease file: none of its statements declares a lease ({} error{}, the first at line {}: {}); a dhcpd.conf is given as --config",
                file.errors.len(),
                if file.errors.len() == 1 { "" } else { "s" },
                first.line,
                first.what
            )));
        }
    }
    crate::run::seeds::print_errors(&args.file, &file.errors);
    let family = if file.leases.is_empty() && !file.leases6.is_empty() {
        Family::V6
    } else {
        ranges_config(servers, Family::V4)
            .or(servers.first())
            .map_or(Family::V4, |c| c.family)
    };
    let setup = from_config::setup(servers);
    let (role, role_from) = role(&file, args.role, setup.only_role(), label);
    let (now, now_from) = match (args.now, from_file::latest_past_time(&file)) {
        (Some(t), _) => (t, "--now"),
        (None, Some(t)) => (t, "the latest time the file shows as past"),
        (None, None) => (system_now(), "the clock (the file shows no time)"),
    };
    let usage = ranges_config(servers, family).map(|c| {
        let v4 = file.leases.iter().filter_map(|e| usage::dhcpd(e, now));
        let v6 = file.leases6.iter().map(|e| usage::dhcpd6(e, now));
        usage::count(&c.ranges, &c.shared_networks, v4.chain(v6))
    });
    if !servers.is_empty() && usage.is_none() {
        eprintln!(
            "poolshark: {label}: no --config of the lease file's family ({}): no ranges to count",
            family.name()
        );
    }
    let verdict = usage.as_ref().and_then(|u| args.alarms.verdict(u));
    if args.alarms.alarms().is_some() && usage.is_none() {
        eprintln!("poolshark: {label}: the alarms need the ranges of a --config");
    }
    // The balancer's view: a DHCPv4 failover server's. With a config, only when it declares a
    // failover peer (dhcpd balances nothing else).
    let balance = family == Family::V4 && (servers.is_empty() || setup.peer.is_some());
    let settings = balance_settings(args, &setup, role, now)?;
    let snap = snapshot::snapshot(&file, &settings);
    let balancing = Balancing::of(&file);
    let view = View {
        label,
        file: &file,
        settings: &settings,
        role_from,
        now_from,
        balancing: &balancing,
        snap: &snap,
        balance,
        params_source: args.failover.params(setup.params_for(role)).1,
        hba_from: if args.hba.is_some() {
            "option"
        } else if setup.hba.is_some() {
            "config"
        } else {
            "none"
        },
        configs: servers,
        usage: usage.as_ref(),
        verdict: verdict.as_ref(),
        alarms: &args.alarms,
        family,
    };
    match args.format {
        Format::Text => emit(&view.text())?,
        Format::Json => emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&view.json()).map_err(|e| Error::msg(e.to_string()))?
        ))?,
        Format::Csv => emit(&pool_usage::csv_or_note(
            usage.as_ref(),
            &args.alarms,
            label,
            "ranges",
        ))?,
    }
    Ok(exit_code(verdict.as_ref()))
}

/// The balancer's settings: the options, else the config's failover peer, else dhcpd's
/// defaults.
fn balance_settings(
    args: &Options,
    setup: &FailoverSetup,
    role: Role,
    now: i64,
) -> Result<Settings> {
    let hba = match &args.hba {
        Some(spec) => Some(spec.parse::<Hba>().map_err(|e| format!("--hba: {e}"))?),
        None => setup.hba,
    };
    Ok(Settings {
        profile: args.profile,
        params: args.failover.params(setup.params_for(role)).0,
        pools: args.failover.pool_map(&setup.pools)?,
        hba,
        role,
        now,
    })
}

struct View<'a> {
    label: &'a str,
    file: &'a LeaseFile,
    settings: &'a Settings,
    role_from: RoleFrom,
    now_from: &'static str,
    balancing: &'a Balancing,
    snap: &'a snapshot::Snapshot,
    /// Whether the balancer's view is shown (a DHCPv4 failover server's file).
    balance: bool,
    params_source: Source,
    /// Where the bucket map came from: `option`, `config` or `none`.
    hba_from: &'static str,
    configs: &'a [ServerConfig],
    usage: Option<&'a Usage>,
    verdict: Option<&'a Verdict>,
    alarms: &'a AlarmArgs,
    family: Family,
}

/// A level in leases: whole when it is one, else to two decimals.
fn level(l: Level) -> String {
    match l.whole() {
        Some(w) => w.to_string(),
        None => format!("{:.2}", l.leases()),
    }
}

fn level_json(l: Level) -> serde_json::Value {
    match l.whole() {
        Some(w) => w.into(),
        None => l.leases().into(),
    }
}

fn pass_number(p: Pass) -> u8 {
    match p {
        Pass::One => 1,
        Pass::Two => 2,
    }
}

fn state_line(l: Option<&PeerStateLine>) -> String {
    match l {
        Some(l) => match l.at.and_then(leases::LeaseTime::epoch) {
            Some(t) => format!("{} at {t}", l.state),
            None => l.state.clone(),
        },
        None => "not written".into(),
    }
}

fn oldest_text(o: Option<Oldest>) -> String {
    match o {
        None => "none".into(),
        Some(Oldest { age: Some(a), .. }) => format!("{a} s old"),
        Some(Oldest { ends: 0, .. }) => "never used".into(),
        Some(Oldest { ends, .. }) => format!("ends {ends}, ahead of now"),
    }
}

fn oldest_json(o: Option<Oldest>) -> serde_json::Value {
    match o {
        None => serde_json::Value::Null,
        Some(o) => serde_json::json!({ "ends": o.ends, "age": o.age }),
    }
}

impl View<'_> {
    fn role_text(&self) -> String {
        let role = self.settings.role;
        match self.role_from {
            RoleFrom::File if role == Role::Secondary => {
                format!("{role} (the file's failover peer state has an mclt, which dhcpd writes only on the secondary)")
            }
            RoleFrom::File => {
                format!("{role} (the file's failover peer state has no mclt, which dhcpd writes on the secondary)")
            }
            RoleFrom::Option => format!("{role} (--role)"),
            RoleFrom::Config => format!("{role} (the config's failover peer)"),
            RoleFrom::Default => format!("{role} (the file does not tell; give --role)"),
        }
    }

    fn text(&self) -> String {
        let f = self.file;
        let s = self.settings;
        let mut o = format!(
            "lease file {}: {} lease blocks, {} addresses, ",
            self.label,
            f.lease_blocks,
            f.leases.len(),
        );
        if f.ia_blocks > 0 {
            o.push_str(&format!(
                "{} DHCPv6 identity associations, {} DHCPv6 leases, ",
                f.ia_blocks,
                f.leases6.len()
            ));
        }
        o.push_str(&format!("{} errors\n", f.errors.len()));
        for c in self.configs {
            o.push_str(&format!("config {}: {}\n", c.file, c.summary()));
        }
        if !self.balance {
            o.push_str(&format!("now: {} ({})\n", s.now, self.now_from));
            if self.family == Family::V4 {
                o.push_str("no failover peer in the config: no pool balance to judge\n");
            }
        } else {
            self.balance_text(&mut o);
        }
        if let Some(u) = self.usage {
            pool_usage::text(u, self.alarms, &mut o);
        }
        if let Some(v) = self.verdict {
            o.push_str(&pool_usage::verdict_text(v, self.alarms));
        }
        o
    }

    fn balance_text(&self, o: &mut String) {
        let f = self.file;
        let s = self.settings;
        o.push_str(&format!("server: {}\n", self.role_text()));
        for p in &f.peers {
            o.push_str(&format!(
                "failover peer \"{}\": my state {}; partner state {}; mclt {}\n",
                String::from_utf8_lossy(&p.name),
                state_line(p.my.as_ref()),
                state_line(p.partner.as_ref()),
                p.mclt
                    .map_or("not written".to_string(), |m| format!("{m} s")),
            ));
        }
        let from = |what: &str| {
            if what == "config" {
                " (config)"
            } else {
                ""
            }
        };
        o.push_str(&format!(
            "balance: {}; max-lease-misbalance {} %, max-lease-ownership {} %, min-balance {} s, max-balance {} s{}; hash buckets {}{}\n",
            s.profile.name,
            s.params.max_lease_misbalance,
            s.params.max_lease_ownership,
            s.params.min_balance,
            s.params.max_balance,
            from(self.params_source.name()),
            s.hba.map_or("not given (pass 1 gives nothing away)".to_string(), |h| h.to_string()),
            from(self.hba_from),
        ));
        o.push_str(&format!("now: {} ({})\n", s.now, self.now_from));
        match self.balancing {
            Balancing::Normal => {}
            Balancing::Unknown => {
                o.push_str("no failover state in the file: taken as normal\n");
            }
            Balancing::NotNormal { peer, state } => o.push_str(&format!(
                "not balancing: dhcpd balances only in normal, and this server is in {state} with peer \"{peer}\"; \
                 below, what a run would do in normal\n"
            )),
        }
        if self.snap.outside > 0 {
            o.push_str(&format!(
                "{} leases in no --failover-pool\n",
                self.snap.outside
            ));
        }
        for p in &self.snap.pools {
            self.pool_text(p, o);
        }
    }

    fn pool_text(&self, p: &PoolVerdict, o: &mut String) {
        let l = &p.levels;
        o.push_str(&format!(
            "\npool {} ({}-{}{}): {} leases\n",
            p.name,
            p.first,
            p.last,
            if p.configured { "" } else { " as seen" },
            p.leases
        ));
        let by: Vec<String> = p.by_state.iter().map(|(k, v)| format!("{k} {v}")).collect();
        o.push_str(&format!(
            "  by binding state: {}\n",
            if by.is_empty() {
                "none".to_string()
            } else {
                by.join(", ")
            }
        ));
        o.push_str(&format!(
            "  free {} backup {}: lts {} ({}), thresh {}, hold {}, POOLREQ below {}\n",
            l.free,
            l.backup,
            l.lts,
            l.role,
            level(l.thresh),
            level(l.hold),
            level(l.panic)
        ));
        o.push_str(&format!(
            "  {}\n",
            if p.balanced {
                "balanced"
            } else {
                "IMBALANCED: a server holds more than its half by more than the misbalance level"
            }
        ));
        o.push_str(&format!(
            "  oldest free: {}; oldest backup: {}; next run due {}-{} (in {} s)\n",
            oldest_text(p.oldest_free),
            oldest_text(p.oldest_backup),
            p.next_check.earliest,
            p.next_check.latest,
            p.next_check.earliest.saturating_sub(self.settings.now)
        ));
        let run = if p.plan.skipped {
            "a timer run now moves nothing: lts is below the misbalance level (isc-doc skips)"
                .to_string()
        } else if p.plan.moves.is_empty() {
            "a timer run now moves nothing".to_string()
        } else {
            format!(
                "a timer run now moves {} leases (lts {} -> {})",
                p.plan.moves.len(),
                l.lts,
                p.plan.lts_after
            )
        };
        let poolreq = if p.plan.poolreq {
            "and sends a POOLREQ (lts below the panic level)"
        } else {
            "and sends no POOLREQ"
        };
        let due = if p.due(self.balancing) || p.panic_due(self.balancing) {
            "a run is due now"
        } else if self.balancing.runs() {
            "no run is due yet"
        } else {
            "no run starts while this server is not in normal"
        };
        o.push_str(&format!("  {run} {poolreq}; {due}\n"));
        // The verdicts the JSON gives as `due` and `poolreq`, in the same words whatever the
        // state: the line above is what a run would do in normal.
        let yes = |b: bool| if b { "yes" } else { "no" };
        o.push_str(&format!(
            "  due now: lease moves {}, POOLREQ {}\n",
            yes(p.due(self.balancing)),
            yes(p.panic_due(self.balancing))
        ));
        for m in &p.plan.moves {
            o.push_str(&format!(
                "    {} pass {} ({})\n",
                m.address,
                pass_number(m.pass),
                match m.pass {
                    Pass::One => "its client hashes to the peer",
                    Pass::Two => "oldest",
                }
            ));
        }
    }

    fn json(&self) -> serde_json::Value {
        let f = self.file;
        let s = self.settings;
        let errors: Vec<serde_json::Value> = f
            .errors
            .iter()
            .map(|e| serde_json::json!({ "line": e.line, "column": e.col, "what": e.what }))
            .collect();
        let peers: Vec<serde_json::Value> = f
            .peers
            .iter()
            .map(|p| {
                let line = |l: Option<&PeerStateLine>| {
                    l.map(|l| {
                        serde_json::json!({
                            "state": l.state,
                            "at": l.at.and_then(leases::LeaseTime::epoch),
                        })
                    })
                };
                serde_json::json!({
                    "name": String::from_utf8_lossy(&p.name),
                    "my": line(p.my.as_ref()),
                    "partner": line(p.partner.as_ref()),
                    "mclt": p.mclt,
                })
            })
            .collect();
        let pools: Vec<serde_json::Value> = self
            .snap
            .pools
            .iter()
            .map(|p| {
                let l = &p.levels;
                let moves: Vec<serde_json::Value> = p
                    .plan
                    .moves
                    .iter()
                    .map(|m| {
                        serde_json::json!({
                            "address": m.address.to_string(),
                            "pass": pass_number(m.pass),
                        })
                    })
                    .collect();
                serde_json::json!({
                    "name": p.name,
                    "range": format!("{}-{}", p.first, p.last),
                    "range_configured": p.configured,
                    "leases": p.leases,
                    "counts": p.by_state,
                    "lts": l.lts,
                    "levels": {
                        "free": l.free,
                        "backup": l.backup,
                        "thresh": level_json(l.thresh),
                        "hold": level_json(l.hold),
                        "panic": level_json(l.panic),
                    },
                    "balanced": p.balanced,
                    "skipped": p.plan.skipped,
                    "due": p.due(self.balancing),
                    "moves": moves,
                    "lts_after": p.plan.lts_after,
                    // Due now (this server balancing, lts below the panic level), as the text's
                    // "due now" line; what a run would do in normal is `poolreq_in_normal`.
                    "poolreq": p.panic_due(self.balancing),
                    "panic_due": p.panic_due(self.balancing),
                    "poolreq_in_normal": p.plan.poolreq,
                    "oldest_free": oldest_json(p.oldest_free),
                    "oldest_backup": oldest_json(p.oldest_backup),
                    "next_check": {
                        "earliest": p.next_check.earliest,
                        "latest": p.next_check.latest,
                    },
                })
            })
            .collect();
        let pools = if self.balance { pools } else { Vec::new() };
        let mut m = serde_json::json!({
            "file": self.label,
            "format": "dhcpd",
            "family": self.family.name(),
            "lease_blocks": f.lease_blocks,
            "addresses": f.leases.len(),
            "ia_blocks": f.ia_blocks,
            "leases6": f.leases6.len(),
            "errors": errors,
            "configs": self.configs.iter().map(|c| c.file.clone()).collect::<Vec<_>>(),
            "balance": self.balance,
            "role": s.role.name(),
            "role_from": self.role_from.name(),
            "peers": peers,
            "balancing": self.balancing.runs(),
            "profile": s.profile.name,
            "params": {
                "max_lease_misbalance": s.params.max_lease_misbalance,
                "max_lease_ownership": s.params.max_lease_ownership,
                "min_balance": s.params.min_balance,
                "max_balance": s.params.max_balance,
                "source": self.params_source.name(),
            },
            "hba": s.hba.map(|h| h.to_string()),
            "hba_source": self.hba_from,
            "now": s.now,
            "outside": self.snap.outside,
            "pools": pools,
        });
        if let serde_json::Value::Object(o) = &mut m {
            o.insert(
                "usage".into(),
                self.usage.map_or(serde_json::Value::Null, |u| {
                    pool_usage::json(u, self.alarms)
                }),
            );
            if let Some(v) = self.verdict {
                o.insert("alarms".into(), pool_usage::verdict_json(v));
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_print_whole_or_to_two_decimals() {
        assert_eq!(level(Level(-800)), "-8");
        assert_eq!(level(Level(885)), "8.85");
    }
}
