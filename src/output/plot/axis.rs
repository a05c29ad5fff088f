//! The axes' ticks: times at round UTC instants (their step chosen by the span, their labels as
//! precise as the step needs), values at 1, 2 or 5 of a power of ten.

use crate::base::calendar::Civil;
use crate::output::chart::round_times;

/// Ticks a time axis aims at, at most.
const TIME_TICKS: f64 = 9.0;

/// A tick: where (seconds since the epoch, or a value) and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub at: f64,
    pub label: String,
}

/// Ticks of a time axis from `start` to `end` (seconds since the epoch): the first round length
/// of time that gives no more than [`TIME_TICKS`], at its multiples since the epoch (so that a
/// minute's tick falls on the minute, UTC).
pub fn time_ticks(start: f64, end: f64) -> Vec<Tick> {
    let span = (end - start).max(1e-9);
    let step = round_times()
        .into_iter()
        .map(|ns| ns as f64 / 1e9)
        .find(|s| span / s <= TIME_TICKS)
        .unwrap_or(span);
    let mut ticks = Vec::new();
    let mut k = (start / step).ceil();
    while k * step <= end && ticks.len() < 64 {
        let at = k * step;
        ticks.push(Tick {
            at,
            label: clock_label(at, step),
        });
        k += 1.0;
    }
    ticks
}

/// A time of day as precise as `step` needs: `04:08:20`, `04:10`, `11-30 06:00`, `2026-11-30`.
fn clock_label(at: f64, step: f64) -> String {
    let whole = at.floor();
    let c = Civil::from_epoch(whole as i64);
    if step < 1.0 {
        let ms = ((at - whole) * 1000.0).round() as u32;
        format!("{:02}:{:02}.{:03}", c.minute, c.second, ms.min(999))
    } else if step < 60.0 {
        format!("{:02}:{:02}:{:02}", c.hour, c.minute, c.second)
    } else if step < 86_400.0 {
        if c.hour == 0 && c.minute == 0 {
            format!("{:02}-{:02} 00:00", c.month, c.day)
        } else {
            format!("{:02}:{:02}", c.hour, c.minute)
        }
    } else {
        format!("{}-{:02}-{:02}", c.year, c.month, c.day)
    }
}

/// The caption of a time axis: the date or dates it spans, UTC.
pub fn time_caption(start: f64, end: f64) -> String {
    let a = Civil::from_epoch(start.floor() as i64);
    let b = Civil::from_epoch(end.floor() as i64);
    if (a.year, a.month, a.day) == (b.year, b.month, b.day) {
        format!("time (UTC), {}-{:02}-{:02}", a.year, a.month, a.day)
    } else {
        format!(
            "time (UTC), {}-{:02}-{:02} to {}-{:02}-{:02}",
            a.year, a.month, a.day, b.year, b.month, b.day
        )
    }
}

/// Ticks at 1, 2 or 5 of a power of ten, about five of them, from 0 (or below, for a `min`
/// under 0) to at least `max`: the first and last ticks are the axis's ends.
pub fn value_ticks(min: f64, max: f64) -> Vec<Tick> {
    let lo = if min.is_finite() { min.min(0.0) } else { 0.0 };
    let hi = if max.is_finite() && max > lo {
        max
    } else {
        lo + 1.0
    };
    let raw = (hi - lo) / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
        .max(1.0);
    let first = (lo / step).floor() as i64;
    let last = (hi / step).ceil() as i64;
    (first..=last)
        .map(|i| {
            let at = i as f64 * step;
            Tick {
                at,
                label: format!("{at}"),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2026-11-30 04:07:16.968 UTC, the start of the Kea capture.
    const START: f64 = 1_796_011_636.968;

    #[test]
    fn time_ticks_fall_on_round_utc_times() {
        let t = time_ticks(START, START + 140.0);
        let labels: Vec<&str> = t.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(
            labels,
            ["04:07:20", "04:07:40", "04:08:00", "04:08:20", "04:08:40", "04:09:00", "04:09:20"]
        );
        let t = time_ticks(START, START + 3.0 * 3600.0);
        // Twenty minutes a tick: nine of them.
        assert_eq!(t[0].label, "04:20");
        assert_eq!(t[1].label, "04:40");
        assert!(t.len() <= 9);
        let t = time_ticks(START, START + 0.5);
        assert_eq!(t[0].label, "07:17.000");
    }

    #[test]
    fn captions_name_the_dates() {
        assert_eq!(time_caption(START, START + 60.0), "time (UTC), 2026-11-30");
        assert_eq!(
            time_caption(START, START + 86_400.0),
            "time (UTC), 2026-11-30 to 2026-12-01"
        );
    }

    #[test]
    fn value_ticks_cover_the_maximum() {
        let at =
            |lo: f64, hi: f64| -> Vec<f64> { value_ticks(lo, hi).iter().map(|t| t.at).collect() };
        assert_eq!(at(3.0, 30.0), [0.0, 10.0, 20.0, 30.0]);
        assert_eq!(at(0.0, 27.0), [0.0, 10.0, 20.0, 30.0]);
        assert_eq!(at(0.0, 4.0), [0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(at(0.0, 0.0), [0.0, 1.0]);
        // An lts below zero (a server lent more than it had) stays on the axis.
        assert_eq!(at(-4.0, 36.0), [-10.0, 0.0, 10.0, 20.0, 30.0, 40.0]);
    }
}
