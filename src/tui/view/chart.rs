//! The chart of the selected subject, drawn cell by cell: a y axis (0-100 % for shares, the
//! gauges' range otherwise), one column per display interval stretched to the width, each
//! member's observed share drawn with its letter and the reference's expectation with the same
//! letter in lower case (members at the same height share the cells, their letters alternating),
//! and the time since the start of the capture along the bottom. While a file loads and nothing is
//! known yet, the progress instead.

use std::collections::BTreeMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};
use ratatui::Frame;

use super::bars::{progress_bar, progress_text};
use super::{inner, pane};
use crate::analyse::episodes::EpisodeKind;
use crate::analyse::finding::Subject;
use crate::output::chart::{self, expected_symbol, row_of, Plot, PlotKind};
use crate::output::short::{compact, fit, named_title, percent, since_start};
use crate::tui::app::{App, Pane};
use crate::tui::palette::Palette;
use crate::tui::snapshot::LoadState;

/// Width of the y axis labels.
const LABEL: u16 = 5;

/// The plot's width in cells inside a chart pane's `inner` area.
pub fn plot_width(inner: Rect) -> u16 {
    inner.width.saturating_sub(LABEL + 1)
}

pub fn draw(f: &mut Frame<'_>, area: Rect, app: &App) {
    let body = inner(area);
    let entry = app.selected_entry();
    let plot = entry.and_then(|e| {
        chart::plot(
            &e.series,
            app.display_ns(),
            plot_width(body).max(1) as usize,
            app.chart_back,
        )
    });
    let room = area.width.saturating_sub(2) as usize;
    let title = match (entry, &plot) {
        (Some(e), Some(p)) => named_title(
            "",
            e.name(),
            &format!(
                ": {} per {}",
                plotted(&e.subject, p.kind),
                since_start(p.interval_ns)
            ),
            &format!(", {}", e.kind()),
            room,
        ),
        (Some(e), None) => named_title("", e.name(), "", &format!(" ({})", e.kind()), room),
        _ => " Chart ".to_string(),
    };
    f.render_widget(pane(app, Pane::Chart, title), area);
    // The episodes under the plot, when the subject went through more than normal ones.
    let strip = match (entry, &plot, app.origin) {
        (Some(e), Some(p), Some(origin))
            if e.series
                .episodes
                .iter()
                .any(|x| x.kind != EpisodeKind::Normal) =>
        {
            Some(chart::episode_strip(&e.series, origin, p))
        }
        _ => None,
    };
    match (entry, plot) {
        (_, Some(p)) => f.render_widget(
            PlotWidget {
                plot: &p,
                palette: app.palette,
                strip,
            },
            body,
        ),
        (None, None) if app.progress.state == LoadState::Loading => loading(f, body, app),
        (Some(e), None) if matches!(e.subject, Subject::Server(_)) => note(
            f,
            body,
            app,
            "No balanced answers yet: the pair's findings, its servers' included, are listed in the findings pane.",
        ),
        (Some(_), None) => note(
            f,
            body,
            app,
            "Nothing to plot yet: no answers and no gauges.",
        ),
        (None, None) => note(f, body, app, "Nothing to plot."),
    }
}

/// What the chart of a subject plots: for a pool each member's share of the answers it came
/// first in; for a DHCP server pair each server's share of the balanced requests answered (the
/// bucket's owner counted when both answered); gauges by what they count.
fn plotted(subject: &Subject, kind: PlotKind) -> &'static str {
    match (subject, kind) {
        (Subject::Server(_), PlotKind::Shares) => "share of balanced answers",
        (_, PlotKind::Shares) => "first-place share",
        (Subject::FailoverPool(_), PlotKind::Gauges) => "lease gauges",
        (Subject::Pool(_), PlotKind::Gauges) => "PEs registered",
        (Subject::Server(_), PlotKind::Gauges) => "gauges",
    }
}

fn note(f: &mut Frame<'_>, area: Rect, app: &App, text: &str) {
    f.render_widget(
        Paragraph::new(Line::styled(text.to_string(), app.palette.dim())).wrap(Wrap { trim: true }),
        area,
    );
}

