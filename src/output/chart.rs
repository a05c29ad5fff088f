//! What the chart draws, worked out from a subject's series without drawing anything: windows
//! merged into display intervals (a multiple of the series' interval), and per column either each
//! member's observed and expected share of first places, or, for subjects that only have gauges
//! (a failover pool's free and backup leases), each gauge's value.
//!
//! Series are named by letters: upper case for what was observed, the same letter in lower case
//! for what the reference expected, so the chart reads the same with or without colours.

use std::collections::BTreeSet;

use crate::analyse::episodes::EpisodeKind;
use crate::analyse::timeline::{Series, Window};
use crate::base::Timestamp;

/// The display interval multiples `+` and `-` step through, of a base interval of `base_ns`:
/// those that make a round time ([`round_times`]: for 10 s, 1, 2, 3, 6, 12, 30, ... for 10s,
/// 20s, 30s, 1m, 2m, 5m, ...); for a base that is not a round time itself, 1, 2, 5, 10, 20, ...
fn multiples(base_ns: u64) -> Vec<u64> {
    let base = base_ns.max(1);
    let round: Vec<u64> = round_times()
        .into_iter()
        .filter(|t| t % base == 0)
        .map(|t| t / base)
        .collect();
    if round.first() == Some(&1) {
        round
    } else {
        // 1, 2, 5 times the powers of ten up to a million: enough to put a year of 10 s windows
        // in a screen width.
        one_two_five(7).collect()
    }
}

pub fn next_multiple(base_ns: u64, m: u64) -> u64 {
    multiples(base_ns).into_iter().find(|&s| s > m).unwrap_or(m)
}

pub fn prev_multiple(base_ns: u64, m: u64) -> u64 {
    multiples(base_ns)
        .into_iter()
        .take_while(|&s| s < m)
        .last()
        .unwrap_or(1)
}

/// Round lengths of time, in nanoseconds: 1, 2 and 5 of a power of ten of a second's fractions
/// and of days; 1, 2, 5, 10, 15, 20 and 30 of seconds and minutes; 1, 2, 3, 6 and 12 hours. The
/// display intervals and the time axis's labels keep to them.
pub fn round_times() -> Vec<u64> {
    const S: u64 = 1_000_000_000;
    let mut v: Vec<u64> = one_two_five(9).collect();
    for unit in [S, 60 * S] {
        v.extend([1, 2, 5, 10, 15, 20, 30].map(|d| d * unit));
    }
    v.extend([1, 2, 3, 6, 12].map(|d| d * 3600 * S));
    v.extend(one_two_five(5).map(|d| d.saturating_mul(86_400 * S)));
    v
}

/// 1, 2, 5 times the first `decades` powers of ten: 1, 2, 5, 10, 20, 50, ...
pub fn one_two_five(decades: u32) -> impl Iterator<Item = u64> {
    (0..decades).flat_map(|e| [1u64, 2, 5].map(|d| d * 10u64.pow(e)))
}

/// The length of one chart column: the display interval asked for, rounded up to a whole number
/// of the series' own windows (which may be longer than the timeline's base interval once the
/// series was coarsened).
pub fn effective_interval(series_ns: u64, display_ns: u64) -> u64 {
    let series_ns = series_ns.max(1);
    series_ns.saturating_mul(display_ns.div_ceil(series_ns).max(1))
}

/// Adds window `w` (later in time) to `into`: counts add up, gauges keep their later values,
/// the members registered run from the earlier start to the later end.
fn add_window(into: &mut Window, w: &Window) {
    into.answers = into.answers.saturating_add(w.answers);
    into.unjudged = into.unjudged.saturating_add(w.unjudged);
    into.findings = into.findings.saturating_add(w.findings);
    for (m, c) in &w.members {
        into.members.entry_mut(m).add(c);
    }
    for (g, v) in &w.gauges {
        into.gauges.insert(g.clone(), *v);
    }
    into.registered = match (into.registered, w.registered) {
        (Some(mut a), Some(b)) => {
            a.merge(&b);
            Some(a)
        }
        (a, b) => a.or(b),
    };
}

