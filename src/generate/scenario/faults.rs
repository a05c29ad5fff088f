//! `generate --faults K`: K faults of each kind the analysers detect, spread over the capture.
//!
//! Each fault is a plant of its scenario that waits for its time and then for the first place
//! where it shows as exactly one finding (`rserpool::AnswerFault::clean`, the DHCP scenario's
//! transactions of their own, the failover scenario's eligible runs), so that `check` reports
//! each at its frame, under its rule, and nothing else. The one exception is the analysers' own:
//! under a profile that balances no unicast renewal (ISC), a wrong-server fault can only be
//! a DISCOVER answered by the other server, whose owner's silence `check` reports too
//! (`dhcp.lb.no-answer`); the run log lists that finding beside it.
//!
//! Faults are due at evenly spaced times between 5 % and 80 % of the capture's expected span
//! (frames over rate), the kinds interleaved, so that each has room after it for what shows it
//! (a client's retry 2 s later, the next balance run a minute later).

use super::batch::NS;
use super::preset::Part;

/// One kind of fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// An RSerPool answer lists a PE twice.
    DuplicatePe,
    /// An RSerPool answer lists a PE the pool does not hold.
    UnknownPe,
    /// A least-used answer out of load order.
    LuOrder,
    /// A round-robin registrar repeats its previous answer.
    RrHeadStuck,
    /// The DHCP server that does not own a client's bucket answers it.
    WrongServer,
    /// Both DHCP servers answer a balanced request.
    DoubleAnswer,
    /// Nobody answers a balanced DHCP request; the client retries.
    NoAnswer,
    /// A failover balance run gives away a lease whose client hashes to the sender.
    Affinity,
    /// A failover balance run gives one lease more than the reference.
    Overbalance,
}

impl FaultKind {
    pub const ALL: [FaultKind; 9] = [
        FaultKind::DuplicatePe,
        FaultKind::UnknownPe,
        FaultKind::LuOrder,
        FaultKind::RrHeadStuck,
        FaultKind::WrongServer,
        FaultKind::DoubleAnswer,
        FaultKind::NoAnswer,
        FaultKind::Affinity,
        FaultKind::Overbalance,
    ];

    /// The rule `check` reports the fault under.
    pub fn rule(self) -> &'static str {
        match self {
            FaultKind::DuplicatePe => "rserpool.duplicate-pe",
            FaultKind::UnknownPe => "rserpool.unknown-pe",
            FaultKind::LuOrder => "rserpool.order",
            FaultKind::RrHeadStuck => "rserpool.rr-head-stuck",
            FaultKind::WrongServer => "dhcp.lb.wrong-server",
            FaultKind::DoubleAnswer => "dhcp.lb.double-answer",
            FaultKind::NoAnswer => "dhcp.lb.no-answer",
            FaultKind::Affinity => "failover.affinity",
            FaultKind::Overbalance => "failover.overbalance",
        }
    }

    /// The scenario that plants it.
    pub fn part(self) -> Part {
        match self {
            FaultKind::DuplicatePe
            | FaultKind::UnknownPe
            | FaultKind::LuOrder
            | FaultKind::RrHeadStuck => Part::Rserpool,
            FaultKind::WrongServer | FaultKind::DoubleAnswer | FaultKind::NoAnswer => Part::Dhcp,
            FaultKind::Affinity | FaultKind::Overbalance => Part::Failover,
        }
    }
}

/// When each fault of a run is due.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultPlan {
    /// Faults of each kind.
    pub per_kind: u32,
    /// The kinds the mix's scenarios plant, in [`FaultKind::ALL`]'s order.
    pub kinds: Vec<FaultKind>,
    /// The capture's first frame and its expected length, nanoseconds.
    pub start_ns: u64,
    pub span_ns: u64,
}

impl FaultPlan {
    /// `per_kind` faults of each kind the scenarios of `parts` plant, over a capture of
    /// `frames` frames at `rate` frames a second from `start_ns`.
    pub fn new(per_kind: u32, parts: &[Part], start_ns: u64, frames: u64, rate: f64) -> Self {
        let secs = if rate > 0.0 {
            frames as f64 / rate
        } else {
            0.0
        };
        FaultPlan {
            per_kind,
            kinds: FaultKind::ALL
                .into_iter()
                .filter(|k| parts.contains(&k.part()))
                .collect(),
            start_ns,
            span_ns: (secs * NS as f64) as u64,
        }
    }

    /// The times (nanoseconds since the epoch) from which the faults of `kind` are due: the
    /// `j`-th of kind `i` of `n` at 5 % + 75 % x (j n + i + 1/2) / (K n) of the span.
    pub fn times(&self, kind: FaultKind) -> Vec<u64> {
        let Some(i) = self.kinds.iter().position(|k| *k == kind) else {
            return Vec::new();
        };
        let n = self.kinds.len() as f64;
        let total = f64::from(self.per_kind) * n;
        (0..self.per_kind)
            .map(|j| {
                let slot = (f64::from(j) * n + i as f64 + 0.5) / total;
                let at = (0.05 + 0.75 * slot) * self.span_ns as f64;
                self.start_ns.saturating_add(at as u64)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_interleave_between_five_and_eighty_percent() {
        let plan = FaultPlan::new(3, &Part::ALL, 1_000 * NS, 200_000, 2000.0);
        assert_eq!(plan.kinds.len(), 9);
        assert_eq!(plan.span_ns, 100 * NS);
        let mut all: Vec<(u64, FaultKind)> = FaultKind::ALL
            .into_iter()
            .flat_map(|k| plan.times(k).into_iter().map(move |t| (t, k)))
            .collect();
        assert_eq!(all.len(), 27);
        all.sort_by_key(|(t, _)| *t);
        // 1005 s to 1080 s, each kind once in every ninth of the faults, in order.
        assert!(all[0].0 > 1_005 * NS && all[26].0 < 1_080 * NS, "{all:?}");
        let order: Vec<FaultKind> = all.iter().take(9).map(|(_, k)| *k).collect();
        assert_eq!(order, FaultKind::ALL.to_vec());
        // A mix without the failover pair plants no failover fault.
        let plan = FaultPlan::new(2, &[Part::Rserpool, Part::Dhcp], 0, 1000, 10.0);
        assert!(plan.times(FaultKind::Affinity).is_empty());
        assert_eq!(plan.times(FaultKind::NoAnswer).len(), 2);
    }
}
