//! The model alone: what each action does to the selection, the focus, the interval, the filters
//! and the overlays.

use super::*;
use crate::output::chart;
use crate::tui::app::{Action, DetailState, Mode, Overlay, Pane};

fn selected_name(app: &App) -> String {
    app.selected_entry()
        .map(|e| e.name().to_string())
        .unwrap_or_default()
}

fn finding_frames(app: &App) -> Vec<u64> {
    app.finding_lines().map(|(f, _)| f.frame).collect()
}

#[test]
fn subjects_arrive_with_their_deviation_counts() {
    let app = app();
    let names: Vec<(&str, u64)> = app
        .subjects()
        .iter()
        .map(|e| (e.name(), e.deviations))
        .collect();
    // Pools sort before failover pools (the subject order); counts are the findings in their
    // windows: 3 for RR-Pool, 1 for the failover pool.
    assert_eq!(names, vec![("RR-Pool", 3), ("192.0.2.0/24", 1)]);
    assert_eq!(selected_name(&app), "RR-Pool");
    // The findings pane lists the selected pool's, by frame.
    assert_eq!(finding_frames(&app), vec![12, 30, 31]);
}

#[test]
fn arrows_move_the_pool_selection_and_its_findings_follow() {
    let mut app = app();
    app.handle(Action::Down);
    assert_eq!(selected_name(&app), "192.0.2.0/24");
    assert_eq!(finding_frames(&app), vec![25]);
    // The end of the list holds.
    app.handle(Action::Down);
    assert_eq!(selected_name(&app), "192.0.2.0/24");
    app.handle(Action::Up);
    assert_eq!(selected_name(&app), "RR-Pool");
    app.handle(Action::End);
    assert_eq!(selected_name(&app), "192.0.2.0/24");
    app.handle(Action::Home);
    assert_eq!(selected_name(&app), "RR-Pool");
    app.handle(Action::ToggleAllFindings);
    assert_eq!(finding_frames(&app), vec![12, 25, 30, 31]);
}

#[test]
fn tab_cycles_the_panes_and_arrows_act_in_the_focused_one() {
    let mut app = app();
    assert_eq!(app.focus, Pane::Pools);
    for want in [Pane::Chart, Pane::Members, Pane::Findings, Pane::Pools] {
        app.handle(Action::NextPane);
        assert_eq!(app.focus, want);
    }
    app.handle(Action::PrevPane);
    assert_eq!(app.focus, Pane::Findings);
    app.handle(Action::Down);
    assert_eq!(app.selected_finding().map(|f| f.frame), Some(30));
    app.handle(Action::Down);
    app.handle(Action::Down);
    assert_eq!(app.selected_finding().map(|f| f.frame), Some(31));
    assert_eq!(selected_name(&app), "RR-Pool", "the pool stays");
}

#[test]
fn enter_on_a_finding_opens_its_frame_and_esc_closes_first() {
    let mut app = app();
    app.handle(Action::Enter);
    assert_eq!(
        app.focus,
        Pane::Findings,
        "Enter in the pools goes to their findings"
    );
    app.handle(Action::Down);
    app.handle(Action::Enter);
    assert_eq!(app.mode(), Mode::Overlay);
    assert_eq!(app.take_detail_request(), Some(30));
    assert_eq!(app.take_detail_request(), None, "asked once");
    // An answer for another frame (an earlier request) is not shown.
    app.set_detail(12, DetailState::Failed("late".into()));
    let Overlay::Detail(d) = &app.overlay else {
        panic!("no detail")
    };
    assert_eq!(d.state, DetailState::Loading);
    app.set_detail(
        30,
        DetailState::Failed("frame 30 is not in the capture".into()),
    );
    let Overlay::Detail(d) = &app.overlay else {
        panic!("no detail")
    };
    assert!(d
        .lines
        .iter()
        .any(|l| l.contains("frame 30 is not in the capture")));
    app.handle(Action::Back);
    assert_eq!(app.overlay, Overlay::None);
    assert!(!app.should_quit());
    app.handle(Action::Back);
    assert!(!app.should_quit(), "Esc with nothing open does nothing");
    app.handle(Action::Quit);
    assert!(app.should_quit(), "q quits");
}

/// Esc never quits: right after a filter was kept with Enter it clears that filter, and with
/// nothing left to clear it does nothing (issue 40).
#[test]
fn esc_clears_a_kept_filter_and_never_quits() {
    let mut app = app();
    app.handle(Action::StartFilter);
    for c in "192".chars() {
        app.handle(Action::FilterChar(c));
    }
    app.handle(Action::FilterDone);
    assert_eq!(app.visible_subjects().count(), 1);
    app.handle(Action::Back);
    assert!(!app.should_quit());
    assert_eq!(app.pool_filter, "");
    assert_eq!(app.visible_subjects().count(), 2);
    // The findings' filter, when they have the focus.
    app.focus = Pane::Findings;
    app.handle(Action::StartFilter);
    app.handle(Action::FilterChar('x'));
    app.handle(Action::FilterDone);
    assert_eq!(app.finding_filter, "x");
    app.handle(Action::Back);
    assert_eq!(app.finding_filter, "");
    for _ in 0..3 {
        app.handle(Action::Back);
    }
    assert!(!app.should_quit(), "Esc with nothing to close or clear");
}

