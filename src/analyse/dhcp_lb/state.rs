//! In which state the pair was at a given time, from two kinds of evidence:
//!
//! * [`FailoverTimeline`]: the ISC failover protocol in the same capture. STATE messages give
//!   each server's state *and since when* (start-time-of-state), so a STATE sent on reconnection
//!   says what the server was doing while it could not tell its peer; a silence of the failover
//!   link longer than the link timeout is a link down. The pair is NORMAL at `t` when both
//!   servers' latest states starting at or before `t` are NORMAL and the link was up.
//! * [`Silences`]: a server's answers. A server that answers nothing for at least `down_after`
//!   while at least `min_messages` messages it should have answered arrive is down for that
//!   whole silence (from its last answer to its next).
//!
//! Both are asked about `t` only once the lookahead has passed, so evidence that arrives later
//! (the STATE on reconnection, the next answer) is already in.

use std::collections::BTreeMap;
use std::net::IpAddr;

use crate::base::Timestamp;
use crate::proto::failover::ServerState;

fn ns(t: Timestamp) -> i128 {
    i128::from(t.secs) * 1_000_000_000 + i128::from(t.nanos)
}

/// Entries kept per server (states, gaps, silences); the oldest go first.
const MAX_ENTRIES: usize = 4096;

/// Whether a failover state lets a server serve clients at all (draft-12 section 9: no service
/// in STARTUP, RECOVER, RECOVER-WAIT, RECOVER-DONE, POTENTIAL-CONFLICT, PAUSED, SHUTDOWN).
pub fn serves(s: ServerState) -> bool {
    matches!(
        s,
        ServerState::Normal
            | ServerState::CommunicationsInterrupted
            | ServerState::PartnerDown
            | ServerState::ConflictDone
            | ServerState::ResolutionInterrupted
    )
}

#[derive(Debug, Default)]
struct Endpoint {
    /// (start, state), sorted by start (seconds since the epoch).
    states: Vec<(i64, ServerState)>,
    first: Option<Timestamp>,
    last: Option<Timestamp>,
    /// Silences of the link longer than the timeout: (from, to).
    gaps: Vec<(Timestamp, Timestamp)>,
}

/// What the failover messages say, per failover endpoint address.
#[derive(Debug)]
pub struct FailoverTimeline {
    endpoints: BTreeMap<IpAddr, Endpoint>,
    link_timeout_ns: u64,
    start: Option<Timestamp>,
    max_endpoints: usize,
}

/// The pair's failover state at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairState {
    /// No failover traffic from these servers in the capture.
    Unknown,
    Normal,
    /// Not both NORMAL, or the link was down.
    NotNormal {
        /// Each side's state, when a STATE message told it.
        a: Option<ServerState>,
        b: Option<ServerState>,
        link_down: bool,
    },
}

impl FailoverTimeline {
    pub fn new(link_timeout_ns: u64) -> Self {
        FailoverTimeline {
            endpoints: BTreeMap::new(),
            link_timeout_ns,
            start: None,
            max_endpoints: 64,
        }
    }

    /// The capture's first time (a link silent from there is down too).
    pub fn start(&mut self, t: Timestamp) {
        self.start.get_or_insert(t);
    }

    pub fn is_empty(&self) -> bool {
        self.endpoints.is_empty()
    }

    fn endpoint(&mut self, a: IpAddr) -> Option<&mut Endpoint> {
        if self.endpoints.len() >= self.max_endpoints && !self.endpoints.contains_key(&a) {
            return None;
        }
        Some(self.endpoints.entry(a).or_default())
    }

    /// Any failover message from `src` at `t`.
    pub fn message(&mut self, src: IpAddr, t: Timestamp) {
        let timeout = i128::from(self.link_timeout_ns);
        let start = self.start;
        let Some(e) = self.endpoint(src) else {
            return;
        };
        let prev = e.last.or(start);
        if let Some(p) = prev {
            if ns(t) - ns(p) > timeout {
                if e.gaps.len() >= MAX_ENTRIES {
                    e.gaps.remove(0);
                }
                e.gaps.push((p, t));
            }
        }
        e.first.get_or_insert(t);
        e.last = Some(e.last.map_or(t, |l| l.max(t)));
    }

