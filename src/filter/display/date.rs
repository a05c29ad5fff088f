//! The dates and times a display filter compares `frame.time` and `frame.time_utc` with
//! ([`parse_absolute`]), read as tshark 4.0 reads them.

use crate::base::calendar::{days_from_civil, Civil};
use crate::base::localtime::local_to_epoch;

/// A date and time a display filter compares `frame.time` with, as nanoseconds since the epoch.
/// The forms tshark 4.0 reads that poolshark reads too:
///
/// * `2026-12-02`, `2026-12-02 14:21`, `2026-12-02 14:21:51`, `2026-12-02T14:21:51.25`
///   (ISO 8601: a `T` or spaces between date and time, one or two digits for month, day, hour,
///   minute and second);
/// * `Dec  2, 2026 14:21:51.123` (the form `frame.time` shows; the month's three-letter name in
///   any case, seconds required);
///
/// then up to nine decimals of the second (only after seconds), then optionally the zone: `Z` or
/// `±hh:mm` / `±hhmm` right after the time (ISO form), or ` UTC`. Without a zone the time is
/// local, as in tshark. An error says what is wrong.
pub(super) fn parse_absolute(text: &str) -> Result<i128, String> {
    let s = text.trim();
    let (date, rest, named_month) = parse_date(s)?;
    let mut r = rest;
    let mut clock = (0u32, 0u32, 0u32);
    let mut has_seconds = false;
    let mut has_time = false;
    // The time: after `T` or spaces.
    let after_sep = if named_month {
        r.strip_prefix(' ').map(|x| x.trim_start())
    } else if let Some(x) = r.strip_prefix('T') {
        Some(x)
    } else {
        r.strip_prefix(' ').map(|x| x.trim_start())
    };
    if let Some(x) = after_sep.filter(|x| x.starts_with(|c: char| c.is_ascii_digit())) {
        let (h, x) = number(x, 2).ok_or("the hour is not a number")?;
        let (m, x) = match x.strip_prefix(':') {
            Some(x) => number(x, 2).ok_or("the minutes are not a number")?,
            None if !named_month && x.trim().is_empty() => (0, x),
            None => return Err("the time needs hours and minutes (14:21)".into()),
        };
        let (sec, x) = match x.strip_prefix(':') {
            Some(x) => {
                has_seconds = true;
                number(x, 2).ok_or("the seconds are not a number")?
            }
            None => (0, x),
        };
        if named_month && !has_seconds {
            return Err("after a month's name the time needs seconds (14:21:51)".into());
        }
        if h > 23 || m > 59 || sec > 60 {
            return Err(format!("{h:02}:{m:02}:{sec:02} is not a time of day"));
        }
        clock = (h, m, sec);
        has_time = true;
        r = x;
    } else if named_month {
        return Err("after a month's name the time needs seconds (14:21:51)".into());
    }
    let mut nanos = 0u32;
    if let Some(x) = r.strip_prefix('.') {
        if !has_seconds {
            return Err("decimals of a second need the seconds before them".into());
        }
        let n = x.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 || n > 9 {
            return Err("a second has one to nine decimals".into());
        }
        let digits = &x[..n];
        // At most nine digits: fits.
        nanos = digits.parse::<u32>().unwrap_or(0) * 10u32.pow(9 - n as u32);
        r = &x[n..];
    }
    let offset = parse_zone(r, named_month || !has_time)?;
    let (year, month, day) = date;
    let civil = Civil {
        year,
        month,
        day,
        hour: clock.0,
        minute: clock.1,
        second: clock.2,
    };
    let utc = || {
        days_from_civil(year, month, day) * 86_400
            + i64::from(clock.0) * 3600
            + i64::from(clock.1) * 60
            + i64::from(clock.2)
    };
    let secs = match offset {
        Some(off) => utc() - off,
        None => local_to_epoch(&civil).unwrap_or_else(utc),
    };
    Ok(i128::from(secs) * 1_000_000_000 + i128::from(nanos))
}

/// A date: year, month (1-12), day.
type Date = (i64, u32, u32);

/// The date at the start, the rest, and whether the month was named.
fn parse_date(s: &str) -> Result<(Date, &str, bool), String> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let bad = || {
        "not a date and time poolshark reads (\"2026-12-02 14:21:51\", \
         \"Dec  2, 2026 14:21:51.123\", \"2026-12-02T14:21:51Z\")"
            .to_string()
    };
    let named = s
        .get(..3)
        .map(str::to_ascii_lowercase)
        .and_then(|m| MONTHS.iter().position(|n| *n == m));
    let (y, m, d, rest, named_month) = match named {
        Some(i) => {
            let x = s
                .get(3..)
                .and_then(|x| x.strip_prefix(' '))
                .ok_or_else(bad)?;
            let (d, x) = number(x.trim_start(), 2).ok_or_else(bad)?;
            let x = x.strip_prefix(',').ok_or_else(bad)?.trim_start();
            let (y, x) = year(x).ok_or_else(bad)?;
            (y, i as u32 + 1, d, x, true)
        }
        None => {
            let (y, x) = year(s).ok_or_else(bad)?;
            let x = x.strip_prefix('-').ok_or_else(bad)?;
            let (m, x) = number(x, 2).ok_or_else(bad)?;
            let x = x.strip_prefix('-').ok_or_else(bad)?;
            let (d, x) = number(x, 2).ok_or_else(bad)?;
            (y, m, d, x, false)
        }
    };
    if !(1..=12).contains(&m) || d < 1 || d > crate::base::calendar::days_in_month(y, m) {
        return Err(format!("{y:04}-{m:02}-{d:02} is not a day of the calendar"));
    }
    Ok(((y, m, d), rest, named_month))
}

