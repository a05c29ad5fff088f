//! The finding rules of the failover pool balance: pure functions from what the replay measured
//! to a [`Finding`]. When each rule fires is decided by [`super::replay`]; the definitions live
//! here, one per rule.
//!
//! Shared terms:
//! * A pool's *holder* is the server whose lts is larger: the one holding more than half of the
//!   free-state leases (FREE on the primary, BACKUP on the secondary).
//! * *In normal operation*: both servers last announced NORMAL (STATE, CONNECT exchange) and each
//!   has been heard from (any failover message) within the receive timer the pair agreed on in
//!   CONNECT/CONNECTACK (60 s if none was seen). Outside normal operation no server balances, and
//!   no rule that waits for a balance run applies.
//! * *Overdue*: longer than max-balance + [`GRACE`] seconds. ISC schedules every check at most
//!   max-balance after the previous run, plus 0-4 s of random delay, on a 1 s timer.
//! * A *giveaway* is a BNDUPD by which a server hands a lease from its own free-state queue to the
//!   peer's: FREE to BACKUP from the primary, BACKUP to FREE from the secondary, while the sender is
//!   NORMAL. Consecutive giveaways by one server with the same start time of state form one
//!   observed balance run (dhcpd stamps every lease of a run with the run's time); the primary's
//!   giveaway of a lease that became FREE through EXPIRED, RELEASED or RESET less than 2 s earlier
//!   and whose client hashes to the peer is its affinity on entry
//!   (`dhcp_failover_process_bind_update/ack`), not a run.

use serde_json::json;

use super::balancer::{Levels, Plan};
use super::events::ClientKey;
use crate::analyse::dhcp_lb::Role;
use crate::analyse::finding::{Finding, Severity, Subject};

/// Every rule of the failover replay: its id, severities and meaning (the functions below build
/// each one's findings).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    Misbalance,
    Affinity,
    PanicMissing,
    UnexpectedPoolreq,
    Ownership,
    Overbalance,
}

impl Rule {
    /// Every rule.
    pub const ALL: [Rule; 6] = [
        Rule::Misbalance,
        Rule::Affinity,
        Rule::PanicMissing,
        Rule::UnexpectedPoolreq,
        Rule::Ownership,
        Rule::Overbalance,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Rule::Misbalance => "failover.misbalance",
            Rule::Affinity => "failover.affinity",
            Rule::PanicMissing => "failover.panic-missing",
            Rule::UnexpectedPoolreq => "failover.unexpected-poolreq",
            Rule::Ownership => "failover.ownership",
            Rule::Overbalance => "failover.overbalance",
        }
    }

    /// The severities a finding can carry: a misbalance is an error when the peer has no free
    /// leases left, a missing POOLREQ when the server has none; the rest are warnings.
    pub fn severities(self) -> &'static [Severity] {
        match self {
            Rule::Misbalance | Rule::PanicMissing => &[Severity::Warning, Severity::Error],
            _ => &[Severity::Warning],
        }
    }

    /// What a finding of the rule says, in a line.
    pub fn meaning(self) -> &'static str {
        match self {
            Rule::Misbalance => {
                "the leases to send stayed past the misbalance level longer than max-balance"
            }
            Rule::Affinity => {
                "a lease whose client hashes to the sender was given to the peer before one \
                 whose client hashes to the peer"
            }
            Rule::PanicMissing => "a server short of free leases did not send a POOLREQ",
            Rule::UnexpectedPoolreq => "a POOLREQ when none was due",
            Rule::Ownership => "a server kept more leases than the allowed skew",
            Rule::Overbalance => "a balance run gave the peer more leases than the reference moves",
        }
    }
}

/// Seconds allowed beyond max-balance: ISC's 0-4 s random delay plus its 1 s timer resolution.
pub const GRACE: f64 = 5.0;

fn level_json(l: super::balancer::Level) -> serde_json::Value {
    match l.whole() {
        Some(w) => json!(w),
        None => json!(l.leases()),
    }
}

fn own_queue(l: &Levels) -> u32 {
    match l.role {
        Role::Primary => l.free,
        Role::Secondary => l.backup,
    }
}

