//! What a plot shows of one subject, worked out from the report without drawing anything: each
//! member's share of answers per column against its expected share, the subject's episodes, its
//! findings, and the failover pools' free, backup and lts leases. Times are seconds since the
//! epoch (UTC), as the capture gave them.

use crate::analyse::episodes::EpisodeKind;
use crate::analyse::finding::{Finding, Severity, Subject};
use crate::analyse::timeline::{Series, Timeline};
use crate::base::Timestamp;
use crate::output::chart;
use crate::output::short::fit_ids;

/// Columns a picture aims at, at most: windows are merged into round display intervals until
/// there are no more than this many (a few answers per column at least, on a short capture).
pub const MAX_COLUMNS: u64 = 60;
/// Characters a member's id keeps in the legend (shortened as the TUI shortens it), and in an
/// episode's label.
const ID_WIDTH: usize = 34;
const BAND_ID_WIDTH: usize = 12;
/// The gauges of a failover pool the second panel draws, when it has them.
const FAILOVER_GAUGES: [&str; 3] = ["free", "backup", "lts"];

/// One value over a span of time (a column).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub start: f64,
    pub end: f64,
    pub value: f64,
}

impl Point {
    pub fn mid(&self) -> f64 {
        (self.start + self.end) / 2.0
    }
}

/// A member's line: its observed share (0 to 1) per column and the share expected of it.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberLine {
    pub id: String,
    /// Its id shortened for the legend.
    pub label: String,
    /// How the analyser describes it ("primary, 128 buckets of kea").
    pub description: String,
    /// Its place in the shared palette.
    pub colour: usize,
    pub observed: Vec<Point>,
    pub expected: Vec<Point>,
    /// Answers with it first, over the capture.
    pub first: u64,
    pub findings: u64,
}

/// An episode's band.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    pub kind: EpisodeKind,
    pub start: f64,
    pub end: f64,
    /// The server it is about, shortened; empty when none.
    pub server: String,
    pub what: String,
}

/// A finding's mark.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub time: f64,
    pub severity: Severity,
    pub rule: &'static str,
}

