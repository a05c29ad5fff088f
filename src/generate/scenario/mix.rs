//! Several scenarios in one capture: their frames merged in time order, one exchange per scenario
//! held at a time, so memory does not grow with the number of frames written.

use std::io;

use super::batch::{Batch, Mark};
use super::sink::FrameSink;
use super::Scenario;
use crate::base::Timestamp;

/// A planted deviation as it landed in the capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planted {
    /// 1-based frame number, as Wireshark and `poolshark read` number frames.
    pub frame: u64,
    pub time: Timestamp,
    /// The scenario that planted it.
    pub scenario: &'static str,
    /// The finding a correct analyser is expected to report (e.g. `dhcp.lb.wrong-server`).
    pub rule: &'static str,
    pub detail: String,
}

/// What a run wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunLog {
    pub frames: u64,
    pub bytes: u64,
    /// Frames per scenario, in the order the scenarios were added.
    pub per_scenario: Vec<(&'static str, u64)>,
    pub planted: Vec<Planted>,
    pub first: Option<Timestamp>,
    pub last: Option<Timestamp>,
    /// The most frames held at once, waiting to be written: what the run's memory follows
    /// (it does not grow with the number of frames written).
    pub max_pending: usize,
    /// Per scenario, the deviations it was to plant that the run ended before
    /// ([`super::Scenario::plants_left`]); scenarios with none are left out.
    pub plants_left: Vec<(&'static str, usize)>,
}

struct Lane {
    scenario: Box<dyn Scenario>,
    batch: Batch,
    done: bool,
    frames: u64,
}

/// Scenarios merged by time.
#[derive(Default)]
pub struct Mix {
    lanes: Vec<Lane>,
}

impl Mix {
    pub fn new() -> Self {
        Mix::default()
    }

    /// Adds a scenario whose first frame goes out at `start_ns` (nanoseconds since the epoch) at
    /// the earliest.
    pub fn add(&mut self, scenario: Box<dyn Scenario>, start_ns: u64) -> &mut Self {
        self.lanes.push(Lane {
            scenario,
            batch: Batch::new(start_ns),
            done: false,
            frames: 0,
        });
        self
    }

    /// Writes frames to `sink` until `limit` frames were written (`None`: until every scenario
    /// has nothing more to say; a scenario without an end then runs forever).
    pub fn run(&mut self, limit: Option<u64>, sink: &mut dyn FrameSink) -> io::Result<RunLog> {
        let mut log = RunLog::default();
        while limit.is_none_or(|l| log.frames < l) {
            // Every lane says more until its earliest frame is final (no exchange to come can
            // precede it).
            for lane in &mut self.lanes {
                let mut idle = 0u32;
                while !lane.done && lane.batch.ready_time().is_none() {
                    let before = (lane.batch.pushed(), lane.batch.floor());
                    if !lane.scenario.step(&mut lane.batch) {
                        lane.done = true;
                        lane.batch.close();
                    }
                    // A scenario that neither says anything nor moves on is treated as finished
                    // rather than looped on forever.
                    if (lane.batch.pushed(), lane.batch.floor()) == before {
                        idle += 1;
                        if idle > 1000 {
                            lane.done = true;
                            lane.batch.close();
                        }
                    }
                }
            }
            let pending: usize = self.lanes.iter().map(|l| l.batch.len()).sum();
            log.max_pending = log.max_pending.max(pending);
            // The earliest final frame goes out next; ties go to the lane added first.
            let next = self
                .lanes
                .iter()
                .enumerate()
                .filter_map(|(i, l)| l.batch.ready_time().map(|t| (t, i)))
                .min();
            let Some((_, i)) = next else {
                break;
            };
            let lane = &mut self.lanes[i];
            let Some(f) = lane.batch.take() else {
                continue;
            };
            log.frames += 1;
            log.bytes += f.data.len() as u64;
            lane.frames += 1;
            log.first.get_or_insert(f.ts);
            log.last = Some(f.ts);
            if let Some(Mark { rule, detail }) = f.mark {
                log.planted.push(Planted {
                    frame: log.frames,
                    time: f.ts,
                    scenario: lane.scenario.name(),
                    rule,
                    detail: detail.clone(),
                });
            }
            sink.frame(f.ts, f.data)?;
        }
        log.per_scenario = self
            .lanes
            .iter()
            .map(|l| (l.scenario.name(), l.frames))
            .collect();
        log.plants_left = self
            .lanes
            .iter()
            .map(|l| (l.scenario.name(), l.scenario.plants_left()))
            .filter(|(_, n)| *n > 0)
            .collect();
        Ok(log)
    }
}

#[cfg(test)]
mod tests {
    use super::super::sink::Frames;
    use super::*;

    /// Frames `[k]` at `start + k * every` for k in 0..n, `per_step` at a time.
    struct Ticks {
        name: &'static str,
        start: u64,
        every: u64,
        n: u64,
        k: u64,
        per_step: u64,
    }

    impl Scenario for Ticks {
        fn name(&self) -> &'static str {
            self.name
        }
        fn step(&mut self, out: &mut Batch) -> bool {
            if self.k >= self.n {
                return false;
            }
            for _ in 0..self.per_step.min(self.n - self.k) {
                out.begin(self.start + self.k * self.every);
                out.push(&[self.k as u8]);
                if self.k == 3 {
                    out.mark_last("test.rule", "k is 3");
                }
                self.k += 1;
            }
            true
        }
    }

    #[test]
    fn merges_by_time_counts_frames_and_locates_marks() {
        let mut mix = Mix::new();
        mix.add(
            Box::new(Ticks {
                name: "a",
                start: 1000,
                every: 1_000_000,
                n: 5,
                k: 0,
                per_step: 2,
            }),
            0,
        );
        mix.add(
            Box::new(Ticks {
                name: "b",
                start: 1500,
                every: 1_000_000,
                n: 5,
                k: 0,
                per_step: 3,
            }),
            0,
        );
        let mut frames = Frames::default();
        let log = mix.run(None, &mut frames).unwrap();
        assert_eq!(log.frames, 10);
        let times: Vec<Timestamp> = frames.0.iter().map(|(t, _)| *t).collect();
        let mut sorted = times.clone();
        sorted.sort();
        assert_eq!(times, sorted);
        // a3 at 3.000001 ms is frame 7, b3 at 3.0000015 ms frame 8.
        let marks: Vec<(u64, &str)> = log.planted.iter().map(|p| (p.frame, p.scenario)).collect();
        assert_eq!(marks, vec![(7, "a"), (8, "b")]);
        assert_eq!(log.per_scenario, vec![("a", 5), ("b", 5)]);

        let mut limited = Mix::new();
        limited.add(
            Box::new(Ticks {
                name: "a",
                start: 0,
                every: 10,
                n: u64::MAX,
                k: 0,
                per_step: 4,
            }),
            0,
        );
        let mut frames = Frames::default();
        assert_eq!(limited.run(Some(7), &mut frames).unwrap().frames, 7);
    }
}
