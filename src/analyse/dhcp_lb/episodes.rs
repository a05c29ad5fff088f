//! A DHCP pair's episodes, worked out as its balanced transmissions are judged (in time order,
//! each once its lookahead has passed, so that what followed it is known):
//!
//! * a server is *out* from the first message of its buckets it left unanswered during a silence
//!   long enough to call it down ([`super::state::Silences`]) until it answers again;
//! * while a server is out, its partner's answers to the silent server's buckets are a
//!   `takeover`; before the first of them the episode is `peer-silent` (nobody serves the silent
//!   server's clients: Kea's communication-recovery); after the last of them, once a message went
//!   unanswered and the silent server came back, it is `recovery` (the returning server syncing,
//!   its partner told to stop: Kea's resync);
//! * where nobody is out, the failover protocol's STATE messages (ISC) say the rest: a server in
//!   a syncing state (STARTUP, RECOVER, RECOVER-WAIT, RECOVER-DONE, POTENTIAL-CONFLICT) is in
//!   `recovery`, or its partner in PARTNER-DOWN in a `takeover`; a pair whose failover link is
//!   down or whose states are not both NORMAL (communications-interrupted: each server answers
//!   every client) is `peer-silent`, about the server that is silent if one is, else about none;
//! * otherwise the pair is `normal`.
//!
//! Each episode is judged against its reference ([`Reference::serving`]): the bucket's owner in a
//! normal episode, else the one server serving.

use std::collections::VecDeque;

use super::share::{idx, Shares};
use super::state::Silence;
use crate::analyse::episodes::{EpisodeKind, Episodes, Mark};
use crate::base::Timestamp;
use crate::proto::failover::ServerState;
use crate::proto::lb::Role;

/// The episode a transmission falls in, and the server it is about (see
/// [`crate::analyse::episodes::Episode::server`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reference {
    pub kind: EpisodeKind,
    pub server: Option<Role>,
}

impl Reference {
    pub const NORMAL: Reference = Reference {
        kind: EpisodeKind::Normal,
        server: None,
    };

    /// The one server expected to answer every balanced message, if the episode has one (else
    /// the bucket's owner is).
    pub fn serving(&self) -> Option<Role> {
        match (self.kind, self.server) {
            (EpisodeKind::Takeover, Some(t)) => Some(t),
            (EpisodeKind::PeerSilent | EpisodeKind::Recovery, Some(x)) => Some(x.peer()),
            _ => None,
        }
    }
}

/// What the judge saw of one balanced transmission.
#[derive(Clone, Copy, Debug)]
pub struct Seen {
    pub time: Timestamp,
    pub owner: Role,
    /// Answered (within the answer window) by the primary, by the secondary.
    pub answered: [bool; 2],
    /// Nobody answered it although it reached its owner and saying so means something (the
    /// client retried, or the answer window passed).
    pub unanswered_counts: bool,
}

/// What the rest of the replay knows at the transmission's time, all evidence up to now in.
#[derive(Clone, Copy, Debug, Default)]
pub struct Evidence {
    /// The silence that makes the primary, the secondary down then.
    pub down: [Option<Silence>; 2],
    /// Their failover states, as their STATE messages told them.
    pub states: [Option<ServerState>; 2],
    /// The failover pair was not NORMAL (a state, or the link down).
    pub not_normal: bool,
}

/// A takeover under way: in the silence starting at `silence_from`, the partner's last answer to
/// the silent server's buckets so far, and whether a message nobody answered came after it.
#[derive(Clone, Copy, Debug)]
struct Track {
    silence_from: Timestamp,
    miss_after: bool,
}

/// The first answer of a takeover: what its finding names.
#[derive(Clone, Debug)]
pub struct FirstTakeover {
    pub taker: Role,
    pub answer_frame: u64,
    pub answer_time: Timestamp,
    pub request_frame: u64,
    pub message: &'static str,
    pub silence: Silence,
}

/// What filing a transmission did.
#[derive(Debug)]
pub struct Recorded {
    /// It opened an episode (the one before it closed).
    pub opened: bool,
    /// The episode that closed (its index), with the first answer of its takeover, if it was one.
    pub closed_takeover: Option<(usize, FirstTakeover)>,
}

/// Whether a failover state is one in which a server syncs rather than serves.
fn syncing(s: Option<ServerState>) -> bool {
    matches!(
        s,
        Some(
            ServerState::Startup
                | ServerState::Recover
                | ServerState::RecoverWait
                | ServerState::RecoverDone
                | ServerState::PotentialConflict
        )
    )
}

