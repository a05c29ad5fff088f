//! Free vs backup per pool over time, for `stats` and the TUI, in bounded memory: when the series
//! is full, every other point is dropped and from then on only every other new point is kept
//! (the stride doubles), so a capture of any length ends with between half and all of `max`
//! points spread over its whole duration. The latest point is always kept apart.

/// The pool at one moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Capture time, seconds since the epoch.
    pub time: f64,
    pub frame: u64,
    pub free: u32,
    pub backup: u32,
    /// The primary's lts: (free - backup) / 2.
    pub lts: i64,
    /// Seconds since the oldest FREE lease's `ends` (`None`: no FREE lease; never-used leases
    /// count from the epoch, as dhcpd's estimate does).
    pub oldest_free_age: Option<i64>,
    pub oldest_backup_age: Option<i64>,
}

#[derive(Clone, Debug)]
pub struct Series {
    points: Vec<Point>,
    max: usize,
    stride: u64,
    offered: u64,
    last: Option<Point>,
}

impl Series {
    /// A series of at most `max` points (at least 2).
    pub fn new(max: usize) -> Self {
        Series {
            points: Vec::new(),
            max: max.max(2),
            stride: 1,
            offered: 0,
            last: None,
        }
    }

    pub fn push(&mut self, p: Point) {
        self.last = Some(p);
        let keep = self.offered % self.stride == 0;
        self.offered += 1;
        if !keep {
            return;
        }
        if self.points.len() >= self.max {
            let mut i = 0;
            self.points.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.stride = self.stride.saturating_mul(2);
            // This point falls on the new stride only if its index does.
            if (self.offered - 1) % self.stride != 0 {
                return;
            }
        }
        self.points.push(p);
    }

    /// The kept points, oldest first.
    pub fn points(&self) -> &[Point] {
        &self.points
    }

    /// The latest point pushed, kept or not.
    pub fn last(&self) -> Option<&Point> {
        self.last.as_ref()
    }

    /// Points pushed in all.
    pub fn offered(&self) -> u64 {
        self.offered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(i: u64) -> Point {
        Point {
            time: i as f64,
            frame: i,
            free: 0,
            backup: 0,
            lts: 0,
            oldest_free_age: None,
            oldest_backup_age: None,
        }
    }

    #[test]
    fn below_the_bound_every_point_is_kept() {
        let mut s = Series::new(10);
        for i in 0..10 {
            s.push(pt(i));
        }
        assert_eq!(s.points().len(), 10);
        assert_eq!(s.last().unwrap().frame, 9);
    }

    #[test]
    fn beyond_the_bound_points_thin_out_evenly() {
        let mut s = Series::new(8);
        for i in 0..1000 {
            s.push(pt(i));
            assert!(s.points().len() <= 8);
        }
        let frames: Vec<u64> = s.points().iter().map(|p| p.frame).collect();
        // Kept points sit on the current stride, start at 0 and cover the whole run.
        let stride = frames[1] - frames[0];
        assert!(
            frames.windows(2).all(|w| w[1] - w[0] == stride),
            "{frames:?}"
        );
        assert_eq!(frames[0], 0);
        assert!(frames.len() >= 4);
        assert!(*frames.last().unwrap() + 2 * stride > 999, "{frames:?}");
        assert_eq!(s.last().unwrap().frame, 999);
        assert_eq!(s.offered(), 1000);
    }
}
