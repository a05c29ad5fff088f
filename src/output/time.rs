//! Capture times as tshark 4.0 shows them: the listing's time column in each of tshark's `-t`
//! formats (and `-u hms`). (The text of `frame.time` and `frame.time_utc` is
//! [`crate::base::localtime::absolute_text`]; the dates a display filter compares `frame.time`
//! with are read in `filter::display`.)
//!
//! The listing shows a time with as many decimals as the capture's clock gives
//! ([`crate::source::Frame::ts_digits`]: 6 for microseconds, 9 for nanoseconds, 3 for a pcapng
//! interface counting milliseconds, ...), cut (not rounded) as tshark cuts them; `-T fields`
//! always shows nine. A difference (`r`, `d`, `dd`) is negative when the capture goes back in
//! time: `-0.500000`, with `-u hms` `- 0.500000s`.
//!
//! Local times (`-t a`, `ad`, `adoy`) are in the process's time zone ([`crate::base::localtime`]),
//! as tshark shows them.

use std::fmt::Write as _;

use crate::base::calendar::{days_from_civil, Civil};
use crate::base::localtime::local;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::localtime::absolute_text;

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
}
