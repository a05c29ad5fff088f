//! The views drawn into ratatui's test backend, from the hand-made report of `super::report`:
//! whole-screen snapshots at 80x24 and 120x30 (the compact and the wide layout), and checks of the
//! cells that carry the data: the chart's letters at the rows their shares give, worked out by
//! hand below.
//!
//! The snapshots were checked against the report's numbers: RR-Pool's pe-1 (A) is first in 75 %,
//! 25 %, 100 % of the answers of its three windows and pe-2 (B) in 25 %, 75 %, 0 %, both expected
//! at 50 % (a, b); over the capture pe-1 has 8 of 12 (67 %), pe-2 4 (33 %). The failover pool's
//! free (F) is 22, 24, 36 and backup (B) 17, 20, 23, on an axis from 0 to 36.

use ratatui::style::Color;

use super::*;
use crate::field::Field;
use crate::proto::AppProtocol;
use crate::tui::app::{Action, DetailState, Pane};
use crate::tui::detail::{FrameDetail, MessageDetail};

/// Row `y` of a screen.
fn row(s: &str, y: usize) -> &str {
    s.lines().nth(y).unwrap_or_default()
}

/// The character at column `x` of row `y`.
fn at(s: &str, x: usize, y: usize) -> char {
    row(s, y).chars().nth(x).unwrap_or(' ')
}

/// Whether any cell has a colour or a modifier.
fn styled(b: &Buffer) -> bool {
    b.content()
        .iter()
        .any(|c| c.fg != Color::Reset || c.bg != Color::Reset || !c.modifier.is_empty())
}

fn detail_frame() -> FrameDetail {
    FrameDetail {
        number: 30,
        time: Timestamp::new(T0 + 13, 250_000_000),
        orig_len: 118,
        captured_len: 118,
        lower: "192.0.2.2 → 192.0.2.1 SCTP".into(),
        messages: vec![MessageDetail {
            protocol: AppProtocol::Asap,
            src: "192.0.2.2:3863".into(),
            dst: "192.0.2.1:49152".into(),
            transport: "sctp",
            info: "ASAP Handle Resolution Response".into(),
            fields: vec![
                Field::node("asap", "Aggregate Server Access Protocol", 0, 8)
                    .child(
                        Field::uint("asap.message_type", "Type", 6u8, 0, 1)
                            .note("ASAP Handle Resolution Response"),
                    )
                    .child(Field::uint("asap.message_length", "Length", 40u16, 2, 2)),
            ],
            errors: vec![crate::error::DecodeError::new(
                44,
                "parameter length 3 is shorter than its 4-byte header",
            )],
            reassembled_from: Vec::new(),
        }],
        lower_errors: Vec::new(),
    }
}

/// Asserts a whole screen, showing both in full when they differ.
fn assert_screen(got: &str, want: &str) {
    let want = want.strip_prefix('\n').unwrap_or(want);
    assert!(
        got == want,
        "the screen differs:\n--- got\n{got}--- want\n{want}"
    );
}

#[test]
fn pools_chart_members_and_findings_at_80x24() {
    let mut a = app();
    let s = screen(&mut a, 80, 24);
    assert_screen(&s, MAIN_80X24);
    // The plot: 10 rows from y=2 (100 %) to y=11 (0 %), so share v sits on row round((1-v)*9);
    // columns from x=29, three windows sharing the 50 cells: 16, 17 and 17 (edges i x 50 / 3).
    let col = |i: usize| 29 + i * 50 / 3;
    let y = |row: usize| 2 + row;
    // Window 0: A at 75 % (row 2.25 -> 2), B at 25 % (6.75 -> 7); both expected at 50 % (4.5 -> 5,
    // where a and b share the cells, alternating: neither hides the other).
    assert_eq!(at(&s, col(0), y(2)), 'A');
    assert_eq!(at(&s, col(0), y(7)), 'B');
    assert_eq!(at(&s, col(0), y(5)), 'a');
    assert_eq!(at(&s, col(0) + 1, y(5)), 'b');
    // Window 1: the other way round.
    assert_eq!(at(&s, col(1), y(2)), 'B');
    assert_eq!(at(&s, col(1), y(7)), 'A');
    // Window 2: A at 100 %, B at 0 %.
    assert_eq!(at(&s, col(2), y(0)), 'A');
    assert_eq!(at(&s, col(2), y(9)), 'B');
    assert_eq!(
        at(&s, col(2) + 16, y(9)),
        'B',
        "the last column is 17 cells wide"
    );
    assert_eq!(at(&s, col(2) + 17, y(9)), '│', "up to the pane's border");
    assert_eq!(
        at(&s, col(1) - 1, y(7)),
        'B',
        "the first column is 16 cells wide"
    );
    assert_eq!(at(&s, col(1), y(7)), 'A');
}

#[test]
fn wide_layout_at_120x30() {
    assert_screen(&screen(&mut app(), 120, 30), MAIN_120X30);
}