    /// A STATE: `src` is in `state` since `since` (its clock), or since `t` when not told.
    pub fn state(&mut self, src: IpAddr, state: ServerState, since: Option<u32>, t: Timestamp) {
        let Some(e) = self.endpoint(src) else {
            return;
        };
        let start = since.map_or(t.secs, i64::from);
        let at = e.states.partition_point(|(s, _)| *s <= start);
        // Same start: the later message corrects the earlier.
        if at > 0 && e.states.get(at - 1).is_some_and(|(s, _)| *s == start) {
            e.states[at - 1].1 = state;
        } else {
            if e.states.len() >= MAX_ENTRIES {
                e.states.remove(0);
            }
            let at = at.min(e.states.len());
            e.states.insert(at, (start, state));
        }
    }

    fn state_at(e: &Endpoint, t: Timestamp) -> Option<ServerState> {
        let i = e.states.partition_point(|(s, _)| *s <= t.secs);
        i.checked_sub(1).and_then(|i| e.states.get(i)).map(|x| x.1)
    }

    fn link_down(&self, e: &Endpoint, t: Timestamp, now: Timestamp) -> bool {
        let timeout = i128::from(self.link_timeout_ns);
        if e.gaps.iter().any(|(a, b)| *a <= t && t <= *b) {
            return true;
        }
        match e.last {
            // Silent since its last message, for longer than the timeout.
            Some(l) if t >= l => ns(now) - ns(l) > timeout,
            Some(_) => false,
            None => true,
        }
    }

    /// The state of `a`'s and `b`'s failover endpoint at `t`, all evidence up to `now` in.
    pub fn pair(&self, a: IpAddr, b: IpAddr, t: Timestamp, now: Timestamp) -> PairState {
        let (ea, eb) = (self.endpoints.get(&a), self.endpoints.get(&b));
        if ea.is_none() && eb.is_none() {
            return PairState::Unknown;
        }
        let sa = ea.and_then(|e| Self::state_at(e, t));
        let sb = eb.and_then(|e| Self::state_at(e, t));
        let down = [ea, eb]
            .iter()
            .any(|e| e.is_none_or(|e| self.link_down(e, t, now)));
        let normal = |s: Option<ServerState>| s.is_none_or(|s| s == ServerState::Normal);
        if !down && normal(sa) && normal(sb) {
            PairState::Normal
        } else {
            PairState::NotNormal {
                a: sa,
                b: sb,
                link_down: down,
            }
        }
    }

    /// The state `a` announced for `t`, if any.
    pub fn server_state(&self, a: IpAddr, t: Timestamp) -> Option<ServerState> {
        self.endpoints.get(&a).and_then(|e| Self::state_at(e, t))
    }
}

/// One closed or open silence of a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Silence {
    /// Its last answer before (the capture's start when it had not answered yet).
    pub from: Timestamp,
    /// Its next answer (`None`: still silent).
    pub to: Option<Timestamp>,
    /// Messages it should have answered in between.
    pub missed: u32,
}

#[derive(Debug, Default)]
struct ServerSilence {
    last_answer: Option<Timestamp>,
    missed_since: u32,
    /// Closed silences long enough to be a server down.
    down: Vec<Silence>,
}

/// Per server: when it was silent long enough to be called down.
#[derive(Debug)]
pub struct Silences {
    servers: BTreeMap<usize, ServerSilence>,
    down_after_ns: u64,
    min_messages: u32,
    start: Option<Timestamp>,
}

impl Silences {
    pub fn new(down_after_ns: u64, min_messages: u32) -> Self {
        Silences {
            servers: BTreeMap::new(),
            down_after_ns,
            min_messages: min_messages.max(1),
            start: None,
        }
    }

    pub fn start(&mut self, t: Timestamp) {
        self.start.get_or_insert(t);
    }

    fn qualifies(&self, from: Timestamp, to: Timestamp, missed: u32) -> bool {
        missed >= self.min_messages && ns(to) - ns(from) >= i128::from(self.down_after_ns)
    }

    /// `server` answered at `t`.
    pub fn answer(&mut self, server: usize, t: Timestamp) {
        let start = self.start.unwrap_or(t);
        let s = self.servers.entry(server).or_default();
        let from = s.last_answer.unwrap_or(start);
        let missed = std::mem::take(&mut s.missed_since);
        s.last_answer = Some(s.last_answer.map_or(t, |l| l.max(t)));
        let long =
            missed >= self.min_messages && ns(t) - ns(from) >= i128::from(self.down_after_ns);
        if long {
            let s = self.servers.entry(server).or_default();
            if s.down.len() >= MAX_ENTRIES {
                s.down.remove(0);
            }
            s.down.push(Silence {
                from,
                to: Some(t),
                missed,
            });
        }
    }

