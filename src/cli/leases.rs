//! `poolshark leases FILE`: an ISC DHCP failover server's `dhcpd.leases` as the pool balancer
//! sees it: per pool the leases by binding state, the failover state and MCLT the file records,
//! lts and its levels for the server's role, and the balancer's verdict now (balanced or not,
//! the leases a run would move and by which pass, whether a POOLREQ is due).
//!
//! Also the `--leases` seeds of `check`: reading them with their errors reported the same way.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::anyhow_like::{Error, Result};
use super::check::FailoverArgs;
use crate::analyse::dhcp_lb::{Hba, Role};
use crate::analyse::failover::balancer::{Level, Pass};
use crate::analyse::failover::from_file::{self, FileRole};
use crate::analyse::failover::seed::LeaseSeed;
use crate::analyse::failover::snapshot::{self, Balancing, Oldest, PoolVerdict, Settings};
use crate::source::leases::{self, LeaseFile, PeerStateLine};

#[derive(clap::Args, Debug)]
pub struct LeasesArgs {
    /// An ISC DHCP server's lease file (dhcpd.leases).
    pub file: PathBuf,

    /// The server that wrote the file, when its failover peer state does not tell (dhcpd writes
    /// `mclt` there only on the secondary).
    #[arg(long, value_enum, value_name = "primary|secondary")]
    pub role: Option<RoleArg>,

    /// Failover balance profile: isc-code (what ISC DHCP 4.4 does) or isc-doc (the man page).
    #[arg(long, value_name = "NAME", default_value = "isc-code", value_parser = ["isc-code", "isc-doc"])]
    pub profile: String,

    /// The moment to judge, in seconds since the epoch (lease ages, next run); default: the
    /// latest time the file shows as past.
    #[arg(long, value_name = "EPOCH")]
    pub now: Option<i64>,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    // Last: the flattened options set the help heading of whatever follows.
    #[command(flatten)]
    pub failover: FailoverArgs,

    /// The pair's hash bucket assignment, for pass 1 (affinity): split:N as in dhcpd.conf
    /// (the primary owns buckets 0..N-1), kea, or 64 hex digits (set bit = primary). Without it
    /// no lease is given away by affinity.
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// Where the role came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RoleFrom {
    File,
    Option,
    Default,
}

impl RoleFrom {
    fn name(self) -> &'static str {
        match self {
            RoleFrom::File => "file",
            RoleFrom::Option => "option",
            RoleFrom::Default => "default",
        }
    }
}

/// Reads a lease file; its statement errors go to stderr, by line. Fails only when the file
/// cannot be read at all.
fn read(path: &Path, what: &str) -> Result<LeaseFile> {
    let file = leases::read_path(path)
        .map_err(|e| Error::msg(format!("cannot read {what} {}: {e}", path.display())))?;
    for e in &file.errors {
        eprintln!(
            "poolshark: {}:{}:{}: {}",
            path.display(),
            e.line,
            e.col,
            e.what
        );
    }
    Ok(file)
}

/// The role: the file's when it tells, else the option's, else the primary. A given role the
/// file contradicts is reported.
fn role(file: &LeaseFile, given: Option<Role>, label: &str) -> (Role, RoleFrom) {
    let told = from_file::role_of(file);
    match (told.told(), given) {
        (Some(t), Some(g)) if t != g => {
            eprintln!(
                "poolshark: {label}: --role {g} not used: the file's failover peer state says {t} \
                 (dhcpd writes mclt there only on the secondary)"
            );
            (t, RoleFrom::File)
        }
        (Some(t), _) => (t, RoleFrom::File),
        (None, Some(g)) => (g, RoleFrom::Option),
        (None, None) => {
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

fn system_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

pub fn run(args: LeasesArgs) -> Result<i32> {
    let label = args.file.display().to_string();
    let file = read(&args.file, "lease file")?;
    let cfg = args.failover.config(Some(&args.profile))?;
    let hba = match &args.hba {
        Some(spec) => Some(spec.parse::<Hba>().map_err(|e| format!("--hba: {e}"))?),
        None => None,
    };
    let (role, role_from) = role(&file, args.role.map(Role::from), &label);
    let (now, now_from) = match (args.now, from_file::latest_past_time(&file)) {
        (Some(t), _) => (t, "--now"),
        (None, Some(t)) => (t, "the latest time the file shows as past"),
        (None, None) => (system_now(), "the clock (the file shows no time)"),
    };
    let settings = Settings {
        profile: cfg.profile,
        params: cfg.params,
        pools: cfg.pools,
        hba,
        role,
        now,
    };
    let snap = snapshot::snapshot(&file, &settings);
    let balancing = Balancing::of(&file);
    let view = View {
        label: &label,
        file: &file,
        settings: &settings,
        role_from,
        now_from,
        balancing: &balancing,
        snap: &snap,
    };
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Text => out.write_all(view.text().as_bytes())?,
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &view.json())?;
            out.write_all(b"\n")?;
        }
    }
    out.flush()?;
    Ok(super::exit::OK)
}

