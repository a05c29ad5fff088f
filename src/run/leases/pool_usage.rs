//! `poolshark leases`' pool usage, as dhcpd-pools reports it: the ranges and shared networks of
//! `--config` with `max`, `cur`, `touch`, `bu`, `free` and the percentages, in text, JSON or CSV;
//! and the alarm options (`--warning`, `--critical`, `--warn-count`, `--crit-count`,
//! `--minsize`, `--snet-alarms`) with their Nagios exit code: 2 critical, 1 warning, 0 ok.

use serde_json::{json, Value};

use crate::analyse::usage::{Alarms, Counts, Status, Usage, Verdict};
use crate::config::RangeKind;

/// Which pools the alarms look at (dhcpd-pools' `--limit` for them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AlarmScope {
    Ranges,
    SharedNetworks,
    Both,
}

#[derive(clap::Args, Debug, Clone)]
#[command(next_help_heading = "Alarms (as dhcpd-pools raises them)")]
pub struct AlarmArgs {
    /// Warn (exit 1) for a range or shared network with more than PERCENT of its addresses in
    /// use [default with --critical: 80].
    #[arg(long, value_name = "PERCENT")]
    pub warning: Option<f64>,
    /// Critical (exit 2) above PERCENT in use [default with --warning: 90].
    #[arg(long, value_name = "PERCENT")]
    pub critical: Option<f64>,
    /// Warn only when fewer than N addresses are free.
    #[arg(long, value_name = "N")]
    pub warn_count: Option<u64>,
    /// Critical only when fewer than N addresses are free.
    #[arg(long, value_name = "N")]
    pub crit_count: Option<u64>,
    /// A range (that would alarm) or a shared network of at most N addresses is ignored.
    #[arg(long, value_name = "N")]
    pub minsize: Option<u64>,
    /// Ranges in a shared network do not alarm: their network does.
    #[arg(long)]
    pub snet_alarms: bool,
    /// What the alarms look at.
    #[arg(long, value_enum, default_value = "both")]
    pub alarm_on: AlarmScope,
}

impl AlarmArgs {
    /// The alarm settings, when any threshold is given.
    pub fn alarms(&self) -> Option<Alarms> {
        let any = self.warning.is_some()
            || self.critical.is_some()
            || self.warn_count.is_some()
            || self.crit_count.is_some();
        any.then(|| {
            let d = Alarms::default();
            Alarms {
                warning: self.warning.unwrap_or(d.warning),
                critical: self.critical.unwrap_or(d.critical),
                warn_count: self.warn_count.map(u128::from),
                crit_count: self.crit_count.map(u128::from),
                minsize: self.minsize.map_or(0, u128::from),
                snet_alarms: self.snet_alarms,
            }
        })
    }

    pub fn verdict(&self, usage: &Usage) -> Option<Verdict> {
        let a = self.alarms()?;
        let ranges = self.alarm_on != AlarmScope::SharedNetworks;
        let nets = self.alarm_on != AlarmScope::Ranges;
        Some(Verdict::of(usage, &a, ranges, nets))
    }
}

/// A count that may pass 2^64 (an IPv6 range): a JSON integer when it fits, else a number.
fn big(n: u128) -> Value {
    u64::try_from(n).map_or_else(|_| json!(n as f64), Value::from)
}

/// A percentage, `null` when there is nothing to take it of.
fn pct(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 1000.0).round() / 1000.0)
    } else {
        Value::Null
    }
}

fn kind_name(k: RangeKind) -> &'static str {
    match k {
        RangeKind::Addresses => "addresses",
        RangeKind::Temporary => "temporary",
        RangeKind::Prefixes(_) => "prefixes",
    }
}

fn counts_json(c: &Counts, status: Option<Status>) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("max".into(), big(c.max));
    m.insert("cur".into(), c.cur.into());
    m.insert("percent".into(), pct(c.percent()));
    m.insert("touch".into(), c.touch.into());
    m.insert("touch_cur".into(), c.touch_cur().into());
    m.insert("touch_cur_percent".into(), pct(c.percent_of(c.touch_cur())));
    m.insert("bu".into(), c.bu.into());
    m.insert("bu_percent".into(), pct(c.percent_of(c.bu)));
    m.insert("free".into(), big(c.free()));
    if let Some(s) = status {
        m.insert("status".into(), s.name().into());
    }
    m
}