/// A pair's episodes and their shares.
#[derive(Debug, Default)]
pub struct PairEpisodes {
    /// Per owner (primary, secondary): the request times of its buckets' transmissions that the
    /// other server answered and that are not judged yet, in time order: a takeover that goes on
    /// after the transmission being judged.
    later: [VecDeque<Timestamp>; 2],
    max_later: usize,
    /// Per server: the silence (by its start) in which it left a message of its buckets
    /// unanswered: it is out from then on.
    missed_in: [Option<Timestamp>; 2],
    /// Per silent server: the takeover of its buckets under way.
    track: [Option<Track>; 2],
    pub episodes: Episodes,
    /// Per listed episode (parallel to `episodes.list`): its shares.
    pub shares: Vec<Shares>,
    /// Per kind ([`EpisodeKind::index`]).
    pub by_kind: [Shares; 4],
    /// The first answer of the takeover episode open now.
    pub first_takeover: Option<FirstTakeover>,
}

impl PairEpisodes {
    pub fn new(max_later: usize) -> Self {
        PairEpisodes {
            max_later: max_later.max(16),
            ..PairEpisodes::default()
        }
    }

    /// A transmission of `owner`'s buckets sent at `t` was answered by the other server (at
    /// ingest, before its verdict).
    pub fn answered_by_other(&mut self, owner: Role, t: Timestamp) {
        let q = &mut self.later[idx(owner)];
        if q.len() >= self.max_later {
            q.pop_front();
        }
        // Answers come nearly in their requests' order: the place is found from the back.
        let at = q.iter().rposition(|x| *x <= t).map_or(0, |i| i + 1);
        q.insert(at, t);
    }

    /// Whether the other server answered a transmission of `owner`'s buckets sent after `t`
    /// and before `until` (`None`: no end).
    fn answered_later(&self, owner: Role, t: Timestamp, until: Option<Timestamp>) -> bool {
        self.later[idx(owner)]
            .iter()
            .find(|x| **x > t)
            .is_some_and(|x| until.is_none_or(|u| *x < u))
    }

    /// The episode of a balanced transmission, from what was seen of it and before it.
    pub fn classify(&mut self, seen: &Seen, ev: &Evidence) -> Reference {
        for q in &mut self.later {
            while q.front().is_some_and(|x| *x <= seen.time) {
                q.pop_front();
            }
        }
        let answered = |r: Role| seen.answered[idx(r)];
        // A message of `x`'s buckets that `x` left unanswered, its partner answering it or the
        // client left waiting.
        let missed_by = |x: Role| {
            seen.owner == x && !answered(x) && (answered(x.peer()) || seen.unanswered_counts)
        };
        let mut out: Option<(Role, Silence)> = None;
        for x in [Role::Primary, Role::Secondary] {
            let Some(s) = ev.down[idx(x)].filter(|_| !answered(x)) else {
                continue;
            };
            if missed_by(x) {
                self.missed_in[idx(x)] = Some(s.from);
            }
            if self.missed_in[idx(x)] == Some(s.from) && out.is_none_or(|(_, o)| s.from < o.from) {
                out = Some((x, s));
            }
        }
        if let Some((x, s)) = out {
            return self.while_out(seen, x, s);
        }
        let [p, s] = ev.states;
        let in_sync = if syncing(s) {
            Some(Role::Secondary)
        } else if syncing(p) {
            Some(Role::Primary)
        } else {
            None
        };
        if let Some(r) = in_sync {
            if ev.states[idx(r.peer())] == Some(ServerState::PartnerDown) {
                return Reference {
                    kind: EpisodeKind::Takeover,
                    server: Some(r.peer()),
                };
            }
            return Reference {
                kind: EpisodeKind::Recovery,
                server: Some(r),
            };
        }
        if ev.not_normal {
            let silent: Vec<Role> = [Role::Primary, Role::Secondary]
                .into_iter()
                .filter(|r| ev.down[idx(*r)].is_some() && !answered(*r))
                .collect();
            return Reference {
                kind: EpisodeKind::PeerSilent,
                server: match silent.as_slice() {
                    [one] => Some(*one),
                    _ => None,
                },
            };
        }
        Reference::NORMAL
    }