struct View<'a> {
    label: &'a str,
    file: &'a LeaseFile,
    settings: &'a Settings,
    role_from: RoleFrom,
    now_from: &'static str,
    balancing: &'a Balancing,
    snap: &'a snapshot::Snapshot,
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
            RoleFrom::Default => format!("{role} (the file does not tell; give --role)"),
        }
    }

    fn text(&self) -> String {
        let f = self.file;
        let s = self.settings;
        let mut o = format!(
            "lease file {}: {} lease blocks, {} addresses, {} errors\n",
            self.label,
            f.lease_blocks,
            f.leases.len(),
            f.errors.len()
        );
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
        o.push_str(&format!(
            "balance: {}; max-lease-misbalance {} %, max-lease-ownership {} %, min-balance {} s, max-balance {} s; hash buckets {}\n",
            s.profile.name,
            s.params.max_lease_misbalance,
            s.params.max_lease_ownership,
            s.params.min_balance,
            s.params.max_balance,
            s.hba.map_or("not given (pass 1 gives nothing away)".to_string(), |h| h.to_string()),
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
            self.pool_text(p, &mut o);
        }
        o
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
                    "poolreq": p.plan.poolreq,
                    "panic_due": p.panic_due(self.balancing),
                    "oldest_free": oldest_json(p.oldest_free),
                    "oldest_backup": oldest_json(p.oldest_backup),
                    "next_check": {
                        "earliest": p.next_check.earliest,
                        "latest": p.next_check.latest,
                    },
                })
            })
            .collect();
        serde_json::json!({
            "file": self.label,
            "lease_blocks": f.lease_blocks,
            "addresses": f.leases.len(),
            "errors": errors,
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
            },
            "hba": s.hba.map(|h| h.to_string()),
            "now": s.now,
            "outside": self.snap.outside,
            "pools": pools,
        })
    }
}

/// `check --leases [primary=|secondary=]FILE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedArg {
    pub role: Option<Role>,
    pub path: PathBuf,
}

impl FromStr for SeedArg {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let (role, path) = if let Some(p) = s.strip_prefix("primary=") {
            (Some(Role::Primary), p)
        } else if let Some(p) = s.strip_prefix("secondary=") {
            (Some(Role::Secondary), p)
        } else {
            (None, s)
        };
        if path.is_empty() {
            return Err(format!("--leases {s:?}: no file named"));
        }
        Ok(SeedArg {
            role,
            path: PathBuf::from(path),
        })
    }
}

/// Reads `check`'s `--leases` files (errors by line on stderr); at most one per server.
pub fn read_seeds(args: &[SeedArg]) -> Result<Vec<LeaseSeed>> {
    let mut seeds: Vec<LeaseSeed> = Vec::new();
    for a in args {
        let label = a.path.display().to_string();
        let file = read(&a.path, "--leases")?;
        let told = from_file::role_of(&file).told();
        if let (Some(t), Some(g)) = (told, a.role) {
            if t != g {
                eprintln!(
                    "poolshark: {label}: given as the {g}'s, but its failover peer state says {t} \
                     (dhcpd writes mclt there only on the secondary): taken as the {t}'s"
                );
            }
        }
        let seed = LeaseSeed::new(label, a.role, file);
        if seeds.iter().any(|s| s.role == seed.role) {
            let whose = seed
                .role
                .map_or("a server whose role is unknown".to_string(), |r| {
                    format!("the {r}")
                });
            return Err(Error::msg(format!(
                "--leases: two files for {whose}: give one per server, as primary=FILE and secondary=FILE"
            )));
        }
        seeds.push(seed);
    }
    Ok(seeds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_arguments() {
        assert_eq!(
            "primary=a.leases".parse::<SeedArg>(),
            Ok(SeedArg {
                role: Some(Role::Primary),
                path: "a.leases".into()
            })
        );
        assert_eq!(
            "secondary=/x=y".parse::<SeedArg>().map(|s| s.role),
            Ok(Some(Role::Secondary))
        );
        assert_eq!(
            "dir/f=g.leases"
                .parse::<SeedArg>()
                .map(|s| (s.role, s.path)),
            Ok((None, PathBuf::from("dir/f=g.leases")))
        );
        assert!("primary=".parse::<SeedArg>().is_err());
    }

    #[test]
    fn levels_print_whole_or_to_two_decimals() {
        assert_eq!(level(Level(-800)), "-8");
        assert_eq!(level(Level(885)), "8.85");
    }
}
