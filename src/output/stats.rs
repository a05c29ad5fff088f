//! `poolshark stats` output: the message table and the per-subject series, as text, JSON or CSV.

use std::fmt::Write as _;

use std::collections::BTreeSet;

use crate::analyse::finding::Subject;
use crate::analyse::msgstats::Row;
use crate::analyse::timeline::{MemberCounts, Registered, Series, Timeline, Window};
use crate::base::calendar::Civil;
use crate::base::Timestamp;
use crate::field::format_float;

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// `part` of `whole` answers as a percentage, `-` when there were none (no share to speak of).
fn share_of(part: f64, whole: u64) -> String {
    if whole == 0 {
        "-".into()
    } else {
        pct(part / whole as f64)
    }
}

fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// Start and end of a window in seconds from the capture's first frame.
pub fn window_span(s: &Series, w: &Window) -> (f64, f64) {
    let start = secs(w.index.saturating_mul(s.interval_ns));
    (start, start + secs(s.interval_ns))
}

/// `ns` nanoseconds after `origin`, as Unix seconds with nine decimals (`1796010890.123456789`).
pub fn epoch_after(origin: Timestamp, ns: u64) -> String {
    let total = u128::from(origin.nanos) + u128::from(ns);
    let secs = i64::try_from(total / 1_000_000_000).unwrap_or(i64::MAX);
    let nanos = u32::try_from(total % 1_000_000_000).unwrap_or(0);
    Timestamp::new(origin.secs.saturating_add(secs), nanos).to_string()
}

/// Seconds from `origin` to `t` (0 before it).
fn since_origin(origin: Option<Timestamp>, t: Timestamp) -> f64 {
    origin.map_or(0.0, |o| t.since(o).max(0.0))
}