/// The statuses against the alarms given, else the defaults (as dhcpd-pools colours them).
fn statuses(usage: &Usage, alarms: Option<Alarms>) -> (Vec<Status>, Vec<Status>) {
    let a = alarms.unwrap_or_default();
    (
        usage
            .ranges
            .iter()
            .map(|r| a.range(&r.counts, r.range.shared_network.is_some()))
            .collect(),
        usage
            .shared_networks
            .iter()
            .map(|n| a.network(&n.counts))
            .collect(),
    )
}

/// `"usage": {"ranges": [...], "shared_networks": [...], "all": {...}, "outside": N}`.
pub fn json(usage: &Usage, args: &AlarmArgs) -> Value {
    let (rs, ns) = statuses(usage, args.alarms());
    let ranges: Vec<Value> = usage
        .ranges
        .iter()
        .zip(rs)
        .map(|(r, s)| {
            let mut m = serde_json::Map::new();
            m.insert(
                "shared_network".into(),
                r.range.shared_network.clone().into(),
            );
            m.insert("subnet".into(), r.range.subnet.clone().into());
            m.insert("subnet_id".into(), r.range.subnet_id.into());
            m.insert("first".into(), r.range.first.to_string().into());
            m.insert("last".into(), r.range.last.to_string().into());
            m.insert("kind".into(), kind_name(r.range.kind).into());
            if let RangeKind::Prefixes(len) = r.range.kind {
                m.insert("prefix_len".into(), len.into());
            }
            m.insert("pool".into(), r.range.pool.into());
            m.insert("failover_peer".into(), r.range.failover_peer.clone().into());
            m.insert(
                "config".into(),
                format!("{}:{}", r.range.at.file, r.range.at.line).into(),
            );
            m.extend(counts_json(&r.counts, Some(s)));
            Value::Object(m)
        })
        .collect();
    let nets: Vec<Value> = usage
        .shared_networks
        .iter()
        .zip(ns)
        .map(|(n, s)| {
            let mut m = serde_json::Map::new();
            m.insert("name".into(), n.name.clone().into());
            m.extend(counts_json(&n.counts, Some(s)));
            Value::Object(m)
        })
        .collect();
    json!({
        "ranges": ranges,
        "shared_networks": nets,
        "all": Value::Object(counts_json(&usage.all, None)),
        "all_prefixes": Value::Object(counts_json(&usage.all_prefixes, None)),
        "outside": usage.outside,
    })
}

/// `"alarms": {"verdict", "exit", "ranges": {...}, "shared_networks": {...}}`.
pub fn verdict_json(v: &Verdict) -> Value {
    let tally =
        |t: [u32; 4]| json!({"critical": t[0], "warning": t[1], "ok": t[2], "ignored": t[3]});
    json!({
        "verdict": v.word(),
        "exit": v.exit_code(),
        "ranges": tally(v.ranges),
        "shared_networks": tally(v.shared_networks),
    })
}

/// The alarm line, as dhcpd-pools' Nagios output puts it.
pub fn verdict_text(v: &Verdict, args: &AlarmArgs) -> String {
    let part = |what: &str, t: [u32; 4]| {
        let mut s = format!("{what} - crit: {} warn: {} ok: {}", t[0], t[1], t[2]);
        if t[3] > 0 {
            s.push_str(&format!(" ignored: {}", t[3]));
        }
        s
    };
    let mut parts = Vec::new();
    if args.alarm_on != AlarmScope::SharedNetworks {
        parts.push(part("Ranges", v.ranges));
    }
    if args.alarm_on != AlarmScope::Ranges {
        parts.push(part("Shared nets", v.shared_networks));
    }
    format!("alarms: {}: {}\n", v.word(), parts.join("; "))
}

fn max_text(n: u128) -> String {
    n.to_string()
}

fn pct_text(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.3}")
    } else {
        "-".into()
    }
}

