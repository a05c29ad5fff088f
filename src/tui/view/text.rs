//! Small text helpers of the views: cutting to a width, times and numbers in few characters.

use ratatui::text::Line;

/// `s` cut to `width` characters, with `…` when something was cut.
pub fn fit(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(width - 1).collect();
    out.push('…');
    out
}

/// A time since the start of the capture, short: `0s`, `45s`, `2m30s`, `1h05m`, `2d03h`.
pub fn since_start(ns: u64) -> String {
    let s = ns / 1_000_000_000;
    let ms = (ns / 1_000_000) % 1000;
    match s {
        0 if ms > 0 => format!("{ms}ms"),
        0..=59 => format!("{s}s"),
        60..=3599 if s % 60 == 0 => format!("{}m", s / 60),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        3600..=86_399 => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
        _ => format!("{}d{:02}h", s / 86_400, (s % 86_400) / 3600),
    }
}

/// A value in at most five characters or so: `36`, `-6`, `2.5`, `12.3k`, `4.1M`.
pub fn compact(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() {
        "?".into()
    } else if a >= 1e9 {
        format!("{:.1}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// A share as a whole percentage: `40%`.
pub fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// Plain lines for a paragraph.
pub fn lines(v: &[String]) -> Vec<Line<'static>> {
    v.iter().map(|s| Line::raw(s.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitting() {
        assert_eq!(fit("abc", 3), "abc");
        assert_eq!(fit("abcd", 3), "ab…");
        assert_eq!(fit("abcd", 0), "");
    }

    #[test]
    fn short_times_and_numbers() {
        assert_eq!(since_start(0), "0s");
        assert_eq!(since_start(500_000_000), "500ms");
        assert_eq!(since_start(45_000_000_000), "45s");
        assert_eq!(since_start(150_000_000_000), "2m30s");
        assert_eq!(since_start(120_000_000_000), "2m");
        assert_eq!(since_start(3_900_000_000_000), "1h05m");
        assert_eq!(since_start(183_600_000_000_000), "2d03h");
        assert_eq!(compact(36.0), "36");
        assert_eq!(compact(-6.0), "-6");
        assert_eq!(compact(2.5), "2.5");
        assert_eq!(compact(12_345.0), "12.3k");
        assert_eq!(compact(4_100_000.0), "4.1M");
        assert_eq!(percent(0.4), "40%");
    }
}
