//! Capture times as tshark 4.0 shows them: the listing's time column in each of tshark's `-t`
//! formats (and `-u hms`), the text of `frame.time` and `frame.time_utc` in `-T fields`, and the
//! dates and times a display filter compares `frame.time` with.
//!
//! The listing shows a time with as many decimals as the capture's clock gives
//! ([`crate::source::Frame::ts_digits`]: 6 for microseconds, 9 for nanoseconds, 3 for a pcapng
//! interface counting milliseconds, ...), cut (not rounded) as tshark cuts them; `-T fields`
//! always shows nine. A difference (`r`, `d`, `dd`) is negative when the capture goes back in
//! time: `-0.500000`, with `-u hms` `- 0.500000s`.
//!
//! Local times (`-t a`, `ad`, `adoy`, `frame.time`, a filter's date without a zone) are in the
//! process's time zone (`TZ`, else the system's), as tshark shows them: on Linux through the C
//! library's `localtime_r` and `mktime`. Elsewhere poolshark has no time zone database and shows
//! them in UTC.

use std::fmt::Write as _;

use crate::base::calendar::{days_from_civil, Civil};
use crate::base::Timestamp;

/// tshark's `-t`: what the listing's time column shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum TimeFormat {
    /// Local time of day (tshark's `a`).
    #[value(name = "a")]
    Absolute,
    /// Local date and time (`ad`).
    #[value(name = "ad")]
    AbsoluteDate,
    /// Local year/day of the year and time (`adoy`).
    #[value(name = "adoy")]
    AbsoluteDoy,
    /// Seconds since the frame read before (`d`).
    #[value(name = "d")]
    Delta,
    /// Seconds since the frame shown before, which depends on -Y (`dd`).
    #[value(name = "dd")]
    DeltaDisplayed,
    /// Seconds since the Unix epoch (`e`).
    #[value(name = "e")]
    Epoch,
    /// Seconds since the first frame (`r`, the default).
    #[default]
    #[value(name = "r")]
    Relative,
    /// UTC time of day (`u`).
    #[value(name = "u")]
    Utc,
    /// UTC date and time (`ud`).
    #[value(name = "ud")]
    UtcDate,
    /// UTC year/day of the year and time (`udoy`).
    #[value(name = "udoy")]
    UtcDoy,
}

/// tshark's `-u`: how the differences (`-t r`, `d`, `dd`) show seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SecondsFormat {
    /// Seconds: `3725.000000`.
    #[default]
    #[value(name = "s")]
    Seconds,
    /// Hours, minutes and seconds: `1h  2m  5.000000s`.
    #[value(name = "hms")]
    Hms,
}

/// The listing's time column: the format and how differences show seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeColumn {
    pub format: TimeFormat,
    pub seconds: SecondsFormat,
}

/// A frame's time and the times the differences count from.
#[derive(Clone, Copy, Debug)]
pub struct FrameTimes {
    pub time: Timestamp,
    /// Decimals the capture's clock gives (0 to 9).
    pub digits: u8,
    /// The first frame read.
    pub first: Timestamp,
    /// The frame read before this one (this frame's own time for the first).
    pub prev: Timestamp,
    /// The frame shown before this one (this frame's own time when none was).
    pub prev_displayed: Timestamp,
}

impl TimeColumn {
    /// The column's text for a frame, appended to `out`.
    pub fn write(&self, out: &mut String, t: &FrameTimes) {
        let digits = t.digits.min(9);
        let hms = self.seconds == SecondsFormat::Hms;
        let difference = |out: &mut String, earlier: Timestamp| {
            let d = nanos(t.time) - nanos(earlier);
            if hms {
                write_hms(out, d, digits);
            } else {
                write_seconds(out, d, digits);
            }
        };
        match self.format {
            TimeFormat::Relative => difference(out, t.first),
            TimeFormat::Delta => difference(out, t.prev),
            TimeFormat::DeltaDisplayed => difference(out, t.prev_displayed),
            TimeFormat::Epoch => write_seconds(out, nanos(t.time), digits),
            TimeFormat::Absolute | TimeFormat::AbsoluteDate | TimeFormat::AbsoluteDoy => {
                let (civil, _) = local(t.time.secs);
                write_clock(out, self.format, &civil, t.time.nanos, digits);
            }
            TimeFormat::Utc | TimeFormat::UtcDate | TimeFormat::UtcDoy => {
                let civil = Civil::from_epoch(t.time.secs);
                write_clock(out, self.format, &civil, t.time.nanos, digits);
            }
        }
    }
}

