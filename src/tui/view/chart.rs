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
use super::text::{compact, fit, percent, since_start};
use super::{inner, pane};
use crate::analyse::finding::Subject;
use crate::tui::app::{App, Pane};
use crate::tui::chart::{self, expected_symbol, row_of, Plot, PlotKind};
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
    let title = match (entry, &plot) {
        // What is plotted first: when the title is cut, the kind goes.
        (Some(e), Some(p)) => format!(
            " {}: {} per {}, {} ",
            e.name(),
            match p.kind {
                PlotKind::Shares => "first-place share",
                PlotKind::Gauges => "gauges",
            },
            since_start(p.interval_ns),
            e.kind(),
        ),
        (Some(e), None) => format!(" {} ({}) ", e.name(), e.kind()),
        _ => " Chart ".to_string(),
    };
    let title = fit(&title, area.width.saturating_sub(2) as usize);
    f.render_widget(pane(app, Pane::Chart, title), area);
    match (entry, plot) {
        (_, Some(p)) => f.render_widget(
            PlotWidget {
                plot: &p,
                palette: app.palette,
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
        let rows = area.height - 1;
        let x0 = area.x + LABEL + 1;
        let width = plot_width(area);
        let cols = u16::try_from(p.columns).unwrap_or(u16::MAX).clamp(1, width);
        let cw = (width / cols).max(1);
        let axis_y = area.y + rows;
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
        // The time axis.
        put(buf, x0 - 1, axis_y, '└', self.palette.dim());
        for x in x0..x0 + width {
            put(buf, x, axis_y, '─', self.palette.dim());
        }
        let used = cw * cols;
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
        if end_x > sx + start.chars().count() as u16 {
            buf.set_string(end_x, axis_y, &end, self.palette.dim());
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
            let x = x0 + c as u16 * cw;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(letters: &str) -> Vec<Mark> {
        letters.chars().map(|c| (c, Style::default())).collect()
    }

    fn letters(m: &[Mark]) -> String {
        m.iter().map(|m| m.0).collect()
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