#[test]
fn help_toggles_and_q_quits_from_anywhere() {
    let mut app = app();
    app.handle(Action::Help);
    assert_eq!(app.overlay, Overlay::Help);
    app.handle(Action::Help);
    assert_eq!(app.overlay, Overlay::None);
    app.handle(Action::Help);
    app.handle(Action::Quit);
    assert!(app.should_quit());
}

#[test]
fn plus_and_minus_change_the_interval_and_the_chart_merges_windows() {
    let mut app = app();
    assert_eq!(app.display_ns(), 10 * S);
    app.handle(Action::Coarser);
    assert_eq!(app.display_ns(), 20 * S);
    let e = app.selected_entry().expect("selected");
    let p = chart::plot(&e.series, app.display_ns(), 50, 0).expect("plot");
    // Windows 0 and 1 merge: pe-1 first in 4 of 8 answers; window 2 alone.
    assert_eq!(p.columns, 2);
    assert_eq!(p.traces[0].values, vec![Some(0.5), Some(1.0)]);
    // Round times: 30 s, then a minute (not 50 s).
    app.handle(Action::Coarser);
    assert_eq!(app.display_ns(), 30 * S);
    app.handle(Action::Coarser);
    assert_eq!(app.display_ns(), 60 * S);
    app.handle(Action::Finer);
    app.handle(Action::Finer);
    app.handle(Action::Finer);
    app.handle(Action::Finer);
    assert_eq!(app.display_ns(), 10 * S, "not below the base interval");
}

#[test]
fn filters_narrow_the_pools_and_the_findings() {
    let mut app = app();
    app.handle(Action::StartFilter);
    assert_eq!(app.mode(), Mode::Filter);
    for c in "192".chars() {
        app.handle(Action::FilterChar(c));
    }
    let names: Vec<&str> = app.visible_subjects().map(|e| e.name()).collect();
    assert_eq!(names, vec!["192.0.2.0/24"]);
    assert_eq!(
        selected_name(&app),
        "192.0.2.0/24",
        "the selection moves into the filter"
    );
    app.handle(Action::FilterDone);
    assert_eq!(app.mode(), Mode::Normal);
    assert_eq!(app.pool_filter, "192");
    // The kind matches too.
    app.handle(Action::StartFilter);
    for _ in 0..3 {
        app.handle(Action::FilterBackspace);
    }
    for c in "rserpool".chars() {
        app.handle(Action::FilterChar(c));
    }
    let names: Vec<&str> = app.visible_subjects().map(|e| e.name()).collect();
    assert_eq!(names, vec!["RR-Pool"]);
    // Esc while typing clears the filter.
    app.handle(Action::Back);
    assert_eq!(app.visible_subjects().count(), 2);
    assert!(!app.should_quit());
    // In the findings pane, / filters the findings.
    app.focus = Pane::Findings;
    app.handle(Action::Home);
    app.handle(Action::StartFilter);
    for c in "unknown".chars() {
        app.handle(Action::FilterChar(c));
    }
    app.handle(Action::FilterDone);
    assert_eq!(finding_frames(&app), vec![30]);
    assert_eq!(app.visible_subjects().count(), 2);
}

#[test]
fn the_selection_survives_updates_and_new_subjects() {
    let mut app = app();
    app.handle(Action::Down);
    assert_eq!(selected_name(&app), "192.0.2.0/24");
    let mut r = report();
    r.timeline.gauge(
        Timestamp::new(T0 + 5, 0),
        &Subject::Pool("Another".into()),
        "RSerPool pool",
        "pes",
        3.0,
    );
    app.apply(Update {
        progress: done(),
        data: Some(Data::from_report(&r, 4, 0)),
    });
    assert_eq!(app.subjects().len(), 3);
    assert_eq!(selected_name(&app), "192.0.2.0/24");
    // Findings already sent are not added twice.
    assert_eq!(app.findings().len(), 4);
}