/// A level over time (a failover pool's free leases).
#[derive(Clone, Debug, PartialEq)]
pub struct GaugeLine {
    pub pool: String,
    pub gauge: String,
    pub label: String,
    pub colour: usize,
    /// The value at each column's end.
    pub points: Vec<Point>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    /// The subject's name as reports give it: what a file of several is named after.
    pub name: String,
    pub title: String,
    pub subtitle: String,
    /// The time axis's span.
    pub start: f64,
    pub end: f64,
    /// Length of a column in seconds.
    pub column: f64,
    /// Columns with something recorded.
    pub columns: usize,
    /// The shares panel; empty for a failover pool drawn alone.
    pub members: Vec<MemberLine>,
    /// Answers per column (under the shares).
    pub answers: Vec<Point>,
    pub bands: Vec<Band>,
    pub marks: Vec<Mark>,
    /// What happened to the subject (an RSerPool pool's deregistrations, reregistrations,
    /// registrar takeovers): time and kind.
    pub events: Vec<(f64, &'static str)>,
    /// The failover panel (under the shares, or alone).
    pub gauges: Vec<GaugeLine>,
}

/// Seconds since the epoch of `t`.
fn secs(t: Timestamp) -> f64 {
    t.as_f64()
}

/// Whether `f` is about `subject` or one of its members (a DHCP pair's servers).
fn concerns(f: &Finding, subject: &Subject, members: &[String]) -> bool {
    if &f.subject == subject {
        return true;
    }
    match (&f.subject, subject) {
        (Subject::Server(s), Subject::Server(_)) => members.iter().any(|m| m == s),
        _ => false,
    }
}

/// The display interval of `series`: its own windows merged into round lengths of time (those
/// the TUI steps through) until there are at most [`MAX_COLUMNS`].
fn display_interval(series: &Series) -> u64 {
    let base = series.interval_ns.max(1);
    let span = match (series.windows.first(), series.windows.last()) {
        (Some(a), Some(b)) => b.index - a.index + 1,
        _ => 1,
    };
    let mut m = 1;
    while span.div_ceil(m) > MAX_COLUMNS {
        let next = chart::next_multiple(base, m);
        if next == m {
            break;
        }
        m = next;
    }
    base.saturating_mul(m)
}

/// The failover pools' lines (of every failover pool in the timeline: a capture with a failover
/// pair has one pair, whose pools they are).
fn failover_lines(timeline: &Timeline, origin: f64) -> Vec<GaugeLine> {
    let mut out = Vec::new();
    for (subject, series) in timeline.series() {
        let Subject::FailoverPool(pool) = subject else {
            continue;
        };
        let names = chart::gauge_names(series);
        let wanted: Vec<&String> = if FAILOVER_GAUGES.iter().any(|g| names.iter().any(|n| n == g)) {
            FAILOVER_GAUGES
                .iter()
                .filter_map(|g| names.iter().find(|n| n == g))
                .collect()
        } else {
            names.iter().collect()
        };
        let (interval, buckets) = chart::buckets(series, display_interval(series));
        let step = interval as f64 / 1e9;
        for g in wanted {
            let points = buckets
                .iter()
                .filter_map(|(i, w)| {
                    let start = origin + *i as f64 * step;
                    w.level(g).map(|value| Point {
                        start,
                        end: start + step,
                        value,
                    })
                })
                .collect();
            out.push(GaugeLine {
                pool: pool.clone(),
                gauge: g.clone(),
                label: String::new(),
                colour: 0,
                points,
            });
        }
    }
    let several_pools = out.windows(2).any(|w| w[0].pool != w[1].pool);
    for (i, g) in out.iter_mut().enumerate() {
        g.colour = i;
        g.label = if several_pools {
            format!("{} {}", chart_id(&g.pool, ID_WIDTH), g.gauge)
        } else {
            g.gauge.clone()
        };
    }
    out
}

fn chart_id(id: &str, width: usize) -> String {
    fit_ids(&[(id, width)]).pop().unwrap_or_default()
}

/// The picture of `subject`: `None` when it has nothing to plot (no answers, no gauges).
pub fn picture(
    capture: &str,
    timeline: &Timeline,
    findings: &[Finding],
    subject: &Subject,
) -> Option<Picture> {
    let series = timeline.series().get(subject)?;
    let origin = secs(timeline.origin()?);
    let kind = chart::kind(series)?;
    let (kind_text, name) = (subject.kind_text(), subject.kind_and_name().1);
    let ids = chart::member_ids(series);
    let mut members = Vec::new();
    let mut answers = Vec::new();
    let mut gauges = Vec::new();
    let interval = display_interval(series);
    let (interval, buckets) = chart::buckets(series, interval);
    let step = interval as f64 / 1e9;
    match kind {
        chart::PlotKind::Shares => {
            let labels = fit_ids(
                &ids.iter()
                    .map(|m| (m.as_str(), ID_WIDTH))
                    .collect::<Vec<_>>(),
            );
            let totals = series.totals();
            answers = buckets
                .iter()
                .map(|(index, w)| {
                    let start = origin + *index as f64 * step;
                    Point {
                        start,
                        end: start + step,
                        value: w.answers as f64,
                    }
                })
                .collect();
            for (i, (id, label)) in ids.iter().zip(labels).enumerate() {
                let mut observed = Vec::new();
                let mut expected = Vec::new();
                for (index, w) in &buckets {
                    if w.answers == 0 {
                        continue;
                    }
                    let start = origin + *index as f64 * step;
                    let c = w.members.get(id).cloned().unwrap_or_default();
                    let at = |value: f64| Point {
                        start,
                        end: start + step,
                        value,
                    };
                    // As the TUI's chart: where the reference gave an expectation for the
                    // window, the share of the answers it judged against it; else the share
                    // of all answers, alone.
                    let has_reference = w.members.values().any(|c| c.expected_first > 0.0);
                    let exp = c.expected_share(w.judged()).filter(|_| has_reference);
                    let seen = match exp {
                        Some(_) => c.judged_share(w.judged()),
                        None => c.share(w.answers),
                    };
                    if let Some(v) = seen {
                        observed.push(at(v));
                    }
                    if let Some(e) = exp {
                        expected.push(at(e));
                    }
                }
                let t = totals.members.get(id).cloned().unwrap_or_default();
                let description = series
                    .members
                    .get(id)
                    .or_else(|| series.left.get(id).map(|f| &f.description))
                    .cloned()
                    .unwrap_or_default();
                members.push(MemberLine {
                    id: id.clone(),
                    label,
                    description,
                    colour: i,
                    observed,
                    expected,
                    first: t.first,
                    findings: t.findings,
                });
            }
            if matches!(subject, Subject::Server(_)) {
                gauges = failover_lines(timeline, origin);
            }
        }
        chart::PlotKind::Gauges => {
            if matches!(subject, Subject::FailoverPool(_)) {
                gauges = failover_lines(timeline, origin)
                    .into_iter()
                    .filter(|g| g.pool == name)
                    .collect();
            } else {
                for (i, g) in chart::gauge_names(series).into_iter().enumerate() {
                    let points = buckets
                        .iter()
                        .filter_map(|(index, w)| {
                            let start = origin + *index as f64 * step;
                            w.level(&g).map(|value| Point {
                                start,
                                end: start + step,
                                value,
                            })
                        })
                        .collect();
                    gauges.push(GaugeLine {
                        pool: name.to_string(),
                        label: g.clone(),
                        gauge: g,
                        colour: i,
                        points,
                    });
                }
            }
        }
    }
    let marks: Vec<Mark> = findings
        .iter()
        .filter(|f| concerns(f, subject, &ids))
        .filter_map(|f| {
            Some(Mark {
                time: secs(f.time?),
                severity: f.severity,
                rule: f.rule,
            })
        })
        .collect();
    let short: Vec<String> = fit_ids(
        &ids.iter()
            .map(|m| (m.as_str(), BAND_ID_WIDTH))
            .collect::<Vec<_>>(),
    );
    let roles = roles(series, &ids);
    let shorten = |server: &str| {
        let i = ids.iter().position(|m| m == server);
        i.and_then(|i| roles.as_ref().and_then(|r| r.get(i)))
            .or_else(|| i.and_then(|i| short.get(i)))
            .cloned()
            .unwrap_or_else(|| chart_id(server, BAND_ID_WIDTH))
    };
    let bands: Vec<Band> = series
        .episodes
        .iter()
        .map(|e| Band {
            kind: e.kind,
            start: secs(e.start.time),
            end: secs(e.end.time),
            server: e.server.as_deref().map(shorten).unwrap_or_default(),
            what: e.what.clone(),
        })
        .collect();
    // The span: the windows' and the episodes' (and the findings', which may fall past the
    // last answer: a request nobody answered).
    let mut start = buckets
        .first()
        .map_or(origin, |(i, _)| origin + *i as f64 * step);
    let mut end = buckets
        .last()
        .map_or(origin + step, |(i, _)| origin + (*i + 1) as f64 * step);
    for t in bands
        .iter()
        .flat_map(|b| [b.start, b.end])
        .chain(marks.iter().map(|m| m.time))
        .chain(gauges.iter().flat_map(|g| g.points.iter().map(|p| p.end)))
    {
        start = start.min(t);
        end = end.max(t);
    }
    // "DHCP pair", "RSerPool pool": the analyser's kind without its parameters.
    let kind_text = series
        .kind
        .split(" (")
        .next()
        .filter(|k| !k.is_empty())
        .unwrap_or(kind_text);
    let title = format!("{capture}: {kind_text} {}", chart_id(name, 60));
    let subtitle = match kind {
        chart::PlotKind::Shares => format!(
            "{}; share of answers per {} window, against the reference's expected share (dashed)",
            series.kind,
            duration_text(step)
        ),
        chart::PlotKind::Gauges => format!("{}; per {} window", series.kind, duration_text(step)),
    };
    Some(Picture {
        name: name.to_string(),
        title,
        subtitle,
        start,
        end: end.max(start + 1e-3),
        column: step,
        columns: buckets.len(),
        members,
        answers,
        events: series
            .marks
            .iter()
            .map(|m| (secs(m.time), m.kind))
            .collect(),
        bands,
        marks,
        gauges,
    })
}

/// The servers' roles in their pair ("primary", "secondary"), as their descriptions open, when
/// they tell every member apart: episodes are labelled with them ("takeover by primary").
fn roles(series: &Series, ids: &[String]) -> Option<Vec<String>> {
    const ROLES: [&str; 4] = ["primary", "secondary", "standby", "backup"];
    let roles: Vec<String> = ids
        .iter()
        .map(|m| {
            let d = series.members.get(m)?;
            let first = d.split(',').next()?.trim();
            ROLES.contains(&first).then(|| first.to_string())
        })
        .collect::<Option<_>>()?;
    let distinct = roles
        .iter()
        .enumerate()
        .all(|(i, r)| !roles[i + 1..].contains(r));
    distinct.then_some(roles)
}

/// A length of time in few characters: `500ms`, `5s`, `2m`, `1h30m`.
pub fn duration_text(secs: f64) -> String {
    if secs < 1.0 {
        format!("{}ms", (secs * 1000.0).round())
    } else if secs < 60.0 || secs % 60.0 != 0.0 {
        format!("{}s", (secs * 1000.0).round() / 1000.0)
    } else if secs < 3600.0 || secs % 3600.0 != 0.0 {
        format!("{}m", (secs / 60.0).round())
    } else {
        format!("{}h", (secs / 3600.0).round())
    }
}

/// The subjects that get a picture: those with answers to plot; failover pools only when there
/// is no DHCP pair to draw them under.
pub fn subjects(timeline: &Timeline) -> Vec<Subject> {
    let with_shares: Vec<Subject> = timeline
        .series()
        .iter()
        .filter(|(_, s)| chart::kind(s) == Some(chart::PlotKind::Shares))
        .map(|(k, _)| k.clone())
        .collect();
    let pair = with_shares.iter().any(|s| matches!(s, Subject::Server(_)));
    let pools = timeline
        .series()
        .iter()
        .filter(|(k, s)| {
            matches!(k, Subject::FailoverPool(_))
                && !pair
                && chart::kind(s) == Some(chart::PlotKind::Gauges)
        })
        .map(|(k, _)| k.clone());
    with_shares.into_iter().chain(pools).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_short() {
        assert_eq!(duration_text(0.5), "500ms");
        assert_eq!(duration_text(5.0), "5s");
        assert_eq!(duration_text(120.0), "2m");
        assert_eq!(duration_text(90.0), "90s");
        assert_eq!(duration_text(7200.0), "2h");
    }
}