/// Servers named by DUIDs that differ only in their last bytes (as the Kea pair's do): the
/// pools and members panes cut them in the middle, so that each row still tells them apart.
#[test]
fn long_identifiers_stay_told_apart() {
    let s1 = "00:03:00:01:02:00:00:00:01:01";
    let s2 = "00:03:00:01:02:00:00:00:02:02";
    let pair = Subject::Server(format!("{s1}+{s2}/dhcpv6"));
    let when = |secs| Timestamp::new(T0 + secs, 0);
    let mut r = Report::new(10, 10 * S);
    r.timeline.start(when(0));
    let ids = [s1.to_string(), s2.to_string()];
    let exp = [(s1.to_string(), 0.5, 1.0), (s2.to_string(), 0.5, 1.0)];
    r.timeline
        .answer(when(1), &pair, "DHCP pair (kea)", &ids, &exp);
    for (m, role) in [(s1, "primary"), (s2, "secondary")] {
        r.timeline.describe(&pair, m, role.into(), Some(0.5));
    }
    for (frame, server) in [(7, s1), (9, s2)] {
        r.push(
            finding(
                frame,
                Subject::Server(server.into()),
                Severity::Warning,
                "dhcp.lb.no-answer",
                "did not answer",
            ),
            when(1),
        );
    }
    let mut app = app_of("kea.pcap", &r);
    let s = screen(&mut app, 80, 24);
    // The pools pane (by name: a server, the pair, the other server), every row distinct.
    let pools: Vec<&str> = (2..5).map(|y| row(&s, y)).collect();
    assert!(pools[0].contains("…:00:00:01:01 1"), "{s}");
    assert!(
        pools[1].contains("01:01+") && pools[1].contains("02:02 0"),
        "{s}"
    );
    assert!(pools[2].contains("…:00:00:02:02 1"), "{s}");
    // The pair's members pane: its two servers by the ends of their DUIDs.
    app.handle(Action::Down);
    let s = screen(&mut app, 80, 24);
    let a = s.lines().find(|l| l.contains("│A ")).expect("member A");
    let b = s.lines().find(|l| l.contains("│B ")).expect("member B");
    assert!(a.contains("01:01"), "{s}");
    assert!(b.contains("02:02"), "{s}");
}

/// A member's description is what the members pane is for: at 80 columns the pane widens (up to
/// half the row) until "load 30.0 %" or the DHCP role fits, where the old 3/8 of the row cut them
/// to "loa…"; a short description leaves the findings their room.
#[test]
fn member_descriptions_are_not_cut_at_80_columns() {
    let mut r = report();
    let pool = rr_pool();
    for (m, w) in [("pe-1", "load 30.0 %"), ("pe-2", "load 5.0 %")] {
        r.timeline.describe(&pool, m, w.to_string(), Some(0.5));
    }
    let mut a = app_of("test.pcap", &r);
    let s = screen(&mut a, 80, 24);
    assert!(
        row(&s, 16).starts_with("│A pe-1    67%  50%  load 30.0 %│"),
        "{s}"
    );
    assert!(
        row(&s, 17).starts_with("│B pe-2    33%  50%  load 5.0 % │"),
        "{s}"
    );
    // 33 cells: the pane's 3/8 of 80 (30) widened by three.
    let corner = |s: &str| row(s, 14).chars().position(|c| c == '┐');
    assert_eq!(corner(&s), Some(32), "{s}");
    // A DHCP pair's server is described by its role and buckets: at most 16 characters of it
    // are kept whole, the pane stopping at half the row.
    let mut r = report();
    let pair = Subject::Server("192.0.2.1+192.0.2.2/dhcpv4".into());
    let ids = ["192.0.2.1".to_string(), "192.0.2.2".to_string()];
    let exp = [(ids[0].clone(), 0.5, 0.5), (ids[1].clone(), 0.5, 0.5)];
    r.timeline.answer(
        Timestamp::new(T0 + 1, 0),
        &pair,
        "DHCP pair (profile kea)",
        &ids,
        &exp,
    );
    r.timeline.describe(
        &pair,
        &ids[0],
        "primary, 128 buckets of 256".into(),
        Some(0.5),
    );
    r.timeline.describe(
        &pair,
        &ids[1],
        "secondary, 128 buckets of 256".into(),
        Some(0.5),
    );
    let mut a = app_of("test.pcap", &r);
    let s = screen(&mut a, 80, 24);
    let pools: Vec<&str> = (2..5).map(|y| row(&s, y)).collect();
    let at = pools
        .iter()
        .position(|p| p.contains("192.0.2.1+"))
        .expect("the pair is listed");
    for _ in 0..at {
        a.handle(Action::Down);
    }
    let s = screen(&mut a, 80, 24);
    assert!(
        row(&s, 16).contains("192.0.2.1 100%  50%  primary, 128 b…"),
        "{s}"
    );
    // 2 + 14 + 9 + 16 = 41 cells wanted, 40 (half the row) given.
    assert_eq!(corner(&s), Some(39), "{s}");
}