    /// The episode while server `x` is out in silence `s`.
    fn while_out(&mut self, seen: &Seen, x: Role, s: Silence) -> Reference {
        let p = x.peer();
        let takeover_answer = seen.owner == x && seen.answered[idx(p)];
        let nobody = !seen.answered[0] && !seen.answered[1] && seen.unanswered_counts;
        let track = &mut self.track[idx(x)];
        if track.is_some_and(|t| t.silence_from != s.from) {
            *track = None;
        }
        if takeover_answer {
            *track = Some(Track {
                silence_from: s.from,
                miss_after: false,
            });
        } else if nobody {
            if let Some(t) = track {
                t.miss_after = true;
            }
        }
        let takeover = Reference {
            kind: EpisodeKind::Takeover,
            server: Some(p),
        };
        let of_x = |kind| Reference {
            kind,
            server: Some(x),
        };
        let track = *track;
        match track {
            _ if takeover_answer => takeover,
            None => of_x(EpisodeKind::PeerSilent),
            Some(_) if self.answered_later(x, seen.time, s.to) => takeover,
            // The taker stopped: the silent server's return ends a resync; until it returns
            // nobody serves its buckets.
            Some(t) if t.miss_after && s.to.is_some() => of_x(EpisodeKind::Recovery),
            Some(t) if t.miss_after => of_x(EpisodeKind::PeerSilent),
            Some(_) => takeover,
        }
    }

    /// Files a judged transmission under its episode (opening one when it starts another):
    /// `at` its request, `last` its latest frame; `shares`, when it was answered, its counts.
    pub fn record(
        &mut self,
        r: Reference,
        server: Option<&str>,
        what: impl FnOnce() -> String,
        at: Mark,
        last: Mark,
        shares: Option<([bool; 2], Role, [f64; 2])>,
    ) -> Recorded {
        let before = self.episodes.list.len();
        let opened = self.episodes.observe(r.kind, server, what, at, last);
        let mut closed_takeover = None;
        if opened {
            self.shares.push(Shares::default());
            if let Some(first) = self.first_takeover.take() {
                closed_takeover = before.checked_sub(1).map(|i| (i, first));
            }
        }
        if let Some((answered, credited, weights)) = shares {
            if let Some(s) = self.shares.last_mut() {
                s.add(answered, credited, weights);
            }
            self.by_kind[r.kind.index()].add(answered, credited, weights);
        }
        Recorded {
            opened,
            closed_takeover,
        }
    }