/// A year of four digits at the start, and the rest.
fn year(s: &str) -> Option<(i64, &str)> {
    let (y, rest) = number(s, 4)?;
    (rest.len() + 4 == s.len() && !rest.starts_with(|c: char| c.is_ascii_digit()))
        .then_some((i64::from(y), rest))
}

/// Up to `max` digits at the start (at least one), and the rest.
fn number(s: &str, max: usize) -> Option<(u32, &str)> {
    let n = s.bytes().take(max).take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    Some((s[..n].parse().ok()?, &s[n..]))
}

/// The zone after the time: its offset east of UTC in seconds, `None` for local time. `utc_only`:
/// only ` UTC` may follow (after a month's name, or a date without a time).
fn parse_zone(r: &str, utc_only: bool) -> Result<Option<i64>, String> {
    let trailing = |x: &str| -> Result<(), String> {
        if x.trim().is_empty() {
            Ok(())
        } else {
            Err(format!("unexpected '{}' after the time", x.trim()))
        }
    };
    if r.trim() == "UTC" {
        return Ok(Some(0));
    }
    if utc_only {
        trailing(r)?;
        return Ok(None);
    }
    if let Some(x) = r.strip_prefix('Z') {
        trailing(x)?;
        return Ok(Some(0));
    }
    if let Some(sign) = r.chars().next().filter(|c| *c == '+' || *c == '-') {
        let x = &r[1..];
        let (h, x) = number(x, 2)
            .filter(|(_, y)| y.len() + 2 == x.len())
            .ok_or_else(|| format!("the zone '{r}' is not ±hh:mm or ±hhmm"))?;
        let x = x.strip_prefix(':').unwrap_or(x);
        let (m, x) = number(x, 2)
            .filter(|(_, y)| y.len() + 2 == x.len())
            .ok_or_else(|| format!("the zone '{r}' is not ±hh:mm or ±hhmm"))?;
        trailing(x)?;
        if h > 23 || m > 59 {
            return Err(format!("the zone '{r}' is not ±hh:mm or ±hhmm"));
        }
        let off = i64::from(h * 3600 + m * 60);
        return Ok(Some(if sign == '-' { -off } else { off }));
    }
    trailing(r)?;
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tshark_dates_in_utc() {
        let ns = |s: &str| parse_absolute(s).map(|n| n - 1_704_067_200_000_000_000);
        // 2024-01-01 00:00:00.05 UTC, written as tshark 4.0 reads it.
        for text in [
            "2024-01-01T00:00:00.05Z",
            "2024-01-01 00:00:00.05 UTC",
            "2024-01-01 00:00:00.05UTC",
            "2024-01-01 00:00:00.050000000Z",
            "2024-01-01T05:30:00.05+05:30",
            "2024-01-01 05:30:00.05+0530",
            "2023-12-31T19:00:00.05-05:00",
            "Jan  1, 2024 00:00:00.05 UTC",
            "jan 1,2024 0:0:0.05 UTC",
            " 2024-1-1T0:0:0.05Z ",
        ] {
            assert_eq!(ns(text), Ok(50_000_000), "{text}");
        }
        assert_eq!(ns("2024-01-01 00:01Z"), Ok(60_000_000_000));
        assert_eq!(ns("2024-01-01 00:00:60Z"), Ok(60_000_000_000));
    }

    /// Refused, as tshark 4.0 refuses them; but for `2024-02-30` and `2024-01-01 00:00:00.`,
    /// which tshark reads (the first as March 1st) and poolshark takes for mistakes.
    #[test]
    fn refuses_what_is_no_date() {
        for text in [
            "January 1, 2024 00:00:00",
            "Jan  1, 2024 00:00",
            "Jan  1, 2024 00:00:00.05Z",
            "1704067200.05",
            "2024-01-01 00:00.05",
            "2024-01-01 00:00:00.",
            "2024-01-01 00:00:00.0500000001",
            "2024-01-01 00:00:00.05 Z",
            "2024-01-01 00:00:00.05 GMT",
            "2024-01-01 00:00:00 UTC x",
            "2024-01-01T0000",
            "2024-01-01T00Z",
            "2024-01-01Z",
            "2024-02-30",
            "24-01-01",
            "",
        ] {
            assert!(parse_absolute(text).is_err(), "{text}");
        }
    }
}
