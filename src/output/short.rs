//! Text in few characters, for the terminal UI's panes and the plot files' labels: names and
//! identifiers cut to a width, times and numbers short.

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
/// which is often all two identifiers share. A pair `A+B/FAMILY` first leaves out what B shares
/// with A (`192.0.2.1+…2`, `0…:01:01+…02:02`), then its family, then cuts A in its middle; where
/// even that leaves too little, each server's name is cut in its middle.
pub fn fit_id(s: &str, width: usize) -> String {
    fit_id_with(s, width, &fit_middle)
}

/// [`fit_id`] with `cut` to cut a name in its middle.
fn fit_id_with(s: &str, width: usize, cut: &dyn Fn(&str, usize) -> String) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    if let Some((a, rest)) = s.split_once('+') {
        let (b, family) = match rest.rfind('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        let shared = shared_prefix(a, b);
        let b_own = if shared > 0 {
            format!("…{}", b.chars().skip(shared).collect::<String>())
        } else {
            b.to_string()
        };
        // A whole, with its family or without; else A cut, keeping at least a character of its
        // start, the `…` and four of its end.
        let a_len = a.chars().count();
        const LEAST: usize = 6;
        for (family, least) in [(family, a_len), ("", a_len), ("", LEAST.min(a_len))] {
            let fixed = 1 + b_own.chars().count() + family.chars().count();
            if width >= fixed + least {
                return format!("{}+{b_own}{family}", cut(a, width - fixed));
            }
        }
        for family in [family, ""] {
            let room = width.saturating_sub(1 + family.chars().count());
            if room >= 2 * LEAST {
                let half = room / 2;
                return format!("{}+{}{family}", cut(a, half), cut(b, room - half));
            }
        }
    }
    cut(s, width)
}

/// A pane title ` BEFORE NAME KEPT TAIL ` in `room` characters: when it is too long the name
/// is shortened by [`fit_id`] (to no less than 12 characters) so that `kept` stays whole, and
/// then the end is cut (the tail first).
pub fn named_title(before: &str, name: &str, kept: &str, tail: &str, room: usize) -> String {
    let whole = format!(" {before}{name}{kept}{tail} ");
    if whole.chars().count() <= room {
        return whole;
    }
    let rest = before.chars().count() + kept.chars().count() + 2;
    let name = fit_id(name, room.saturating_sub(rest).max(12.min(room)));
    fit(&format!(" {before}{name}{kept}{tail} "), room)
}

/// Characters at the start of `b` that repeat `a`'s, up to the last `.` or `:` among them (so
/// that what is left of `b` is whole groups of digits), and never all of `b`.
fn shared_prefix(a: &str, b: &str) -> usize {
    let same = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    b.chars()
        .take(same.min(b.chars().count().saturating_sub(1)))
        .collect::<Vec<_>>()
        .iter()
        .rposition(|c| matches!(c, '.' | ':'))
        .map_or(0, |i| i + 1)
}

/// Names cut by [`fit_id`], each to its own width, then told apart: names that differ but would
/// read the same are cut again, each keeping as much of its start as lets them all differ (from
/// each other and from the rest): in the parts [`fit_id`] cuts, else as a whole, else numbered
/// (`~1`, `~2`, ...).
pub fn fit_ids(names: &[(&str, usize)]) -> Vec<String> {
    let mut out: Vec<String> = names.iter().map(|(n, w)| fit_id(n, *w)).collect();
    for i in 0..out.len() {
        let clash: Vec<usize> = (0..out.len())
            .filter(|&j| out[j] == out[i] && names[j].0 != names[i].0)
            .collect();
        if clash.is_empty() {
            continue;
        }
        let mut group = clash;
        group.push(i);
        let others: Vec<&String> = (0..out.len())
            .filter(|j| !group.contains(j))
            .map(|j| &out[j])
            .collect();
        let width = group.iter().map(|&j| names[j].1).min().unwrap_or(0);
        let distinct = |cut: &[String]| {
            cut.iter()
                .enumerate()
                .all(|(k, c)| !others.contains(&c) && cut.iter().skip(k + 1).all(|d| d != c))
        };
        let heads = |whole: bool| {
            (0..width).find_map(|head| {
                let at = |s: &str, w: usize| fit_middle_at(s, w, head);
                let cut: Vec<String> = group
                    .iter()
                    .map(|&j| match whole {
                        false => fit_id_with(names[j].0, width, &at),
                        true => at(names[j].0, width),
                    })
                    .collect();
                distinct(&cut).then_some(cut)
            })
        };
        let by_head = heads(false).or_else(|| heads(true));
        let cut = by_head.unwrap_or_else(|| {
            group
                .iter()
                .enumerate()
                .map(|(k, &j)| {
                    let tag = format!("~{}", k + 1);
                    let cut = fit_middle(names[j].0, width.saturating_sub(tag.len()));
                    format!("{cut}{tag}")
                })
                .collect()
        });
        for (&j, c) in group.iter().zip(cut) {
            out[j] = c;
        }
    }
    out
}