/// Server pairs whose names the old cut made alike at 80 columns (`1…0.2.1+1…0.2.2` for both
/// address pairs): each keeps what tells it apart, no two rows read the same, and the chart
/// says that a pair's letters are its servers' shares of the balanced answers.
#[test]
fn server_pairs_are_told_apart_and_their_chart_named() {
    let pairs = [
        ("192.0.2.1", "192.0.2.2", "dhcpv4"),
        ("10.0.2.1", "10.0.2.2", "dhcpv4"),
        (
            "00:03:00:01:02:00:00:00:01:01",
            "00:03:00:01:02:00:00:00:02:02",
            "dhcpv6",
        ),
        (
            "00:03:00:01:aa:00:00:00:01:01",
            "00:03:00:01:aa:00:00:00:02:02",
            "dhcpv6",
        ),
    ];
    let mut r = Report::new(10, 10 * S);
    r.timeline.start(Timestamp::new(T0, 0));
    for (a, b, family) in pairs {
        let pair = Subject::Server(format!("{a}+{b}/{family}"));
        let ids = [a.to_string(), b.to_string()];
        let exp = [(a.to_string(), 1.0, 1.0), (b.to_string(), 0.0, 0.0)];
        r.timeline.answer(
            Timestamp::new(T0 + 1, 0),
            &pair,
            "DHCP pair (profile kea, buckets kea)",
            &ids,
            &exp,
        );
    }
    let mut app = app_of("pairs.pcap", &r);
    // The pool list's four rows, `cells` wide with its borders.
    let pools = |s: &str, cells: usize| -> Vec<String> {
        (2..6)
            .map(|y| row(s, y).chars().take(cells).collect())
            .collect()
    };
    let s = screen(&mut app, 80, 24);
    assert_eq!(
        pools(&s, 22),
        [
            // The Kea pairs differ only in their 13th character: too far in for the pair's form
            // in 16 characters, so each is cut as a whole where it tells them apart.
            "║> 00:03:00:01:0…v6 0║",
            "║  00:03:00:01:a…v6 0║",
            "║  10.0.2.1+…2      0║",
            "║  192.0.2.1+…2     0║",
        ],
        "{s}"
    );
    assert!(
        row(&s, 1).starts_with(
            "╔ Pools (4) ═════════╗┌ 00…:00:01:01+…02:02: share of balanced answers per 10s…┐"
        ),
        "{s}"
    );
    assert!(
        // The members pane is wider for the long ids, so the findings' title is shorter.
        row(&s, 14).contains("┌ Findings 00:…:00:00:01:01+…02:02 (0) ┐"),
        "{s}"
    );
    // Wider, the pairs keep their form.
    let s = screen(&mut app, 200, 50);
    assert_eq!(
        pools(&s, 40),
        [
            "║> 00:03:…01:02:00:00:00:01:01+…02:02 0║",
            "║  00:03:…01:aa:00:00:00:01:01+…02:02 0║",
            "║  10.0.2.1+10.0.2.2/dhcpv4           0║",
            "║  192.0.2.1+192.0.2.2/dhcpv4         0║",
        ],
        "{s}"
    );
    assert!(
        row(&s, 1).contains(
            "┌ 00:03:00:01:02:00:00:00:01:01+00:03:00:01:02:00:00:00:02:02/dhcpv6: share of \
             balanced answers per 10s, DHC…┐"
        ),
        "{s}"
    );
}

#[test]
fn gauge_only_subjects_chart_their_gauges() {
    let mut a = app();
    a.handle(Action::Down);
    let s = screen(&mut a, 80, 24);
    assert_screen(&s, GAUGES_80X24);
    // From 0 (y=11) to 36 (y=2): value v on row round((36-v)/36*9).
    let col = |i: usize| 29 + i * 50 / 3;
    assert_eq!(at(&s, col(0), 2 + 4), 'F', "free 22: row 3.5 -> 4");
    assert_eq!(at(&s, col(1), 2 + 3), 'F', "free 24: row 3");
    assert_eq!(at(&s, col(2), 2), 'F', "free 36: row 0");
    assert_eq!(at(&s, col(0), 2 + 5), 'B', "backup 17: row 4.75 -> 5");
    assert_eq!(at(&s, col(1), 2 + 4), 'B', "backup 20: row 4");
    assert_eq!(at(&s, col(2), 2 + 3), 'B', "backup 23: row 3.25 -> 3");
    assert_screen(&screen(&mut a, 120, 30), GAUGES_120X30);
}

#[test]
fn detail_of_a_finding_while_decoding_and_decoded() {
    let mut a = app();
    a.focus = Pane::Findings;
    a.handle(Action::Down);
    a.handle(Action::Enter);
    assert_screen(&screen(&mut a, 80, 24), DETAIL_LOADING_80X24);
    a.set_detail(30, DetailState::Ready(detail_frame()));
    assert_screen(&screen(&mut a, 80, 24), DETAIL_80X24);
    assert_screen(&screen(&mut a, 120, 30), DETAIL_120X30);
    // Scrolling: the view moves by wrapped lines and stops at the last page.
    let _ = screen(&mut a, 80, 12);
    for _ in 0..50 {
        a.handle(Action::Down);
    }
    let s = screen(&mut a, 80, 12);
    assert!(row(&s, 9).contains("      header]"), "{s}");
    a.handle(Action::Home);
    let s = screen(&mut a, 80, 12);
    assert!(row(&s, 2).contains("error rserpool.unknown-pe"), "{s}");
}

/// A finding about a DUID-named server, with JSON expectations and a deep field with a long value:
/// at 80 columns every line wraps between words (after a comma in JSON), never inside a key, a
/// number or an address, and continuations keep their level's indentation.
#[test]
fn detail_wraps_between_words() {
    let server = "00:03:00:01:02:00:00:00:02:02";
    let mut r = Report::new(10, 10 * S);
    r.timeline.start(Timestamp::new(T0, 0));
    let mut f = finding(
        1363,
        Subject::Server(server.into()),
        Severity::Warning,
        "dhcp.lb.no-answer",
        "did not answer the Solicit of frame 1363 (xid 0x26fedd, bucket 111 under kea) while it was \
         down, and nobody else answered; the client retried in frame 1404",
    );
    f.expected = serde_json::json!({
        "answer_from": [server], "bucket": 111, "hba": "kea", "profile": "kea",
        "stid": "00020000118b3bf175208898c1b0c09aa508"
    });
    r.push(f, Timestamp::new(T0 + 1, 0));
    let mut a = app_of("kea.pcap", &r);
    a.focus = Pane::Findings;
    a.handle(Action::Enter);
    let mut frame = detail_frame();
    frame.number = 1363;
    frame.messages[0].fields = vec![Field::node("dhcpv6", "DHCPv6", 0, 8).child(Field::string(
        "dhcpv6.option.value",
        "Vendor-specific Information",
        "enterprise 4491, data 0x0001000400000000 0x00020004ffffffff 0x0003000a",
        0,
        8,
    ))];
    frame.messages[0].errors.clear();
    a.set_detail(1363, DetailState::Ready(frame));
    let s = screen(&mut a, 80, 24);
    let body: Vec<&str> = (2..17).map(|y| row(&s, y)).collect();
    assert_eq!(
        body,
        [
            "║warning dhcp.lb.no-answer (server 00:03:00:01:02:00:00:00:02:02), frame 1363  ║",
            "║did not answer the Solicit of frame 1363 (xid 0x26fedd, bucket 111 under kea) ║",
            "║  while it was down, and nobody else answered; the client retried in frame    ║",
            "║  1404                                                                        ║",
            "║expected: {\"answer_from\":[\"00:03:00:01:02:00:00:00:02:02\"],\"bucket\":111,      ║",
            "║  \"hba\":\"kea\",\"profile\":\"kea\",\"stid\":\"00020000118b3bf175208898c1b0c09aa508\"}  ║",
            "║observed: \"pe-1\"                                                              ║",
            "║                                                                              ║",
            "║Frame 1363: 2023-11-14 22:13:33.250000000 UTC, 118 bytes on the wire, 118     ║",
            "║  captured                                                                    ║",
            "║192.0.2.2 → 192.0.2.1 SCTP                                                    ║",
            "║ASAP 192.0.2.2:3863 → 192.0.2.1:49152 (sctp): ASAP Handle Resolution Response ║",
            "║    DHCPv6                                                                    ║",
            "║        Vendor-specific Information: enterprise 4491, data 0x0001000400000000 ║",
            "║          0x00020004ffffffff 0x0003000a                                       ║",
        ],
        "{s}"
    );
}

