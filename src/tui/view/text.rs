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
pub fn fit_middle(s: &str, width: usize) -> String {
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

/// A time since the start of the capture (or a length of time), short and exact: `0s`, `45s`,
/// `1.5s`, `500ms`, `250us`, `2m30s`, `1h05m`, `2d03h`. The largest units first; a unit is left
/// out only when it and every smaller one are zero, so that an interval of 1.5 s does not read
/// `1s` (the window ends of a 1500ms interval are 1.5s, 3s, 4.5s, ...).
pub fn since_start(ns: u64) -> String {
    const S: u64 = 1_000_000_000;
    if ns < S {
        return match ns {
            0 => "0s".into(),
            n if n >= 1_000_000 => decimal(n, 1_000_000, "ms"),
            n if n >= 1_000 => decimal(n, 1_000, "us"),
            n => format!("{n}ns"),
        };
    }
    let (d, h, m) = (ns / (86_400 * S), ns / (3600 * S) % 24, ns / (60 * S) % 60);
    let sub_minute = ns % (60 * S);
    let mut out = String::new();
    // (value, unit, the rest below it): each unit printed from the first non-zero one on, the
    // ones after the first with two digits, up to the last with something left.
    let parts = [
        (d, "d", ns % (86_400 * S)),
        (h, "h", ns % (3600 * S)),
        (m, "m", sub_minute),
    ];
    for (v, unit, rest) in parts {
        if out.is_empty() && v == 0 {
            continue;
        }
        if out.is_empty() {
            out.push_str(&format!("{v}{unit}"));
        } else {
            out.push_str(&format!("{v:02}{unit}"));
        }
        if rest == 0 {
            return out;
        }
    }
    let secs = decimal(sub_minute, S, "s");
    if !out.is_empty() && sub_minute < 10 * S {
        out.push('0');
    }
    out.push_str(&secs);
    out
}

/// `n / unit` with as many decimals as it needs (none when whole), then `suffix`.
fn decimal(n: u64, unit: u64, suffix: &str) -> String {
    let whole = n / unit;
    let frac = n % unit;
    if frac == 0 {
        return format!("{whole}{suffix}");
    }
    let digits = unit.ilog10() as usize;
    let frac = format!("{frac:0digits$}");
    format!("{whole}.{}{suffix}", frac.trim_end_matches('0'))
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
        // Exact: a unit is dropped only when nothing is left below it.
        assert_eq!(since_start(1_500_000_000), "1.5s");
        assert_eq!(since_start(4_500_000_000), "4.5s");
        assert_eq!(since_start(500_000), "500us");
        assert_eq!(since_start(1_500_000), "1.5ms");
        assert_eq!(since_start(1_250), "1.25us");
        assert_eq!(since_start(7), "7ns");
        assert_eq!(since_start(61_500_000_000), "1m01.5s");
        assert_eq!(since_start(90_000_000_000), "1m30s");
        assert_eq!(since_start(3_930_000_000_000), "1h05m30s");
        assert_eq!(since_start(3_600_000_000_000), "1h");
        assert_eq!(since_start(86_401_000_000_000), "1d00h00m01s");
        assert_eq!(compact(36.0), "36");
        assert_eq!(compact(-6.0), "-6");
        assert_eq!(compact(2.5), "2.5");
        assert_eq!(compact(12_345.0), "12.3k");
        assert_eq!(compact(4_100_000.0), "4.1M");
        assert_eq!(percent(0.4), "40%");
    }
}
