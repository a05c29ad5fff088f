//! The header (what is read, how far, the interval) and the footer (the keys, or the filter being
//! typed), and the progress line shown while a file loads.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::output::short::{fit, fit_middle, since_start};
use crate::output::stats::count;
use crate::tui::app::{App, FilterTarget, Overlay};
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
    s.push_str(&frames_and_messages(p));
    s
}

/// `1234 frames, 567 messages`.
fn frames_and_messages(p: &Progress) -> String {
    format!(
        "{}, {}",
        count(p.frames, "frame"),
        count(p.messages, "message")
    )
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
        LoadState::Live => format!("live, {}", frames_and_messages(p)),
        LoadState::Done => frames_and_messages(p),
        LoadState::Failed(e) => format!("stopped after {}: {e}", count(p.frames, "frame")),
    }
}

/// The header: what is read (its name cut first when the line is short: the counts matter more),
/// how far, the findings, and on the right the interval.
pub fn header(f: &mut Frame<'_>, area: Rect, app: &App) {
    let mut status = format!(
        "{}, {}",
        state_text(app),
        count(app.findings_total, "finding")
    );
    if app.progress.decode_errors > 0 {
        status.push_str(&format!(
            ", {}",
            count(app.progress.decode_errors, "decode error")
        ));
    }
    let right = format!("per {}  ? help ", since_start(app.display_ns()));
    let width = area.width as usize;
    let room = width.saturating_sub(right.chars().count() + 1);
    // The program's name goes first when the line is short, then the file's name is cut in its
    // middle (down to a few characters), then the line at its end.
    let whole = format!(" poolshark  {}  {status}", app.title);
    let left = if whole.chars().count() <= room {
        whole
    } else {
        let title_room = room.saturating_sub(3 + status.chars().count());
        // A name cut to less than this says nothing: then the line is cut at its end instead.
        const LEAST_TITLE: usize = 8;
        let title = if app.title.chars().count() <= title_room || title_room < LEAST_TITLE {
            app.title.clone()
        } else {
            fit_middle(&app.title, title_room)
        };
        fit(&format!(" {title}  {status}"), room)
    };
    let pad = width.saturating_sub(left.chars().count() + right.chars().count());
    let line = Line::from(vec![
        Span::raw(left),
        Span::raw(" ".repeat(pad)),
        Span::raw(right),
    ]);
    f.render_widget(Paragraph::new(line).style(app.palette.bar()), area);
}

/// A problem reading the capture that did not stop it (a file cut short in its last record, a
/// damaged record skipped): said in the footer, as nowhere else shows why. One that stopped the
/// reading is in the header already.
fn reading_problem(p: &Progress) -> Option<String> {
    if matches!(p.state, LoadState::Failed(_)) {
        return None;
    }
    let e = p.last_source_error.as_ref()?;
    Some(match p.source_errors {
        0 | 1 => format!(" Reading the file: {e}."),
        n => format!(" {n} problems reading the file, the last: {e}."),
    })
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
            let mut s = match app.overlay {
                Overlay::None => String::from(
                    " Tab pane  ↑↓ move  ←→ time  Enter detail  +- interval  / filter  ? help  q quit",
                ),
                // Only what works over the help or the detail.
                _ => String::from(" ↑↓ PgUp PgDn g G scroll  Esc close  ? help  q quit"),
            };
            if !app.pool_filter.is_empty() {
                s = format!(" pools /{}  {}", app.pool_filter, s.trim_start());
            }
            if !app.finding_filter.is_empty() {
                s = format!(" findings /{}  {}", app.finding_filter, s.trim_start());
            }
            if let Some(problem) = reading_problem(&app.progress) {
                s = format!("{problem}  {}", s.trim_start());
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
