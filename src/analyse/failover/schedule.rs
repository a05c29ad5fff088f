//! When the next balance run is due (ISC's `dhcp_failover_pool_check`, called after every run and
//! whenever a lease enters or leaves FREE or BACKUP, only in NORMAL state).
//!
//! The age of the oldest lease of each queue (now minus its `ends`; a never-used lease counts as
//! infinitely old, an empty queue as age 0) estimates how long the queue will last. Each age is
//! scaled by max-lease-misbalance %; `isc-code` doubles the estimate of the server's own queue
//! (its comment: guessing when it would start sending POOLREQs), takes the smaller, caps it at
//! max-balance, adds it to now, moves it no earlier than the last run + min-balance, and adds
//! 0-4 s of random delay. A check already scheduled is only ever moved earlier.

use super::profile::{MinBalanceFrom, Params, Profile};
use crate::analyse::dhcp_lb::Role;

/// When the next run is due: between `earliest` and `latest` (the random delay), in seconds
/// since the epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub earliest: i64,
    pub latest: i64,
}

/// How long a queue is expected to last, from the `ends` of its oldest lease.
fn age(now: i64, oldest_ends: Option<i64>) -> i64 {
    match oldest_ends {
        // ISC: `if (queue head && head->ends < cur_time) cur_time - head->ends else 0`; a
        // never-used lease has ends 0 and so the age of the epoch.
        Some(ends) if ends < now => now.saturating_sub(ends),
        _ => 0,
    }
}

fn scaled(age: i64, pct: u32) -> i64 {
    age.saturating_mul(i64::from(pct)).saturating_add(50) / 100
}

/// The next check of one server's pool, computed at `now` from the `ends` of the oldest FREE and
/// oldest BACKUP lease (`None`: that queue is empty) and the time of the last run, if any.
pub fn next_check(
    profile: &Profile,
    params: &Params,
    role: Role,
    now: i64,
    oldest_free_ends: Option<i64>,
    oldest_backup_ends: Option<i64>,
    last_balance: Option<i64>,
) -> Window {
    let mut free = scaled(age(now, oldest_free_ends), params.max_lease_misbalance);
    let mut backup = scaled(age(now, oldest_backup_ends), params.max_lease_misbalance);
    if profile.double_own_estimate {
        match role {
            Role::Primary => free = free.saturating_mul(2),
            Role::Secondary => backup = backup.saturating_mul(2),
        }
    }
    let mut est = free.min(backup).min(i64::from(params.max_balance));
    let at = match profile.min_balance_from {
        MinBalanceFrom::LastBalance => {
            let mut at = now.saturating_add(est);
            if let Some(last) = last_balance {
                at = at.max(last.saturating_add(i64::from(params.min_balance)));
            }
            at
        }
        MinBalanceFrom::Now => {
            est = est.max(i64::from(params.min_balance));
            now.saturating_add(est)
        }
    };
    Window {
        earliest: at,
        latest: at.saturating_add(i64::from(profile.jitter)),
    }
}

/// A newly computed check replaces the scheduled one only when it is earlier.
pub fn lower(scheduled: Option<Window>, candidate: Window) -> Window {
    match scheduled {
        Some(s) if s.earliest <= candidate.earliest => s,
        _ => candidate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::failover::profile::{ISC_CODE, ISC_DOC};

    fn params() -> Params {
        Params {
            max_lease_misbalance: 15,
            max_lease_ownership: 10,
            min_balance: 5,
            max_balance: 30,
        }
    }

    const NOW: i64 = 1_796_012_556;

    #[test]
    fn never_used_leases_push_the_check_to_max_balance() {
        // The primary's first run (556.157): both queues hold never-used leases, so both ages are
        // huge and the check lands max-balance (30 s) later; primary.log's next run is at 586.157.
        let w = next_check(
            &ISC_CODE,
            &params(),
            Role::Primary,
            NOW,
            Some(0),
            Some(0),
            Some(NOW),
        );
        assert_eq!(
            w,
            Window {
                earliest: NOW + 30,
                latest: NOW + 34
            }
        );
    }

    #[test]
    fn own_side_doubled_smaller_taken() {
        // Oldest FREE ended 100 s ago, oldest BACKUP 40 s ago. 15 %: 15 and 6 s. On the primary
        // its own FREE estimate doubles to 30: min(30, 6) = 6. On the secondary BACKUP doubles to
        // 12: min(15, 12) = 12.
        let p = params();
        let f = Some(NOW - 100);
        let b = Some(NOW - 40);
        let w = next_check(&ISC_CODE, &p, Role::Primary, NOW, f, b, None);
        assert_eq!(w.earliest, NOW + 6);
        let w = next_check(&ISC_CODE, &p, Role::Secondary, NOW, f, b, None);
        assert_eq!(w.earliest, NOW + 12);
        // The man page neither doubles nor jitters, and fits the estimate between min-balance and
        // max-balance from now.
        let w = next_check(&ISC_DOC, &p, Role::Secondary, NOW, f, b, None);
        assert_eq!(
            w,
            Window {
                earliest: NOW + 6,
                latest: NOW + 6
            }
        );
        let w = next_check(&ISC_DOC, &p, Role::Secondary, NOW, Some(NOW - 10), b, None);
        assert_eq!(
            w.earliest,
            NOW + 5,
            "1.5 s rounds to 2, raised to min-balance 5"
        );
    }

    #[test]
    fn an_empty_queue_means_now_but_not_before_min_balance() {
        // No BACKUP lease left: age 0, so the estimate is 0; the code's floor is the last run plus
        // min-balance.
        let w = next_check(
            &ISC_CODE,
            &params(),
            Role::Secondary,
            NOW,
            Some(NOW - 100),
            None,
            Some(NOW - 2),
        );
        assert_eq!(w.earliest, NOW + 3);
        let w = next_check(
            &ISC_CODE,
            &params(),
            Role::Secondary,
            NOW,
            Some(NOW - 100),
            None,
            None,
        );
        assert_eq!(w.earliest, NOW, "before any run there is no floor");
        // A lease whose ends lies in the future counts as age 0 too.
        let w = next_check(
            &ISC_CODE,
            &params(),
            Role::Primary,
            NOW,
            Some(NOW + 50),
            Some(0),
            Some(NOW),
        );
        assert_eq!(w.earliest, NOW + 5);
    }

    #[test]
    fn only_ever_earlier() {
        let a = Window {
            earliest: 100,
            latest: 104,
        };
        let b = Window {
            earliest: 90,
            latest: 94,
        };
        assert_eq!(lower(Some(a), b), b);
        assert_eq!(lower(Some(b), a), b);
        assert_eq!(lower(None, a), a);
    }

    #[test]
    fn extreme_times_saturate() {
        let p = Params {
            max_lease_misbalance: u32::MAX,
            max_lease_ownership: 0,
            min_balance: u32::MAX,
            max_balance: u32::MAX,
        };
        let _ = next_check(
            &ISC_CODE,
            &p,
            Role::Primary,
            i64::MAX,
            Some(i64::MIN),
            Some(0),
            Some(i64::MAX),
        );
        let _ = next_check(
            &ISC_DOC,
            &p,
            Role::Secondary,
            i64::MIN,
            Some(i64::MAX),
            None,
            None,
        );
    }
}
