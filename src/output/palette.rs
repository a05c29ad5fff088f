//! The colours of the pictures poolshark draws, shared by the terminal UI and the plot files so
//! that a server has the same colour in both: hues by role, each with its terminal colour (the
//! TUI maps a hue to one in its own palette) and its shade on paper (a white page needs
//! darker shades than a black terminal: yellow text on white cannot be read).

use crate::analyse::episodes::EpisodeKind;
use crate::analyse::finding::Severity;

/// A named colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hue {
    Cyan,
    Yellow,
    Magenta,
    Green,
    Blue,
    Red,
}

/// Colours of the series (members, gauges), in order; they repeat past the end.
pub const SERIES: [Hue; 6] = [
    Hue::Cyan,
    Hue::Yellow,
    Hue::Magenta,
    Hue::Green,
    Hue::Blue,
    Hue::Red,
];

/// The colour of series `i`.
pub fn series(i: usize) -> Hue {
    SERIES[i % SERIES.len()]
}

/// The colour of a finding's severity.
pub fn severity(s: Severity) -> Hue {
    match s {
        Severity::Error => Hue::Red,
        Severity::Warning => Hue::Yellow,
        Severity::Info => Hue::Blue,
    }
}

/// The colour of an episode's band; none for `normal`, the state a picture's background shows.
pub fn episode(k: EpisodeKind) -> Option<Hue> {
    match k {
        EpisodeKind::Normal => None,
        EpisodeKind::PeerSilent => Some(Hue::Red),
        EpisodeKind::Takeover => Some(Hue::Magenta),
        EpisodeKind::Recovery => Some(Hue::Green),
    }
}

impl Hue {
    /// Its shade for lines and text on a white page.
    pub fn ink(self) -> (u8, u8, u8) {
        match self {
            Hue::Cyan => (0x00, 0x8b, 0xa8),
            Hue::Yellow => (0xc2, 0x8a, 0x00),
            Hue::Magenta => (0xb0, 0x2a, 0xa0),
            Hue::Green => (0x2e, 0x8b, 0x3e),
            Hue::Blue => (0x2f, 0x6f, 0xd8),
            Hue::Red => (0xd0, 0x30, 0x30),
        }
    }

    /// A darker shade, for thin lines drawn over its ink.
    pub fn dark(self) -> (u8, u8, u8) {
        let (r, g, b) = self.ink();
        let dark = |c: u8| (u16::from(c) * 55 / 100) as u8;
        (dark(r), dark(g), dark(b))
    }

    /// Its light tint for areas behind lines (an episode's band).
    pub fn tint(self) -> (u8, u8, u8) {
        let (r, g, b) = self.ink();
        let light = |c: u8| 255 - (255 - u16::from(c)) * 22 / 100;
        (light(r) as u8, light(g) as u8, light(b) as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbouring_series_differ_and_tints_are_light() {
        for i in 0..SERIES.len() {
            assert_ne!(series(i), series(i + 1));
            let (r, g, b) = series(i).tint();
            assert!(r.min(g).min(b) > 180, "{:?}", series(i));
        }
        assert_eq!(series(0), series(SERIES.len()));
        assert_eq!(episode(EpisodeKind::Normal), None);
    }
}
