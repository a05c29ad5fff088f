//! Episodes: the spans of capture time in which a subject worked one way, each judged against a
//! reference of its own. A DHCP server pair is `normal` (both servers serve their buckets),
//! `peer-silent` (a server stopped answering and nobody serves its buckets), `takeover` (one
//! server serves the other's buckets too) or in `recovery` (the returning server syncs, and its
//! partner may have been told to stop). An analyser lists a subject's episodes in time order,
//! each starting where the one before ended, so that they cover its span without gaps.
//!
//! The type is shared: `check` lists the episodes in its text and JSON, `stats` with each
//! subject's windows, and the TUI draws them under the chart.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::base::calendar::Civil;
use crate::base::Timestamp;

/// What a subject was doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EpisodeKind {
    Normal,
    PeerSilent,
    Takeover,
    Recovery,
}

impl EpisodeKind {
    pub const ALL: [EpisodeKind; 4] = [
        EpisodeKind::Normal,
        EpisodeKind::PeerSilent,
        EpisodeKind::Takeover,
        EpisodeKind::Recovery,
    ];

    /// The name reports use (JSON `kind`).
    pub fn name(self) -> &'static str {
        match self {
            EpisodeKind::Normal => "normal",
            EpisodeKind::PeerSilent => "peer-silent",
            EpisodeKind::Takeover => "takeover",
            EpisodeKind::Recovery => "recovery",
        }
    }

    /// Its place in [`EpisodeKind::ALL`]: per-kind tables are indexed by it.
    pub fn index(self) -> usize {
        match self {
            EpisodeKind::Normal => 0,
            EpisodeKind::PeerSilent => 1,
            EpisodeKind::Takeover => 2,
            EpisodeKind::Recovery => 3,
        }
    }
}

/// Where an episode starts or ends: a frame and its capture time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mark {
    pub frame: u64,
    pub time: Timestamp,
}

/// One episode of a subject.
#[derive(Clone, Debug, PartialEq)]
pub struct Episode {
    pub kind: EpisodeKind,
    /// The server it is about: the silent one (peer-silent), the one serving both shares
    /// (takeover), the returning one (recovery); none for normal, and for a pair whose servers
    /// lost contact while both answered.
    pub server: Option<String>,
    /// Its first frame; the end is the last frame before the next episode's first (the
    /// subject's last frame for the last episode), and the end time the next one's start time.
    pub start: Mark,
    pub end: Mark,
    /// What happened, for people: "server2 down, server1 had not taken over".
    pub what: String,
}

impl Episode {
    /// The JSON object of an episode of the subject `name`, keyed `key` (`"pair"` for a DHCP
    /// pair): `{key, "kind", "server", "start_frame", "end_frame", "start_time", "end_time"}`,
    /// the times in seconds since the epoch.
    pub fn to_json(&self, key: &str, name: &str) -> Value {
        let mut m = Map::new();
        m.insert(key.into(), name.into());
        m.insert("kind".into(), self.kind.name().into());
        m.insert(
            "server".into(),
            self.server.clone().map_or(Value::Null, Value::from),
        );
        m.insert("start_frame".into(), self.start.frame.into());
        m.insert("end_frame".into(), self.end.frame.into());
        m.insert("start_time".into(), self.start.time.as_f64().into());
        m.insert("end_time".into(), self.end.time.as_f64().into());
        m.insert("what".into(), self.what.clone().into());
        Value::Object(m)
    }

    /// One line of a listing: kind, start and end (UTC time of day), frames, what happened.
    pub fn text_line(&self) -> String {
        let mut s = format!(
            "{:<11} {} - {}  frames {:>6}-{:<6}",
            self.kind.name(),
            clock(self.start.time),
            clock(self.end.time),
            self.start.frame,
            self.end.frame
        );
        if !self.what.is_empty() {
            let _ = write!(s, "  {}", self.what);
        }
        s
    }

    /// Seconds it lasted.
    pub fn seconds(&self) -> f64 {
        self.end.time.since(self.start.time).max(0.0)
    }
}

/// A capture time as a UTC time of day with milliseconds: `04:08:16.653`. Findings and episode
/// listings use it beside frame numbers (the date is in the capture's first lines).
pub fn clock(t: Timestamp) -> String {
    let c = Civil::from_epoch(t.secs);
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        c.hour,
        c.minute,
        c.second,
        t.nanos / 1_000_000
    )
}

/// Adds episodes to the `"episodes"` array of a report (made if absent), keeping it in time
/// order: several analysers (DHCP pairs, RSerPool registrars) list theirs in the one array.
pub fn extend_json(out: &mut Map<String, Value>, items: impl IntoIterator<Item = Value>) {
    let list = out
        .entry("episodes")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(v) = list {
        v.extend(items);
        // Stable: a subject's episodes that start at one instant keep their order.
        v.sort_by(|a, b| {
            let t = |x: &Value| x["start_time"].as_f64().unwrap_or(0.0);
            t(a).total_cmp(&t(b))
        });
    }
}

/// Episodes kept per subject; past it the last one kept is stretched to the end and the others
/// counted (an input that flips its servers on and off every second cannot grow a report
/// without bound).
pub const MAX_EPISODES: usize = 4096;

/// A subject's episodes as they are made: the open one grows until something else starts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Episodes {
    pub list: Vec<Episode>,
    /// Episodes not listed because of [`MAX_EPISODES`].
    pub dropped: u64,
}

