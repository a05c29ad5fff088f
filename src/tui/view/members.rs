//! The selected subject's members, lettered as in the chart: their share of first places over the
//! whole capture against what the reference expected for the same answers, and how the analyser
//! describes them now (weight, load). For a subject with gauges only, each gauge's latest value
//! and its range.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{inner, pane};
use crate::output::chart::{self, PlotKind};
use crate::output::short::{compact, fit, fit_id, percent};
use crate::output::stats::count;
use crate::tui::app::{App, Entry, Pane};

pub fn draw(f: &mut Frame<'_>, area: Rect, app: &App) {
    let entry = app.selected_entry();
    let kind = entry.and_then(|e| chart::kind(&e.series));
    // The answers the shares are of, as `stats` and `check` count them (every one, judged or
    // not).
    let totals = entry.map(|e| e.series.totals()).unwrap_or_default();
    let title = match kind {
        Some(PlotKind::Gauges) => " Gauges ".to_string(),
        Some(PlotKind::Shares) => format!(" Members, {} ", count(totals.answers, "answer")),
        None => " Members ".to_string(),
    };
    f.render_widget(pane(app, Pane::Members, title), area);
    let body = inner(area);
    let width = body.width as usize;
    let lines = match (entry, kind) {
        (Some(e), Some(PlotKind::Gauges)) => gauge_lines(app, e, width),
        (Some(e), _) if !chart::member_ids(&e.series).is_empty() => member_lines(app, e, width),
        (Some(_), _) => vec![Line::styled("No members yet.", app.palette.dim())],
        (None, _) => Vec::new(),
    };
    f.render_widget(Paragraph::new(lines), body);
}

/// The letter, the spaces and the two share columns of a member's line: "A " + id + " 100% 100%  "
/// + description.
const FIXED: usize = 14;

/// How much of a member's description ("weight 3", "load 30.0 %", "primary, 128 buckets of ...")
/// the id gives way for (an id is cut in its middle, down to the ten characters of a PE id).
const NOW_WANTED: usize = 16;

/// The longest id and the longest description (up to [`NOW_WANTED`]) of the subject's members.
fn longest(e: &Entry) -> (usize, usize) {
    let s = &e.series;
    let ids = chart::member_ids(s);
    let id = ids.iter().map(|i| i.chars().count()).max().unwrap_or(0);
    let now = ids
        .iter()
        .map(|i| s.members.get(i).map_or(4, |d| d.chars().count()))
        .max()
        .unwrap_or(0)
        .min(NOW_WANTED);
    (id, now)
}

/// The width (borders included) at which the selected subject's member lines are not cut: the
/// compact layout widens the pane up to it (`super::areas_with`). 0 for gauges or no subject.
pub fn wanted_width(app: &App) -> u16 {
    match app.selected_entry() {
        Some(e) if chart::kind(&e.series) != Some(PlotKind::Gauges) => {
            let (id, now) = longest(e);
            let want = 2 + FIXED + id.clamp("member".len(), 22) + now;
            u16::try_from(want).unwrap_or(u16::MAX)
        }
        _ => 0,
    }
}

fn member_lines(app: &App, e: &Entry, width: usize) -> Vec<Line<'static>> {
    let s = &e.series;
    let totals = s.totals();
    let has_reference = totals.members.values().any(|c| c.expected_first > 0.0);
    let ids = chart::member_ids(s);
    // As wide as the longest id, so that the description has the rest of the line; but the
    // description comes first where the line is short (up to NOW_WANTED characters of it).
    let (longest, longest_now) = longest(e);
    let id_w = longest
        .max("member".len())
        .min(width.saturating_sub(FIXED + longest_now).max(10))
        .min(width.saturating_sub(16).max(4))
        .min(22);
    let mut out = vec![Line::styled(
        fit(
            &format!("  {:<id_w$} {:>4} {:>4}  now", "member", "seen", "exp"),
            width,
        ),
        app.palette.dim(),
    )];
    // Answers the reference could not judge: the shares below are of the others.
    let note = (totals.unjudged > 0 && has_reference)
        .then(|| format!("{} not judged, % of {}", totals.unjudged, totals.judged()));
    let rows = app
        .viewport
        .members
        .saturating_sub(usize::from(note.is_some()))
        .max(1);
    for (i, id) in ids.iter().enumerate().skip(app.member_offset).take(rows) {
        let c = totals.members.get(id).cloned().unwrap_or_default();
        let judged = c.expected_share(totals.judged()).filter(|_| has_reference);
        // Seen and expected of the same answers: those the reference judged.
        let seen = match judged {
            Some(_) => c.judged_share(totals.judged()),
            None => c.share(totals.answers),
        }
        .map_or_else(|| "-".into(), percent);
        let exp = match (judged, s.expected_share.get(id)) {
            (Some(x), _) => percent(x),
            (None, Some(x)) => percent(*x),
            (None, None) => "-".into(),
        };
        let now = s.members.get(id).cloned().unwrap_or_else(|| "gone".into());
        let text = format!(" {:<id_w$} {seen:>4} {exp:>4}  {now}", fit_id(id, id_w));
        out.push(Line::from(vec![
            Span::styled(chart::symbol(i).to_string(), app.palette.series(i)),
            Span::raw(fit(&text, width.saturating_sub(1))),
        ]));
    }
    if let Some(n) = note {
        out.push(Line::styled(fit(&n, width), app.palette.dim()));
    }
    out
}

fn gauge_lines(app: &App, e: &Entry, width: usize) -> Vec<Line<'static>> {
    let names = chart::gauge_names(&e.series);
    let symbols = chart::gauge_symbols(&names);
    let mut out = vec![Line::styled(
        fit(
            &format!("  {:<8} {:>5} {:>5} {:>5}", "gauge", "now", "min", "max"),
            width,
        ),
        app.palette.dim(),
    )];
    let rows = app.viewport.members.max(1);
    for (i, (name, sym)) in names
        .iter()
        .zip(symbols)
        .enumerate()
        .skip(app.member_offset)
        .take(rows)
    {
        let values: Vec<f64> = e
            .series
            .windows
            .iter()
            .filter_map(|w| w.level(name))
            .collect();
        let last = values.last().copied().unwrap_or(f64::NAN);
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let text = format!(
            " {:<8} {:>5} {:>5} {:>5}",
            fit(name, 8),
            compact(last),
            compact(min),
            compact(max)
        );
        out.push(Line::from(vec![
            Span::styled(sym.to_string(), app.palette.series(i)),
            Span::raw(fit(&text, width.saturating_sub(1))),
        ]));
    }
    out
}