pub fn message_table_text(rows: &[Row], out: &mut String) {
    if rows.is_empty() {
        out.push_str("No ASAP, ENRP, DHCP or failover messages.\n");
        return;
    }
    let _ = writeln!(
        out,
        "{:<8} {:<40} {:>8} {:>7} {:>10} {:>19} {:>19} {:>9} {:>9}",
        "PROTOCOL",
        "TYPE",
        "COUNT",
        "SHARE",
        "BYTES",
        "FIRST (UTC)",
        "LAST (UTC)",
        "RATE/s",
        "MALFORMED"
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

/// Whether a series is about answers (a pool, a server pair) rather than gauges alone (a failover
/// pool): it had answers or members.
fn answering(s: &Series, totals: &Window) -> bool {
    totals.answers > 0 || !totals.members.is_empty() || s.registered.is_some()
}

/// Every member a series names: described now, gone, or only seen in its windows.
fn member_ids(s: &Series, totals: &Window) -> Vec<String> {
    let mut ids: BTreeSet<&String> = s.members.keys().collect();
    ids.extend(s.left.keys());
    ids.extend(totals.members.keys());
    ids.into_iter().cloned().collect()
}

/// A member's line under its series' header: how it is (or was last) described, the expected
/// long-run share of first places the reference gives it, and its counts over all windows.
fn member_line(s: &Series, totals: &Window, m: &str, findings_too: bool) -> String {
    let mut text = match (s.members.get(m), s.left.get(m)) {
        (Some(d), _) => {
            let exp = s
                .expected_share
                .get(m)
                .map(|x| format!(", expected share {}", pct(*x)))
                .unwrap_or_default();
            format!("{d}{exp}")
        }
        (None, Some(f)) => {
            let exp = f
                .expected_share
                .map(|x| format!(" (expected share {} while registered)", pct(x)))
                .unwrap_or_default();
            let sep = if f.description.is_empty() { "" } else { ", " };
            format!("{}{sep}not registered at the end{exp}", f.description)
        }
        (None, None) => match &s.registered {
            Some(now) if now.contains(m) => "registered".into(),
            Some(_) => "no registration seen".into(),
            None => String::new(),
        },
    };
    let c = totals.members.get(m).cloned().unwrap_or_default();
    if !text.is_empty() {
        text.push_str("; ");
    }
    if totals.answers == 0 {
        text.push_str("no answers");
    } else {
        let _ = write!(
            text,
            "first in {} and in {} of {}",
            c.first,
            c.any,
            count(totals.answers, "answer")
        );
    }
    if findings_too {
        let _ = write!(text, ", {}", count(c.findings, "finding"));
    }
    text
}

pub fn series_text(tl: &Timeline, out: &mut String) {
    if let (Some(origin), false) = (tl.origin(), tl.series().is_empty()) {
        let _ = writeln!(
            out,
            "\nWindows are counted from the first frame, {} UTC. Per window and member: answers \
             with it first and anywhere, each against the count the reference expects (exp).",
            origin.utc()
        );
    }
    for (subject, s) in tl.series() {
        let name = subject.kind_and_name().1;
        let kind = subject.kind_text();
        let totals = s.totals();
        let answering = answering(s, &totals);
        // A DHCP server pair counts each server's findings under it.
        let member_findings = matches!(subject, Subject::Server(_));
        let described = if s.kind.is_empty() {
            String::new()
        } else {
            format!(" ({})", s.kind)
        };
        // Answers the reference could not judge (not in the expected counts) are said: the
        // percentages below are of the others, seen and expected alike.
        let unjudged = if totals.unjudged > 0 {
            format!(" ({} not judged by the reference)", totals.unjudged)
        } else {
            String::new()
        };
        let answers = match (answering, subject) {
            (false, _) => String::new(),
            (true, Subject::Server(_)) => {
                format!("{} to balanced requests, ", count(totals.answers, "answer"))
            }
            (true, _) => format!("{}{unjudged}, ", count(totals.answers, "answer")),
        };
        let _ = writeln!(
            out,
            "\n{kind} {name}{described}: {answers}{}, windows of {}s",
            count(totals.findings, "finding"),
            format_float(secs(s.interval_ns))
        );
        if matches!(subject, Subject::Pool(_)) && !s.answers_by.is_empty() {
            let by: Vec<String> = s
                .answers_by
                .iter()
                .map(|(r, n)| format!("{r} {n}"))
                .collect();
            let _ = writeln!(out, "  answers by registrar: {}", by.join(", "));
        }
        for m in member_ids(s, &totals) {
            let _ = writeln!(
                out,
                "  member {m}: {}",
                member_line(s, &totals, &m, member_findings)
            );
        }
        for m in &s.marks {
            let at = tl.origin().map_or(0.0, |o| m.time.since(o).max(0.0));
            let _ = writeln!(
                out,
                "  event at {}s (frame {}): registrar {}: {}",
                format_float((at * 1000.0).round() / 1000.0),
                m.frame,
                m.source,
                m.text
            );
        }
        if s.marks_dropped > 0 {
            let _ = writeln!(out, "  ... and {} more events", s.marks_dropped);
        }
        if !s.episodes.is_empty() {
            let _ = writeln!(out, "  episodes (UTC):");
            for e in &s.episodes {
                let _ = writeln!(out, "    {}", e.text_line());
            }
        }
        let mut i = 0;
        while let Some(w) = s.windows.get(i) {
            // A run of quiet windows (nothing answered, nothing found) is one line, and its
            // members another: at a fine --interval most windows are quiet, and a line per idle
            // member and window would bury the ones that say something.
            let run = if quiet(w) {
                s.windows[i..]
                    .iter()
                    .zip(w.index..)
                    .take_while(|(x, index)| quiet(x) && x.index == *index)
                    .count()
            } else {
                1
            };
            // A run is shown as its windows merged; a lone window as it is (no copy).
            let folded;
            let w = if run > 1 {
                let mut m = w.clone();
                for later in s.windows.iter().skip(i + 1).take(run - 1) {
                    m.merge(later.clone());
                }
                folded = m;
                &folded
            } else {
                w
            };
            let (a, _) = window_span(s, w);
            let b = a + secs(s.interval_ns.saturating_mul(run as u64));
            let mut line = format!("  [{:>8}s, {:>8}s)", format_float(a), format_float(b));
            if answering {
                let _ = write!(line, " answers {:>6} ", w.answers);
            }
            let _ = write!(line, " findings {:>4}", w.findings);
            if let Some(r) = &w.registered {
                let _ = write!(
                    line,
                    "  pes {} at start, {} at end, {} at most",
                    r.start, r.end, r.max
                );
            }
            if !w.gauges.is_empty() {
                let gauges: Vec<String> = w
                    .gauges
                    .iter()
                    .map(|(k, v)| format!("{k} {}", format_float(*v)))
                    .collect();
                let _ = write!(line, "  at end: {}", gauges.join(", "));
            }
            if run > 1 {
                let _ = write!(line, "  ({run} windows)");
            }
            let _ = writeln!(out, "{line}");
            i += run;
            if quiet(w) {
                if !w.members.is_empty() {
                    let names: Vec<&str> = w.members.keys().map(String::as_str).collect();
                    let what = if w.registered.is_some() {
                        "registered"
                    } else {
                        "members"
                    };
                    let _ = writeln!(out, "      no answers; {what}: {}", names.join(", "));
                }
                continue;
            }
            for (m, c) in &w.members {
                // Seen against expected over the same answers: those the reference judged (all
                // of them but where the window says otherwise).
                let judged = w.judged();
                let (n, first, any) = if judged > 0 {
                    (
                        judged,
                        c.first.saturating_sub(c.unjudged_first),
                        c.any.saturating_sub(c.unjudged_any),
                    )
                } else {
                    (w.answers, c.first, c.any)
                };
                let mut line = format!(
                    "      {m:<24} first {:>6} ({:>6} exp {:>6})  any {:>6} ({:>6} exp {:>6})",
                    c.first,
                    share_of(first as f64, n),
                    share_of(c.expected_first, judged),
                    c.any,
                    share_of(any as f64, n),
                    share_of(c.expected_any, judged)
                );
                if member_findings {
                    let _ = write!(line, "  findings {:>4}", c.findings);
                }
                let _ = writeln!(out, "{line}");
            }
        }
    }
}

/// A window in which nothing was answered or found and nothing was measured: each member's line
/// would only say 0 (the text lists its members on one line, and a run of them as one window).
fn quiet(w: &Window) -> bool {
    w.answers == 0
        && w.findings == 0
        && w.gauges.is_empty()
        && w.members.values().all(|c| {
            c.first == 0
                && c.any == 0
                && c.findings == 0
                && c.expected_first == 0.0
                && c.expected_any == 0.0
        })
}

/// `n` and the noun, in the plural unless `n` is 1: `1 answer`, `3 answers` (the TUI says
/// its counts in the same way).
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

pub fn json(rows: &[Row], tl: &Timeline) -> serde_json::Value {
    let origin = tl.origin();
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
                "first_s": since_origin(origin, r.stats.first),
                "last_s": since_origin(origin, r.stats.last),
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
                            // The window's shares as `check` computes them over a span: of
                            // first places in the answers the reference judged (a DHCP pair:
                            // its balanced answers), and the reference's expectation.
                            let judged = w.judged();
                            (
                                m.clone(),
                                serde_json::json!({
                                    "first": c.first,
                                    "any": c.any,
                                    "expected_first": c.expected_first,
                                    "expected_any": c.expected_any,
                                    "unjudged_first": c.unjudged_first,
                                    "unjudged_any": c.unjudged_any,
                                    "share": c.judged_share(judged),
                                    "expected_share": c.expected_share(judged),
                                    "findings": c.findings,
                                }),
                            )
                        })
                        .collect();
                    let mut o = serde_json::json!({
                        "start": a,
                        "end": b,
                        "answers": w.answers,
                        "unjudged": w.unjudged,
                        "findings": w.findings,
                        "gauges": w.gauges,
                        "members": members,
                    });
                    if let (Some(r), Some(m)) = (&w.registered, o.as_object_mut()) {
                        m.insert(
                            "pes".into(),
                            serde_json::json!({"start": r.start, "end": r.end, "max": r.max}),
                        );
                    }
                    o
                })
                .collect();
            let left: serde_json::Map<String, serde_json::Value> = s
                .left
                .iter()
                .map(|(m, f)| {
                    (
                        m.clone(),
                        serde_json::json!({
                            "description": f.description,
                            "expected_share": f.expected_share,
                        }),
                    )
                })
                .collect();
            let events: Vec<serde_json::Value> = s
                .marks
                .iter()
                .map(|m| {
                    serde_json::json!({
                        "kind": m.kind,
                        "frame": m.frame,
                        "time": m.time.as_f64(),
                        "at": since_origin(origin, m.time),
                        "registrar": m.source,
                        "text": m.text,
                    })
                })
                .collect();
            let episodes: Vec<serde_json::Value> =
                s.episodes.iter().map(|e| e.to_json(kind, name)).collect();
            serde_json::json!({
                kind: name,
                "kind": s.kind,
                "events": events,
                "events_dropped": s.marks_dropped,
                "interval": secs(s.interval_ns),
                "members": s.members,
                "expected_share": s.expected_share,
                "members_left": left,
                "answers_by": s.answers_by,
                "windows": windows,
                "episodes": episodes,
            })
        })
        .collect();
    serde_json::json!({
        "start": origin.map(|t| t.as_f64()),
        "messages": messages,
        "series": series,
    })
}