fn loading(f: &mut Frame<'_>, area: Rect, app: &App) {
    let p = &app.progress;
    let width = area.width as usize;
    let mut lines = vec![Line::raw(fit(&format!("Reading {}", app.title), width))];
    if let Some(x) = p.fraction() {
        let bar = progress_bar(x, width.saturating_sub(6).min(50));
        lines.push(Line::raw(format!("{bar} {:.0}%", x * 100.0)));
    }
    lines.push(Line::raw(fit(&progress_text(p), width)));
    f.render_widget(Paragraph::new(lines), area);
}

struct PlotWidget<'a> {
    plot: &'a Plot,
    palette: Palette,
    /// Per column, the episode drawn on the row above the time axis.
    strip: Option<Vec<Option<EpisodeKind>>>,
}

/// What a band of the episode strip `width` cells wide says: the kind's name, shorter names as
/// room runs out, its initial at one cell.
fn band_label(kind: EpisodeKind, width: usize) -> &'static str {
    let names: &[&'static str] = match kind {
        EpisodeKind::Normal => &[""],
        EpisodeKind::PeerSilent => &["peer-silent", "silent", "S"],
        EpisodeKind::Takeover => &["takeover", "take", "T"],
        EpisodeKind::Recovery => &["recovery", "resync", "R"],
    };
    names
        .iter()
        .copied()
        .find(|n| n.chars().count() <= width)
        .unwrap_or("")
}

impl PlotWidget<'_> {
    fn label(&self, v: f64) -> String {
        match self.plot.kind {
            PlotKind::Shares => percent(v),
            PlotKind::Gauges => compact(v),
        }
    }
}

/// A letter and its style.
type Mark = (char, Style);

/// What a chart cell `width` columns wide draws of the members `seen` at its height and the
/// members `expected` there: every letter when they fit, else those seen, else `*`.
fn cell_marks(seen: Vec<Mark>, expected: Vec<Mark>, width: usize) -> Vec<Mark> {
    let width = width.max(1);
    if seen.len() + expected.len() <= width {
        let mut all = seen;
        all.extend(expected);
        all
    } else if !seen.is_empty() && seen.len() <= width {
        seen
    } else {
        vec![('*', Style::default())]
    }
}

fn put(buf: &mut Buffer, x: u16, y: u16, c: char, style: Style) {
    if let Some(cell) = buf.cell_mut((x, y)) {
        cell.set_char(c).set_style(style);
    }
}

