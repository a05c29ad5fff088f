//! Keys to actions. Pure: the event loop reads the key, this says what it means in the current
//! mode, and [`super::app::App::handle`] does it.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::app::{Action, Mode};

/// The help text: (keys, what they do). The help view shows it; the tests check it against
/// [`action`].
pub const HELP: &[(&str, &str)] = &[
    (
        "↑ ↓  j k",
        "move in the focused pane (the chart: next pool)",
    ),
    ("PgUp PgDn  g G", "a page up or down, to the start or end"),
    ("← →  h l", "earlier or later in the chart"),
    ("Tab  Shift-Tab", "next or previous pane"),
    ("Enter", "detail of the selected finding and its frame"),
    ("+  -", "longer or shorter chart interval, in round times"),
    (
        "/",
        "filter the pools (the findings when they have the focus)",
    ),
    ("a", "findings of all pools, or of the selected one"),
    (
        "e",
        "runs of alike findings folded (+N), or each on its row",
    ),
    ("?", "this help (↑ ↓ scroll it when it is cut)"),
    (
        "Esc",
        "close the detail or help; cancel a filter, even one kept",
    ),
    ("q  Ctrl-C", "quit"),
];

/// The help view's lines at `width` columns: each key with what it does (a description too long
/// for the line continues under its start), then what the chart shows. The model scrolls over
/// them and the view draws them, so both use this.
pub fn help_lines(width: usize, colour: bool) -> Vec<String> {
    let keys_w = HELP
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    let what_w = width.saturating_sub(keys_w + 2).max(12);
    let mut out = Vec::new();
    for (k, what) in HELP {
        let lines = super::wrap::wrap(&[what.to_string()], what_w);
        for (i, l) in lines.iter().enumerate() {
            let k = if i == 0 { *k } else { "" };
            out.push(format!("{k:<keys_w$}  {}", l.trim_start()));
        }
    }
    let mut notes = vec![
        String::new(),
        "Chart: A-Z each member's share (of first places in a pool, of balanced answers in \
         a DHCP pair), a-z what the reference expected; without answers, the gauges (leases, \
         PEs registered). Letters at one height alternate (ABAB), * if a column is too narrow. \
         Pool events on top: ▼ deregistration, ▲ re-registration, ◆ takeover, ◇ several."
            .to_string(),
    ];
    if !colour {
        notes.push("Colours are off (NO_COLOR, a plain TERM, or --color never).".into());
    }
    // The notes as wide as the table of keys, not wider.
    let table = out.iter().map(|l| l.chars().count()).max().unwrap_or(width);
    let notes = notes
        .into_iter()
        .flat_map(|n| super::wrap::wrap(&[n], width.min(table)))
        .map(|l| l.trim_start().to_string());
    out.extend(notes);
    out
}

/// What `key` means in `mode`; `None` for keys that mean nothing there.
pub fn action(key: KeyEvent, mode: Mode) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && matches!(key.code, KeyCode::Char('c')) {
        return Some(Action::Quit);
    }
    if mode == Mode::Filter {
        return match key.code {
            KeyCode::Esc => Some(Action::Back),
            KeyCode::Enter => Some(Action::FilterDone),
            KeyCode::Backspace => Some(Action::FilterBackspace),
            KeyCode::Char(c) if !ctrl => Some(Action::FilterChar(c)),
            _ => None,
        };
    }
    let a = match key.code {
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Esc => Action::Back,
        KeyCode::Up | KeyCode::Char('k') => Action::Up,
        KeyCode::Down | KeyCode::Char('j') => Action::Down,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::Home | KeyCode::Char('g') => Action::Home,
        KeyCode::End | KeyCode::Char('G') => Action::End,
        KeyCode::Char('?') => Action::Help,
        _ if mode == Mode::Overlay => return None,
        KeyCode::Left | KeyCode::Char('h') => Action::Left,
        KeyCode::Right | KeyCode::Char('l') => Action::Right,
        KeyCode::Tab => Action::NextPane,
        KeyCode::BackTab => Action::PrevPane,
        KeyCode::Enter => Action::Enter,
        KeyCode::Char('+') | KeyCode::Char('=') => Action::Coarser,
        KeyCode::Char('-') | KeyCode::Char('_') => Action::Finer,
        KeyCode::Char('/') => Action::StartFilter,
        KeyCode::Char('a') => Action::ToggleAllFindings,
        KeyCode::Char('e') => Action::ToggleEachFinding,
        _ => return None,
    };
    Some(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn normal_keys() {
        let n = Mode::Normal;
        assert_eq!(action(key(KeyCode::Char('j')), n), Some(Action::Down));
        assert_eq!(action(key(KeyCode::Down), n), Some(Action::Down));
        assert_eq!(action(key(KeyCode::Char('k')), n), Some(Action::Up));
        assert_eq!(action(key(KeyCode::Tab), n), Some(Action::NextPane));
        assert_eq!(action(key(KeyCode::BackTab), n), Some(Action::PrevPane));
        assert_eq!(action(key(KeyCode::Enter), n), Some(Action::Enter));
        assert_eq!(action(key(KeyCode::Char('+')), n), Some(Action::Coarser));
        assert_eq!(action(key(KeyCode::Char('-')), n), Some(Action::Finer));
        assert_eq!(
            action(key(KeyCode::Char('/')), n),
            Some(Action::StartFilter)
        );
        assert_eq!(action(key(KeyCode::Char('?')), n), Some(Action::Help));
        assert_eq!(action(key(KeyCode::Char('q')), n), Some(Action::Quit));
        assert_eq!(action(key(KeyCode::Esc), n), Some(Action::Back));
        assert_eq!(action(key(KeyCode::Char('x')), n), None);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action(ctrl_c, n), Some(Action::Quit));
    }

    #[test]
    fn typing_a_filter_takes_every_character() {
        let f = Mode::Filter;
        assert_eq!(
            action(key(KeyCode::Char('q')), f),
            Some(Action::FilterChar('q'))
        );
        assert_eq!(
            action(key(KeyCode::Char('/')), f),
            Some(Action::FilterChar('/'))
        );
        assert_eq!(
            action(key(KeyCode::Backspace), f),
            Some(Action::FilterBackspace)
        );
        assert_eq!(action(key(KeyCode::Enter), f), Some(Action::FilterDone));
        assert_eq!(action(key(KeyCode::Esc), f), Some(Action::Back));
    }

    #[test]
    fn overlays_scroll_and_close_but_do_not_act_below() {
        let o = Mode::Overlay;
        assert_eq!(action(key(KeyCode::Char('j')), o), Some(Action::Down));
        assert_eq!(action(key(KeyCode::Esc), o), Some(Action::Back));
        assert_eq!(action(key(KeyCode::Char('q')), o), Some(Action::Quit));
        assert_eq!(action(key(KeyCode::Enter), o), None);
        assert_eq!(action(key(KeyCode::Tab), o), None);
        assert_eq!(action(key(KeyCode::Char('+')), o), None);
    }

    #[test]
    fn releases_are_ignored() {
        let mut k = key(KeyCode::Char('j'));
        k.kind = KeyEventKind::Release;
        assert_eq!(action(k, Mode::Normal), None);
    }
}
