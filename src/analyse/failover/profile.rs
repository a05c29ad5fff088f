//! The two readings of ISC DHCP's failover pool balance, as data, and the operator's parameters.
//!
//! * `isc-code`: what `server/failover.c` of ISC DHCP 4.4 does (NOTES.md section 3). Percentages
//!   of the free-state leases (free + backup) are rounded half up to whole leases; no run is
//!   skipped, max-lease-misbalance only sets the panic level, the log level and the timer; pass 2
//!   follows whenever pass 1 reached the end of the queue and stops at +hold for used leases, at 0
//!   for never-used ones; POOLREQ below -2 x misbalance (-1 when that rounds to 0); the next
//!   check doubles the estimate of the server's own side and adds 0-4 s of jitter.
//! * `isc-doc`: the seed's man-page text (isc-dhcp-failover-pool-balance.txt, 2006). Percentages
//!   taken exactly; a run is skipped while lts is below (free + backup) x misbalance %; pass 2 only
//!   when pass 1 left lts at or above +hold, and it goes on until lts falls under +hold; POOLREQ
//!   when lts is more than double the misbalance level in the negative direction; the next check
//!   is the smaller queue age times misbalance %, fitted between min-balance and max-balance.

/// How a percentage of the free-state leases becomes a level to compare lts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// `(total x pct + 50) / 100` whole leases (ISC's integer arithmetic).
    HalfUp,
    /// `total x pct / 100` as a real number.
    Exact,
}

/// When pass 2 (oldest leases, regardless of their client) runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass2Entry {
    /// Whenever pass 1 walked the whole queue without reaching -hold (ISC's code).
    QueueExhausted,
    /// Only when pass 1 left lts at or above +hold (the man page).
    AtOrAboveHold,
}

/// When pass 2 stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass2Stop {
    /// At lts <= +hold when the next lease has been used, lts <= 0 when it never has (ISC's
    /// code: a never-used lease has no client whose return it could wait for).
    HoldUsedZeroNeverUsed,
    /// When lts falls under +hold (the man page).
    BelowHold,
}

/// Where the POOLREQ panic level lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PanicLevel {
    /// lts < -2 x thresh, or < -1 when thresh rounds to 0 (ISC's code).
    TwiceThreshOrOne,
    /// lts < -2 x thresh (the man page).
    TwiceThresh,
}

/// Where the min-balance floor of the next check counts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MinBalanceFrom {
    /// The last balance run (ISC's code; no floor before the first run).
    LastBalance,
    /// Now (the man page: the estimate is fitted between min-balance and max-balance).
    Now,
}

/// One reading of the pool balancer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    pub name: &'static str,
    pub summary: &'static str,
    pub rounding: Rounding,
    /// Whether a run moves nothing while lts is below the misbalance level.
    pub skip_below_misbalance: bool,
    pub pass2_entry: Pass2Entry,
    pub pass2_stop: Pass2Stop,
    pub panic: PanicLevel,
    /// Whether the estimate of the server's own free-state queue is doubled when scheduling.
    pub double_own_estimate: bool,
    pub min_balance_from: MinBalanceFrom,
    /// Random delay added to a scheduled check: 0 to this many seconds.
    pub jitter: u32,
}

pub const ISC_CODE: Profile = Profile {
    name: "isc-code",
    summary: "ISC DHCP 4.4 server/failover.c: no skip, pass 2 to +hold (0 for never-used leases)",
    rounding: Rounding::HalfUp,
    skip_below_misbalance: false,
    pass2_entry: Pass2Entry::QueueExhausted,
    pass2_stop: Pass2Stop::HoldUsedZeroNeverUsed,
    panic: PanicLevel::TwiceThreshOrOne,
    double_own_estimate: true,
    min_balance_from: MinBalanceFrom::LastBalance,
    jitter: 4,
};

pub const ISC_DOC: Profile = Profile {
    name: "isc-doc",
    summary: "the 2006 man-page text (seed): skip below misbalance, pass 2 until under +hold",
    rounding: Rounding::Exact,
    skip_below_misbalance: true,
    pass2_entry: Pass2Entry::AtOrAboveHold,
    pass2_stop: Pass2Stop::BelowHold,
    panic: PanicLevel::TwiceThresh,
    double_own_estimate: false,
    min_balance_from: MinBalanceFrom::Now,
    jitter: 0,
};

/// Every profile, in the order the command line lists them.
pub const ALL: [&Profile; 2] = [&ISC_CODE, &ISC_DOC];

impl Profile {
    /// The profile called `name` (`isc-code`, `isc-doc`).
    pub fn by_name(name: &str) -> Option<&'static Profile> {
        ALL.into_iter().find(|p| p.name.eq_ignore_ascii_case(name))
    }
}

/// The failover peer's pool-balance statements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// `max-lease-misbalance`, percent.
    pub max_lease_misbalance: u32,
    /// `max-lease-ownership`, percent.
    pub max_lease_ownership: u32,
    /// `min-balance`, seconds.
    pub min_balance: u32,
    /// `max-balance`, seconds.
    pub max_balance: u32,
}

impl Default for Params {
    /// dhcpd.conf(5)'s defaults: 15 %, 10 %, 60 s, 3600 s.
    fn default() -> Self {
        Params {
            max_lease_misbalance: 15,
            max_lease_ownership: 10,
            min_balance: 60,
            max_balance: 3600,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_defaults() {
        assert_eq!(Profile::by_name("ISC-code"), Some(&ISC_CODE));
        assert_eq!(Profile::by_name("isc-doc"), Some(&ISC_DOC));
        assert_eq!(Profile::by_name("kea"), None);
        let d = Params::default();
        assert_eq!(
            (
                d.max_lease_misbalance,
                d.max_lease_ownership,
                d.min_balance,
                d.max_balance
            ),
            (15, 10, 60, 3600)
        );
    }
}