#[test]
fn help_lists_every_key() {
    let mut a = app();
    a.handle(Action::Help);
    let s = screen(&mut a, 80, 24);
    assert_screen(&s, HELP_80X24);
    for (keys, what) in crate::tui::keys::HELP {
        assert!(s.contains(keys) && s.contains(what), "{keys}: {what}");
    }
    assert_screen(&screen(&mut a, 120, 30), HELP_120X30);
}

#[test]
fn typing_a_filter() {
    let mut a = app();
    a.handle(Action::StartFilter);
    for c in "192".chars() {
        a.handle(Action::FilterChar(c));
    }
    assert_screen(&screen(&mut a, 80, 24), FILTER_80X24);
}

#[test]
fn progress_while_a_file_loads() {
    let mut a = App::new("big.pcap.gz", 10 * S, Palette::new(false));
    a.apply(Update {
        progress: Progress {
            frames: 1234,
            messages: 567,
            bytes_read: Some(1_200_000),
            total_bytes: Some(2_700_000),
            ..Progress::default()
        },
        data: None,
    });
    assert_screen(&screen(&mut a, 80, 24), LOADING_80X24);
    assert_screen(&screen(&mut a, 120, 30), LOADING_120X30);
}

#[test]
fn colours_change_no_text_and_plain_mode_has_none() {
    let mut plain = app();
    let mut colour = app_with(true);
    let p = draw(&mut plain, 80, 24);
    let c = draw(&mut colour, 80, 24);
    assert_eq!(text(&p), text(&c), "the same text either way");
    assert!(!styled(&p), "no colour, no style");
    assert!(styled(&c));
    // In colour, A and B of the chart have their own colours, a (expected) that of A, dimmed.
    let fg = |x: u16, y: u16| c[(x, y)].fg;
    assert_eq!(c[(29u16, 4u16)].symbol(), "A");
    assert_eq!(c[(45u16, 4u16)].symbol(), "B");
    assert_ne!(fg(29, 4), fg(45, 4));
    // The focused pane is told by its double border in both modes.
    assert_eq!(p[(0u16, 1u16)].symbol(), "╔");
    assert_eq!(p[(22u16, 1u16)].symbol(), "┌");
}

/// Members with equal shares (a round robin of five, each first in one answer of five) sit at the
/// same height: every letter is drawn there, alternating, not only the last member's.
#[test]
fn members_at_the_same_height_are_all_drawn() {
    let pool = Subject::Pool("RR-Pool".into());
    let ids: Vec<String> = (1..=5).map(|i| format!("pe-{i}")).collect();
    let exp: Vec<(String, f64, f64)> = ids.iter().map(|m| (m.clone(), 0.2, 1.0)).collect();
    let mut r = Report::new(10, 10 * S);
    r.timeline.start(Timestamp::new(T0, 0));
    for k in 0..5 {
        let mut answer = ids.clone();
        answer.rotate_left(k);
        r.timeline.answer(
            Timestamp::new(T0 + 1, 0),
            &pool,
            "RSerPool pool (policy RR)",
            &answer,
            &exp,
        );
    }
    let mut a = app_of("rr.pcap", &r);
    let s = screen(&mut a, 80, 24);
    // 20 % on a plot of 10 rows (y=2 for 100 %): row round(0.8 x 9) = 7; the plot from x=29.
    let plot = |y: usize| -> String { row(&s, y).chars().skip(29).take(50).collect() };
    let line = plot(2 + 7);
    assert!(line.starts_with("ABCDEABCDE"), "{s}");
    for m in ['A', 'B', 'C', 'D', 'E'] {
        assert_eq!(
            line.chars().filter(|&c| c == m).count(),
            10,
            "{m} in every fifth cell: {s}"
        );
    }
    // The expectation is met by each: no lower-case letter drawn.
    assert!(
        (2..12).all(|y| !plot(y).chars().any(|c| c.is_ascii_lowercase())),
        "{s}"
    );
}