/// `s` cut to `width` characters by `…` in its middle: a quarter of what is kept from its start,
/// the rest from its end.
pub fn fit_middle(s: &str, width: usize) -> String {
    fit_middle_at(s, width, width.saturating_sub(1) / 4)
}

/// `s` cut to `width` characters by `…` after its first `head` (at most `width - 1`).
fn fit_middle_at(s: &str, width: usize, head: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let head = head.min(width - 1);
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
        // A pair: what the second server shares with the first left out, then the family, then
        // the first cut in its middle.
        let pair = format!("{s1}+{s2}/dhcpv6");
        assert_eq!(
            fit_id(&pair, 43),
            "00:03:00:01:02:00:00:00:01:01+…02:02/dhcpv6"
        );
        assert_eq!(fit_id(&pair, 36), "00:03:00:01:02:00:00:00:01:01+…02:02");
        assert_eq!(fit_id(&pair, 30), "00:03…02:00:00:00:01:01+…02:02");
        assert_eq!(fit_id(&pair, 15), "0…:01:01+…02:02");
        // Narrower still: the whole cut in its middle.
        assert_eq!(fit_id(&pair, 12), "00…02/dhcpv6");
        // Addresses keep their whole groups.
        assert_eq!(fit_id("192.0.2.1+192.0.2.2/dhcpv4", 16), "192.0.2.1+…2");
        assert_eq!(
            fit_id("192.0.2.1+192.0.2.2/dhcpv4", 19),
            "192.0.2.1+…2/dhcpv4"
        );
        assert_eq!(fit_id("10.0.0.1+10.0.0.12/dhcpv4", 12), "10.0.0.1+…12");
        // Nothing shared: each cut in its middle.
        assert_eq!(fit_id("10.1.1.1+192.168.1.1", 16), "1…1.1.1+1…68.1.1");
    }

    /// Names that differ never read the same in a list: two pairs of addresses that the old cut
    /// made `1…0.2.1+1…0.2.2` both, and DUIDs that differ only in their middle.
    #[test]
    fn listed_names_are_told_apart() {
        let a = "192.0.2.1+192.0.2.2/dhcpv4";
        let b = "10.0.2.1+10.0.2.2/dhcpv4";
        assert_eq!(
            fit_ids(&[(a, 16), (b, 16)]),
            ["192.0.2.1+…2", "10.0.2.1+…2"]
        );
        // Narrower, where the cut alone would make them alike: cut again so that they differ.
        assert_eq!(fit_id(a, 10), fit_id(b, 10));
        let cut = fit_ids(&[(a, 10), (b, 10)]);
        assert_ne!(cut[0], cut[1]);
        let names = [
            a,
            b,
            "192.0.2.1+192.0.2.2/dhcpv6",
            "00:03:00:01:02:00:00:00:01:01+00:03:00:01:02:00:00:00:02:02",
            "00:03:00:01:aa:00:00:00:01:01+00:03:00:01:aa:00:00:00:02:02",
            "00:03:00:01:02:00:00:00:01:01",
            "00:03:00:01:aa:00:00:00:01:01",
            "RR-Pool",
            "RR-Pool-2",
        ];
        for width in 6..70 {
            let listed: Vec<(&str, usize)> = names.iter().map(|n| (*n, width)).collect();
            let cut = fit_ids(&listed);
            for (i, c) in cut.iter().enumerate() {
                assert!(c.chars().count() <= width, "{c} wider than {width}");
                for d in &cut[i + 1..] {
                    assert_ne!(c, d, "at {width}: {cut:?}");
                }
            }
        }
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
