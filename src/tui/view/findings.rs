//! The findings of the selected subject (or of all, with `a`): frame number, severity, the
//! episode when it is not a normal one (`[takeover]`), rule and message, the selected one marked
//! `>`; Enter opens its frame. A run of alike findings (as
//! `check` folds them) is one row, its first finding with `+N` for the others and the frame of
//! the last; `e` lists each.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{inner, pane};
use crate::analyse::finding::{Finding, Severity};
use crate::output::short::{fit, named_title};
use crate::tui::app::{subject_label, App, Pane};

fn severity_tag(s: Severity, wide: bool) -> &'static str {
    match (s, wide) {
        (Severity::Error, false) => "E",
        (Severity::Warning, false) => "W",
        (Severity::Info, false) => "I",
        (s, true) => s.name(),
    }
}

/// The episode a finding names in its evidence (`"episode"`, DHCP pairs' findings).
fn episode_of(f: &Finding) -> Option<&str> {
    f.observed
        .get("episode")
        .or_else(|| f.expected.get("episode"))
        .and_then(|v| v.as_str())
}

pub fn draw(f: &mut Frame<'_>, area: Rect, app: &App) {
    let shown = app.findings_listed();
    let whose = if app.all_findings {
        "of all pools"
    } else {
        app.selected_entry().map_or("", |e| e.name())
    };
    let filter = if app.finding_filter.is_empty() {
        String::new()
    } else {
        format!(" /{}", app.finding_filter)
    };
    let rows = app.finding_rows.len();
    let count = if rows < shown {
        format!("{shown} in {rows} rows, e: each")
    } else {
        shown.to_string()
    };
    let before = if whose.is_empty() {
        "Findings"
    } else {
        "Findings "
    };
    let title = named_title(
        before,
        whose,
        &format!("{filter} ({count})"),
        "",
        area.width.saturating_sub(2) as usize,
    );
    f.render_widget(pane(app, Pane::Findings, title), area);
    let body = inner(area);
    let width = body.width as usize;
    let wide = width >= 90;
    let p = &app.palette;
    let mut lines: Vec<Line> = Vec::new();
    for (i, (finding, fold)) in app
        .finding_lines()
        .enumerate()
        .skip(app.finding_offset)
        .take(body.height as usize)
    {
        let is_sel = i == app.finding_sel;
        let marker = if is_sel { ">" } else { " " };
        let mut rest = String::new();
        // The episode it happened in, when it is not a normal one (a DHCP pair's outage): at
        // the row's start, where a narrow pane does not cut it.
        if let Some(e) = episode_of(finding).filter(|e| *e != "normal") {
            rest.push_str(&format!(" [{e}]"));
        }
        rest.push_str(&format!(" {}", finding.rule));
        if app.all_findings {
            rest.push_str(&format!(" {}", subject_label(&finding.subject)));
        }
        rest.push_str(&format!(": {}", finding.message));
        if fold.more > 0 {
            // Where the run ends, after the message: the count is before it, always in view.
            rest.push_str(&format!(" (the last in frame {})", fold.last_frame));
        }
        let head = format!("{marker}{:>6} ", finding.frame);
        let tag = severity_tag(finding.severity, wide);
        let count = if fold.more > 0 {
            format!(" +{}", fold.more)
        } else {
            String::new()
        };
        let room = width.saturating_sub(head.chars().count() + tag.len() + count.len());
        let mut spans = vec![
            Span::raw(head),
            Span::styled(tag, p.severity(finding.severity)),
            Span::styled(count, p.severity(finding.severity)),
            Span::raw(fit(&rest, room)),
        ];
        if is_sel && app.focus == Pane::Findings {
            for s in &mut spans {
                s.style = s.style.patch(p.selected());
            }
        }
        lines.push(Line::from(spans));
    }
    if lines.is_empty() {
        let note = if !app.finding_filter.is_empty() {
            "No finding matches the filter."
        } else if app.findings_total == 0 && app.progress.is_running() {
            "No findings yet."
        } else if app.findings_total == 0 {
            "No findings."
        } else {
            "No findings for this pool."
        };
        lines.push(Line::styled(note, p.dim()));
    }
    if app.findings_dropped > 0 && lines.len() < body.height as usize {
        lines.push(Line::styled(
            fit(
                &format!("{} more not kept (--max-findings)", app.findings_dropped),
                width,
            ),
            p.dim(),
        ));
    }
    f.render_widget(Paragraph::new(lines), body);
}
