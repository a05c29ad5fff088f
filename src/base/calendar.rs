//! Calendar arithmetic for showing times in UTC and reading dates (the proleptic Gregorian
//! calendar, no time zone database): one place for what the capture times, the failover
//! protocol's times, DUID times and `dhcpd.leases` dates need.

use std::fmt;

use super::Timestamp;

const SECS_PER_DAY: i64 = 86_400;
/// Days from 0000-03-01 to 1970-01-01: the eras below start on a March 1st, so that a leap day
/// is the last day of its year.
const EPOCH_SHIFT: i64 = 719_468;
const DAYS_PER_ERA: i64 = 146_097;

pub fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// Days in `month` (1-12) of `year`; 0 for a month out of range.
pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// The date (year, month 1-12, day 1-31) of a count of days from 1970-01-01 (negative before).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + EPOCH_SHIFT;
    let era = z.div_euclid(DAYS_PER_ERA);
    let doe = z.rem_euclid(DAYS_PER_ERA);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    // In range by construction: day 1..=31, month 1..=12.
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Days from 1970-01-01 to a date (the inverse of [`civil_from_days`]); the date is not checked.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let (month, day) = (i64::from(month), i64::from(day));
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * DAYS_PER_ERA + doe - EPOCH_SHIFT
}

/// A second since the Unix epoch as a UTC date and time of day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

impl Civil {
    pub fn from_epoch(secs: i64) -> Civil {
        let (year, month, day) = civil_from_days(secs.div_euclid(SECS_PER_DAY));
        // 0..86_400: fits.
        let rem = secs.rem_euclid(SECS_PER_DAY) as u32;
        Civil {
            year,
            month,
            day,
            hour: rem / 3600,
            minute: rem / 60 % 60,
            second: rem % 60,
        }
    }

    /// The month's English abbreviation, as Wireshark writes absolute times ("Nov").
    pub fn month_abbrev(&self) -> &'static str {
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        self.month
            .checked_sub(1)
            .and_then(|i| MONTHS.get(i as usize))
            .copied()
            .unwrap_or("Jan")
    }
}

/// `YYYY-MM-DD HH:MM:SS`.
impl fmt::Display for Civil {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// A capture time as tshark shows it with `-t ud`: `2026-11-30 03:54:50.123456` (microseconds,
/// or nanoseconds when the time has them), UTC. From [`Timestamp::utc`].
#[derive(Clone, Copy, Debug)]
pub struct Utc(pub Timestamp);

impl fmt::Display for Utc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Timestamp { secs, nanos } = self.0;
        let civil = Civil::from_epoch(secs);
        if nanos % 1000 == 0 {
            write!(f, "{civil}.{:06}", nanos / 1000)
        } else {
            write!(f, "{civil}.{nanos:09}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        // 1796010890: the multi-PE capture's first frame, 2026-11-30 03:54:50 UTC per tshark.
        assert_eq!(
            Civil::from_epoch(1_796_010_890).to_string(),
            "2026-11-30 03:54:50"
        );
        assert_eq!(Civil::from_epoch(0).to_string(), "1970-01-01 00:00:00");
        assert_eq!(
            Civil::from_epoch(951_782_400).to_string(),
            "2000-02-29 00:00:00"
        );
        assert_eq!(
            Civil::from_epoch(i64::from(u32::MAX)).to_string(),
            "2106-02-07 06:28:15"
        );
        assert_eq!(Civil::from_epoch(-1).to_string(), "1969-12-31 23:59:59");
        assert_eq!(Civil::from_epoch(1_796_010_890).month_abbrev(), "Nov");
    }

    /// Every day from 1600 to 2400: the date is valid, follows the day before, and maps back.
    #[test]
    fn days_walk_the_calendar_and_map_back() {
        let first = days_from_civil(1600, 1, 1);
        let last = days_from_civil(2400, 12, 31);
        let mut prev = civil_from_days(first - 1);
        assert_eq!(prev, (1599, 12, 31));
        for d in first..=last {
            let (y, m, day) = civil_from_days(d);
            assert!((1..=12).contains(&m) && day >= 1 && day <= days_in_month(y, m));
            let next_of_prev = if prev.2 < days_in_month(prev.0, prev.1) {
                (prev.0, prev.1, prev.2 + 1)
            } else if prev.1 < 12 {
                (prev.0, prev.1 + 1, 1)
            } else {
                (prev.0 + 1, 1, 1)
            };
            assert_eq!((y, m, day), next_of_prev, "day {d}");
            assert_eq!(days_from_civil(y, m, day), d);
            prev = (y, m, day);
        }
        // 146,097 days in 400 years, of which 97 leap years.
        assert_eq!(
            days_from_civil(2400, 1, 1) - days_from_civil(2000, 1, 1),
            146_097
        );
        assert_eq!((1600..2000).filter(|&y| is_leap(y)).count(), 97);
    }

    #[test]
    fn utc_shows_microseconds_or_nanoseconds() {
        assert_eq!(
            Utc(Timestamp::new(1_714_554_000, 40_000)).to_string(),
            "2024-05-01 09:00:00.000040"
        );
        assert_eq!(
            Utc(Timestamp::new(1_714_554_000, 40_001)).to_string(),
            "2024-05-01 09:00:00.000040001"
        );
        assert_eq!(
            Utc(Timestamp::new(0, 0)).to_string(),
            "1970-01-01 00:00:00.000000"
        );
    }
}
