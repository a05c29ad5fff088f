//! Views over the panes: the key help, and the detail of a finding with its frame decoded again.

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};
use ratatui::Frame;

use crate::output::short::fit;
use crate::tui::app::{App, DetailState, DetailView, Overlay};
use crate::tui::keys::help_lines;
use crate::tui::wrap::wrap;

pub fn draw(f: &mut Frame<'_>, body: Rect, app: &App) {
    match &app.overlay {
        Overlay::None => {}
        Overlay::Help => help(f, body, app),
        Overlay::Detail(d) => detail(f, body, app, d),
    }
}

fn frame_block<'a>(app: &App, title: String) -> Block<'a> {
    Block::bordered()
        .border_type(BorderType::Double)
        .border_style(app.palette.border(true))
        .title(title)
        .title_style(app.palette.title())
}

fn help(f: &mut Frame<'_>, body: Rect, app: &App) {
    // One column of padding on the left of the text.
    let text = help_lines(
        body.width.saturating_sub(3) as usize,
        app.palette.has_colour(),
    );
    let w = text
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .saturating_add(4)
        .min(body.width as usize) as u16;
    let h = (text.len() + 2).min(body.height as usize) as u16;
    let area = Rect::new(
        body.x + (body.width - w) / 2,
        body.y + (body.height - h) / 2,
        w,
        h,
    );
    f.render_widget(Clear, area);
    let rows = h.saturating_sub(2) as usize;
    let title = if text.len() > rows {
        format!(
            " Keys ({}-{} of {}, ↑↓ scroll; Esc or ? closes) ",
            app.help_scroll + 1,
            (app.help_scroll + rows).min(text.len()),
            text.len()
        )
    } else {
        " Keys (Esc or ? closes) ".to_string()
    };
    let block = frame_block(app, fit(&title, w.saturating_sub(2) as usize));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let padded: Vec<String> = text
        .iter()
        .skip(app.help_scroll)
        .take(rows)
        .map(|l| format!(" {l}"))
        .collect();
    f.render_widget(Paragraph::new(lines(&padded)), inner);
}

fn detail(f: &mut Frame<'_>, body: Rect, app: &App, d: &DetailView) {
    f.render_widget(Clear, body);
    let state = match d.state {
        DetailState::Loading => "decoding",
        DetailState::Ready(_) => "decoded",
        DetailState::Failed(_) => "not decoded",
    };
    let title = format!(
        " Frame {} ({state}), {}: Esc closes, ↑↓ scroll ",
        d.finding.frame, d.finding.rule
    );
    let block = frame_block(app, fit(&title, body.width.saturating_sub(2) as usize));
    let inner = block.inner(body);
    f.render_widget(block, body);
    let text = wrap(&d.lines, inner.width as usize);
    let shown: Vec<Line> = text
        .iter()
        .skip(d.scroll)
        .take(inner.height as usize)
        .enumerate()
        .map(|(i, l)| {
            // The finding's own lines stand out from the frame's tree.
            if i + d.scroll == 0 {
                Line::styled(l.clone(), app.palette.severity(d.finding.severity))
            } else {
                Line::raw(l.clone())
            }
        })
        .collect();
    f.render_widget(Paragraph::new(shown), inner);
}

/// Plain lines for a paragraph.
fn lines(v: &[String]) -> Vec<Line<'static>> {
    v.iter().map(|s| Line::raw(s.clone())).collect()
}
