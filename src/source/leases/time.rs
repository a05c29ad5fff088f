//! Lease times as dhcpd writes them: `W YYYY/MM/DD HH:MM:SS` (weekday 0-6, then the date and time
//! in UTC), `epoch N` (with `db-time-format local`, followed by a comment dhcpd ignores), or
//! `never`.

use crate::base::calendar::{days_from_civil, days_in_month};

/// A time in `dhcpd.leases`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LeaseTime {
    /// Seconds since the Unix epoch.
    At(i64),
    /// `never` (dhcpd's MAX_TIME: the lease does not end).
    Never,
}

impl LeaseTime {
    /// Seconds since the epoch, `None` for `never`.
    pub fn epoch(self) -> Option<i64> {
        match self {
            LeaseTime::At(t) => Some(t),
            LeaseTime::Never => None,
        }
    }
}

fn numbers<const N: usize>(s: &str, sep: char) -> Option<[i64; N]> {
    let mut out = [0i64; N];
    let mut parts = s.split(sep);
    for slot in &mut out {
        let p = parts.next()?;
        if p.is_empty() || p.len() > 4 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *slot = p.parse().ok()?;
    }
    parts.next().is_none().then_some(out)
}

/// `YYYY/MM/DD` and `HH:MM:SS` (UTC) as seconds since the epoch, or why not.
pub fn parse_date_time(date: &str, time: &str) -> Result<i64, String> {
    let [y, m, d] = numbers::<3>(date, '/')
        .ok_or_else(|| format!("'{date}' is not a date of the form YYYY/MM/DD"))?;
    let [hh, mm, ss] = numbers::<3>(time, ':')
        .ok_or_else(|| format!("'{time}' is not a time of the form HH:MM:SS"))?;
    // `numbers` reads at most four digits: once checked, month and day fit a u32.
    let valid = (1..=9999).contains(&y)
        && (1..=12).contains(&m)
        && (1..=i64::from(days_in_month(y, m as u32))).contains(&d);
    if !valid {
        return Err(format!("'{date}' is not a calendar date"));
    }
    // 60 seconds: a leap second, which the C library accepts too.
    if hh > 23 || mm > 59 || ss > 60 {
        return Err(format!("'{time}' is not a time of day"));
    }
    Ok(days_from_civil(y, m as u32, d as u32) * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// Reads a time from the words after its keyword (`starts`, `ends`, `at`, ...): `never`,
/// `epoch N`, or `W YYYY/MM/DD HH:MM:SS`. Returns the time and how many words it took.
pub fn parse_words(words: &[&str]) -> Result<(LeaseTime, usize), String> {
    const FORMS: &str = "'W YYYY/MM/DD HH:MM:SS', 'epoch N' or 'never'";
    match words {
        ["never", ..] => Ok((LeaseTime::Never, 1)),
        ["epoch", n, ..] => n
            .parse::<i64>()
            .map(|t| (LeaseTime::At(t), 2))
            .map_err(|_| format!("'{n}' after 'epoch' is not a number of seconds")),
        [w, date, time, ..] if w.len() == 1 && w.as_bytes()[0].is_ascii_digit() => {
            // dhcpd ignores the weekday when reading; a digit 7-9 is still not a weekday.
            if !matches!(w.as_bytes()[0], b'0'..=b'6') {
                return Err(format!("weekday '{w}' is not 0-6"));
            }
            parse_date_time(date, time).map(|t| (LeaseTime::At(t), 3))
        }
        [] => Err(format!("expected a time ({FORMS})")),
        [w, ..] => Err(format!("expected a time ({FORMS}), found '{w}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_against_known_epochs() {
        // The epoch itself, and `date -u -d '2000-02-29 12:00:00' +%s` = 951825600.
        assert_eq!(parse_date_time("1970/01/01", "00:00:00"), Ok(0));
        assert_eq!(parse_date_time("2000/02/29", "12:00:00"), Ok(951_825_600));
        // The shared capture's lease file: "2026/11/30 04:22:35" is 1796012555, the time
        // phases.log gives for capture-start (1796012555.067413), both UTC.
        assert_eq!(parse_date_time("2026/11/30", "04:22:35"), Ok(1_796_012_555));
        // 2038/01/19 03:14:08 is 2^31.
        assert_eq!(parse_date_time("2038/01/19", "03:14:08"), Ok(2_147_483_648));
        // Before the epoch: 1969/12/31 23:59:59 is -1.
        assert_eq!(parse_date_time("1969/12/31", "23:59:59"), Ok(-1));
    }

    #[test]
    fn every_day_follows_the_previous_one() {
        let mut prev = parse_date_time("1899/12/31", "00:00:00").unwrap();
        for y in 1900..2101 {
            for m in 1..=12 {
                for d in 1..=days_in_month(y, m) {
                    let t = parse_date_time(&format!("{y}/{m:02}/{d:02}"), "00:00:00").unwrap();
                    assert_eq!(t - prev, 86_400, "{y}/{m}/{d}");
                    prev = t;
                }
            }
        }
    }

    #[test]
    fn bad_dates_and_times() {
        assert!(parse_date_time("2023/02/29", "00:00:00").is_err());
        assert!(parse_date_time("2024/13/01", "00:00:00").is_err());
        assert!(parse_date_time("2024/1/1/1", "00:00:00").is_err());
        assert!(parse_date_time("2024/01/01", "24:00:00").is_err());
        assert!(parse_date_time("2024/01/01", "1:2").is_err());
        assert!(parse_date_time("-1/01/01", "00:00:00").is_err());
        assert!(parse_date_time("99999999999/01/01", "00:00:00").is_err());
    }

    #[test]
    fn the_three_forms() {
        assert_eq!(parse_words(&["never"]), Ok((LeaseTime::Never, 1)));
        assert_eq!(
            parse_words(&["epoch", "1796012555"]),
            Ok((LeaseTime::At(1_796_012_555), 2))
        );
        assert_eq!(
            parse_words(&["1", "2026/11/30", "04:22:35", "extra"]),
            Ok((LeaseTime::At(1_796_012_555), 3))
        );
        assert!(parse_words(&["9", "2026/11/30", "04:22:35"]).is_err());
        assert!(parse_words(&["epoch", "x"]).is_err());
        assert!(parse_words(&["tomorrow"]).is_err());
        assert!(parse_words(&[]).is_err());
    }
}
