//! `poolshark stats` output: the message table and the per-subject series, as text, JSON or CSV.

use std::fmt::Write as _;

use crate::analyse::msgstats::Row;
use crate::analyse::timeline::{Series, Timeline, Window};
use crate::field::format_float;
use crate::source::calendar::Civil;
use crate::source::Timestamp;

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// Start and end of a window in seconds from the capture's first frame.
pub fn window_span(s: &Series, w: &Window) -> (f64, f64) {
    let start = secs(w.index.saturating_mul(s.interval_ns));
    (start, start + secs(s.interval_ns))
}

pub fn message_table_text(rows: &[Row], out: &mut String) {
    if rows.is_empty() {
        out.push_str("No ASAP, ENRP, DHCP or failover messages.\n");
        return;
    }
    let _ = writeln!(
        out,
        "{:<8} {:<40} {:>8} {:>7} {:>10} {:>19} {:>19} {:>9} {:>9}",
        "PROTOCOL", "TYPE", "COUNT", "SHARE", "BYTES", "FIRST", "LAST", "RATE/s", "MALFORMED"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<8} {:<40} {:>8} {:>7} {:>10} {:>19} {:>19} {:>9.2} {:>9}",
            r.protocol.name(),
            r.message_type,
            r.stats.count,
            pct(r.share),
            r.stats.bytes,
            clock(r.stats.first),
            clock(r.stats.last),
            r.rate,
            r.stats.malformed
        );
    }
}

/// `YYYY-MM-DD HH:MM:SS` in UTC.
pub fn clock(t: Timestamp) -> String {
    Civil::from_epoch(t.secs).to_string()
}

pub fn series_text(tl: &Timeline, out: &mut String) {
    for (subject, s) in tl.series() {
        let (kind, name) = subject.kind_and_name();
        let totals = s.totals();
        // A subject with findings only (a DHCP server, whose answers its pair counts) has no
        // analyser's description.
        let described = if s.kind.is_empty() {
            String::new()
        } else {
            format!(" ({})", s.kind)
        };
        let _ = writeln!(
            out,
            "\n{kind} {name}{described}: {} answers, {} findings, windows of {}s",
            totals.answers,
            totals.findings,
            format_float(secs(s.interval_ns))
        );
        for (m, text) in &s.members {
            let exp = s
                .expected_share
                .get(m)
                .map(|x| format!(", expected share {}", pct(*x)))
                .unwrap_or_default();
            let _ = writeln!(out, "  member {m}: {text}{exp}");
        }
        for w in &s.windows {
            let (a, b) = window_span(s, w);
            let gauges: Vec<String> = w
                .gauges
                .iter()
                .map(|(k, v)| format!("{k} {}", format_float(*v)))
                .collect();
            let _ = writeln!(
                out,
                "  [{:>8}s, {:>8}s) answers {:>6}  findings {:>4}{}{}",
                format_float(a),
                format_float(b),
                w.answers,
                w.findings,
                if gauges.is_empty() { "" } else { "  " },
                gauges.join(", ")
            );
            for (m, c) in &w.members {
                let n = w.answers.max(1) as f64;
                let _ = writeln!(
                    out,
                    "      {m:<24} first {:>6} ({:>6} exp {:>6})  any {:>6} ({:>6} exp {:>6})",
                    c.first,
                    pct(c.first as f64 / n),
                    pct(c.expected_first / n),
                    c.any,
                    pct(c.any as f64 / n),
                    pct(c.expected_any / n)
                );
            }
        }
    }
}

pub fn json(rows: &[Row], tl: &Timeline) -> serde_json::Value {
    let messages: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "protocol": r.protocol.name(),
                "type": r.message_type,
                "count": r.stats.count,
                "share": r.share,
                "bytes": r.stats.bytes,
                "first": r.stats.first.as_f64(),
                "last": r.stats.last.as_f64(),
                "rate": r.rate,
                "malformed": r.stats.malformed,
            })
        })
        .collect();
    let series: Vec<serde_json::Value> = tl
        .series()
        .iter()
        .map(|(subject, s)| {
            let (kind, name) = subject.kind_and_name();
            let windows: Vec<serde_json::Value> = s
                .windows
                .iter()
                .map(|w| {
                    let (a, b) = window_span(s, w);
                    let members: serde_json::Map<String, serde_json::Value> = w
                        .members
                        .iter()
                        .map(|(m, c)| {
                            (
                                m.clone(),
                                serde_json::json!({
                                    "first": c.first,
                                    "any": c.any,
                                    "expected_first": c.expected_first,
                                    "expected_any": c.expected_any,
                                }),
                            )
                        })
                        .collect();
                    serde_json::json!({
                        "start": a,
                        "end": b,
                        "answers": w.answers,
                        "findings": w.findings,
                        "gauges": w.gauges,
                        "members": members,
                    })
                })
                .collect();
            serde_json::json!({
                kind: name,
                "kind": s.kind,
                "interval": secs(s.interval_ns),
                "members": s.members,
                "expected_share": s.expected_share,
                "windows": windows,
            })
        })
        .collect();
    serde_json::json!({
        "start": tl.origin().map(|t| t.as_f64()),
        "messages": messages,
        "series": series,
    })
}

/// One CSV row per (subject, window, member), plus one per (subject, window, gauge); then the
/// message table as rows of kind `message`.
pub fn csv(rows: &[Row], tl: &Timeline, out: &mut String) {
    out.push_str("kind,subject_kind,subject,start,end,member,answers,first,any,expected_first,expected_any,findings,name,value\n");
    for (subject, s) in tl.series() {
        let (kind, name) = subject.kind_and_name();
        for w in &s.windows {
            let (a, b) = window_span(s, w);
            for (m, c) in &w.members {
                let _ = writeln!(
                    out,
                    "member,{kind},{},{a},{b},{},{},{},{},{:.6},{:.6},{},,",
                    csv_field(name),
                    csv_field(m),
                    w.answers,
                    c.first,
                    c.any,
                    c.expected_first,
                    c.expected_any,
                    w.findings
                );
            }
            for (g, v) in &w.gauges {
                let _ = writeln!(
                    out,
                    "gauge,{kind},{},{a},{b},,{},,,,,{},{},{v}",
                    csv_field(name),
                    w.answers,
                    w.findings,
                    csv_field(g)
                );
            }
        }
    }
    for r in rows {
        let _ = writeln!(
            out,
            "message,{},,{},{},,{},,,,,{},{},{}",
            r.protocol.name(),
            r.stats.first.as_f64(),
            r.stats.last.as_f64(),
            r.stats.count,
            r.stats.malformed,
            csv_field(&r.message_type),
            r.stats.bytes
        );
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_is_utc_civil_time() {
        // 1796010890 = 2026-11-30 03:54:50 UTC (the multi-PE capture's first frame, per tshark).
        assert_eq!(
            clock(Timestamp::new(1_796_010_890, 0)),
            "2026-11-30 03:54:50"
        );
        assert_eq!(clock(Timestamp::new(0, 0)), "1970-01-01 00:00:00");
        assert_eq!(clock(Timestamp::new(951_782_400, 0)), "2000-02-29 00:00:00");
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("x\"y"), "\"x\"\"y\"");
        assert_eq!(csv_field("plain"), "plain");
    }
}
