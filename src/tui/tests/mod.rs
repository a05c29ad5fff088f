//! Tests of the TUI: the model's actions, the views drawn into ratatui's test backend (snapshots
//! of hand-made reports whose shares are known), and the loader over real captures.

mod loader;
mod model;
mod views;

use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::Terminal;

use super::app::App;
use super::palette::Palette;
use super::snapshot::{Data, LoadState, Progress, Update};
use super::view;
use crate::analyse::finding::{Finding, Severity, Subject};
use crate::analyse::Report;
use crate::base::Timestamp;

pub const S: u64 = 1_000_000_000;
/// The capture starts here; windows are 10 s from it.
pub const T0: i64 = 1_700_000_000;

pub fn rr_pool() -> Subject {
    Subject::Pool("RR-Pool".into())
}

pub fn fo_pool() -> Subject {
    Subject::FailoverPool("192.0.2.0/24".into())
}

fn at(secs: i64) -> Timestamp {
    Timestamp::new(T0 + secs, 0)
}

fn finding(
    frame: u64,
    subject: Subject,
    severity: Severity,
    rule: &'static str,
    msg: &str,
) -> Finding {
    Finding {
        frame,
        time: None,
        group: String::new(),
        rule,
        severity,
        subject,
        expected: serde_json::json!("pe-2"),
        observed: serde_json::json!("pe-1"),
        message: msg.into(),
    }
}

/// Answers in one window: `firsts` answers naming pe-1 first, `seconds` naming pe-2 first; the
/// reference gives each 1/2 of being first.
fn answers(r: &mut Report, secs: i64, firsts: u32, seconds: u32) {
    let ids = |a: &str, b: &str| vec![a.to_string(), b.to_string()];
    let exp = vec![
        ("pe-1".to_string(), 0.5, 1.0),
        ("pe-2".to_string(), 0.5, 1.0),
    ];
    for _ in 0..firsts {
        r.timeline.answer(
            at(secs),
            &rr_pool(),
            "RSerPool pool (policy RR)",
            &ids("pe-1", "pe-2"),
            &exp,
        );
    }
    for _ in 0..seconds {
        r.timeline.answer(
            at(secs),
            &rr_pool(),
            "RSerPool pool (policy RR)",
            &ids("pe-2", "pe-1"),
            &exp,
        );
    }
}

/// Two subjects with known content:
/// * RR-Pool (10 s windows 0, 1, 2): pe-1 first in 3 of 4, 1 of 4, 4 of 4 answers (75 %, 25 %,
///   100 %), pe-2 in the rest (25 %, 75 %, 0 %); the reference expects 50 % each throughout; two
///   findings (frames 12 and 30) and an info one (frame 31).
/// * 192.0.2.0/24, a failover pool with gauges only: free 22, 24, 36 and backup 17, 20, 23 in
///   windows 0, 1, 2; one finding (frame 25).
pub fn report() -> Report {
    let mut r = Report::new(100, 10 * S);
    r.timeline.start(at(0));
    answers(&mut r, 1, 3, 1);
    answers(&mut r, 12, 1, 3);
    answers(&mut r, 25, 4, 0);
    for (m, w) in [("pe-1", "weight 1"), ("pe-2", "weight 1")] {
        r.timeline.describe(&rr_pool(), m, w.to_string(), Some(0.5));
    }
    for (secs, free, backup) in [(2, 22.0, 17.0), (14, 24.0, 20.0), (27, 36.0, 23.0)] {
        let kind = "ISC failover pool";
        r.timeline.gauge(at(secs), &fo_pool(), kind, "free", free);
        r.timeline
            .gauge(at(secs), &fo_pool(), kind, "backup", backup);
    }
    r.push(
        finding(
            12,
            rr_pool(),
            Severity::Warning,
            "rserpool.order",
            "pe-1 answered first; the reference puts pe-2 first",
        ),
        at(3),
    );
    r.push(
        finding(
            30,
            rr_pool(),
            Severity::Error,
            "rserpool.unknown-pe",
            "the answer names a PE that never registered",
        ),
        at(13),
    );
    r.push(
        finding(31, rr_pool(), Severity::Info, "rserpool.note", "a note"),
        at(13),
    );
    r.push(
        finding(
            25,
            fo_pool(),
            Severity::Warning,
            "failover.ownership",
            "the primary's balance run moved 2 lease(s)",
        ),
        at(14),
    );
    r
}

pub fn done() -> Progress {
    Progress {
        state: LoadState::Done,
        frames: 40,
        messages: 36,
        bytes_read: Some(5_000),
        total_bytes: Some(5_000),
        ..Progress::default()
    }
}

/// An app showing [`report`], without colours unless asked.
pub fn app_with(colour: bool) -> App {
    app_of_report("test.pcap", &report(), colour)
}

/// An app showing report `r` of file `title` (10 s windows), loaded.
pub fn app_of_report(title: &str, r: &Report, colour: bool) -> App {
    let mut app = App::new(title, 10 * S, Palette::new(colour));
    app.apply(Update {
        progress: done(),
        data: Some(Data::from_report(r, 0, 0)),
    });
    app
}

/// The same without colours.
pub fn app_of(title: &str, r: &Report) -> App {
    app_of_report(title, r, false)
}

/// An outage seen by each client it left unserved: five alike findings a second apart, then a
/// different one, then one more alike but a minute later (a new run).
pub fn outage_app() -> App {
    let mut r = report();
    let subject = rr_pool();
    for (frame, secs, rule) in [
        (40, 40, "rserpool.no-answer"),
        (41, 41, "rserpool.no-answer"),
        (42, 42, "rserpool.no-answer"),
        (43, 43, "rserpool.no-answer"),
        (44, 44, "rserpool.no-answer"),
        (45, 45, "rserpool.order"),
        (90, 100, "rserpool.no-answer"),
    ] {
        r.push(
            finding(frame, subject.clone(), Severity::Warning, rule, "no answer"),
            Timestamp::new(T0 + secs, 0),
        );
    }
    app_of("outage.pcap", &r)
}

pub fn app() -> App {
    app_with(false)
}

/// Lays the app out for a `w`x`h` screen (as the event loop does before drawing) and draws it.
pub fn draw(app: &mut App, w: u16, h: u16) -> Buffer {
    app.set_viewport(view::viewport(Rect::new(0, 0, w, h)));
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    t.draw(|f| view::draw(f, app)).expect("draw");
    t.backend().buffer().clone()
}

/// The screen's text, one line per row, trailing spaces cut.
pub fn text(b: &Buffer) -> String {
    let a = b.area;
    let mut out = String::new();
    for y in a.top()..a.bottom() {
        let mut line = String::new();
        for x in a.left()..a.right() {
            line.push_str(b[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

pub fn screen(app: &mut App, w: u16, h: u16) -> String {
    text(&draw(app, w, h))
}