#[test]
fn chart_scrolls_back_only_as_far_as_there_is_data() {
    let mut r = Report::new(10, 10 * S);
    for i in 0..200 {
        r.timeline.answer(
            Timestamp::new(T0 + i * 10, 0),
            &rr_pool(),
            "pool",
            &["pe-1".to_string()],
            &[],
        );
    }
    let mut app = App::new("t", 10 * S, Palette::new(false));
    app.apply(Update {
        progress: done(),
        data: Some(Data::from_report(&r, 0, 0)),
    });
    let _ = draw(&mut app, 80, 24);
    let cols = app.viewport.chart_columns as u64;
    assert_eq!(cols, 50);
    for _ in 0..100 {
        app.handle(Action::Left);
    }
    assert_eq!(app.chart_back, 200 - cols);
    app.handle(Action::Right);
    assert_eq!(app.chart_back, 200 - cols - cols / 4);
}

#[test]
fn a_dhcp_pair_lists_its_servers_findings() {
    let pair = Subject::Server("a+b/dhcpv4".into());
    let mut r = Report::new(10, 10 * S);
    r.timeline.start(Timestamp::new(T0, 0));
    let t = Timestamp::new(T0 + 1, 0);
    r.timeline.answer(
        t,
        &pair,
        "DHCP pair (isc, split:128)",
        &["a".to_string()],
        &[("a".to_string(), 1.0, 1.0)],
    );
    for m in ["a", "b"] {
        r.timeline.describe(&pair, m, "primary".into(), Some(0.5));
    }
    for (frame, server) in [(7, "b"), (9, "c")] {
        r.push(
            Finding {
                frame,
                time: None,
                group: String::new(),
                rule: "dhcp.lb.no-answer",
                severity: Severity::Warning,
                subject: Subject::Server(server.into()),
                expected: serde_json::json!(null),
                observed: serde_json::json!(null),
                message: format!("{server} did not answer"),
            },
            t,
        );
    }
    let mut app = App::new(
        "pair.pcap",
        10 * S,
        crate::tui::palette::Palette::new(false),
    );
    app.apply(Update {
        progress: done(),
        data: Some(Data::from_report(&r, 0, 0)),
    });
    // Subjects by name: the pair, then the servers b and c.
    assert_eq!(selected_name(&app), "a+b/dhcpv4");
    assert_eq!(finding_frames(&app), vec![7], "b is a member, c is not");
    app.handle(Action::Down);
    assert_eq!(selected_name(&app), "b");
    assert_eq!(finding_frames(&app), vec![7]);
    app.handle(Action::Down);
    assert_eq!(selected_name(&app), "c");
    assert_eq!(finding_frames(&app), vec![9]);
}

#[test]
fn runs_of_alike_findings_fold_into_a_row_and_e_lists_each() {
    let mut app = outage_app();
    let rows: Vec<(u64, usize, u64)> = app
        .finding_lines()
        .map(|(f, fold)| (f.frame, fold.more, fold.last_frame))
        .collect();
    // The run 40-44 is one row; 45 (another rule) and 90 (a minute later) stand alone, and so
    // do the report's own three (alike only to each other in twos at most).
    assert_eq!(
        rows,
        vec![
            (12, 0, 0),
            (30, 0, 0),
            (31, 0, 0),
            (40, 4, 44),
            (45, 0, 0),
            (90, 0, 0)
        ]
    );
    assert_eq!(app.findings_listed(), 10);
    // Selecting the folded row and opening it opens its first finding's frame.
    app.handle(Action::NextPane);
    app.handle(Action::NextPane);
    app.handle(Action::NextPane);
    assert_eq!(app.focus, Pane::Findings);
    for _ in 0..3 {
        app.handle(Action::Down);
    }
    assert_eq!(app.selected_finding().map(|f| f.frame), Some(40));
    app.handle(Action::Enter);
    assert_eq!(app.take_detail_request(), Some(40));
    app.handle(Action::Back);
    assert_eq!(app.mode(), Mode::Normal);
    // e: each on its own row; the selection stays on its finding.
    app.handle(Action::ToggleEachFinding);
    assert_eq!(
        finding_frames(&app),
        vec![12, 30, 31, 40, 41, 42, 43, 44, 45, 90]
    );
    assert!(app.finding_lines().all(|(_, fold)| fold.more == 0));
    assert_eq!(app.selected_finding().map(|f| f.frame), Some(40));
    // Down to 43, then fold again: the selection goes to the row its run folds into.
    for _ in 0..3 {
        app.handle(Action::Down);
    }
    assert_eq!(app.selected_finding().map(|f| f.frame), Some(43));
    app.handle(Action::ToggleEachFinding);
    assert_eq!(app.selected_finding().map(|f| f.frame), Some(40));
    // A filter folds what it leaves: frames with a 4 in them.
    app.handle(Action::StartFilter);
    for c in "4".chars() {
        app.handle(Action::FilterChar(c));
    }
    app.handle(Action::FilterDone);
    let rows: Vec<(u64, usize)> = app
        .finding_lines()
        .map(|(f, fold)| (f.frame, fold.more))
        .collect();
    assert_eq!(rows, vec![(40, 4), (45, 0)]);
}