/// The series' windows merged into columns of `effective_interval(series, display_ns)`:
/// `(column index since the start, merged window)`, in time order, only columns with data.
pub fn buckets(series: &Series, display_ns: u64) -> (u64, Vec<(u64, Window)>) {
    let series_ns = series.interval_ns.max(1);
    let interval = effective_interval(series_ns, display_ns);
    let k = (interval / series_ns).max(1);
    let mut out: Vec<(u64, Window)> = Vec::new();
    for w in &series.windows {
        let i = w.index / k;
        match out.last_mut() {
            Some((j, b)) if *j == i => add_window(b, w),
            _ => {
                let mut b = Window {
                    index: i,
                    ..Window::default()
                };
                add_window(&mut b, w);
                out.push((i, b));
            }
        }
    }
    (interval, out)
}

/// What the chart shows of a subject.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotKind {
    /// Each member's share of first places, 0 to 100 %.
    Shares,
    /// Gauge values (free, backup, PEs registered, ...): [`Window::level`].
    Gauges,
}

/// One line of the chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// Member id or gauge name.
    pub label: String,
    /// Its letter: observed values are drawn with it, expected ones with its lower case.
    pub symbol: char,
    /// Per column: the observed value (`None`: nothing in that interval).
    pub values: Vec<Option<f64>>,
    /// Per column: what the reference expected (shares only).
    pub expected: Vec<Option<f64>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    pub kind: PlotKind,
    /// Length of one column in nanoseconds.
    pub interval_ns: u64,
    /// Column index (since the start of the capture) of the first column drawn.
    pub first: u64,
    /// Columns drawn (at least 1).
    pub columns: usize,
    pub traces: Vec<Trace>,
    /// The value range of the y axis.
    pub lo: f64,
    pub hi: f64,
    /// There are columns before the first drawn / after the last drawn.
    pub earlier: bool,
    pub later: bool,
    /// What happened to the subject in the columns drawn ([`Series::marks`]): per column, the
    /// symbol of its events ([`mark_symbol`]).
    pub marks: Vec<(usize, char)>,
}

/// How the chart marks events at the top of their column (no letter, which would read as a
/// member): `▼` a PE deregistering, `▲` one registering again, `◆` a registrar taking over a
/// peer's PEs, `◇` several kinds in one column.
pub fn mark_symbol(kind: &str) -> char {
    match kind {
        "deregistration" => '▼',
        "reregistration" => '▲',
        "takeover" => '◆',
        _ => SEVERAL_MARKS,
    }
}

const SEVERAL_MARKS: char = '◇';

/// The marks of `series` in the columns `first` to `first + columns - 1` of `interval_ns`.
fn column_marks(
    series: &Series,
    interval_ns: u64,
    first: u64,
    columns: usize,
) -> Vec<(usize, char)> {
    let mut out: Vec<(usize, char)> = Vec::new();
    for m in &series.marks {
        let col = m.offset_ns / interval_ns.max(1);
        let Some(c) = col.checked_sub(first).and_then(|c| usize::try_from(c).ok()) else {
            continue;
        };
        if c >= columns {
            continue;
        }
        let sym = mark_symbol(m.kind);
        match out.iter_mut().find(|(x, _)| *x == c) {
            Some((_, s)) if *s != sym => *s = SEVERAL_MARKS,
            Some(_) => {}
            None => out.push((c, sym)),
        }
    }
    out
}

/// The letter of series `i`: A to Z, then `#`.
pub fn symbol(i: usize) -> char {
    u8::try_from(i)
        .ok()
        .filter(|&i| i < 26)
        .map_or('#', |i| char::from(b'A' + i))
}

/// The letter for an expected value of the series drawn with `observed`.
pub fn expected_symbol(observed: char) -> char {
    if observed.is_ascii_uppercase() {
        observed.to_ascii_lowercase()
    } else {
        '+'
    }
}

/// Every member the series knows, in a fixed order (members are lettered by it).
pub fn member_ids(series: &Series) -> Vec<String> {
    let mut ids: BTreeSet<&String> = series.members.keys().collect();
    ids.extend(series.expected_share.keys());
    for w in &series.windows {
        ids.extend(w.members.keys());
    }
    ids.into_iter().cloned().collect()
}

/// Every gauge the series has (the members registered as one, see [`Window::level`]), in a
/// fixed order.
pub fn gauge_names(series: &Series) -> Vec<String> {
    let mut names: BTreeSet<&str> = BTreeSet::new();
    for w in &series.windows {
        names.extend(w.level_names());
    }
    names.into_iter().map(str::to_string).collect()
}