/// `failover.misbalance`: in normal operation, the holder's lts stayed above the misbalance level
/// (max-lease-misbalance % of free + backup, ISC's "IMBALANCED") for longer than max-balance +
/// grace, so the holder's balance runs did not bring it back. Fires once per episode, on the first
/// event past the deadline; an episode ends when lts is back at or under the level or normal
/// operation ends.
///
/// Severity: error when the other server's own free-state queue is empty (it cannot serve a new
/// client), else warning. Expected: lts at most the level within max-balance + grace; observed:
/// the holder, its lts, free and backup, and for how long.
pub fn misbalance(
    frame: u64,
    pool: &str,
    holder: &Levels,
    since_frame: u64,
    for_seconds: f64,
    max_balance: u32,
) -> Finding {
    let peer_side = match holder.role {
        Role::Primary => holder.backup,
        Role::Secondary => holder.free,
    };
    Finding {
        frame,
        time: None,
        group: String::new(),
        rule: Rule::Misbalance.id(),
        severity: if peer_side == 0 {
            Severity::Error
        } else {
            Severity::Warning
        },
        subject: Subject::FailoverPool(pool.to_string()),
        expected: json!({
            "lts_at_most": level_json(holder.thresh),
            "within_seconds": f64::from(max_balance) + GRACE,
        }),
        observed: json!({
            "holder": holder.role.name(),
            "lts": holder.lts,
            "free": holder.free,
            "backup": holder.backup,
            "since_frame": since_frame,
            "for_seconds": for_seconds,
        }),
        message: format!(
            "the {} has held lts {} above the misbalance level {} for {:.0} s (free {}, backup {}), longer than max-balance {} s",
            holder.role, holder.lts, holder.thresh.leases(), for_seconds, holder.free, holder.backup, max_balance
        ),
    }
}

/// `failover.affinity`: a giveaway of a lease whose last client hashes (RFC 3074, the pair's
/// hash bucket assignment) to the sender, while the sender's queue still held a lease whose last
/// client hashes to the peer. Pass 1 hands over every peer lease before pass 2 may give away any
/// other (and affinity on entry only hands over peer leases), so the reference would have given
/// that peer lease instead. Leases without a client hash to neither server and never fire.
///
/// Severity: warning. Expected: the peer lease (oldest first) that should have gone; observed:
/// the lease given, its client and bucket.
pub fn affinity(
    frame: u64,
    pool: &str,
    sender: Role,
    given: std::net::Ipv4Addr,
    client: &ClientKey,
    bucket: u8,
    instead: std::net::Ipv4Addr,
) -> Finding {
    Finding {
        frame,
        time: None,
        group: String::new(),
        rule: Rule::Affinity.id(),
        severity: Severity::Warning,
        subject: Subject::FailoverPool(pool.to_string()),
        expected: json!({ "give": instead.to_string(), "reason": "its last client hashes to the peer" }),
        observed: json!({
            "sender": sender.name(),
            "gave": given.to_string(),
            "client": client.label(),
            "bucket": bucket,
            "bucket_owner": sender.name(),
        }),
        message: format!(
            "the {sender} gave {given} to the peer although its client {} hashes to the {sender} (bucket {bucket}), while {instead}, whose client hashes to the peer, stayed",
            client.label()
        ),
    }
}

/// `failover.panic-missing`: in normal operation, a server's lts stayed below its panic level
/// (ISC's code: -2 x the misbalance level, -1 when that rounds to 0) for longer than
/// max-balance plus grace without a POOLREQ from it. Each timer run in that state must send one, and a run is
/// due at least every max-balance. Fires once per stretch; a POOLREQ from the server starts a new
/// stretch, the end of the panic or of normal operation ends the episode.
///
/// Severity: error when the server's own free-state queue is empty, else warning. Expected: a
/// POOLREQ from the server; observed: its lts, the panic level and for how long.
pub fn panic_missing(
    frame: u64,
    pool: &str,
    needy: &Levels,
    since_frame: u64,
    for_seconds: f64,
) -> Finding {
    Finding {
        frame,
        time: None,
        group: String::new(),
        rule: Rule::PanicMissing.id(),
        severity: if own_queue(needy) == 0 {
            Severity::Error
        } else {
            Severity::Warning
        },
        subject: Subject::FailoverPool(pool.to_string()),
        expected: json!({ "poolreq_from": needy.role.name(), "lts_below": level_json(needy.panic) }),
        observed: json!({
            "lts": needy.lts,
            "free": needy.free,
            "backup": needy.backup,
            "since_frame": since_frame,
            "for_seconds": for_seconds,
            "poolreq": false,
        }),
        message: format!(
            "the {} has been at lts {} (panic level {}) for {:.0} s without sending a POOLREQ",
            needy.role,
            needy.lts,
            needy.panic.leases(),
            for_seconds
        ),
    }
}

/// Why a POOLREQ was not due.
#[derive(Clone, Debug, PartialEq)]
pub enum PoolReqReason {
    /// The sender's last announced state was not NORMAL (balancing only runs in NORMAL).
    NotNormal(String),
    /// In the pool closest to panic, the sender's lts is at or above its panic level.
    NotShort(Levels),
    /// Another POOLREQ from the sender came less than min-balance seconds earlier (one per timer
    /// run, runs at least min-balance apart).
    TooSoon { seconds: f64, min_balance: u32 },
}

