//! `poolshark leases kea-leases4.csv` (or `kea-leases6.csv`): a Kea server's memfile lease file,
//! per subnet the leases by state at `--now` (in use, expired but not yet reclaimed, declined,
//! expired and reclaimed), and with `--config` its pools counted as dhcpd-pools counts a dhcpd
//! server's ranges, with the same alarms.

use std::collections::BTreeMap;

use serde_json::json;

use super::pool_usage;
use super::{emit, exit_code, ranges_config, system_now, Format, Options};
use crate::analyse::usage;
use crate::config::ServerConfig;
use crate::proto::lb::Family;
use crate::run::anyhow_like::{Error, Result};
use crate::source::leases::kea::{self, KeaLease, STATE_DEFAULT};

/// The state a lease is in at `now`: Kea's state, with an assigned lease split into in use
/// (`active`) and past its `expire` (`expired`, waiting to be reclaimed).
fn state_at(l: &KeaLease, now: i64) -> &'static str {
    match l.state {
        STATE_DEFAULT if l.expire > now => "active",
        STATE_DEFAULT => "expired",
        s => kea::state_name(s),
    }
}

pub fn run(
    args: &Options,
    label: &str,
    bytes: &[u8],
    v6: bool,
    servers: &[ServerConfig],
) -> Result<i32> {
    let file =
        kea::parse(bytes).ok_or_else(|| Error::msg(format!("{label} is not a Kea lease file")))?;
    for e in &file.errors {
        eprintln!("poolshark: {label}:{}:{}: {}", e.line, e.col, e.what);
    }
    let (now, now_from) = match (args.now, file.leases.iter().map(KeaLease::cltt).max()) {
        (Some(t), _) => (t, "--now"),
        (None, Some(t)) => (t, "the latest client transaction the file records"),
        (None, None) => (system_now(), "the clock (the file has no lease)"),
    };
    let family = if v6 { Family::V6 } else { Family::V4 };
    let config = ranges_config(servers, family);
    if !servers.is_empty() && config.is_none() {
        eprintln!(
            "poolshark: {label}: no --config of the lease file's family ({}): no pools to count",
            family.name()
        );
    }
    let usage = config.map(|c| {
        usage::count(
            &c.ranges,
            &c.shared_networks,
            file.leases.iter().map(|l| usage::kea(l, now)),
        )
    });
    let verdict = usage.as_ref().and_then(|u| args.alarms.verdict(u));
    let mut subnets: BTreeMap<u32, BTreeMap<&'static str, u64>> = BTreeMap::new();
    for l in &file.leases {
        *subnets
            .entry(l.subnet_id)
            .or_default()
            .entry(state_at(l, now))
            .or_default() += 1;
    }
    match args.format {
        Format::Text => {
            let mut o = format!(
                "Kea lease file {label} ({}): {} rows, {} leases, {} deleted, {} errors\n",
                family.name(),
                file.rows,
                file.leases.len(),
                file.deleted,
                file.errors.len()
            );
            for c in servers {
                o.push_str(&format!("config {}: {}\n", c.file, c.summary()));
            }
            o.push_str(&format!("now: {now} ({now_from})\n"));
            for (id, states) in &subnets {
                let by: Vec<String> = states.iter().map(|(k, v)| format!("{k} {v}")).collect();
                o.push_str(&format!("subnet {id}: {}\n", by.join(", ")));
            }
            if let Some(u) = &usage {
                pool_usage::text(u, &args.alarms, &mut o);
            }
            if let Some(v) = &verdict {
                o.push_str(&pool_usage::verdict_text(v, &args.alarms));
            }
            emit(&o)?;
        }
        Format::Json => {
            let errors: Vec<serde_json::Value> = file
                .errors
                .iter()
                .map(|e| json!({"line": e.line, "column": e.col, "what": e.what}))
                .collect();
            let subnets: Vec<serde_json::Value> = subnets
                .iter()
                .map(|(id, states)| json!({"subnet_id": id, "states": states}))
                .collect();
            let mut m = json!({
                "file": label,
                "format": "kea",
                "family": family.name(),
                "rows": file.rows,
                "leases": file.leases.len(),
                "deleted": file.deleted,
                "errors": errors,
                "configs": servers.iter().map(|c| c.file.clone()).collect::<Vec<_>>(),
                "now": now,
                "subnets": subnets,
                "usage": usage.as_ref().map_or(serde_json::Value::Null, |u| pool_usage::json(u, &args.alarms)),
            });
            if let (Some(v), serde_json::Value::Object(o)) = (&verdict, &mut m) {
                o.insert("alarms".into(), pool_usage::verdict_json(v));
            }
            emit(&format!(
                "{}\n",
                serde_json::to_string_pretty(&m).map_err(|e| Error::msg(e.to_string()))?
            ))?;
        }
        Format::Csv => emit(&pool_usage::csv_or_note(
            usage.as_ref(),
            &args.alarms,
            label,
            "pools",
        ))?,
    }
    Ok(exit_code(verdict.as_ref()))
}
