//! What `check` prints of the failover replay besides the findings: the pair's roles and the
//! balance options, the lease seeds, and per pool its free/backup/active counts and the balance
//! runs against the reference's.

use serde_json::{json, Map, Value};

use crate::analyse::failover::seed::Outcome;
use crate::analyse::failover::{Config, FailoverAnalyser};

fn seeds_text(a: &FailoverAnalyser, out: &mut String) {
    for (s, o) in a.seeds() {
        let role = s.role.map_or("both servers".to_string(), |r| r.to_string());
        match o {
                Outcome::Loaded {
                    loaded,
                    capture_start,
                    ..
                } => out.push_str(&format!(
                    "  lease file {} ({role}): {} leases loaded as the state at the first message ({:.0})\n",
                    s.label, loaded.leases, capture_start
                )),
                Outcome::TooLate {
                    latest,
                    capture_start,
                } => out.push_str(&format!(
                    "  lease file {} ({role}): not used: it shows time {latest}, {:.0} s after the first message ({:.0}); a seed must be the state at the capture's start or before (a file saved before the capture)\n",
                    s.label,
                    *latest as f64 - capture_start,
                    capture_start
                )),
                Outcome::NoTraffic => out.push_str(&format!(
                    "  lease file {} ({role}): not used: the capture has no message\n",
                    s.label
                )),
            }
    }
}

fn seeds_json(a: &FailoverAnalyser) -> Vec<Value> {
    a.seeds()
        .iter()
        .map(|(s, o)| {
            let (used, leases, latest, start) = match o {
                Outcome::Loaded {
                    loaded,
                    latest,
                    capture_start,
                } => (true, Some(loaded.leases), *latest, Some(*capture_start)),
                Outcome::TooLate {
                    latest,
                    capture_start,
                } => (false, None, Some(*latest), Some(*capture_start)),
                Outcome::NoTraffic => (false, None, None, None),
            };
            json!({
                "file": s.label,
                "role": s.role.map(|r| r.name()),
                "used": used,
                "leases": leases,
                "latest_time": latest,
                "capture_start": start,
            })
        })
        .collect()
}

pub fn text(a: &FailoverAnalyser, out: &mut String) {
    if a.messages() == 0 {
        if !a.seeds().is_empty() {
            out.push_str("failover: no failover message\n");
            seeds_text(a, out);
        }
        return;
    }
    out.push_str(&format!(
        "failover ({}): primary {}, secondary {}\n",
        a.replay().config().profile.name,
        a.roles()
            .primary()
            .map_or("unknown".into(), |a| a.to_string()),
        a.roles()
            .secondary()
            .map_or("unknown".into(), |a| a.to_string()),
    ));
    let cfg = a.replay().config();
    if cfg.params_source != "default" {
        let p = cfg.params;
        out.push_str(&format!(
                "  balance options ({}): max-lease-misbalance {} %, max-lease-ownership {} %, min-balance {} s, max-balance {} s{}\n",
                cfg.params_source,
                p.max_lease_misbalance,
                p.max_lease_ownership,
                p.min_balance,
                p.max_balance,
                cfg.hba.map_or(String::new(), |h| format!("; hash buckets {h}")),
            ));
    }
    seeds_text(a, out);
    for p in a.replay().state().pools() {
        let c = p.counts();
        let runs = a.replay().pool_stats(&p.name);
        // Only a run that gives leases away shows on the wire (as BNDUPDs to BACKUP); dhcpd
        // logs every run, so its count is larger: say which runs these are.
        out.push_str(&format!(
                "  pool {}: free {} backup {} active {}; balance runs that moved leases: primary {} ({} leases), secondary {} ({} leases); the reference moved as many in {} of {}\n",
                p.name,
                c.free,
                c.backup,
                c.active,
                runs.map_or(0, |s| s.runs[0]),
                runs.map_or(0, |s| s.moved[0]),
                runs.map_or(0, |s| s.runs[1]),
                runs.map_or(0, |s| s.moved[1]),
                runs.map_or(0, |s| s.runs_matching[0] + s.runs_matching[1]),
                runs.map_or(0, |s| s.runs[0] + s.runs[1]),
            ));
    }
}

pub fn json(a: &FailoverAnalyser, out: &mut Map<String, Value>) {
    if a.messages() == 0 {
        if !a.seeds().is_empty() {
            out.insert(
                "failover".into(),
                json!({ "lease_seeds": seeds_json(a), "pools": [] }),
            );
        }
        return;
    }
    let pools: Vec<Value> = a
        .replay()
        .state()
        .pools()
        .map(|p| {
            let c = p.counts();
            let s = a.replay().pool_stats(&p.name);
            json!({
                "pool": p.name,
                "free": c.free,
                "backup": c.backup,
                "active": c.active,
                "runs": s.map(|s| s.runs),
                "moved": s.map(|s| s.moved),
                "runs_matching": s.map(|s| s.runs_matching),
            })
        })
        .collect();
    out.insert(
        "failover".into(),
        json!({
            "profile": a.replay().config().profile.name,
            "params": params_json(a.replay().config()),
            "primary": a.roles().primary().map(|a| a.to_string()),
            "secondary": a.roles().secondary().map(|a| a.to_string()),
            "pools": pools,
            "lease_seeds": seeds_json(a),
        }),
    );
}

/// The balance options the replay ran with, and where they came from.
fn params_json(cfg: &Config) -> Value {
    let p = cfg.params;
    json!({
        "max_lease_misbalance": p.max_lease_misbalance,
        "max_lease_ownership": p.max_lease_ownership,
        "min_balance": p.min_balance,
        "max_balance": p.max_balance,
        "hba": cfg.hba.map(|h| h.to_string()),
        "source": cfg.params_source,
    })
}