/// Nanoseconds since the epoch.
fn nanos(t: Timestamp) -> i128 {
    i128::from(t.secs) * 1_000_000_000 + i128::from(t.nanos)
}

/// The first `digits` decimals of a count of nanoseconds below a second, after a point (nothing
/// for none).
fn write_fraction(out: &mut String, nanos: u32, digits: u8) {
    if digits > 0 {
        let cut = nanos / 10u32.pow(9 - u32::from(digits));
        let _ = write!(out, ".{cut:0width$}", width = usize::from(digits));
    }
}

/// Signed seconds with `digits` decimals: `-0.500000`, `12.000000`. As in tshark, the sign is
/// left out when what is shown is zero (-0.000999 with three decimals shows `0.000`).
fn write_seconds(out: &mut String, ns: i128, digits: u8) {
    let abs = ns.unsigned_abs();
    let shown = abs / 10u128.pow(9 - u32::from(digits));
    if ns < 0 && shown > 0 {
        out.push('-');
    }
    let _ = write!(out, "{}", abs / 1_000_000_000);
    // Below 10^9: fits.
    write_fraction(out, (abs % 1_000_000_000) as u32, digits);
}

/// tshark's `-u hms`: `- 13m 19.999998s`, `24h  0m  0.000006s`, `0.500000s` (the seconds two
/// wide when minutes or hours come first, as in tshark; the sign even when what is shown is zero,
/// `- 0.000s`, as tshark writes it here).
fn write_hms(out: &mut String, ns: i128, digits: u8) {
    if ns < 0 {
        out.push_str("- ");
    }
    let abs = ns.unsigned_abs();
    let secs = abs / 1_000_000_000;
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if secs >= 3600 {
        let _ = write!(out, "{h}h {m:2}m {s:2}");
    } else if secs >= 60 {
        let _ = write!(out, "{m}m {s:2}");
    } else {
        let _ = write!(out, "{s}");
    }
    write_fraction(out, (abs % 1_000_000_000) as u32, digits);
    out.push('s');
}

/// A time of day, after its date for the `ad`/`ud` and `adoy`/`udoy` formats.
fn write_clock(out: &mut String, format: TimeFormat, c: &Civil, nanos: u32, digits: u8) {
    match format {
        TimeFormat::AbsoluteDate | TimeFormat::UtcDate => {
            let _ = write!(out, "{:04}-{:02}-{:02} ", c.year, c.month, c.day);
        }
        TimeFormat::AbsoluteDoy | TimeFormat::UtcDoy => {
            let _ = write!(out, "{:04}/{:03} ", c.year, day_of_year(c));
        }
        _ => {}
    }
    let _ = write!(out, "{:02}:{:02}:{:02}", c.hour, c.minute, c.second);
    write_fraction(out, nanos, digits);
}

/// 1 for January 1st, 366 for December 31st of a leap year.
pub fn day_of_year(c: &Civil) -> i64 {
    days_from_civil(c.year, c.month, c.day) - days_from_civil(c.year, 1, 1) + 1
}

