//! Local time as tshark shows it: the process's time zone (`TZ`, else the system's) through the C
//! library's `localtime_r` and `mktime` on Linux; elsewhere poolshark has no time zone database and
//! local time is UTC. The text of `frame.time` and `frame.time_utc` ([`absolute_text`]) is here
//! because the tree of `read -V` and the `-T fields` columns both write it.

use super::calendar::Civil;
use super::Timestamp;

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
pub fn local_to_epoch(c: &Civil) -> Option<i64> {
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