/// An interval that is not a whole number of seconds reads as it is: 1500 ms is `1.5s`, not
/// `1s`; the time axis ends at 4.5 s for three windows.
#[test]
fn an_interval_of_a_fraction_of_a_second_is_labelled_exactly() {
    let mut a = App::new("test.pcap", 1_500_000_000, Palette::new(false));
    let mut r = Report::new(10, 1_500_000_000);
    r.timeline.start(Timestamp::new(T0, 0));
    let ids = vec!["pe-1".to_string()];
    for secs in [0, 2, 4] {
        r.timeline.answer(
            Timestamp::new(T0 + secs, 0),
            &rr_pool(),
            "RSerPool pool (policy RR)",
            &ids,
            &[("pe-1".to_string(), 1.0, 1.0)],
        );
    }
    a.apply(Update {
        progress: done(),
        data: Some(Data::from_report(&r, 0, 0)),
    });
    let s = screen(&mut a, 80, 24);
    assert!(row(&s, 0).ends_with("per 1.5s  ? help"), "{s}");
    assert!(row(&s, 1).contains("first-place share per 1.5s"), "{s}");
    assert!(row(&s, 12).contains("4.5s"), "{s}");
}

/// A file cut short in its last record: the frames before it are shown, and the footer says what
/// was wrong with the file (the header counts it); nothing else would.
#[test]
fn a_problem_reading_the_file_is_told() {
    let mut a = app();
    a.apply(Update {
        progress: Progress {
            decode_errors: 1,
            source_errors: 1,
            last_source_error: Some(
                "frame 41 (file byte 5000): the file is truncated: it ends inside a packet record"
                    .into(),
            ),
            ..done()
        },
        data: None,
    });
    let s = screen(&mut a, 120, 30);
    assert!(row(&s, 0).contains("4 findings, 1 decode error "), "{s}");
    assert!(
        row(&s, 29)
            .starts_with(" Reading the file: frame 41 (file byte 5000): the file is truncated"),
        "{s}"
    );
    // At 80 columns the counts stay whole; the file's name gives way first.
    let s = screen(&mut a, 80, 24);
    assert!(
        row(&s, 0).starts_with(" test.pcap  40 frames, 36 messages, 4 findings, 1 decode error "),
        "{s}"
    );
}

/// The help does not fit a small screen: it scrolls, and says which lines it shows.
#[test]
fn the_help_scrolls_on_a_small_screen() {
    let mut a = app();
    a.handle(Action::Help);
    let s = screen(&mut a, 60, 16);
    assert!(row(&s, 1).contains("Keys (1-12 of"), "{s}");
    assert!(!s.contains("Ctrl-C"), "{s}");
    a.handle(Action::End);
    let s = screen(&mut a, 60, 16);
    assert!(s.contains("q  Ctrl-C       quit"), "{s}");
    assert!(s.contains("takeover, ◇ several."), "the last line: {s}");
    a.handle(Action::Home);
    let s = screen(&mut a, 60, 16);
    assert!(row(&s, 2).contains("↑ ↓  j k"), "{s}");
    // The footer names only the keys that work over the help.
    assert!(
        row(&s, 15).starts_with(" ↑↓ PgUp PgDn g G scroll  Esc close"),
        "{s}"
    );
}

#[test]
fn a_screen_too_small_says_so() {
    let s = screen(&mut app(), 39, 11);
    assert!(
        s.starts_with("poolshark needs a terminal of 40x12 at"),
        "{s}"
    );
}

const MAIN_80X24: &str = r#"
 poolshark  test.pcap  40 frames, 36 messages, 4 findings       per 10s  ? help