/// A time as `-T fields` shows `frame.time` (`utc`: `frame.time_utc`), as tshark 4.0 writes
/// absolute times: `Jan  1, 2024 05:30:00.010000000 IST`, with the time zone's abbreviation.
pub fn absolute_text(t: Timestamp, utc: bool) -> String {
    let (c, zone) = if utc {
        (Civil::from_epoch(t.secs), "UTC".to_string())
    } else {
        local(t.secs)
    };
    format!(
        "{} {:2}, {} {:02}:{:02}:{:02}.{:09} {zone}",
        c.month_abbrev(),
        c.day,
        c.year,
        c.hour,
        c.minute,
        c.second,
        t.nanos
    )
}

/// The local date and time of a second since the epoch, and the zone's abbreviation (`IST`,
/// `EST`); in UTC when the C library cannot tell (and off Linux).
pub fn local(secs: i64) -> (Civil, String) {
    match zone::local(secs) {
        Some((offset, name)) => (Civil::from_epoch(secs.saturating_add(offset)), name),
        None => (Civil::from_epoch(secs), "UTC".to_string()),
    }
}

/// The seconds since the epoch of a local date and time (`mktime`, which tells whether summer
/// time applies); `None` when the C library cannot tell (then the caller takes UTC).
fn local_to_epoch(c: &Civil) -> Option<i64> {
    zone::to_epoch(c)
}

#[cfg(target_os = "linux")]
mod zone {
    use std::ffi::CStr;
    use std::sync::Once;

    use crate::base::calendar::Civil;

    extern "C" {
        /// POSIX: reads `TZ` (or the system's zone) into the C library's state.
        fn tzset();
    }

    static TZSET: Once = Once::new();

    fn init() {
        // SAFETY: tzset takes no arguments and only sets the C library's time zone state; the
        // Once keeps it from running concurrently with itself.
        TZSET.call_once(|| unsafe { tzset() });
    }

    /// The offset from UTC in seconds and the zone's abbreviation at `secs`.
    pub fn local(secs: i64) -> Option<(i64, String)> {
        init();
        let t = libc::time_t::try_from(secs).ok()?;
        // SAFETY: `tm` is plain data (integers and a pointer) for which all zeros is valid;
        // localtime_r writes only into it and returns null on failure; `tm_zone`, when not
        // null, points to a NUL-terminated string the C library keeps alive.
        unsafe {
            let mut tm: libc::tm = std::mem::zeroed();
            if libc::localtime_r(&t, &mut tm).is_null() {
                return None;
            }
            let name = if tm.tm_zone.is_null() {
                String::new()
            } else {
                CStr::from_ptr(tm.tm_zone).to_string_lossy().into_owned()
            };
            Some((tm.tm_gmtoff, name))
        }
    }

    /// `mktime` of a local date and time, summer time decided by the C library.
    pub fn to_epoch(c: &Civil) -> Option<i64> {
        init();
        let year = i32::try_from(c.year - 1900).ok()?;
        // SAFETY: as above; mktime reads and normalises the fields of `tm` only.
        let t = unsafe {
            let mut tm: libc::tm = std::mem::zeroed();
            tm.tm_year = year;
            tm.tm_mon = c.month as i32 - 1;
            tm.tm_mday = c.day as i32;
            tm.tm_hour = c.hour as i32;
            tm.tm_min = c.minute as i32;
            tm.tm_sec = c.second as i32;
            tm.tm_isdst = -1;
            libc::mktime(&mut tm)
        };
        // -1 is also 1969-12-31 23:59:59 UTC, which tshark refuses as well.
        (t != -1).then_some(t)
    }
}

#[cfg(not(target_os = "linux"))]
mod zone {
    use crate::base::calendar::Civil;

    /// No time zone database off Linux: local time is UTC.
    pub fn local(_secs: i64) -> Option<(i64, String)> {
        None
    }

