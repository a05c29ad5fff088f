//! The header (what is read, how far, the interval) and the footer (the keys, or the filter being
//! typed), and the progress line shown while a file loads.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::text::{fit, since_start};
use crate::tui::app::{App, FilterTarget};
use crate::tui::snapshot::{LoadState, Progress};

fn megabytes(b: u64) -> String {
    format!("{:.1} MB", b as f64 / 1e6)
}

/// `45% (1.2 MB of 2.7 MB), 1234 frames, 567 messages`, or what is known of it.
pub fn progress_text(p: &Progress) -> String {
    let mut s = String::new();
    if let (Some(f), Some(read), Some(total)) = (p.fraction(), p.bytes_read, p.total_bytes) {
        s.push_str(&format!(
            "{:.0}% ({} of {}), ",
            f * 100.0,
            megabytes(read),
            megabytes(total)
        ));
    } else if let Some(read) = p.bytes_read {
        s.push_str(&format!("{} read, ", megabytes(read)));
    }
    s.push_str(&format!("{} frames, {} messages", p.frames, p.messages));
    s
}

/// `[#######.............]` `width` wide for the fraction read.
pub fn progress_bar(fraction: f64, width: usize) -> String {
    let inner = width.saturating_sub(2);
    let done = ((fraction.clamp(0.0, 1.0) * inner as f64).round() as usize).min(inner);
    format!("[{}{}]", "#".repeat(done), ".".repeat(inner - done))
}

fn state_text(app: &App) -> String {
    let p = &app.progress;
    match &p.state {
        LoadState::Loading => format!("loading {}", progress_text(p)),
        LoadState::Live => format!("live, {} frames, {} messages", p.frames, p.messages),
        LoadState::Done => format!("{} frames, {} messages", p.frames, p.messages),
        LoadState::Failed(e) => format!("stopped after {} frames: {e}", p.frames),
    }
}

pub fn header(f: &mut Frame<'_>, area: Rect, app: &App) {
    let mut left = format!(" poolshark  {}  {}", app.title, state_text(app));
    left.push_str(&format!(", {} findings", app.findings_total));
    if app.progress.decode_errors > 0 {
        left.push_str(&format!(", {} decode errors", app.progress.decode_errors));
    }
    let right = format!("per {}  ? help ", since_start(app.display_ns()));
    let width = area.width as usize;
    let room = width.saturating_sub(right.chars().count() + 1);
    let left = fit(&left, room);
    let pad = width.saturating_sub(left.chars().count() + right.chars().count());
    let line = Line::from(vec![
        Span::raw(left),
        Span::raw(" ".repeat(pad)),
        Span::raw(right),
    ]);
    f.render_widget(Paragraph::new(line).style(app.palette.bar()), area);
}

pub fn footer(f: &mut Frame<'_>, area: Rect, app: &App) {
    let text = match app.editing {
        Some(t) => {
            let (what, value) = match t {
                FilterTarget::Pools => ("pools", &app.pool_filter),
                FilterTarget::Findings => ("findings", &app.finding_filter),
            };
            format!(" filter {what}: /{value}_   Enter keeps it, Esc clears it")
        }
        None => {
            let mut s = String::from(
                " Tab pane  ↑↓ move  ←→ time  Enter detail  +- interval  / filter  ? help  q quit",
            );
            if !app.pool_filter.is_empty() {
                s = format!(" pools /{}  {}", app.pool_filter, s.trim_start());
            }
            if !app.finding_filter.is_empty() {
                s = format!(" findings /{}  {}", app.finding_filter, s.trim_start());
            }
            s
        }
    };
    let text = fit(&text, area.width as usize);
    f.render_widget(Paragraph::new(text).style(app.palette.bar()), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_texts() {
        let p = Progress {
            frames: 1234,
            messages: 567,
            bytes_read: Some(1_200_000),
            total_bytes: Some(2_700_000),
            ..Progress::default()
        };
        assert_eq!(
            progress_text(&p),
            "44% (1.2 MB of 2.7 MB), 1234 frames, 567 messages"
        );
        let stdin = Progress {
            bytes_read: Some(3_000_000),
            ..p.clone()
        };
        let stdin = Progress {
            total_bytes: None,
            ..stdin
        };
        assert_eq!(
            progress_text(&stdin),
            "3.0 MB read, 1234 frames, 567 messages"
        );
        assert_eq!(progress_bar(0.5, 12), "[#####.....]");
        assert_eq!(progress_bar(2.0, 6), "[####]");
        assert_eq!(progress_bar(0.0, 1), "[]");
    }
}