╔ Pools (2) ═════════╗┌ RR-Pool: first-place share per 10s, RSerPool pool (pol…┐
║> RR-Pool          3║│ 100%┤                                 AAAAAAAAAAAAAAAAA│
║  192.0.2.0/24     1║│     │                                                  │
║                    ║│     │AAAAAAAAAAAAAAAABBBBBBBBBBBBBBBBB                 │
║                    ║│     │                                                  │
║                    ║│     │                                                  │
║                    ║│     │ababababababababababababababababababababababababab│
║                    ║│     │                                                  │
║                    ║│     │BBBBBBBBBBBBBBBBAAAAAAAAAAAAAAAAA                 │
║                    ║│     │                                                  │
║                    ║│   0%┤                                 BBBBBBBBBBBBBBBBB│
║                    ║│     └0s──────────────10s──────────────20s───────────30s│
╚════════════════════╝└────────────────────────────────────────────────────────┘
┌ Members, 12 answers ───────┐┌ Findings RR-Pool (3) ──────────────────────────┐
│  member seen  exp  now     ││>    12 W rserpool.order: pe-1 answered first; …│
│A pe-1    67%  50%  weight 1││     30 E rserpool.unknown-pe: the answer names…│
│B pe-2    33%  50%  weight 1││     31 I rserpool.note: a note                 │
│                            ││                                                │
│                            ││                                                │
│                            ││                                                │
│                            ││                                                │
└────────────────────────────┘└────────────────────────────────────────────────┘
 Tab pane  ↑↓ move  ←→ time  Enter detail  +- interval  / filter  ? help  q quit
"#;

const MAIN_120X30: &str = r#"
 poolshark  test.pcap  40 frames, 36 messages, 4 findings                                               per 10s  ? help
╔ Pools (2) ═══════════╗┌ RR-Pool: first-place share per 10s, RSerPool pool (policy RR) ─┐┌ Members, 12 answers ───────┐
║> RR-Pool            3║│ 100%┤                                      AAAAAAAAAAAAAAAAAAAA││  member seen  exp  now     │
║  192.0.2.0/24       1║│     │                                                          ││A pe-1    67%  50%  weight 1│
║                      ║│     │                                                          ││B pe-2    33%  50%  weight 1│
║                      ║│     │AAAAAAAAAAAAAAAAAAABBBBBBBBBBBBBBBBBBB                    ││                            │
║                      ║│     │                                                          ││                            │
║                      ║│     │                                                          ││                            │
║                      ║│  50%┤ababababababababababababababababababababababababababababab││                            │
║                      ║│     │                                                          ││                            │
║                      ║│     │                                                          ││                            │
║                      ║│     │BBBBBBBBBBBBBBBBBBBAAAAAAAAAAAAAAAAAAA                    ││                            │
║                      ║│     │                                                          ││                            │
║                      ║│     │                                                          ││                            │
║                      ║│   0%┤                                      BBBBBBBBBBBBBBBBBBBB││                            │
║                      ║│     └0s─────────────────10s────────────────20s──────────────30s││                            │
║                      ║└────────────────────────────────────────────────────────────────┘│                            │
║                      ║┌ Findings RR-Pool (3) ──────────────────────────────────────────┐│                            │
║                      ║│>    12 W rserpool.order: pe-1 answered first; the reference pu…││                            │
║                      ║│     30 E rserpool.unknown-pe: the answer names a PE that never…││                            │
║                      ║│     31 I rserpool.note: a note                                 ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
╚══════════════════════╝└────────────────────────────────────────────────────────────────┘└────────────────────────────┘
 Tab pane  ↑↓ move  ←→ time  Enter detail  +- interval  / filter  ? help  q quit
"#;

const GAUGES_80X24: &str = r#"
 poolshark  test.pcap  40 frames, 36 messages, 4 findings       per 10s  ? help
╔ Pools (2) ═════════╗┌ 192.0.2.0/24: lease gauges per 10s, ISC failover pool ─┐
║  RR-Pool          3║│   36┤                                 FFFFFFFFFFFFFFFFF│
║> 192.0.2.0/24     1║│     │                                                  │
║                    ║│     │                                                  │
║                    ║│     │                FFFFFFFFFFFFFFFFFBBBBBBBBBBBBBBBBB│
║                    ║│     │FFFFFFFFFFFFFFFFBBBBBBBBBBBBBBBBB                 │
║                    ║│     │BBBBBBBBBBBBBBBB                                  │
║                    ║│     │                                                  │
║                    ║│     │                                                  │
║                    ║│     │                                                  │
║                    ║│    0┤                                                  │
║                    ║│     └0s──────────────10s──────────────20s───────────30s│
╚════════════════════╝└────────────────────────────────────────────────────────┘
┌ Gauges ────────────────────┐┌ Findings 192.0.2.0/24 (1) ─────────────────────┐
│  gauge      now   min   max││>    25 W failover.ownership: the primary's bal…│
│B backup      23    17    23││                                                │
│F free        36    22    36││                                                │
│                            ││                                                │
│                            ││                                                │
│                            ││                                                │
│                            ││                                                │
└────────────────────────────┘└────────────────────────────────────────────────┘
 Tab pane  ↑↓ move  ←→ time  Enter detail  +- interval  / filter  ? help  q quit
"#;

const GAUGES_120X30: &str = r#"
 poolshark  test.pcap  40 frames, 36 messages, 4 findings                                               per 10s  ? help
╔ Pools (2) ═══════════╗┌ 192.0.2.0/24: lease gauges per 10s, ISC failover pool ─────────┐┌ Gauges ────────────────────┐
║  RR-Pool            3║│   36┤                                      FFFFFFFFFFFFFFFFFFFF││  gauge      now   min   max│
║> 192.0.2.0/24       1║│     │                                                          ││B backup      23    17    23│
║                      ║│     │                                                          ││F free        36    22    36│
║                      ║│     │                                                          ││                            │
║                      ║│     │                   FFFFFFFFFFFFFFFFFFFBBBBBBBBBBBBBBBBBBBB││                            │
║                      ║│     │FFFFFFFFFFFFFFFFFFFBBBBBBBBBBBBBBBBBBB                    ││                            │
║                      ║│   18┤BBBBBBBBBBBBBBBBBBB                                       ││                            │
║                      ║│     │                                                          ││                            │
║                      ║│     │                                                          ││                            │
║                      ║│     │                                                          ││                            │
║                      ║│     │                                                          ││                            │
║                      ║│     │                                                          ││                            │
║                      ║│    0┤                                                          ││                            │
║                      ║│     └0s─────────────────10s────────────────20s──────────────30s││                            │
║                      ║└────────────────────────────────────────────────────────────────┘│                            │
║                      ║┌ Findings 192.0.2.0/24 (1) ─────────────────────────────────────┐│                            │
║                      ║│>    25 W failover.ownership: the primary's balance run moved 2…││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
╚══════════════════════╝└────────────────────────────────────────────────────────────────┘└────────────────────────────┘
 Tab pane  ↑↓ move  ←→ time  Enter detail  +- interval  / filter  ? help  q quit
"#;

const DETAIL_LOADING_80X24: &str = r#"
 poolshark  test.pcap  40 frames, 36 messages, 4 findings       per 10s  ? help
╔ Frame 30 (decoding), rserpool.unknown-pe: Esc closes, ↑↓ scroll ═════════════╗
║error rserpool.unknown-pe (pool RR-Pool), frame 30                            ║
║the answer names a PE that never registered                                   ║
║expected: "pe-2"                                                              ║
║observed: "pe-1"                                                              ║
║                                                                              ║
║Decoding frame 30 again…                                                      ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
╚══════════════════════════════════════════════════════════════════════════════╝
 ↑↓ PgUp PgDn g G scroll  Esc close  ? help  q quit
"#;

const DETAIL_80X24: &str = r#"
 poolshark  test.pcap  40 frames, 36 messages, 4 findings       per 10s  ? help
╔ Frame 30 (decoded), rserpool.unknown-pe: Esc closes, ↑↓ scroll ══════════════╗
║error rserpool.unknown-pe (pool RR-Pool), frame 30                            ║
║the answer names a PE that never registered                                   ║
║expected: "pe-2"                                                              ║
║observed: "pe-1"                                                              ║
║                                                                              ║
║Frame 30: 2023-11-14 22:13:33.250000000 UTC, 118 bytes on the wire, 118       ║
║  captured                                                                    ║
║192.0.2.2 → 192.0.2.1 SCTP                                                    ║
║ASAP 192.0.2.2:3863 → 192.0.2.1:49152 (sctp): ASAP Handle Resolution Response ║
║    Aggregate Server Access Protocol                                          ║
║        Type: ASAP Handle Resolution Response (6)                             ║
║        Length: 40                                                            ║
║    [asap error at byte 44: parameter length 3 is shorter than its 4-byte     ║
║      header]                                                                 ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
║                                                                              ║
╚══════════════════════════════════════════════════════════════════════════════╝
 ↑↓ PgUp PgDn g G scroll  Esc close  ? help  q quit
"#;

const DETAIL_120X30: &str = r#"
 poolshark  test.pcap  40 frames, 36 messages, 4 findings                                               per 10s  ? help
╔ Frame 30 (decoded), rserpool.unknown-pe: Esc closes, ↑↓ scroll ══════════════════════════════════════════════════════╗
║error rserpool.unknown-pe (pool RR-Pool), frame 30                                                                    ║
║the answer names a PE that never registered                                                                           ║
║expected: "pe-2"                                                                                                      ║
║observed: "pe-1"                                                                                                      ║
║                                                                                                                      ║
║Frame 30: 2023-11-14 22:13:33.250000000 UTC, 118 bytes on the wire, 118 captured                                      ║
║192.0.2.2 → 192.0.2.1 SCTP                                                                                            ║
║ASAP 192.0.2.2:3863 → 192.0.2.1:49152 (sctp): ASAP Handle Resolution Response                                         ║
║    Aggregate Server Access Protocol                                                                                  ║
║        Type: ASAP Handle Resolution Response (6)                                                                     ║
║        Length: 40                                                                                                    ║
║    [asap error at byte 44: parameter length 3 is shorter than its 4-byte header]                                     ║
║                                                                                                                      ║
║                                                                                                                      ║
║                                                                                                                      ║
║                                                                                                                      ║
║                                                                                                                      ║
║                                                                                                                      ║
║                                                                                                                      ║
║                                                                                                                      ║
║                                                                                                                      ║
║                                                                                                                      ║
║                                                                                                                      ║
║                                                                                                                      ║
║                                                                                                                      ║
║                                                                                                                      ║
╚══════════════════════════════════════════════════════════════════════════════════════════════════════════════════════╝
 ↑↓ PgUp PgDn g G scroll  Esc close  ? help  q quit
"#;

const HELP_80X24: &str = r#"
 poolshark  test.pcap  40 frames, 36 messages, 4 findings       per 10s  ? help
╔ ╔ Keys (Esc or ? closes) ══════════════════════════════════════════════════╗…┐
║>║ ↑ ↓  j k        move in the focused pane (the chart: next pool)          ║A│
║ ║ PgUp PgDn  g G  a page up or down, to the start or end                   ║ │
║ ║ ← →  h l        earlier or later in the chart                            ║ │
║ ║ Tab  Shift-Tab  next or previous pane                                    ║ │
║ ║ Enter           detail of the selected finding and its frame             ║ │
║ ║ +  -            longer or shorter chart interval, in round times         ║b│
║ ║ /               filter the pools (the findings when they have the focus) ║ │
║ ║ a               findings of all pools, or of the selected one            ║ │
║ ║ e               runs of alike findings folded (+N), or each on its row   ║ │
║ ║ ?               this help (↑ ↓ scroll it when it is cut)                 ║B│
║ ║ Esc             close the detail or help; cancel a filter, even one kept ║s│
╚═║ q  Ctrl-C       quit                                                     ║─┘
┌ ║                                                                          ║─┐
│ ║ Chart: A-Z each member's share (of first places in a pool, of balanced   ║…│
│A║ answers in a DHCP pair), a-z what the reference expected; without        ║…│
│B║ answers, the gauges (leases, PEs registered). Letters at one height      ║ │
│ ║ alternate (ABAB), * if a column is too narrow. Pool events on top: ▼     ║ │
│ ║ deregistration, ▲ re-registration, ◆ takeover, ◇ several.                ║ │
│ ║ Colours are off (NO_COLOR, a plain TERM, or --color never).              ║ │
│ ╚══════════════════════════════════════════════════════════════════════════╝ │
└────────────────────────────┘└────────────────────────────────────────────────┘
 ↑↓ PgUp PgDn g G scroll  Esc close  ? help  q quit