impl Widget for PlotWidget<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let p = self.plot;
        if area.height < 3 || area.width <= LABEL + 2 {
            return;
        }
        // The episode strip takes a row when the plot can spare it.
        let strip = self.strip.as_ref().filter(|_| area.height >= 6);
        let rows = area.height - 1 - u16::from(strip.is_some());
        let x0 = area.x + LABEL + 1;
        let width = plot_width(area);
        let cols = u16::try_from(p.columns).unwrap_or(u16::MAX).clamp(1, width);
        // Column `c`'s left edge: the columns share the whole width, one a cell wider than
        // another where it does not divide evenly.
        let col_x = |c: u16| x0 + column_x(u64::from(c), u64::from(cols), u64::from(width)) as u16;
        // The strip's row, just above the time axis when there is a strip.
        let strip_y = area.y + rows;
        let axis_y = strip_y + u16::from(strip.is_some());
        // The y axis, labelled at the top, the bottom and the middle when a row sits exactly there.
        let mid = ((rows - 1) % 2 == 0).then_some((rows - 1) / 2);
        for r in 0..rows {
            let label = if r == 0 {
                Some(self.label(p.hi))
            } else if r == rows - 1 {
                Some(self.label(p.lo))
            } else if Some(r) == mid {
                Some(self.label((p.hi + p.lo) / 2.0))
            } else {
                None
            };
            let y = area.y + r;
            if let Some(l) = &label {
                let l = format!("{:>w$}", fit(l, LABEL as usize), w = LABEL as usize);
                buf.set_string(area.x, y, l, self.palette.dim());
            }
            let tick = if label.is_some() { '┤' } else { '│' };
            put(buf, x0 - 1, y, tick, self.palette.dim());
        }
        if let Some(strip) = strip {
            put(buf, x0 - 1, strip_y, '│', self.palette.dim());
            buf.set_string(area.x, strip_y, "  ep.", self.palette.dim());
            // Bands: runs of columns under one episode, each filled and named where it is not
            // normal.
            let mut c = 0usize;
            while c < cols as usize {
                let kind = strip.get(c).copied().flatten();
                let run = strip[c..cols as usize]
                    .iter()
                    .take_while(|k| **k == kind)
                    .count()
                    .max(1);
                let (a, b) = (col_x(c as u16), col_x((c + run) as u16));
                if let Some(k) = kind.filter(|k| *k != EpisodeKind::Normal) {
                    let w = usize::from(b.saturating_sub(a));
                    for x in a..b {
                        put(buf, x, strip_y, '━', self.palette.episode());
                    }
                    let label = band_label(k, w);
                    let pad = (w - label.chars().count()) / 2;
                    buf.set_string(a + pad as u16, strip_y, label, self.palette.episode());
                }
                c += run;
            }
        }
        // The time axis.
        put(buf, x0 - 1, axis_y, '└', self.palette.dim());
        for x in x0..x0 + width {
            put(buf, x, axis_y, '─', self.palette.dim());
        }
        let used = width;
        let start = since_start(p.first.saturating_mul(p.interval_ns));
        let end = since_start((p.first + p.columns as u64).saturating_mul(p.interval_ns));
        let mut sx = x0;
        if p.earlier {
            put(buf, sx, axis_y, '◀', self.palette.dim());
            sx += 1;
        }
        buf.set_string(sx, axis_y, &start, self.palette.dim());
        let mut ex = x0 + used;
        if p.later {
            put(buf, ex.saturating_sub(1), axis_y, '▶', self.palette.dim());
            ex = ex.saturating_sub(1);
        }
        let end_x = ex.saturating_sub(end.chars().count() as u16);
        let start_end = sx + start.chars().count() as u16;
        let mut free_to = ex;
        if end_x > start_end {
            buf.set_string(end_x, axis_y, &end, self.palette.dim());
            free_to = end_x;
        }
        // Round times between the ends, each at the left edge of the column it starts.
        let ticks = time_ticks(
            p,
            u64::from(width),
            u64::from(start_end - x0),
            u64::from(free_to - x0),
        );
        for (dx, label) in ticks {
            buf.set_string(x0 + dx as u16, axis_y, label, self.palette.dim());
        }
        // Events (registrations, takeovers) at the top of their column, under what is drawn
        // there: a share of 100 % keeps its letter.
        for (c, sym) in &p.marks {
            let Ok(c) = u16::try_from(*c) else { continue };
            if c < cols {
                put(buf, col_x(c), area.y, *sym, self.palette.dim());
            }
        }
        // Per column and row: the members seen at that height, and the expectations of the
        // members not seen at the same height (an expectation met is its capital letter alone).
        // Several in one cell share the column's cells, their letters alternating, so that
        // members with equal shares (a round robin's, say) are all in view; when they outnumber
        // the cells, what was seen is drawn over what was expected, and `*` marks a cell that
        // cannot show every member seen in it.
        for c in 0..cols as usize {
            let mut cells: BTreeMap<u16, (Vec<Mark>, Vec<Mark>)> = BTreeMap::new();
            let mut seen_at = vec![None; p.traces.len()];
            for (i, t) in p.traces.iter().enumerate() {
                if let Some(Some(v)) = t.values.get(c) {
                    let r = row_of(*v, p.lo, p.hi, rows);
                    seen_at[i] = Some(r);
                    cells
                        .entry(r)
                        .or_default()
                        .0
                        .push((t.symbol, self.palette.series(i)));
                }
            }
            for (i, t) in p.traces.iter().enumerate() {
                if let Some(Some(e)) = t.expected.get(c) {
                    let r = row_of(*e, p.lo, p.hi, rows);
                    if seen_at.get(i).copied().flatten() != Some(r) {
                        cells
                            .entry(r)
                            .or_default()
                            .1
                            .push((expected_symbol(t.symbol), self.palette.expected(i)));
                    }
                }
            }
            let x = col_x(c as u16);
            let cw = col_x(c as u16 + 1).saturating_sub(x).max(1);
            for (r, (seen, expected)) in cells {
                let marks = cell_marks(seen, expected, cw as usize);
                for dx in 0..cw {
                    // Counted from the plot's left edge, so that a run of columns with the
                    // same members reads ABCABC on, without restarting at each column.
                    let k = usize::from(x - x0 + dx) % marks.len().max(1);
                    if let Some(&(ch, style)) = marks.get(k) {
                        put(buf, x + dx, area.y + r, ch, style);
                    }
                }
            }
        }
    }
}