/// Letters for gauges: the first letter of the name when it is still free ("free" F, "backup"
/// B), else the first free letter.
pub fn gauge_symbols(names: &[String]) -> Vec<char> {
    let mut used: BTreeSet<char> = BTreeSet::new();
    names
        .iter()
        .map(|n| {
            let own = n
                .chars()
                .find(|c| c.is_ascii_alphabetic())
                .map(|c| c.to_ascii_uppercase())
                .filter(|c| !used.contains(c));
            let s = own
                .or_else(|| (0..26).map(symbol).find(|c| !used.contains(c)))
                .unwrap_or('#');
            used.insert(s);
            s
        })
        .collect()
}

/// What a subject's series plots as.
pub fn kind(series: &Series) -> Option<PlotKind> {
    if series.windows.iter().any(|w| w.answers > 0) {
        Some(PlotKind::Shares)
    } else if series
        .windows
        .iter()
        .any(|w| w.level_names().next().is_some())
    {
        Some(PlotKind::Gauges)
    } else {
        None
    }
}

/// The chart of `series` at `display_ns` per column, at most `max_columns` wide, the last column
/// `back` columns before the latest one. `None` when there is nothing to plot yet.
pub fn plot(series: &Series, display_ns: u64, max_columns: usize, back: u64) -> Option<Plot> {
    let kind = kind(series)?;
    let (interval_ns, buckets) = buckets(series, display_ns);
    let (first_i, last_i) = match (buckets.first(), buckets.last()) {
        (Some(f), Some(l)) => (f.0, l.0),
        _ => return None,
    };
    let span = last_i.saturating_sub(first_i).saturating_add(1);
    let columns = span.min(max_columns.max(1) as u64);
    let back = back.min(span - columns);
    let end = last_i - back;
    let first = end + 1 - columns;
    let columns = columns as usize;
    let visible: Vec<Option<&Window>> = {
        let mut v = vec![None; columns];
        for (i, w) in &buckets {
            if (first..=end).contains(i) {
                if let Some(slot) = v.get_mut((i - first) as usize) {
                    *slot = Some(w);
                }
            }
        }
        v
    };
    let (traces, lo, hi) = match kind {
        PlotKind::Shares => (share_traces(series, &visible), 0.0, 1.0),
        PlotKind::Gauges => {
            let (lo, hi) = gauge_range(&buckets);
            (gauge_traces(series, &buckets, first, &visible), lo, hi)
        }
    };
    Some(Plot {
        kind,
        interval_ns,
        first,
        columns,
        traces,
        lo,
        hi,
        earlier: first > first_i,
        later: end < last_i,
        marks: column_marks(series, interval_ns, first, columns),
    })
}

fn share_traces(series: &Series, visible: &[Option<&Window>]) -> Vec<Trace> {
    member_ids(series)
        .into_iter()
        .enumerate()
        .map(|(i, id)| {
            let mut values = Vec::with_capacity(visible.len());
            let mut expected = Vec::with_capacity(visible.len());
            for w in visible {
                let (v, e) = match w {
                    Some(w) if w.answers > 0 => {
                        let c = w.members.get(&id).cloned().unwrap_or_default();
                        // An expectation is drawn where the reference gave one for this window,
                        // of the answers it judged.
                        let has_reference = w.members.values().any(|c| c.expected_first > 0.0);
                        let exp = c.expected_share(w.judged()).filter(|_| has_reference);
                        // Compared with the expectation: the share of the answers it judged.
                        let seen = match exp {
                            Some(_) => c.judged_share(w.judged()),
                            None => c.share(w.answers),
                        };
                        (seen, exp)
                    }
                    _ => (None, None),
                };
                values.push(v);
                expected.push(e);
            }
            Trace {
                label: id,
                symbol: symbol(i),
                values,
                expected,
            }
        })
        .collect()
}

/// Gauges are levels: one holds its value until it is set again, so a column without a record
/// shows the value from before it (also from before the first column drawn).
fn gauge_traces(
    series: &Series,
    buckets: &[(u64, Window)],
    first: u64,
    visible: &[Option<&Window>],
) -> Vec<Trace> {
    let names = gauge_names(series);
    let symbols = gauge_symbols(&names);
    names
        .into_iter()
        .zip(symbols)
        .map(|(name, symbol)| {
            let mut last = buckets
                .iter()
                .take_while(|(i, _)| *i < first)
                .filter_map(|(_, w)| w.level(&name))
                .last();
            let values = visible
                .iter()
                .map(|w| {
                    if let Some(v) = w.and_then(|w| w.level(&name)) {
                        last = Some(v);
                    }
                    last
                })
                .collect();
            Trace {
                values,
                expected: vec![None; visible.len()],
                label: name,
                symbol,
            }
        })
        .collect()
}