/// `failover.unexpected-poolreq`: a POOLREQ the reference would not have sent: the sender was not
/// NORMAL, or no pool had its lts below the panic level, or it came less than min-balance after
/// the sender's previous POOLREQ.
///
/// Severity: warning. Expected: no POOLREQ, with the reason; observed: the POOLREQ and the
/// sender's levels.
pub fn unexpected_poolreq(frame: u64, pool: &str, sender: Role, why: &PoolReqReason) -> Finding {
    let (expected, message) = match why {
        PoolReqReason::NotNormal(state) => (
            json!({ "poolreq": false, "reason": "sender not in normal state", "sender_state": state }),
            format!("the {sender} sent a POOLREQ while in state {state}; balancing runs only in normal"),
        ),
        PoolReqReason::NotShort(l) => (
            json!({
                "poolreq": false,
                "reason": "lts not below the panic level",
                "lts": l.lts,
                "panic_level": level_json(l.panic),
                "free": l.free,
                "backup": l.backup,
            }),
            format!(
                "the {sender} sent a POOLREQ at lts {} (free {}, backup {}); the panic level is {}",
                l.lts,
                l.free,
                l.backup,
                l.panic.leases()
            ),
        ),
        PoolReqReason::TooSoon {
            seconds,
            min_balance,
        } => (
            json!({ "poolreq": false, "reason": "at most one per run, runs min-balance apart", "min_balance": min_balance, "seconds_since_last": seconds }),
            format!(
                "the {sender} sent a POOLREQ {seconds:.1} s after its previous one (min-balance {min_balance} s)"
            ),
        ),
    };
    Finding {
        frame,
        time: None,
        group: String::new(),
        rule: Rule::UnexpectedPoolreq.id(),
        severity: Severity::Warning,
        subject: Subject::FailoverPool(pool.to_string()),
        expected,
        observed: json!({ "poolreq_from": sender.name() }),
        message,
    }
}

/// After an observed balance run that left the sender's lts somewhere else than the reference
/// does from the same state (the same queue, the same trigger): above it, `failover.ownership`
/// (the sender kept more than the allowed skew: `kept`); below it, `failover.overbalance` (it
/// gave away more than the reference: `gave`, which is also how a run the man page would have
/// skipped shows up under `isc-doc`).
///
/// Severity: warning. Expected: the reference's moves and final lts; observed: the run's.
pub fn ownership_run(
    frame: u64,
    pool: &str,
    before: &Levels,
    plan: &Plan,
    moved: usize,
    profile: &str,
) -> Finding {
    let observed_after = before.lts.saturating_sub(moved as i64);
    let (direction, rule) = if observed_after > plan.lts_after {
        ("kept", Rule::Ownership)
    } else {
        ("gave", Rule::Overbalance)
    };
    let reason = if plan.skipped {
        format!(
            " ({profile} skips a run while lts {} is below the misbalance level {})",
            before.lts,
            before.thresh.leases()
        )
    } else {
        String::new()
    };
    Finding {
        frame,
        time: None,
        group: String::new(),
        rule: rule.id(),
        severity: Severity::Warning,
        subject: Subject::FailoverPool(pool.to_string()),
        expected: json!({
            "profile": profile,
            "moves": plan.moves.len(),
            "lts_after": plan.lts_after,
            "skipped": plan.skipped,
            "hold": level_json(before.hold),
        }),
        observed: json!({
            "server": before.role.name(),
            "lts_before": before.lts,
            "moves": moved,
            "lts_after": observed_after,
            "direction": direction,
        }),
        message: format!(
            "the {}'s balance run moved {moved} lease(s) from lts {} to {observed_after}; the reference moves {} to lts {}{reason}",
            before.role,
            before.lts,
            plan.moves.len(),
            plan.lts_after
        ),
    }
}

/// `failover.ownership` without a run (`isc-code` only, whose runs always end at or under
/// +hold): in normal operation the holder's lts stayed above the ownership level (max-lease-
/// ownership % of free + backup) but at or under the misbalance level for longer than max-balance
/// plus grace: more than the allowed skew kept. (Above the misbalance level it is a misbalance.)
///
/// Severity: warning. Expected: lts at most +hold; observed: the holder's lts and for how long.
pub fn ownership_kept(
    frame: u64,
    pool: &str,
    holder: &Levels,
    since_frame: u64,
    for_seconds: f64,
) -> Finding {
    Finding {
        frame,
        time: None,
        group: String::new(),
        rule: Rule::Ownership.id(),
        severity: Severity::Warning,
        subject: Subject::FailoverPool(pool.to_string()),
        expected: json!({ "lts_at_most": level_json(holder.hold) }),
        observed: json!({
            "holder": holder.role.name(),
            "lts": holder.lts,
            "free": holder.free,
            "backup": holder.backup,
            "since_frame": since_frame,
            "for_seconds": for_seconds,
            "direction": "kept",
        }),
        message: format!(
            "the {} has kept lts {} above the ownership level {} for {:.0} s",
            holder.role,
            holder.lts,
            holder.hold.leases(),
            for_seconds
        ),
    }
}