/// Cells of `─` kept between two labels of the time axis.
const TICK_GAP: u64 = 2;

/// The left edge, in cells from the plot's, of column `c` of `cols` sharing `width` cells.
fn column_x(c: u64, cols: u64, width: u64) -> u64 {
    c.saturating_mul(width) / cols.max(1)
}

/// The labels of the time axis between its two ends: `(cells from the plot's left edge, label)`
/// for a plot `width` cells wide whose start label ends `from` cells in and whose end label
/// starts `to` cells in. Each label starts at the column boundary it names, so the times are
/// exact: a step is a whole number of columns, the roundest time that leaves every label
/// [`TICK_GAP`] cells from the next (1, 2 or 5 columns when no round time does).
fn time_ticks(p: &Plot, width: u64, from: u64, to: u64) -> Vec<(u64, String)> {
    let interval = p.interval_ns.max(1);
    let columns = p.columns as u64;
    let labels = |step_columns: u64| -> Vec<(u64, String)> {
        let step_columns = step_columns.max(1);
        // The first boundary after the plot's start that is a multiple of the step.
        let first = (p.first / step_columns + 1) * step_columns;
        (first..p.first + columns)
            .step_by(usize::try_from(step_columns).unwrap_or(usize::MAX))
            .map(|c| {
                let label = since_start(c.saturating_mul(interval));
                (column_x(c - p.first, columns, width), label)
            })
            .filter(|(x, l)| *x >= from + TICK_GAP && x + l.chars().count() as u64 + TICK_GAP <= to)
            .collect()
    };
    // Labels `step_columns` apart, if each keeps its gap to the next and there is one at least.
    let fits = |step_columns: u64| -> Option<Vec<(u64, String)>> {
        let ticks = labels(step_columns);
        let apart = ticks
            .windows(2)
            .all(|w| w[0].0 + w[0].1.chars().count() as u64 + TICK_GAP <= w[1].0);
        (apart && !ticks.is_empty()).then_some(ticks)
    };
    let round = chart::round_times()
        .into_iter()
        .filter(|s| s % interval == 0)
        .map(|s| s / interval);
    let columns_125 = chart::one_two_five(7);
    round
        .take_while(|&k| k < columns)
        .find_map(fits)
        .or_else(|| columns_125.take_while(|&k| k < columns).find_map(fits))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(letters: &str) -> Vec<Mark> {
        letters.chars().map(|c| (c, Style::default())).collect()
    }

    fn letters(m: &[Mark]) -> String {
        m.iter().map(|m| m.0).collect()
    }

    const S: u64 = 1_000_000_000;

    fn plot(first: u64, columns: usize, interval_ns: u64) -> Plot {
        Plot {
            kind: PlotKind::Shares,
            interval_ns,
            first,
            columns,
            traces: Vec::new(),
            lo: 0.0,
            hi: 1.0,
            earlier: first > 0,
            later: false,
            marks: Vec::new(),
        }
    }

    /// The ticks of a plot drawn as the view draws it: the start label from cell 0 (after `◀`
    /// when scrolled), the end label ending at the plot's right edge.
    fn ticks(p: &Plot, width: u64) -> Vec<(u64, String)> {
        let start = since_start(p.first * p.interval_ns).chars().count() as u64;
        let end = since_start((p.first + p.columns as u64) * p.interval_ns);
        time_ticks(
            p,
            width,
            start + u64::from(p.earlier),
            width - end.chars().count() as u64,
        )
    }

    fn labels(t: &[(u64, String)]) -> Vec<&str> {
        t.iter().map(|(_, l)| l.as_str()).collect()
    }

    #[test]
    fn the_time_axis_is_labelled_at_round_times() {
        // Three windows of 10 s in 48 cells, 16 each: every boundary.
        let t = ticks(&plot(0, 3, 10 * S), 48);
        assert_eq!(t, vec![(16, "10s".into()), (32, "20s".into())]);
        // 500 s in 50 cells: every minute, up to the one that would touch the end (8m20s).
        let t = ticks(&plot(0, 50, 10 * S), 50);
        assert_eq!(labels(&t), ["1m", "2m", "3m", "4m", "5m", "6m"]);
        assert_eq!(t[0].0, 6);
        // Eight hours in 48 cells of 10 min: every hour.
        let t = ticks(&plot(0, 48, 600 * S), 48);
        assert_eq!(labels(&t), ["1h", "2h", "3h", "4h", "5h", "6h", "7h"]);
        // 50 ms in 50 cells of 1 ms: every 10 ms.
        let t = ticks(&plot(0, 50, 1_000_000), 50);
        assert_eq!(labels(&t), ["10ms", "20ms", "30ms", "40ms"]);
        // Scrolled: the first round time after the start that clears its label.
        let t = ticks(&plot(29, 50, 10 * S), 50);
        assert_eq!(labels(&t), ["7m", "8m", "9m", "10m", "11m"]);
        // An interval no round time is a multiple of: every 1, 2 or 5 columns, still exact.
        let t = ticks(&plot(0, 3, 1_500_000_000), 48);
        assert_eq!(labels(&t), ["1.5s", "3s"]);
        // 27 columns of 30 s over 50 cells (some one cell wide, some two): every 2 minutes, each
        // at its boundary's cell.
        let t = ticks(&plot(0, 27, 30 * S), 50);
        assert_eq!(
            t,
            vec![
                (7, "2m".into()),
                (14, "4m".into()),
                (22, "6m".into()),
                (29, "8m".into()),
                (37, "10m".into())
            ]
        );
        // Too narrow for anything between the ends.
        assert!(ticks(&plot(0, 2, 10 * S), 8).is_empty());
    }

    /// From milliseconds to days and at every plot width from 80 to 200 columns: each label names
    /// the column boundary it starts at, and labels keep their gap from each other and the ends.
    #[test]
    fn time_labels_are_exact_and_never_overlap() {
        for interval in [
            1_000_000,
            7_000_000,
            250_000_000,
            10 * S,
            60 * S,
            3600 * S,
            86_400 * S,
        ] {
            for width in [80u64 - 30, 120 - 30, 200 - 62] {
                for (first, columns) in [(0, width), (17, width / 3), (1000, width / 7), (0, 5)] {
                    let p = plot(first, columns as usize, interval);
                    let t = ticks(&p, width);
                    let mut after = since_start(first * interval).chars().count() as u64;
                    for (x, l) in &t {
                        let c = (0..columns).find(|&c| column_x(c, columns, width) == *x);
                        let c = c.unwrap_or_else(|| panic!("{l} at {x}: not a boundary"));
                        assert_eq!(*l, since_start((first + c) * interval));
                        assert!(*x >= after + TICK_GAP, "{l} at {x} too close: {t:?}");
                        after = x + l.chars().count() as u64;
                    }
                    let end = since_start((first + columns) * interval).chars().count() as u64;
                    assert!(after + TICK_GAP <= width - end || t.is_empty());
                    if columns == width && interval >= 10 * S {
                        assert!(t.len() >= 3, "a full width has labels: {t:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn episode_bands_say_as_much_of_their_name_as_fits() {
        assert_eq!(band_label(EpisodeKind::Takeover, 20), "takeover");
        assert_eq!(band_label(EpisodeKind::Takeover, 7), "take");
        assert_eq!(band_label(EpisodeKind::Recovery, 6), "resync");
        assert_eq!(band_label(EpisodeKind::PeerSilent, 10), "silent");
        assert_eq!(band_label(EpisodeKind::PeerSilent, 1), "S");
        assert_eq!(band_label(EpisodeKind::Normal, 30), "");
        assert_eq!(band_label(EpisodeKind::Recovery, 0), "");
    }

    #[test]
    fn a_cell_shows_all_it_has_room_for() {
        assert_eq!(letters(&cell_marks(marks("AB"), marks("c"), 3)), "ABc");
        // Too narrow for the expectation too: what was seen.
        assert_eq!(letters(&cell_marks(marks("AB"), marks("c"), 2)), "AB");
        assert_eq!(letters(&cell_marks(marks("A"), marks("bc"), 1)), "A");
        // Too narrow for what was seen: a star, not one member passed off as the only one.
        assert_eq!(letters(&cell_marks(marks("ABC"), marks(""), 2)), "*");
        assert_eq!(letters(&cell_marks(marks(""), marks("ab"), 1)), "*");
        assert_eq!(letters(&cell_marks(marks(""), marks("a"), 1)), "a");
    }
}