"#;

const HELP_120X30: &str = r#"
 poolshark  test.pcap  40 frames, 36 messages, 4 findings                                               per 10s  ? help
╔ Pools (2) ═══════════╗┌ RR-Pool: first-place share per 10s, RSerPool pool (policy RR) ─┐┌ Members, 12 answers ───────┐
║> RR-Pool            3║│ 100%┤                                      AAAAAAAAAAAAAAAAAAAA││  member seen  exp  now     │
║  192.0.2.0/24       1║│     │                                                          ││A pe-1    67%  50%  weight 1│
║                     ╔ Keys (Esc or ? closes) ══════════════════════════════════════════════════╗   33%  50%  weight 1│
║                     ║ ↑ ↓  j k        move in the focused pane (the chart: next pool)          ║                     │
║                     ║ PgUp PgDn  g G  a page up or down, to the start or end                   ║                     │
║                     ║ ← →  h l        earlier or later in the chart                            ║                     │
║                     ║ Tab  Shift-Tab  next or previous pane                                    ║                     │
║                     ║ Enter           detail of the selected finding and its frame             ║                     │
║                     ║ +  -            longer or shorter chart interval, in round times         ║                     │
║                     ║ /               filter the pools (the findings when they have the focus) ║                     │
║                     ║ a               findings of all pools, or of the selected one            ║                     │
║                     ║ e               runs of alike findings folded (+N), or each on its row   ║                     │
║                     ║ ?               this help (↑ ↓ scroll it when it is cut)                 ║                     │
║                     ║ Esc             close the detail or help; cancel a filter, even one kept ║                     │
║                     ║ q  Ctrl-C       quit                                                     ║                     │
║                     ║                                                                          ║                     │
║                     ║ Chart: A-Z each member's share (of first places in a pool, of balanced   ║                     │
║                     ║ answers in a DHCP pair), a-z what the reference expected; without        ║                     │
║                     ║ answers, the gauges (leases, PEs registered). Letters at one height      ║                     │
║                     ║ alternate (ABAB), * if a column is too narrow. Pool events on top: ▼     ║                     │
║                     ║ deregistration, ▲ re-registration, ◆ takeover, ◇ several.                ║                     │
║                     ║ Colours are off (NO_COLOR, a plain TERM, or --color never).              ║                     │
║                     ╚══════════════════════════════════════════════════════════════════════════╝                     │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
╚══════════════════════╝└────────────────────────────────────────────────────────────────┘└────────────────────────────┘
 ↑↓ PgUp PgDn g G scroll  Esc close  ? help  q quit