/// A row's numbers (after its name columns).
fn numbers(c: &Counts, status: Option<Status>) -> String {
    format!(
        "{:>7} {:>7} {:>8} {:>7} {:>7} {:>8} {:>6} {:>7} {:>7}{}\n",
        max_text(c.max),
        c.cur,
        pct_text(c.percent()),
        c.touch,
        c.touch_cur(),
        pct_text(c.percent_of(c.touch_cur())),
        c.bu,
        pct_text(c.percent_of(c.bu)),
        max_text(c.free()),
        status.map_or(String::new(), |s| format!("  {}", s.name()))
    )
}

const COLUMNS: &str =
    "    max     cur  percent   touch     t+c  t+c pct     bu  bu pct    free  status\n";

/// The tables: ranges, shared networks, all ranges.
pub fn text(usage: &Usage, args: &AlarmArgs, out: &mut String) {
    let (rs, ns) = statuses(usage, args.alarms());
    out.push_str("\nranges:\n");
    let w = usage
        .ranges
        .iter()
        .map(|r| r.range.text().len())
        .max()
        .unwrap_or(0)
        .max(5);
    out.push_str(&format!(
        "{:<20} {:<w$} {}",
        "shared network", "range", COLUMNS
    ));
    for (r, s) in usage.ranges.iter().zip(rs) {
        let net = r.range.shared_network.as_deref().unwrap_or("-");
        out.push_str(&format!(
            "{net:<20} {:<w$} {}",
            r.range.text(),
            numbers(&r.counts, Some(s))
        ));
    }
    out.push_str("\nshared networks:\n");
    out.push_str(&format!("{:<20} {COLUMNS}", "name"));
    for (n, s) in usage.shared_networks.iter().zip(ns) {
        out.push_str(&format!("{:<20} {}", n.name, numbers(&n.counts, Some(s))));
    }
    out.push_str(&format!(
        "{:<20} {}",
        "all ranges",
        numbers(&usage.all, None)
    ));
    if usage.outside > 0 {
        out.push_str(&format!("{} leases in no range\n", usage.outside));
    }
}

/// One CSV table: a row per range, per shared network and for all ranges together.
/// What `--format csv` writes: the usage's rows, or nothing and a note on standard error when
/// no `--config` gave any (`what` it would have listed: "pools", "ranges").
pub fn csv_or_note(usage: Option<&Usage>, args: &AlarmArgs, label: &str, what: &str) -> String {
    let mut s = String::new();
    match usage {
        Some(u) => csv(u, args, &mut s),
        None => {
            eprintln!("poolshark: {label}: --format csv lists the {what} of --config: none given")
        }
    }
    s
}

pub fn csv(usage: &Usage, args: &AlarmArgs, out: &mut String) {
    let (rs, ns) = statuses(usage, args.alarms());
    out.push_str("kind,shared_network,subnet,first,last,max,cur,percent,touch,touch_cur,touch_cur_percent,bu,bu_percent,free,status\n");
    let row = |kind: &str,
               net: &str,
               subnet: &str,
               first: &str,
               last: &str,
               c: &Counts,
               s: Option<Status>| {
        let p = |x: f64| {
            if x.is_finite() {
                format!("{x:.3}")
            } else {
                String::new()
            }
        };
        format!(
            "{kind},{},{},{first},{last},{},{},{},{},{},{},{},{},{},{}\n",
            csv_field(net),
            csv_field(subnet),
            c.max,
            c.cur,
            p(c.percent()),
            c.touch,
            c.touch_cur(),
            p(c.percent_of(c.touch_cur())),
            c.bu,
            p(c.percent_of(c.bu)),
            c.free(),
            s.map_or("", Status::name)
        )
    };
    for (r, s) in usage.ranges.iter().zip(rs) {
        out.push_str(&row(
            "range",
            r.range.shared_network.as_deref().unwrap_or(""),
            &r.range.subnet,
            &r.range.first.to_string(),
            &r.range.last.to_string(),
            &r.counts,
            Some(s),
        ));
    }
    for (n, s) in usage.shared_networks.iter().zip(ns) {
        out.push_str(&row(
            "shared_network",
            &n.name,
            "",
            "",
            "",
            &n.counts,
            Some(s),
        ));
    }
    out.push_str(&row("all", "", "", "", "", &usage.all, None));
    if usage.all_prefixes.max > 0 {
        out.push_str(&row(
            "all_prefixes",
            "",
            "",
            "",
            "",
            &usage.all_prefixes,
            None,
        ));
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