    /// The open episode is a takeover and this is its first answer to the silent server's
    /// buckets (kept for the finding at its end).
    pub fn takeover_answer(&mut self, first: impl FnOnce() -> FirstTakeover) {
        let open = self
            .episodes
            .current()
            .is_some_and(|e| e.kind == EpisodeKind::Takeover);
        if open && self.first_takeover.is_none() {
            self.first_takeover = Some(first());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(tenths: i64) -> Timestamp {
        Timestamp::new(1000 + tenths / 10, (tenths % 10) as u32 * 100_000_000)
    }

    fn seen(t: i64, owner: Role, answered: [bool; 2]) -> Seen {
        Seen {
            time: at(t),
            owner,
            answered,
            unanswered_counts: true,
        }
    }

    fn down(from: i64, to: Option<i64>) -> Option<Silence> {
        Some(Silence {
            from: at(from),
            to: to.map(at),
            missed: 3,
        })
    }

    use EpisodeKind::*;
    use Role::{Primary as P, Secondary as S};

    fn r(kind: EpisodeKind, server: Option<Role>) -> Reference {
        Reference { kind, server }
    }

    /// The Kea capture's story in small: S dies, nobody serves its clients, P takes over, stops
    /// while S resyncs, S comes back.
    #[test]
    fn kea_outage() {
        let mut e = PairEpisodes::new(100);
        let none = Evidence::default();
        let s_down = Evidence {
            down: [None, down(10, Some(100))],
            ..Evidence::default()
        };
        // P answers its own bucket; S is silent since 1.0 s but left nothing unanswered yet.
        assert_eq!(
            e.classify(&seen(5, P, [true, false]), &none),
            Reference::NORMAL
        );
        assert_eq!(
            e.classify(&seen(15, P, [true, false]), &s_down),
            Reference::NORMAL
        );
        // S's bucket, nobody answers: S is out.
        assert_eq!(
            e.classify(&seen(20, S, [false, false]), &s_down),
            r(PeerSilent, Some(S))
        );
        // P's own bucket meanwhile: still peer-silent (nobody serves S's).
        assert_eq!(
            e.classify(&seen(25, P, [true, false]), &s_down),
            r(PeerSilent, Some(S))
        );
        // P answers S's buckets: takeover, also for P's own bucket in between.
        e.answered_by_other(S, at(30));
        e.answered_by_other(S, at(60));
        assert_eq!(
            e.classify(&seen(30, S, [true, false]), &s_down),
            r(Takeover, Some(P))
        );
        assert_eq!(
            e.classify(&seen(40, P, [true, false]), &s_down),
            r(Takeover, Some(P))
        );
        // A message nobody answered, but P answers S's buckets again later: a takeover still.
        assert_eq!(
            e.classify(&seen(50, P, [false, false]), &s_down),
            r(Takeover, Some(P))
        );
        assert_eq!(
            e.classify(&seen(60, S, [true, false]), &s_down),
            r(Takeover, Some(P))
        );
        // Nobody answers after the last takeover answer, and S is back at 10 s: recovery.
        assert_eq!(
            e.classify(&seen(80, P, [false, false]), &s_down),
            r(Recovery, Some(S))
        );
        assert_eq!(
            e.classify(&seen(90, S, [false, false]), &s_down),
            r(Recovery, Some(S))
        );
        // S answers: normal again.
        assert_eq!(
            e.classify(&seen(100, S, [false, true]), &s_down),
            Reference::NORMAL
        );
        assert_eq!(r(Takeover, Some(P)).serving(), Some(P));
        assert_eq!(r(Recovery, Some(S)).serving(), Some(P));
        assert_eq!(r(PeerSilent, Some(S)).serving(), Some(P));
        assert_eq!(Reference::NORMAL.serving(), None);
    }

    #[test]
    fn a_taker_that_stops_for_good_leaves_the_buckets_unserved() {
        let mut e = PairEpisodes::new(100);
        let s_down = Evidence {
            down: [None, down(10, None)],
            ..Evidence::default()
        };
        assert_eq!(
            e.classify(&seen(20, S, [true, false]), &s_down),
            r(Takeover, Some(P))
        );
        // Quiet since, then a message nobody answered: S is still down, nobody serves it.
        assert_eq!(
            e.classify(&seen(30, S, [false, false]), &s_down),
            r(PeerSilent, Some(S))
        );
        // A new silence is a new story.
        let again = Evidence {
            down: [None, down(200, None)],
            ..Evidence::default()
        };
        assert_eq!(
            e.classify(&seen(210, P, [true, false]), &again),
            Reference::NORMAL
        );
    }

    #[test]
    fn failover_states_where_nobody_is_out() {
        let mut e = PairEpisodes::new(100);
        let st = |p, s, not_normal| Evidence {
            states: [Some(p), Some(s)],
            not_normal,
            ..Evidence::default()
        };
        use ServerState as F;
        let both_answer = seen(10, P, [true, true]);
        assert_eq!(
            e.classify(&both_answer, &st(F::Normal, F::Normal, false)),
            Reference::NORMAL
        );
        // Communications-interrupted, both answering everyone: the servers lost each other.
        assert_eq!(
            e.classify(
                &both_answer,
                &st(F::CommunicationsInterrupted, F::Normal, true)
            ),
            r(PeerSilent, None)
        );
        // The secondary recovers while the primary is in partner-down: the primary serves all.
        assert_eq!(
            e.classify(&both_answer, &st(F::PartnerDown, F::RecoverWait, true)),
            r(Takeover, Some(P))
        );
        // Conflict resolution: the secondary resyncs.
        assert_eq!(
            e.classify(
                &both_answer,
                &st(F::ConflictDone, F::PotentialConflict, true)
            ),
            r(Recovery, Some(S))
        );
    }

    #[test]
    fn later_answers_are_kept_in_time_order_and_bounded() {
        let mut e = PairEpisodes::new(16);
        for t in [5, 3, 9, 7] {
            e.answered_by_other(S, at(t));
        }
        let q: Vec<Timestamp> = e.later[1].iter().copied().collect();
        assert_eq!(q, [at(3), at(5), at(7), at(9)]);
        assert!(e.answered_later(S, at(7), None));
        assert!(!e.answered_later(S, at(7), Some(at(9))));
        assert!(!e.answered_later(P, at(0), None));
        for t in 0..100 {
            e.answered_by_other(P, at(t));
        }
        assert_eq!(e.later[0].len(), 16);
    }
}
