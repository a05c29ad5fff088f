//! The few colours the TUI uses, or none. Without colours every style is plain: series are told
//! apart by their letters, the focused pane by its double border and the selected row by its `>`
//! marker, all of which the colour mode draws too, so nothing depends on colour alone.

use std::ffi::OsStr;

use ratatui::style::{Color, Modifier, Style};

use crate::analyse::finding::Severity;

/// Colours of the series (members, gauges), in order; they repeat past the end.
const SERIES: [Color; 6] = [
    Color::Cyan,
    Color::Yellow,
    Color::Magenta,
    Color::Green,
    Color::LightBlue,
    Color::LightRed,
];

/// Terminals known to draw no colour.
const MONOCHROME_TERMS: [&str; 6] = ["", "dumb", "unknown", "vt100", "vt102", "vt220"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Palette {
    colour: bool,
}

impl Palette {
    pub fn new(colour: bool) -> Self {
        Palette { colour }
    }

    /// Whether to draw colours, from `NO_COLOR` and `TERM`: any non-empty `NO_COLOR` turns them
    /// off (no-color.org), and so does a missing, `dumb` or monochrome `TERM`.
    pub fn colour_wanted(no_color: Option<&OsStr>, term: Option<&OsStr>) -> bool {
        if no_color.is_some_and(|v| !v.is_empty()) {
            return false;
        }
        match term.and_then(|t| t.to_str()) {
            Some(t) => !MONOCHROME_TERMS.contains(&t),
            None => false,
        }
    }

    /// [`Palette::colour_wanted`] from this process's environment.
    pub fn from_env() -> Self {
        Palette::new(Palette::colour_wanted(
            std::env::var_os("NO_COLOR").as_deref(),
            std::env::var_os("TERM").as_deref(),
        ))
    }

    pub fn has_colour(&self) -> bool {
        self.colour
    }

    fn pick(&self, s: Style) -> Style {
        if self.colour {
            s
        } else {
            Style::default()
        }
    }

    pub fn border(&self, focused: bool) -> Style {
        if focused {
            self.pick(
                Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD),
            )
        } else {
            self.pick(Style::default().fg(Color::DarkGray))
        }
    }

    pub fn title(&self) -> Style {
        self.pick(Style::default().add_modifier(Modifier::BOLD))
    }

    /// The observed values of series `i`.
    pub fn series(&self, i: usize) -> Style {
        self.pick(Style::default().fg(SERIES[i % SERIES.len()]))
    }

    /// The expected values of series `i`: the same hue, dimmed.
    pub fn expected(&self, i: usize) -> Style {
        self.pick(
            Style::default()
                .fg(SERIES[i % SERIES.len()])
                .add_modifier(Modifier::DIM),
        )
    }

    pub fn severity(&self, s: Severity) -> Style {
        let c = match s {
            Severity::Error => Color::LightRed,
            Severity::Warning => Color::Yellow,
            Severity::Info => Color::LightBlue,
        };
        self.pick(Style::default().fg(c))
    }

    /// A count of deviations that is not zero.
    pub fn alert(&self) -> Style {
        self.pick(
            Style::default()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD),
        )
    }

    pub fn selected(&self) -> Style {
        self.pick(Style::default().add_modifier(Modifier::REVERSED))
    }

    /// A band of the chart's episode strip (a takeover, a server silent, a resync).
    pub fn episode(&self) -> Style {
        self.pick(
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        )
    }

    pub fn dim(&self) -> Style {
        self.pick(Style::default().fg(Color::DarkGray))
    }

    /// The header and footer bars.
    pub fn bar(&self) -> Style {
        self.pick(Style::default().fg(Color::Black).bg(Color::Gray))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanted(no_color: Option<&str>, term: Option<&str>) -> bool {
        Palette::colour_wanted(no_color.map(OsStr::new), term.map(OsStr::new))
    }

    #[test]
    fn no_color_and_plain_terminals_turn_colours_off() {
        assert!(wanted(None, Some("xterm-256color")));
        assert!(wanted(None, Some("screen")));
        // no-color.org: present and not empty.
        assert!(!wanted(Some("1"), Some("xterm-256color")));
        assert!(wanted(Some(""), Some("xterm")));
        assert!(!wanted(None, Some("dumb")));
        assert!(!wanted(None, Some("")));
        assert!(!wanted(None, None));
        assert!(!wanted(None, Some("vt100")));
    }

    #[test]
    fn plain_palette_has_no_style_at_all() {
        let p = Palette::new(false);
        for s in [
            p.border(true),
            p.border(false),
            p.series(0),
            p.expected(3),
            p.severity(Severity::Error),
            p.alert(),
            p.selected(),
            p.dim(),
            p.bar(),
            p.title(),
        ] {
            assert_eq!(s, Style::default());
        }
        assert_ne!(Palette::new(true).series(0), Palette::new(true).series(1));
    }
}
