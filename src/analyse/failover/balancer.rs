//! The pool balancer reference: given one server's pool state at one moment, what a balance run
//! does. Pure: counts and the server's own free-state queue in, decisions out.
//!
//! * lts ("leases to send") = (free - backup) / 2 on the primary, (backup - free) / 2 on the
//!   secondary, truncated toward zero as C's integer division does: positive when this server
//!   holds more than half of the free-state leases.
//! * thresh = max-lease-misbalance % and hold = max-lease-ownership % of free + backup (ISC logs
//!   them as `max-misbal` and `max-own`).
//! * Pass 1 walks the server's queue oldest first and gives away each lease whose last client
//!   hashes to the peer, until lts <= -hold. Pass 2 gives away the oldest leases whatever their
//!   client; when it runs and where it stops is the profile's ([`Pass2Entry`], [`Pass2Stop`]).
//! * A POOLREQ is due when lts is below the panic level, checked before any lease moves and only
//!   in a run started by the timer.

use std::net::Ipv4Addr;

use super::profile::{PanicLevel, Params, Pass2Entry, Pass2Stop, Profile, Rounding};
use crate::analyse::dhcp_lb::Role;

/// A lease count in hundredths, so that exact percentages compare without rounding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(pub i64);

impl Level {
    /// `pct` % of `total` leases under `rounding`.
    pub fn percent_of(total: i64, pct: u32, rounding: Rounding) -> Level {
        let exact = total.saturating_mul(i64::from(pct));
        match rounding {
            Rounding::Exact => Level(exact),
            Rounding::HalfUp => Level(exact.saturating_add(50).div_euclid(100).saturating_mul(100)),
        }
    }

    /// The level in leases (1.5 for 150 hundredths).
    pub fn leases(self) -> f64 {
        self.0 as f64 / 100.0
    }

    /// The level as whole leases, when it is one.
    pub fn whole(self) -> Option<i64> {
        (self.0 % 100 == 0).then_some(self.0 / 100)
    }

    fn neg(self) -> Level {
        Level(self.0.saturating_neg())
    }
}

/// lts in hundredths, to compare with a [`Level`].
fn x100(lts: i64) -> i64 {
    lts.saturating_mul(100)
}

/// lts and the levels it is compared with, for one server's pool at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Levels {
    pub role: Role,
    pub free: u32,
    pub backup: u32,
    /// Leases to send.
    pub lts: i64,
    /// max-lease-misbalance % of free + backup.
    pub thresh: Level,
    /// max-lease-ownership % of free + backup.
    pub hold: Level,
    /// A POOLREQ is due when lts is below this.
    pub panic: Level,
}

/// The levels of one server's pool.
pub fn levels(profile: &Profile, params: &Params, role: Role, free: u32, backup: u32) -> Levels {
    let (f, b) = (i64::from(free), i64::from(backup));
    let lts = match role {
        Role::Primary => (f - b) / 2,
        Role::Secondary => (b - f) / 2,
    };
    let total = f + b;
    let thresh = Level::percent_of(total, params.max_lease_misbalance, profile.rounding);
    let hold = Level::percent_of(total, params.max_lease_ownership, profile.rounding);
    let panic = match profile.panic {
        PanicLevel::TwiceThresh => Level(thresh.0.saturating_mul(-2)),
        PanicLevel::TwiceThreshOrOne if thresh.0 == 0 => Level(-100),
        PanicLevel::TwiceThreshOrOne => Level(thresh.0.saturating_mul(-2)),
    };
    Levels {
        role,
        free,
        backup,
        lts,
        thresh,
        hold,
        panic,
    }
}

impl Levels {
    /// lts below the panic level.
    pub fn panic_due(&self) -> bool {
        x100(self.lts) < self.panic.0
    }

    /// lts above the misbalance level: ISC logs the run's result as "IMBALANCED".
    pub fn imbalanced(&self) -> bool {
        x100(self.lts) > self.thresh.0
    }