impl Episodes {
    /// The open episode (the last one).
    pub fn current(&self) -> Option<&Episode> {
        self.list.last()
    }

    /// Something of `kind` about `server` happened at `at` (and lasted to `last`, the latest
    /// frame of it, an answer after its request say). Returns `true` when it opened a new
    /// episode, the one before it closed (ending where this one starts).
    pub fn observe(
        &mut self,
        kind: EpisodeKind,
        server: Option<&str>,
        what: impl FnOnce() -> String,
        at: Mark,
        last: Mark,
    ) -> bool {
        let same = self
            .list
            .last()
            .is_some_and(|e| e.kind == kind && e.server.as_deref() == server);
        if !same && self.list.len() >= MAX_EPISODES {
            self.dropped += 1;
        } else if !same {
            if let Some(prev) = self.list.last_mut() {
                prev.end = Mark {
                    frame: at.frame.saturating_sub(1).max(prev.start.frame),
                    time: at.time.max(prev.start.time),
                };
            }
            self.list.push(Episode {
                kind,
                server: server.map(str::to_string),
                start: at,
                end: last,
                what: what(),
            });
            return true;
        }
        if let Some(e) = self.list.last_mut() {
            if last.frame > e.end.frame {
                e.end.frame = last.frame;
            }
            if last.time > e.end.time {
                e.end.time = last.time;
            }
        }
        false
    }

    /// The subject's last frame and time: the open episode reaches them.
    pub fn close(&mut self, last: Mark) {
        if let Some(e) = self.list.last_mut() {
            e.end.frame = e.end.frame.max(last.frame);
            e.end.time = e.end.time.max(last.time);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn m(frame: u64, secs: i64) -> Mark {
        Mark {
            frame,
            time: Timestamp::new(1_796_011_600 + secs, 0),
        }
    }

    #[test]
    fn episodes_cover_the_span_without_gaps() {
        let mut e = Episodes::default();
        let n = EpisodeKind::Normal;
        assert!(e.observe(n, None, String::new, m(1, 0), m(2, 0)));
        assert!(!e.observe(n, None, String::new, m(5, 10), m(6, 11)));
        let s = EpisodeKind::PeerSilent;
        assert!(e.observe(s, Some("b"), || "b down".into(), m(9, 20), m(9, 20)));
        // Another server is another episode, even of the same kind.
        assert!(e.observe(s, Some("a"), String::new, m(12, 30), m(13, 31)));
        assert!(e.observe(n, None, String::new, m(20, 40), m(21, 41)));
        e.close(m(30, 50));
        let spans: Vec<(u64, u64, EpisodeKind)> = e
            .list
            .iter()
            .map(|x| (x.start.frame, x.end.frame, x.kind))
            .collect();
        assert_eq!(
            spans,
            [(1, 8, n), (9, 11, s), (12, 19, s), (20, 30, n)],
            "each ends the frame before the next starts"
        );
        for w in e.list.windows(2) {
            assert_eq!(w[0].end.time, w[1].start.time);
        }
        assert_eq!(e.list[1].what, "b down");
        assert_eq!(e.list[1].seconds(), 10.0);
        let j = e.list[1].to_json("pair", "a+b/dhcpv6");
        assert_eq!(j["pair"], "a+b/dhcpv6");
        assert_eq!(j["kind"], "peer-silent");
        assert_eq!(j["server"], "b");
        assert_eq!(
            (j["start_frame"].as_u64(), j["end_frame"].as_u64()),
            (Some(9), Some(11))
        );
        assert_eq!(e.list[0].to_json("pair", "p")["server"], Value::Null);
        // 1796011620 is 2026-11-30 04:07:00 UTC.
        let line = e.list[1].text_line();
        assert!(
            line.starts_with("peer-silent 04:07:00.000 - 04:07:10.000  frames      9-11"),
            "{line}"
        );
        assert!(line.ends_with("  b down"), "{line}");
    }

    #[test]
    fn bounded() {
        let mut e = Episodes::default();
        for i in 0..(MAX_EPISODES as u64 + 10) {
            let kind = if i % 2 == 0 {
                EpisodeKind::Normal
            } else {
                EpisodeKind::Takeover
            };
            e.observe(
                kind,
                None,
                String::new,
                m(i + 1, i as i64),
                m(i + 1, i as i64),
            );
        }
        assert_eq!(e.list.len(), MAX_EPISODES);
        // Past the bound, every other observation is of the last kept kind: it grows.
        assert_eq!(e.dropped, 5);
        // The last one kept reaches the end.
        assert_eq!(
            e.current().map(|x| x.end.frame),
            Some(MAX_EPISODES as u64 + 10)
        );
    }

    #[test]
    fn reports_merge_their_episodes_in_time_order() {
        let mut out = Map::new();
        extend_json(
            &mut out,
            [json!({"start_time": 5.0}), json!({"start_time": 1.0})],
        );
        extend_json(&mut out, [json!({"start_time": 3.0})]);
        let times: Vec<f64> = out["episodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["start_time"].as_f64().unwrap())
            .collect();
        assert_eq!(times, [1.0, 3.0, 5.0]);
        assert_eq!(
            clock(Timestamp::new(1_796_011_696, 653_999_999)),
            "04:08:16.653"
        );
    }
}