    /// A message `server` should answer arrived.
    pub fn expected(&mut self, server: usize) {
        let s = self.servers.entry(server).or_default();
        s.missed_since = s.missed_since.saturating_add(1);
    }

    /// The silence that makes `server` down at `t`, all evidence up to `now` in.
    pub fn down_at(&self, server: usize, t: Timestamp, now: Timestamp) -> Option<Silence> {
        let s = self.servers.get(&server)?;
        if let Some(d) = s
            .down
            .iter()
            .rev()
            .find(|d| d.from < t && d.to.is_none_or(|x| t < x))
        {
            return Some(*d);
        }
        let from = s.last_answer.or(self.start)?;
        (t > from && self.qualifies(from, now, s.missed_since)).then_some(Silence {
            from,
            to: None,
            missed: s.missed_since,
        })
    }

    /// Forgets silences that ended before `t`.
    pub fn prune(&mut self, t: Timestamp) {
        for s in self.servers.values_mut() {
            s.down.retain(|d| d.to.is_none_or(|x| x >= t));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: i64) -> Timestamp {
        Timestamp::new(s, 0)
    }

    #[test]
    fn state_since_reaches_back() {
        let (p, s): (IpAddr, IpAddr) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        let mut f = FailoverTimeline::new(30_000_000_000);
        f.start(at(0));
        for t in (1..=100).step_by(5) {
            f.message(p, at(t));
            f.message(s, at(t + 1));
        }
        f.state(p, ServerState::Normal, Some(1), at(1));
        f.state(s, ServerState::Normal, Some(1), at(1));
        assert_eq!(f.pair(p, s, at(50), at(200)), PairState::Normal);
        // The secondary dies at 100; on reconnection at 200 the primary says it was
        // communications-interrupted from 101 and normal again from 200.
        f.message(p, at(200));
        f.message(s, at(200));
        f.state(
            p,
            ServerState::CommunicationsInterrupted,
            Some(101),
            at(200),
        );
        f.state(p, ServerState::Normal, Some(200), at(200));
        assert!(matches!(
            f.pair(p, s, at(150), at(300)),
            PairState::NotNormal {
                link_down: true,
                ..
            }
        ));
        assert_eq!(
            f.server_state(p, at(150)),
            Some(ServerState::CommunicationsInterrupted)
        );
        assert_eq!(f.pair(p, s, at(201), at(210)), PairState::Normal);
        // Silent after 200 for longer than the timeout.
        assert!(matches!(
            f.pair(p, s, at(250), at(300)),
            PairState::NotNormal { .. }
        ));
        let other: IpAddr = "10.0.0.1".parse().unwrap();
        assert_eq!(f.pair(other, other, at(1), at(2)), PairState::Unknown);
        assert!(serves(ServerState::PartnerDown));
        assert!(!serves(ServerState::PotentialConflict));
    }

    #[test]
    fn silences() {
        let mut s = Silences::new(10_000_000_000, 3);
        s.start(at(0));
        s.answer(0, at(1));
        s.expected(0);
        s.expected(0);
        s.answer(0, at(30));
        // Two missed messages are not enough.
        assert_eq!(s.down_at(0, at(20), at(100)), None);
        for _ in 0..3 {
            s.expected(0);
        }
        s.answer(0, at(35));
        // Three missed, but only 5 s.
        assert_eq!(s.down_at(0, at(33), at(100)), None);
        for _ in 0..3 {
            s.expected(0);
        }
        s.answer(0, at(60));
        let d = s.down_at(0, at(40), at(100)).unwrap();
        assert_eq!((d.from, d.to, d.missed), (at(35), Some(at(60)), 3));
        assert_eq!(s.down_at(0, at(61), at(100)), None);
        // Still silent at the end.
        for _ in 0..5 {
            s.expected(0);
        }
        assert_eq!(s.down_at(0, at(65), at(66)), None, "not long enough yet");
        assert!(s.down_at(0, at(65), at(80)).is_some());
        // A server that never answered is down from the start.
        for _ in 0..3 {
            s.expected(1);
        }
        assert!(s.down_at(1, at(5), at(20)).is_some());
        s.prune(at(61));
        assert!(s.down_at(0, at(40), at(100)).is_none());
    }
}