    /// lts above the ownership level: more kept than the allowed skew.
    pub fn above_hold(&self) -> bool {
        x100(self.lts) > self.hold.0
    }

    /// lts below the misbalance level (the man page's "skip" condition).
    pub fn below_thresh(&self) -> bool {
        x100(self.lts) < self.thresh.0
    }

    /// The levels after `moved` leases went to the peer (lts drops by one per lease; the
    /// free-state total and so the levels stay).
    pub fn after_moving(&self, moved: u32) -> Levels {
        let mut l = *self;
        l.lts = self.lts.saturating_sub(i64::from(moved));
        let (own, peer) = match self.role {
            Role::Primary => (&mut l.free, &mut l.backup),
            Role::Secondary => (&mut l.backup, &mut l.free),
        };
        let m = moved.min(*own);
        *own -= m;
        *peer = peer.saturating_add(m);
        l
    }
}

/// One lease of the server's own free-state queue (FREE on the primary, BACKUP on the
/// secondary), in queue order: oldest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub address: Ipv4Addr,
    /// Lease expiration time; 0 for a lease never used.
    pub ends: i64,
    /// The lease's last client hashes to the peer (ISC's `peer_wants_lease`).
    pub peer_wants: bool,
}

/// What started a balance run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// The rebalance timer: the only run that may send a POOLREQ.
    Timer,
    /// The peer's POOLREQ.
    PoolRequest,
    /// Entering NORMAL.
    EnteredNormal,
}

/// Which pass gave a lease away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Affinity: the lease's client hashes to the peer.
    One,
    /// Oldest first, whatever the client.
    Two,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub address: Ipv4Addr,
    pub pass: Pass,
}

/// What one balance run does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The levels when the run starts.
    pub levels: Levels,
    /// The run moved nothing because lts was below the misbalance level (`isc-doc`).
    pub skipped: bool,
    /// A POOLREQ is sent after the run.
    pub poolreq: bool,
    /// Leases given to the peer, in the order they go.
    pub moves: Vec<Move>,
    /// lts when the run ends.
    pub lts_after: i64,
}

