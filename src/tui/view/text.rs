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

/// An identifier (a pool handle, a server's address or DUID, a pair of servers) cut to `width`
/// characters in its middle, with `…`: what tells one from another is more often at its end
/// (the last bytes of a DUID or a MAC address, the host part of an address) than at its start,
/// which is often all two identifiers share. A pair `A+B/FAMILY` is cut in each server's name,
/// so that both stay told apart; where even that leaves too little, without its family.
pub fn fit_id(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    if let Some((a, rest)) = s.split_once('+') {
        let (b, family) = match rest.rfind('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        // Each name keeps at least a character of its start, the `…` and four of its end.
        const LEAST: usize = 2 * 6;
        for family in [family, ""] {
            let room = width.saturating_sub(1 + family.chars().count());
            if room >= LEAST {
                let half = room / 2;
                return format!(
                    "{}+{}{family}",
                    fit_middle(a, half),
                    fit_middle(b, room - half)
                );
            }
        }
    }
    fit_middle(s, width)
}

/// `s` cut to `width` characters by `…` in its middle: a quarter of what is kept from its start,
/// the rest from its end.
fn fit_middle(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let head = (width - 1) / 4;
    let tail = width - 1 - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
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
    fn identifiers_keep_their_ends() {
        let s1 = "00:03:00:01:02:00:00:00:01:01";
        let s2 = "00:03:00:01:02:00:00:00:02:02";
        assert_eq!(fit_id(s1, 29), s1);
        assert_eq!(fit_id(s1, 16), "00:…:00:00:01:01");
        assert_eq!(fit_id(s2, 16), "00:…:00:00:02:02");
        assert_eq!(fit_id(s1, 1), "…");
        assert_eq!(fit_id(s1, 0), "");
        // A pair: each server cut, the family kept.
        let pair = format!("{s1}+{s2}/dhcpv6");
        let cut = fit_id(&pair, 30);
        assert_eq!(cut, "00…00:01:01+00…00:02:02/dhcpv6");
        assert_eq!(cut.chars().count(), 30);
        // Narrower: without the family; narrower still, the whole cut in its middle.
        assert_eq!(fit_id(&pair, 17), "0…:01:01+0…:02:02");
        assert_eq!(fit_id(&pair, 12), "00…02/dhcpv6");
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