"#;

const FILTER_80X24: &str = r#"
 poolshark  test.pcap  40 frames, 36 messages, 4 findings       per 10s  ? help
╔ Pools /192 (1) ════╗┌ 192.0.2.0/24: lease gauges per 10s, ISC failover pool ─┐
║> 192.0.2.0/24     1║│   36┤                                 FFFFFFFFFFFFFFFFF│
║                    ║│     │                                                  │
║                    ║│     │                                                  │
║                    ║│     │                FFFFFFFFFFFFFFFFFBBBBBBBBBBBBBBBBB│
║                    ║│     │FFFFFFFFFFFFFFFFBBBBBBBBBBBBBBBBB                 │
║                    ║│     │BBBBBBBBBBBBBBBB                                  │
║                    ║│     │                                                  │
║                    ║│     │                                                  │
║                    ║│     │                                                  │
║                    ║│    0┤                                                  │
║                    ║│     └0s──────────────10s──────────────20s───────────30s│
╚════════════════════╝└────────────────────────────────────────────────────────┘
┌ Gauges ────────────────────┐┌ Findings 192.0.2.0/24 (1) ─────────────────────┐
│  gauge      now   min   max││>    25 W failover.ownership: the primary's bal…│
│B backup      23    17    23││                                                │
│F free        36    22    36││                                                │
│                            ││                                                │
│                            ││                                                │
│                            ││                                                │
│                            ││                                                │
└────────────────────────────┘└────────────────────────────────────────────────┘
 filter pools: /192_   Enter keeps it, Esc clears it
"#;

const LOADING_80X24: &str = r#"
 big.pcap.gz  loading 44% (1.2 MB of 2.7 MB), 1234 frames, 567… per 10s  ? help
╔ Pools (0) ═════════╗┌ Chart ─────────────────────────────────────────────────┐
║Reading…            ║│Reading big.pcap.gz                                     │
║                    ║│[#####################...........................] 44%  │
║                    ║│44% (1.2 MB of 2.7 MB), 1234 frames, 567 messages       │
║                    ║│                                                        │
║                    ║│                                                        │
║                    ║│                                                        │
║                    ║│                                                        │
║                    ║│                                                        │
║                    ║│                                                        │
║                    ║│                                                        │
║                    ║│                                                        │
╚════════════════════╝└────────────────────────────────────────────────────────┘
┌ Members ───────────────────┐┌ Findings (0) ──────────────────────────────────┐
│                            ││No findings yet.                                │
│                            ││                                                │
│                            ││                                                │
│                            ││                                                │
│                            ││                                                │
│                            ││                                                │
│                            ││                                                │
└────────────────────────────┘└────────────────────────────────────────────────┘
 Tab pane  ↑↓ move  ←→ time  Enter detail  +- interval  / filter  ? help  q quit
"#;

const LOADING_120X30: &str = r#"
 poolshark  big.pcap.gz  loading 44% (1.2 MB of 2.7 MB), 1234 frames, 567 messages, 0 findings          per 10s  ? help
╔ Pools (0) ═══════════╗┌ Chart ─────────────────────────────────────────────────────────┐┌ Members ───────────────────┐
║Reading…              ║│Reading big.pcap.gz                                             ││                            │
║                      ║│[#####################...........................] 44%          ││                            │
║                      ║│44% (1.2 MB of 2.7 MB), 1234 frames, 567 messages               ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║└────────────────────────────────────────────────────────────────┘│                            │
║                      ║┌ Findings (0) ──────────────────────────────────────────────────┐│                            │
║                      ║│No findings yet.                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
║                      ║│                                                                ││                            │
╚══════════════════════╝└────────────────────────────────────────────────────────────────┘└────────────────────────────┘
 Tab pane  ↑↓ move  ←→ time  Enter detail  +- interval  / filter  ? help  q quit
"#;

#[test]
fn a_folded_run_shows_its_count() {
    let mut app = outage_app();
    let s = screen(&mut app, 80, 24);
    assert!(
        s.contains("Findings RR-Pool (10 in 6 rows, e: each)"),
        "{s}"
    );
    let run = s
        .lines()
        .find(|l| l.contains("    40 "))
        .expect("the run's row");
    assert!(run.contains("    40 W +4 rserpool.no-answer"), "{s}");
    assert!(!s.contains("    41 "), "{s}");
    app.handle(Action::ToggleEachFinding);
    let s = screen(&mut app, 80, 24);
    assert!(s.contains("Findings RR-Pool (10)"), "{s}");
    assert!(s.contains("    41 W rserpool.no-answer"), "{s}");
}