/// The y range of gauges over the whole series (so scrolling does not rescale): from 0 or the
/// lowest value if negative, to the highest.
fn gauge_range(buckets: &[(u64, Window)]) -> (f64, f64) {
    let values = buckets
        .iter()
        .flat_map(|(_, w)| w.level_names().filter_map(|n| w.level(n)))
        .filter(|v| v.is_finite());
    let (lo, hi) = values.fold((0.0f64, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let hi = if hi > lo { hi } else { lo + 1.0 };
    (lo, hi)
}

/// The episode under each column of a plot of `series` (`origin`: the capture's first frame,
/// the columns' time zero): the one that is not normal covering most of the column (a short
/// takeover stays in view in a long column), else normal where an episode covers it, else none.
/// The last episode lasts until another starts: while a capture loads, to the latest column.
pub fn episode_strip(series: &Series, origin: Timestamp, plot: &Plot) -> Vec<Option<EpisodeKind>> {
    let ns = |t: Timestamp| -> u128 {
        let d = i128::from(t.secs - origin.secs) * 1_000_000_000 + i128::from(t.nanos)
            - i128::from(origin.nanos);
        u128::try_from(d.max(0)).unwrap_or(0)
    };
    let interval = u128::from(plot.interval_ns.max(1));
    let plot_end = u128::from(plot.first + plot.columns as u64) * interval;
    let last = series.episodes.len().saturating_sub(1);
    let spans: Vec<(u128, u128, EpisodeKind)> = series
        .episodes
        .iter()
        .enumerate()
        .map(|(i, e)| {
            // An episode of one instant still covers a nanosecond.
            let end = ns(e.end.time).max(ns(e.start.time) + 1);
            let end = if i == last { end.max(plot_end) } else { end };
            (ns(e.start.time), end, e.kind)
        })
        .collect();
    (0..plot.columns as u64)
        .map(|c| {
            let a = u128::from(plot.first + c) * interval;
            let b = a + interval;
            let mut best: Option<(bool, u128, EpisodeKind)> = None;
            for &(s, e, kind) in &spans {
                let overlap = e.min(b).saturating_sub(s.max(a));
                if overlap == 0 {
                    continue;
                }
                let key = (kind != EpisodeKind::Normal, overlap, kind);
                if best.is_none_or(|b| (key.0, key.1) > (b.0, b.1)) {
                    best = Some(key);
                }
            }
            best.map(|b| b.2)
        })
        .collect()
}

/// The row (0 at the top) of value `v` in a plot `rows` high showing `lo..=hi`.
pub fn row_of(v: f64, lo: f64, hi: f64, rows: u16) -> u16 {
    let top = f64::from(rows.saturating_sub(1));
    let span = hi - lo;
    if !v.is_finite() || span <= 0.0 {
        return rows.saturating_sub(1);
    }
    let r = ((hi - v) / span * top).round().clamp(0.0, top);
    r as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::timeline::MemberCounts;
    use std::collections::BTreeMap;

    const S: u64 = 1_000_000_000;

    fn counts(first: u64, expected_first: f64) -> MemberCounts {
        MemberCounts {
            first,
            any: first,
            expected_first,
            expected_any: expected_first,
            ..MemberCounts::default()
        }
    }

    fn window(index: u64, members: &[(&str, u64, f64)]) -> Window {
        Window {
            index,
            answers: members.iter().map(|m| m.1).sum(),
            members: members
                .iter()
                .map(|(m, f, e)| (m.to_string(), counts(*f, *e)))
                .collect(),
            ..Window::default()
        }
    }

    fn series(windows: Vec<Window>) -> Series {
        Series {
            kind: "pool".into(),
            interval_ns: 10 * S,
            windows,
            ..Series::default()
        }
    }

    #[test]
    fn multiples_step_through_round_times() {
        // From 10 s: 20s, 30s, 1m, 2m, 5m, 10m, 15m, 20m, 30m, 1h (not 50s, 1m40s, 3m20s).
        let mut m = 1;
        let mut seen = Vec::new();
        for _ in 0..10 {
            m = next_multiple(10 * S, m);
            seen.push(m);
        }
        assert_eq!(seen, [2, 3, 6, 12, 30, 60, 90, 120, 180, 360]);
        assert_eq!(prev_multiple(10 * S, 6), 3);
        assert_eq!(prev_multiple(10 * S, 1), 1);
        // Between two: to the next and the previous round one.
        assert_eq!(next_multiple(10 * S, 4), 6);
        assert_eq!(prev_multiple(10 * S, 4), 3);
        // From 500 ms: 1s, 2s, 5s, 10s.
        assert_eq!(next_multiple(S / 2, 1), 2);
        assert_eq!(next_multiple(S / 2, 2), 4);
        assert_eq!(next_multiple(S / 2, 4), 10);
        // A base that is not a round time: 1, 2, 5, 10, ... of it.
        assert_eq!(next_multiple(7_000_000, 1), 2);
        assert_eq!(next_multiple(7_000_000, 2), 5);
        assert_eq!(prev_multiple(1_500_000_000, 10), 5);
        assert_eq!(next_multiple(7_000_000, 5_000_000), 5_000_000);
    }

    #[test]
    fn interval_rounds_up_to_whole_series_windows() {
        assert_eq!(effective_interval(10, 10), 10);
        assert_eq!(effective_interval(10, 20), 20);
        // A series coarsened to 40 cannot show 20 or 50: 40 and 80.
        assert_eq!(effective_interval(40, 20), 40);
        assert_eq!(effective_interval(40, 50), 80);
    }

    #[test]
    fn windows_merge_into_columns() {
        let s = series(vec![
            window(0, &[("a", 3, 2.0), ("b", 1, 2.0)]),
            window(1, &[("a", 1, 2.0), ("b", 3, 2.0)]),
            window(5, &[("b", 2, 1.0)]),
        ]);
        let (interval, b) = buckets(&s, 20 * S);
        assert_eq!(interval, 20 * S);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].0, 0);
        assert_eq!(b[0].1.answers, 8);
        assert_eq!(b[0].1.members["a"].first, 4);
        assert!((b[0].1.members["b"].expected_first - 4.0).abs() < 1e-12);
        assert_eq!(b[1].0, 2);
    }

    #[test]
    fn shares_per_column_with_gaps() {
        let s = series(vec![
            window(0, &[("a", 3, 2.0), ("b", 1, 2.0)]),
            window(2, &[("b", 2, 1.0)]),
        ]);
        let p = plot(&s, 10 * S, 80, 0).unwrap();
        assert_eq!(p.kind, PlotKind::Shares);
        assert_eq!((p.first, p.columns), (0, 3));
        assert_eq!(p.traces.len(), 2);
        let a = &p.traces[0];
        assert_eq!((a.label.as_str(), a.symbol), ("a", 'A'));
        assert_eq!(a.values, vec![Some(0.75), None, Some(0.0)]);
        assert_eq!(a.expected, vec![Some(0.5), None, Some(0.0)]);
        let b = &p.traces[1];
        assert_eq!(b.values, vec![Some(0.25), None, Some(1.0)]);
        assert_eq!(b.expected, vec![Some(0.5), None, Some(0.5)]);
        assert!(!p.earlier && !p.later);
    }

    #[test]
    fn narrow_plots_show_the_latest_columns_and_scroll_back() {
        let s = series((0..10).map(|i| window(i, &[("a", i + 1, 0.0)])).collect());
        let p = plot(&s, 10 * S, 4, 0).unwrap();
        assert_eq!(
            (p.first, p.columns, p.earlier, p.later),
            (6, 4, true, false)
        );
        // No reference: no expectation drawn.
        assert_eq!(p.traces[0].expected, vec![None; 4]);
        let p = plot(&s, 10 * S, 4, 3).unwrap();
        assert_eq!((p.first, p.earlier, p.later), (3, true, true));
        // Scrolling past the start stops at the start.
        let p = plot(&s, 10 * S, 4, 100).unwrap();
        assert_eq!((p.first, p.earlier, p.later), (0, false, true));
    }

    #[test]
    fn gauge_only_series_plot_their_gauges() {
        let w0 = Window {
            gauges: BTreeMap::from([("free".to_string(), 22.0), ("backup".into(), 17.0)]),
            ..Window::default()
        };
        let w1 = Window {
            index: 1,
            gauges: BTreeMap::from([
                ("free".to_string(), 24.0),
                ("backup".into(), 20.0),
                ("lts".into(), -6.0),
            ]),
            ..Window::default()
        };
        let s = series(vec![w0, w1]);
        let p = plot(&s, 10 * S, 80, 0).unwrap();
        assert_eq!(p.kind, PlotKind::Gauges);
        assert_eq!((p.lo, p.hi), (-6.0, 24.0));
        let labels: Vec<(&str, char)> = p
            .traces
            .iter()
            .map(|t| (t.label.as_str(), t.symbol))
            .collect();
        assert_eq!(labels, vec![("backup", 'B'), ("free", 'F'), ("lts", 'L')]);
        assert_eq!(p.traces[1].values, vec![Some(22.0), Some(24.0)]);
        assert_eq!(p.traces[2].values, vec![None, Some(-6.0)]);
    }

    #[test]
    fn gauges_hold_their_value_over_columns_without_records() {
        let w = |index: u64, free: f64| Window {
            index,
            gauges: BTreeMap::from([("free".to_string(), free)]),
            ..Window::default()
        };
        let s = series(vec![w(0, 5.0), w(1, 6.0), w(4, 9.0)]);
        let p = plot(&s, 10 * S, 80, 0).unwrap();
        assert_eq!(
            p.traces[0].values,
            vec![Some(5.0), Some(6.0), Some(6.0), Some(6.0), Some(9.0)]
        );
        // Scrolled so that the first column drawn has no record: the value from before it.
        let p = plot(&s, 10 * S, 2, 1).unwrap();
        assert_eq!((p.first, p.columns), (2, 2));
        assert_eq!(p.traces[0].values, vec![Some(6.0), Some(6.0)]);
    }

    #[test]
    fn letters() {
        assert_eq!(symbol(0), 'A');
        assert_eq!(symbol(25), 'Z');
        assert_eq!(symbol(26), '#');
        assert_eq!(expected_symbol('C'), 'c');
        assert_eq!(expected_symbol('#'), '+');
        let names: Vec<String> = ["free", "fixed", "9x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(gauge_symbols(&names), vec!['F', 'A', 'X']);
    }

    #[test]
    fn the_strip_shows_the_episode_that_is_not_normal_in_each_column() {
        use crate::analyse::episodes::{Episode, Mark};
        let origin = Timestamp::new(1000, 0);
        let ep = |kind, from: i64, to: i64| Episode {
            kind,
            server: None,
            start: Mark {
                frame: 1,
                time: Timestamp::new(1000 + from, 0),
            },
            end: Mark {
                frame: 2,
                time: Timestamp::new(1000 + to, 0),
            },
            what: String::new(),
        };
        let mut s = series((0..6).map(|i| window(i, &[("a", 1, 1.0)])).collect());
        // Columns of 10 s: normal to 13 s, a takeover of 2 s, normal, a recovery of 20 s.
        s.episodes = vec![
            ep(EpisodeKind::Normal, 0, 13),
            ep(EpisodeKind::Takeover, 13, 15),
            ep(EpisodeKind::Normal, 15, 30),
            ep(EpisodeKind::Recovery, 30, 50),
        ];
        let p = plot(&s, 10 * S, 80, 0).unwrap();
        let strip = episode_strip(&s, origin, &p);
        use EpisodeKind::*;
        assert_eq!(
            strip,
            [
                Some(Normal),
                Some(Takeover),
                Some(Normal),
                Some(Recovery),
                Some(Recovery),
                Some(Recovery)
            ],
            "the last episode lasts to the end"
        );
        // A coarser column holds both: the longer of the two that are not normal.
        let p = plot(&s, 60 * S, 80, 0).unwrap();
        assert_eq!(episode_strip(&s, origin, &p), [Some(Recovery)]);
    }

    #[test]
    fn rows() {
        assert_eq!(row_of(1.0, 0.0, 1.0, 11), 0);
        assert_eq!(row_of(0.0, 0.0, 1.0, 11), 10);
        assert_eq!(row_of(0.5, 0.0, 1.0, 11), 5);
        assert_eq!(row_of(0.74, 0.0, 1.0, 11), 3);
        assert_eq!(row_of(f64::NAN, 0.0, 1.0, 11), 10);
        assert_eq!(row_of(2.0, 0.0, 1.0, 11), 0);
    }
}
