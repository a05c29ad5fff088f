//! The pool list: every subject (RSerPool pool, DHCP server pair, failover pool) with its count of
//! deviations, the selected one marked `>`.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

use super::{inner, pane};
use crate::output::short::{fit, fit_ids};
use crate::tui::app::{App, Pane};
use crate::tui::snapshot::LoadState;

pub fn draw(f: &mut Frame<'_>, area: Rect, app: &App) {
    let shown = app.subject_rows.len();
    let mut title = format!(" Pools ({shown}) ");
    if !app.pool_filter.is_empty() {
        title = format!(" Pools /{} ({shown}) ", app.pool_filter);
    }
    f.render_widget(pane(app, Pane::Pools, title), area);
    let body = inner(area);
    let width = body.width as usize;
    let rows = body.height as usize;
    let selected = app.selected_position();
    let p = &app.palette;
    let mut lines: Vec<Line> = Vec::new();
    let shown: Vec<(usize, &crate::tui::app::Entry)> = app
        .visible_subjects()
        .enumerate()
        .skip(app.pool_offset)
        .take(rows)
        .collect();
    let counts: Vec<String> = shown
        .iter()
        .map(|(_, e)| e.deviations.to_string())
        .collect();
    // Every name cut to the room its count leaves, told apart from the others shown.
    let names = fit_ids(
        &shown
            .iter()
            .zip(&counts)
            .map(|((_, e), count)| (e.name(), width.saturating_sub(count.len() + 3)))
            .collect::<Vec<_>>(),
    );
    for (((i, e), count), name) in shown.into_iter().zip(counts).zip(names) {
        let is_sel = Some(i) == selected;
        let pad = width.saturating_sub(2 + name.chars().count() + count.len());
        let marker = if is_sel { "> " } else { "  " };
        let mut spans = vec![
            Span::raw(marker),
            Span::raw(name),
            Span::raw(" ".repeat(pad)),
            Span::styled(count, if e.deviations > 0 { p.alert() } else { p.dim() }),
        ];
        if is_sel && app.focus == Pane::Pools {
            for s in &mut spans {
                s.style = s.style.patch(p.selected());
            }
        }
        lines.push(Line::from(spans));
    }
    if lines.is_empty() {
        let note = if !app.pool_filter.is_empty() {
            "No pool matches the filter."
        } else if app.progress.state == LoadState::Loading {
            "Reading…"
        } else if app.progress.state == LoadState::Live {
            "No pools yet."
        } else {
            // Say what would have been listed: a capture of DHCP with one server has messages
            // but nothing balanced.
            "No pools: no RSerPool pool, DHCP server pair or failover pool in the capture."
        };
        lines.push(Line::styled(note, p.dim()));
    }
    if app.dropped_subjects > 0 && lines.len() < rows {
        lines.push(Line::styled(
            fit(&format!("+{} not tracked", app.dropped_subjects), width),
            p.dim(),
        ));
    }
    if app.subject_rows.is_empty() {
        // Only the note (and the count of untracked subjects): wrapped, as it may be long.
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), body);
    } else {
        f.render_widget(Paragraph::new(lines), body);
    }
}