/// The CSV header: one table, a row per message type, window, member in a window and gauge in a
/// window; `kind` says which, and each column means one thing in every row that fills it (see
/// docs/stats-and-tui.md).
pub const CSV_HEADER: &str = "kind,subject_kind,subject,start_s,end_s,start_epoch,end_epoch,\
answers,findings,pes_start,pes_end,pes_max,member,first,any,expected_first,expected_any,\
gauge,end_value,protocol,type,count,share,bytes,rate_per_s,malformed,unjudged";

/// The columns of [`CSV_HEADER`] a row fills, by name; the others stay empty.
#[derive(Default)]
struct CsvRow<'a> {
    kind: &'a str,
    subject_kind: &'a str,
    subject: &'a str,
    span: Option<(String, String, String, String)>,
    answers: Option<u64>,
    unjudged: Option<u64>,
    findings: Option<u64>,
    pes: Option<Registered>,
    member: Option<(&'a str, &'a MemberCounts)>,
    gauge: Option<(&'a str, f64)>,
    message: Option<&'a Row>,
}

impl CsvRow<'_> {
    fn write(&self, out: &mut String) {
        let mut f: Vec<String> = vec![
            self.kind.to_string(),
            self.subject_kind.to_string(),
            csv_field(self.subject),
        ];
        let (a, b, c, d) = self.span.clone().unwrap_or_default();
        f.extend([a, b, c, d]);
        let num = |n: Option<u64>| n.map(|n| n.to_string()).unwrap_or_default();
        f.push(num(self.answers));
        f.push(num(self.findings));
        f.push(num(self.pes.map(|r| r.start)));
        f.push(num(self.pes.map(|r| r.end)));
        f.push(num(self.pes.map(|r| r.max)));
        match self.member {
            Some((m, c)) => f.extend([
                csv_field(m),
                c.first.to_string(),
                c.any.to_string(),
                format!("{:.6}", c.expected_first),
                format!("{:.6}", c.expected_any),
            ]),
            None => f.extend(std::iter::repeat_n(String::new(), 5)),
        }
        match self.gauge {
            Some((g, v)) => f.extend([csv_field(g), format_float(v)]),
            None => f.extend([String::new(), String::new()]),
        }
        match self.message {
            Some(r) => f.extend([
                r.protocol.name().to_string(),
                csv_field(&r.message_type),
                r.stats.count.to_string(),
                format!("{:.6}", r.share),
                r.stats.bytes.to_string(),
                format!("{:.6}", r.rate),
                r.stats.malformed.to_string(),
            ]),
            None => f.extend(std::iter::repeat_n(String::new(), 7)),
        }
        f.push(num(self.unjudged));
        out.push_str(&f.join(","));
        out.push('\n');
    }
}