/// One balance run of the server whose pool `levels` describe, over its own free-state queue.
pub fn plan(profile: &Profile, levels: Levels, queue: &[Candidate], trigger: Trigger) -> Plan {
    let poolreq = trigger == Trigger::Timer && levels.panic_due();
    let skipped = profile.skip_below_misbalance && levels.below_thresh();
    let mut out = Plan {
        levels,
        skipped,
        poolreq,
        moves: Vec::new(),
        lts_after: levels.lts,
    };
    if skipped {
        return out;
    }
    let hold = levels.hold;
    let mut lts = levels.lts;
    let mut moved = vec![false; queue.len()];

    let mut walked_to_the_end = true;
    for (i, c) in queue.iter().enumerate() {
        if x100(lts) <= hold.neg().0 {
            walked_to_the_end = false;
            break;
        }
        if c.peer_wants {
            moved[i] = true;
            lts -= 1;
            out.moves.push(Move {
                address: c.address,
                pass: Pass::One,
            });
        }
    }

    let second = match profile.pass2_entry {
        Pass2Entry::QueueExhausted => walked_to_the_end,
        Pass2Entry::AtOrAboveHold => walked_to_the_end && x100(lts) >= hold.0,
    };
    if second {
        for (i, c) in queue.iter().enumerate() {
            if moved[i] {
                continue;
            }
            let stop = match profile.pass2_stop {
                Pass2Stop::HoldUsedZeroNeverUsed if c.ends != 0 => x100(lts) <= hold.0,
                Pass2Stop::HoldUsedZeroNeverUsed => lts <= 0,
                Pass2Stop::BelowHold => x100(lts) < hold.0,
            };
            if stop {
                break;
            }
            lts -= 1;
            out.moves.push(Move {
                address: c.address,
                pass: Pass::Two,
            });
        }
    }
    out.lts_after = lts;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::failover::profile::{ISC_CODE, ISC_DOC};

    /// The shared run's configuration: misbalance 15, ownership 10, min 5, max 30.
    fn run_params() -> Params {
        Params {
            max_lease_misbalance: 15,
            max_lease_ownership: 10,
            min_balance: 5,
            max_balance: 30,
        }
    }

    fn lv(role: Role, free: u32, backup: u32) -> Levels {
        levels(&ISC_CODE, &run_params(), role, free, backup)
    }

    fn q(spec: &[(u8, i64, bool)]) -> Vec<Candidate> {
        spec.iter()
            .map(|&(last, ends, peer_wants)| Candidate {
                address: Ipv4Addr::new(10, 0, 0, last),
                ends,
                peer_wants,
            })
            .collect()
    }

    fn moved(p: &Plan) -> Vec<(u8, Pass)> {
        p.moves
            .iter()
            .map(|m| (m.address.octets()[3], m.pass))
            .collect()
    }

    #[test]
    fn levels_as_isc_logs_them() {
        // Lines of primary.log and secondary.log, worked by hand:
        // "total 60 free 60 backup 0 lts 30 max-own (+/-)6", then "max-misbal 9".
        let l = lv(Role::Primary, 60, 0);
        assert_eq!(
            (l.lts, l.hold.whole(), l.thresh.whole()),
            (30, Some(6), Some(9))
        );
        // The secondary's view of the same pool: lts -30.
        assert_eq!(lv(Role::Secondary, 60, 0).lts, -30);
        // free 25 backup 24: 49 x 10 % = 4.9 -> 5; 49 x 15 % = 7.35 -> 7; lts 1 / 2 = 0.
        let l = lv(Role::Primary, 25, 24);
        assert_eq!(
            (l.lts, l.hold.whole(), l.thresh.whole()),
            (0, Some(5), Some(7))
        );
        // free 18 backup 17: 3.5 rounds up to 4; lts 0.
        assert_eq!(lv(Role::Primary, 18, 17).hold.whole(), Some(4));
        // Odd differences truncate toward zero on both sides: (17 - 21) / 2 = -2, (21 - 17) / 2 = 2,
        // and (19 - 22) / 2 = -1 (not -2).
        assert_eq!(lv(Role::Primary, 17, 21).lts, -2);
        assert_eq!(lv(Role::Secondary, 22, 19).lts, -1);
    }

    #[test]
    fn the_poolreq_of_the_shared_run() {
        // secondary.log: "free 22 backup 3 lts -9 max-own (+/-)3 (requesting peer rebalance!)":
        // thresh = (25 x 15 + 50) / 100 = 4, panic level -8, and -9 < -8.
        let l = lv(Role::Secondary, 22, 3);
        assert_eq!(
            (l.lts, l.hold.whole(), l.thresh.whole()),
            (-9, Some(3), Some(4))
        );
        assert_eq!(l.panic, Level(-800));
        assert!(l.panic_due());
        let p = plan(&ISC_CODE, l, &[], Trigger::Timer);
        assert!(p.poolreq);
        assert!(p.moves.is_empty());
        // Only a timer run panics.
        assert!(!plan(&ISC_CODE, l, &[], Trigger::PoolRequest).poolreq);
        assert!(!plan(&ISC_CODE, l, &[], Trigger::EnteredNormal).poolreq);
        // One lease less short, and no panic: lts -8 is not below -8.
        assert!(!lv(Role::Secondary, 21, 4).panic_due());
    }

    #[test]
    fn panic_level_when_thresh_rounds_to_zero() {
        // max-lease-misbalance 5 with 9 free-state leases: 9 x 5 % = 0.45 rounds to 0, so ISC's
        // panic level is -1 and lts -1 does not panic, -2 does. The man page's level is
        // -2 x 0.45 = -0.9, which lts -1 is already below.
        let p = Params {
            max_lease_misbalance: 5,
            ..run_params()
        };
        let l = levels(&ISC_CODE, &p, Role::Secondary, 3, 0);
        assert_eq!(
            (l.lts, l.thresh.whole(), l.panic),
            (-1, Some(0), Level(-100))
        );
        assert!(!l.panic_due());
        let l = levels(&ISC_CODE, &p, Role::Secondary, 6, 2);
        assert_eq!((l.lts, l.thresh.whole()), (-2, Some(0)));
        assert!(l.panic_due());
        let doc = levels(&ISC_DOC, &p, Role::Secondary, 5, 4);
        assert_eq!((doc.lts, doc.panic), (0, Level(-90)));
        let doc = levels(&ISC_DOC, &p, Role::Secondary, 6, 3);
        assert_eq!(doc.lts, -1);
        assert!(doc.panic_due(), "-1 < -0.9");
    }

    #[test]
    fn pass_one_gives_peer_leases_down_to_minus_hold() {
        // Primary, free 20 backup 10: lts 5, hold 3. Every other lease hashes to the peer: pass 1
        // moves 8 of them (lts 5 -> -3) and stops there; no pass 2.
        let queue: Vec<Candidate> = (0..20)
            .map(|i| Candidate {
                address: Ipv4Addr::new(10, 0, 0, i),
                ends: 100 + i64::from(i),
                peer_wants: i % 2 == 0,
            })
            .collect();
        let p = plan(&ISC_CODE, lv(Role::Primary, 20, 10), &queue, Trigger::Timer);
        assert_eq!(p.levels.hold.whole(), Some(3));
        assert_eq!(
            moved(&p),
            [0, 2, 4, 6, 8, 10, 12, 14].map(|i| (i, Pass::One)).to_vec()
        );
        assert_eq!(p.lts_after, -3);
        assert!(!p.poolreq);
    }

    #[test]
    fn pass_two_to_hold_for_used_leases() {
        // Primary, free 22 backup 10 (the log's "free 22 backup 10 lts 6 max-own 3" run, which
        // ended at lts 3): with one peer lease in the queue, pass 1 moves it (lts 5), pass 2 the
        // two oldest others (lts 3 = hold, stop).
        let queue = q(&[
            (1, 50, false),
            (2, 60, false),
            (3, 70, true),
            (4, 80, false),
            (5, 90, false),
        ]);
        let p = plan(&ISC_CODE, lv(Role::Primary, 22, 10), &queue, Trigger::Timer);
        assert_eq!(p.levels.lts, 6);
        assert_eq!(moved(&p), [(3, Pass::One), (1, Pass::Two), (2, Pass::Two)]);
        assert_eq!(p.lts_after, 3);
        // With 30 free-state leases hold is exactly 3 in both readings: the code stops at lts 3,
        // the man page goes on until lts is under 3. It moves at all because lts 5 is not below
        // 30 x 15 % = 4.5.
        let p = plan(&ISC_CODE, lv(Role::Primary, 20, 10), &queue, Trigger::Timer);
        assert_eq!(moved(&p), [(3, Pass::One), (1, Pass::Two)]);
        assert_eq!(p.lts_after, 3);
        let doc = levels(&ISC_DOC, &run_params(), Role::Primary, 20, 10);
        assert_eq!((doc.hold, doc.thresh), (Level(300), Level(450)));
        let p = plan(&ISC_DOC, doc, &queue, Trigger::Timer);
        assert!(!p.skipped);
        assert_eq!(moved(&p), [(3, Pass::One), (1, Pass::Two), (2, Pass::Two)]);
        assert_eq!(p.lts_after, 2);
    }

    #[test]
    fn pass_two_to_zero_for_never_used_leases() {
        // The primary's first run in the shared capture: 60 never-used free leases, none with a
        // client, lts 30: pass 1 moves nothing, pass 2 moves 30 (to lts 0, not to hold 6).
        let queue: Vec<Candidate> = (100..160)
            .map(|i| Candidate {
                address: Ipv4Addr::new(192, 0, 2, i),
                ends: 0,
                peer_wants: false,
            })
            .collect();
        let p = plan(
            &ISC_CODE,
            lv(Role::Primary, 60, 0),
            &queue,
            Trigger::EnteredNormal,
        );
        assert_eq!(p.moves.len(), 30);
        assert_eq!(p.moves[0].address, Ipv4Addr::new(192, 0, 2, 100));
        assert!(p.moves.iter().all(|m| m.pass == Pass::Two));
        assert_eq!(p.lts_after, 0);
        // Each lease is held to its own stop: never-used ones to 0, used ones to hold.
        let queue = q(&[(1, 0, false), (2, 500, false), (3, 0, false)]);
        let p = plan(&ISC_CODE, lv(Role::Primary, 20, 10), &queue, Trigger::Timer);
        // lts 5: lease 1 (never used) moves (lts 4), lease 2 (used) stops it: 4 > hold 3, so it
        // moves (lts 3); lease 3 (never used): 3 > 0, moves (lts 2).
        assert_eq!(moved(&p), [(1, Pass::Two), (2, Pass::Two), (3, Pass::Two)]);
        // A used lease at lts = hold ends pass 2, even with a never-used lease behind it.
        let queue = q(&[(1, 500, false), (2, 0, false)]);
        let l = lv(Role::Primary, 17, 10);
        assert_eq!((l.lts, l.hold.whole()), (3, Some(3)));
        assert!(plan(&ISC_CODE, l, &queue, Trigger::Timer).moves.is_empty());
    }

    #[test]
    fn lts_at_or_below_minus_hold_moves_nothing() {
        let queue = q(&[(1, 5, true), (2, 6, true)]);
        let l = lv(Role::Primary, 10, 20);
        assert_eq!((l.lts, l.hold.whole()), (-5, Some(3)));
        let p = plan(&ISC_CODE, l, &queue, Trigger::Timer);
        assert!(p.moves.is_empty());
        // Between -hold and 0, pass 1 still hands over peer leases (the code moves leases even
        // when this server is short, down to -hold).
        let l = lv(Role::Primary, 18, 17);
        let p = plan(&ISC_CODE, l, &queue, Trigger::Timer);
        assert_eq!(moved(&p), [(1, Pass::One), (2, Pass::One)]);
        assert_eq!(p.lts_after, -2);
    }

    #[test]
    fn the_man_page_skips_below_misbalance() {
        // free 18 backup 15 (primary): lts 1 < 33 x 15 % = 4.95: isc-doc moves nothing, isc-code
        // hands over the peer lease.
        let queue = q(&[(1, 5, true)]);
        let doc = levels(&ISC_DOC, &run_params(), Role::Primary, 18, 15);
        let p = plan(&ISC_DOC, doc, &queue, Trigger::Timer);
        assert!(p.skipped && p.moves.is_empty());
        let p = plan(&ISC_CODE, lv(Role::Primary, 18, 15), &queue, Trigger::Timer);
        assert_eq!(p.moves.len(), 1);
    }

    #[test]
    fn after_moving_keeps_the_total() {
        let l = lv(Role::Secondary, 19, 27).after_moving(4);
        assert_eq!((l.free, l.backup, l.lts), (23, 23, 0));
        let l = lv(Role::Primary, 1, 0).after_moving(5);
        assert_eq!((l.free, l.backup), (0, 1));
    }

    #[test]
    fn huge_counts_do_not_overflow() {
        let p = Params {
            max_lease_misbalance: u32::MAX,
            max_lease_ownership: u32::MAX,
            min_balance: 0,
            max_balance: u32::MAX,
        };
        let l = levels(&ISC_CODE, &p, Role::Primary, u32::MAX, 0);
        assert!(l.lts > 0);
        let _ = plan(&ISC_CODE, l, &q(&[(1, 0, true)]), Trigger::Timer);
        let l = levels(&ISC_DOC, &p, Role::Secondary, u32::MAX, u32::MAX);
        let _ = plan(&ISC_DOC, l, &q(&[(1, 0, false)]), Trigger::Timer);
    }
}