    pub fn to_epoch(_c: &Civil) -> Option<i64> {
        None
    }
}

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
pub fn parse_absolute(text: &str) -> Result<i128, String> {
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

    fn column(format: TimeFormat, seconds: SecondsFormat, t: FrameTimes) -> String {
        let mut out = String::new();
        TimeColumn { format, seconds }.write(&mut out, &t);
        out
    }

    fn times(time: Timestamp, digits: u8, first: Timestamp) -> FrameTimes {
        FrameTimes {
            time,
            digits,
            first,
            prev: first,
            prev_displayed: time,
        }
    }

    /// Texts checked against tshark 4.0 on captures crafted with these times.
    #[test]
    fn formats_as_tshark() {
        use SecondsFormat::{Hms, Seconds};
        use TimeFormat::*;
        // 2024-02-29 00:00:00.000250 (a leap day), the first frame 0.5 s later.
        let t = Timestamp::new(1_709_164_800, 250_000);
        let first = Timestamp::new(1_709_164_800, 500_000_000);
        let at = times(t, 6, first);
        assert_eq!(column(Relative, Seconds, at), "-0.499750");
        assert_eq!(column(Relative, Hms, at), "- 0.499750s");
        assert_eq!(column(Delta, Seconds, at), "-0.499750");
        assert_eq!(column(DeltaDisplayed, Seconds, at), "0.000000");
        assert_eq!(column(Epoch, Seconds, at), "1709164800.000250");
        assert_eq!(column(Utc, Seconds, at), "00:00:00.000250");
        assert_eq!(column(UtcDate, Seconds, at), "2024-02-29 00:00:00.000250");
        assert_eq!(column(UtcDoy, Seconds, at), "2024/060 00:00:00.000250");
        // Nanoseconds, cut to the clock's decimals rather than rounded.
        let ns = Timestamp::new(1_709_164_799, 999_999_999);
        let base = Timestamp::new(1_709_164_799, 0);
        assert_eq!(column(Relative, Seconds, times(ns, 9, base)), "0.999999999");
        assert_eq!(column(Relative, Seconds, times(ns, 6, base)), "0.999999");
        assert_eq!(column(Relative, Seconds, times(ns, 3, base)), "0.999");
        assert_eq!(column(Relative, Seconds, times(ns, 0, base)), "0");
        assert_eq!(column(Relative, Hms, times(ns, 0, base)), "0s");
        // Back by less than what is shown: no sign in seconds, a sign with -u hms.
        let back = times(
            Timestamp::new(1_709_164_799, 999_000_001),
            3,
            Timestamp::new(1_709_164_800, 0),
        );
        assert_eq!(column(Relative, Seconds, back), "0.000");
        assert_eq!(column(Relative, Hms, back), "- 0.000s");
        // Hours and minutes, and a negative difference past a minute.
        let later = Timestamp::new(1_709_164_800 + 86_400, 6_000);
        assert_eq!(
            column(
                Relative,
                Hms,
                times(later, 6, Timestamp::new(1_709_164_800, 0))
            ),
            "24h  0m  0.000006s"
        );
        let back = Timestamp::new(1_709_164_000, 1_000);
        assert_eq!(
            column(
                Relative,
                Hms,
                times(back, 6, Timestamp::new(1_709_164_799, 999_999_000))
            ),
            "- 13m 19.999998s"
        );
        // Day of the year: the 366th of a leap year, the 365th of another.
        let eve = Timestamp::new(1_735_689_599, 999_999_000);
        assert_eq!(
            column(UtcDoy, Seconds, times(eve, 6, eve)),
            "2024/366 23:59:59.999999"
        );
        let eve23 = Timestamp::new(1_704_067_199, 0);
        assert_eq!(
            column(UtcDoy, Seconds, times(eve23, 6, eve23)),
            "2023/365 23:59:59.000000"
        );
        assert_eq!(
            column(
                UtcDate,
                Seconds,
                times(Timestamp::new(951_782_400, 1_000), 6, eve)
            ),
            "2000-02-29 00:00:00.000001"
        );
        assert_eq!(
            absolute_text(Timestamp::new(1_704_067_200, 10_000_000), true),
            "Jan  1, 2024 00:00:00.010000000 UTC"
        );
    }

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