/// The statistics as one CSV table ([`CSV_HEADER`]): the message rows first, then per subject
/// and window a `window` row, a `member` row per member listed in it and a `gauge` row per gauge.
/// Times: `start_s`/`end_s` in seconds from the capture's first frame, `start_epoch`/`end_epoch`
/// the same instants in Unix seconds; a message row's span is its type's first and last message.
pub fn csv(rows: &[Row], tl: &Timeline, out: &mut String) {
    out.push_str(CSV_HEADER);
    out.push('\n');
    let origin = tl.origin().unwrap_or_default();
    for r in rows {
        let span = (
            format_float(since_origin(Some(origin), r.stats.first)),
            format_float(since_origin(Some(origin), r.stats.last)),
            r.stats.first.to_string(),
            r.stats.last.to_string(),
        );
        CsvRow {
            kind: "message",
            span: Some(span),
            message: Some(r),
            ..CsvRow::default()
        }
        .write(out);
    }
    for (subject, s) in tl.series() {
        let (subject_kind, subject) = subject.kind_and_name();
        for w in &s.windows {
            let (a, b) = window_span(s, w);
            let start_ns = w.index.saturating_mul(s.interval_ns);
            let span = (
                format_float(a),
                format_float(b),
                epoch_after(origin, start_ns),
                epoch_after(origin, start_ns.saturating_add(s.interval_ns)),
            );
            let base = || CsvRow {
                subject_kind,
                subject,
                span: Some(span.clone()),
                ..CsvRow::default()
            };
            CsvRow {
                kind: "window",
                answers: Some(w.answers),
                unjudged: Some(w.unjudged),
                findings: Some(w.findings),
                pes: w.registered,
                ..base()
            }
            .write(out);
            for (m, c) in &w.members {
                CsvRow {
                    kind: "member",
                    findings: Some(c.findings),
                    member: Some((m, c)),
                    ..base()
                }
                .write(out);
            }
            for (g, v) in &w.gauges {
                CsvRow {
                    kind: "gauge",
                    gauge: Some((g, *v)),
                    ..base()
                }
                .write(out);
            }
        }
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
