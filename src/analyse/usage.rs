//! How full the configured pools are, as dhcpd-pools reports it for ISC dhcpd: per range and
//! per shared network `max` (addresses, or prefixes, the range holds), `cur` (leases in use),
//! `touch` (leases that were used and are free again: free, expired, released, abandoned,
//! reset, declined), `bu` (leases held for the failover peer, BACKUP), `free` (max - cur), and
//! the percentages of max; and the alarm status of each against `--warning` / `--critical`
//! with dhcpd-pools' rules, which Nagios-style monitoring gates on.
//!
//! What a lease counts as is the server's own reading of its lease file at `now`, not
//! dhcpd-pools' line matching (see `../shared/peer/dhcpd-pools/README.md`, "Where dhcpd-pools is
//! not dhcpd"): the last block for an address wins whatever its indentation; `bootp` and
//! `reserved` bindings are in use; a binding in use whose `ends` has passed is expired (dhcpd
//! expires it the moment it reads the file), and a lease without a binding state is in use while
//! its `ends` lies ahead; a Kea lease is in use in state 0 until its `expire`.
//!
//! Pure: ranges and classified leases in, numbers out.

use std::net::IpAddr;

use crate::config::{Range, RangeKind};
use crate::source::leases::kea::{KeaLease, LeaseType, STATE_DEFAULT};
use crate::source::leases::{Binding, Lease6Entry, LeaseEntry, LeaseTime};

/// What a lease counts as at a moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// In use (`cur`).
    Active,
    /// Used once, free again (`touch`).
    Touched,
    /// Held for the failover peer (`bu`).
    Backup,
}

/// A lease's address (or prefix) and what it counts as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Classified {
    pub address: IpAddr,
    /// `Some(len)` for a delegated prefix.
    pub prefix_len: Option<u8>,
    pub class: Class,
}

/// In use while `ends` lies ahead of `now` (or never comes).
fn by_time(ends: Option<LeaseTime>, now: i64) -> Class {
    match ends {
        Some(LeaseTime::Never) => Class::Active,
        Some(LeaseTime::At(t)) if t > now => Class::Active,
        _ => Class::Touched,
    }
}

fn binding_class(b: Option<Binding>, ends: Option<LeaseTime>, now: i64) -> Class {
    match b {
        Some(Binding::Active | Binding::Bootp | Binding::Reserved) => match ends {
            // No `ends`: the file does not say when it ends (dhcpd-pools' test files).
            None => Class::Active,
            e => by_time(e, now),
        },
        Some(Binding::Backup) => Class::Backup,
        Some(
            Binding::Free
            | Binding::Expired
            | Binding::Released
            | Binding::Abandoned
            | Binding::Reset,
        ) => Class::Touched,
        None => by_time(ends, now),
    }
}

/// A dhcpd DHCPv4 lease at `now`.
pub fn dhcpd(e: &LeaseEntry, now: i64) -> Option<Classified> {
    Some(Classified {
        address: IpAddr::V4(e.address?),
        prefix_len: None,
        class: binding_class(e.binding_state, e.ends, now),
    })
}

/// A dhcpd DHCPv6 lease at `now`.
pub fn dhcpd6(e: &Lease6Entry, now: i64) -> Classified {
    Classified {
        address: IpAddr::V6(e.address),
        prefix_len: e.prefix_len,
        class: binding_class(e.binding_state, e.ends, now),
    }
}

/// A Kea lease at `now`: in use in state 0 until it expires; declined and reclaimed leases are
/// free again.
pub fn kea(l: &KeaLease, now: i64) -> Classified {
    let class = if l.state == STATE_DEFAULT && l.expire > now {
        Class::Active
    } else {
        Class::Touched
    };
    Classified {
        address: l.address,
        prefix_len: match l.kind {
            LeaseType::Prefix(len) => Some(len),
            LeaseType::Address | LeaseType::Temporary => None,
        },
        class,
    }
}

/// The counts of a range, a shared network, or all ranges together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub max: u128,
    pub cur: u64,
    pub touch: u64,
    pub bu: u64,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.max = self.max.saturating_add(o.max);
        self.cur = self.cur.saturating_add(o.cur);
        self.touch = self.touch.saturating_add(o.touch);
        self.bu = self.bu.saturating_add(o.bu);
    }

    /// max - cur.
    pub fn free(&self) -> u128 {
        self.max.saturating_sub(u128::from(self.cur))
    }

    /// `n` as a percentage of max (NaN when max is 0, as dhcpd-pools prints it).
    pub fn percent_of(&self, n: u64) -> f64 {
        100.0 * n as f64 / self.max as f64
    }

    pub fn percent(&self) -> f64 {
        self.percent_of(self.cur)
    }

    /// touch + cur (dhcpd-pools' `t+c`).
    pub fn touch_cur(&self) -> u64 {
        self.touch.saturating_add(self.cur)
    }
}

/// dhcpd-pools' alarm settings (its options of the same names).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Alarms {
    /// Percent in use above which a range or network warns (dhcpd-pools' default 80).
    pub warning: f64,
    /// Percent in use above which it is critical (default 90).
    pub critical: f64,
    /// Warn only when fewer than this many addresses are free.
    pub warn_count: Option<u128>,
    /// Critical only when fewer than this many addresses are free.
    pub crit_count: Option<u128>,
    /// A range that would alarm, and any shared network, of at most this many addresses is
    /// ignored instead.
    pub minsize: u128,
    /// Ranges in a shared network do not alarm (their network does).
    pub snet_alarms: bool,
}

impl Default for Alarms {
    fn default() -> Self {
        Alarms {
            warning: 80.0,
            critical: 90.0,
            warn_count: None,
            crit_count: None,
            minsize: 0,
            snet_alarms: false,
        }
    }
}

/// A range's or network's alarm status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Ok,
    Warning,
    Critical,
    /// At or below `--minsize`.
    Ignored,
    /// A range in a shared network under `--snet-alarms`, or a network without addresses.
    Suppressed,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warning => "warning",
            Status::Critical => "critical",
            Status::Ignored => "ignored",
            Status::Suppressed => "suppressed",
        }
    }
}

impl Alarms {
    /// Critical above `critical` percent, else warning above `warning` percent, each only
    /// while fewer addresses than the count (if given) are free.
    fn level(&self, c: &Counts) -> Status {
        let pct = c.percent();
        let below = |n: Option<u128>| n.is_none_or(|n| c.free() < n);
        if self.critical < pct && below(self.crit_count) {
            Status::Critical
        } else if self.warning < pct && below(self.warn_count) {
            Status::Warning
        } else {
            Status::Ok
        }
    }

    /// A range's status (dhcpd-pools 3.0's `range_output_helper`): a range that would alarm
    /// is ignored when it is no larger than `minsize`, else suppressed when it is in a shared
    /// network under `snet_alarms`.
    pub fn range(&self, c: &Counts, in_shared_network: bool) -> Status {
        match self.level(c) {
            Status::Ok => Status::Ok,
            _ if c.max <= self.minsize => Status::Ignored,
            _ if self.snet_alarms && in_shared_network => Status::Suppressed,
            s => s,
        }
    }

    /// A shared network's status (dhcpd-pools 3.0's `shnet_output_helper`): a network without
    /// addresses is suppressed, one no larger than `minsize` ignored whatever its use.
    pub fn network(&self, c: &Counts) -> Status {
        if c.max == 0 {
            Status::Suppressed
        } else if c.max <= self.minsize {
            Status::Ignored
        } else {
            self.level(c)
        }
    }
}

/// One range's counts.
#[derive(Clone, Debug, PartialEq)]
pub struct RangeUsage {
    pub range: Range,
    pub counts: Counts,
}

/// One shared network's counts: the sums of its ranges.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkUsage {
    pub name: String,
    pub counts: Counts,
}

/// Every range and shared network of a configuration against one lease file. Address and
/// prefix counts are not added together: a shared network's sums and `all` are of its address
/// ranges, `all_prefixes` of the prefix pools.
#[derive(Clone, Debug, PartialEq)]
pub struct Usage {
    pub ranges: Vec<RangeUsage>,
    pub shared_networks: Vec<NetworkUsage>,
    /// All address ranges together.
    pub all: Counts,
    /// All prefix pools together.
    pub all_prefixes: Counts,
    /// Leases in no range.
    pub outside: u64,
}

/// Counts `leases` into `ranges` (and their `shared_networks`, in the order given).
pub fn count(
    ranges: &[Range],
    shared_networks: &[String],
    leases: impl IntoIterator<Item = Classified>,
) -> Usage {
    let mut out: Vec<RangeUsage> = ranges
        .iter()
        .map(|r| RangeUsage {
            range: r.clone(),
            counts: Counts {
                max: r.size(),
                ..Counts::default()
            },
        })
        .collect();
    // Ranges by first address, apart for addresses and prefixes (a prefix pool may cover
    // addresses of an address range): a lease's range is then found by binary search, looking
    // back only while an earlier range may still reach the address.
    let is_prefix = |r: &Range| matches!(r.kind, RangeKind::Prefixes(_));
    let mut order: Vec<usize> = (0..out.len()).collect();
    order.sort_by_key(|&i| (is_prefix(&out[i].range), out[i].range.first));
    let mut reach: Vec<IpAddr> = Vec::with_capacity(order.len());
    for (k, &i) in order.iter().enumerate() {
        let r = &out[i].range;
        let before = k
            .checked_sub(1)
            .filter(|&p| is_prefix(&out[order[p]].range) == is_prefix(r))
            .map(|p| reach[p]);
        reach.push(before.map_or(r.last, |b| b.max(r.last)));
    }
    let mut outside = 0u64;
    for l in leases {
        let prefixes = l.prefix_len.is_some();
        let upto = order.partition_point(|&i| {
            let r = &out[i].range;
            (is_prefix(r), r.first) <= (prefixes, l.address)
        });
        let mut slot = None;
        for k in (0..upto).rev() {
            let r = &out[order[k]].range;
            if is_prefix(r) != prefixes || reach[k] < l.address {
                break;
            }
            let kind_fits = match (r.kind, l.prefix_len) {
                (RangeKind::Prefixes(len), Some(p)) => len == p,
                (RangeKind::Prefixes(_), None) | (_, Some(_)) => false,
                _ => true,
            };
            if kind_fits && r.contains(l.address) {
                slot = Some(order[k]);
                break;
            }
        }
        let Some(i) = slot else {
            outside = outside.saturating_add(1);
            continue;
        };
        let c = &mut out[i].counts;
        let n = match l.class {
            Class::Active => &mut c.cur,
            Class::Touched => &mut c.touch,
            Class::Backup => &mut c.bu,
        };
        *n = n.saturating_add(1);
    }
    let mut all = Counts::default();
    let mut all_prefixes = Counts::default();
    for r in &out {
        if is_prefix(&r.range) {
            all_prefixes.add(&r.counts);
        } else {
            all.add(&r.counts);
        }
    }
    let shared_networks = shared_networks
        .iter()
        .map(|name| {
            let mut counts = Counts::default();
            for r in out.iter().filter(|r| {
                !is_prefix(&r.range) && r.range.shared_network.as_deref() == Some(name.as_str())
            }) {
                counts.add(&r.counts);
            }
            NetworkUsage {
                name: name.clone(),
                counts,
            }
        })
        .collect();
    Usage {
        ranges: out,
        shared_networks,
        all,
        all_prefixes,
        outside,
    }
}

/// How many ranges and networks are in each status, and the exit code they call for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// crit, warn, ok, ignored (suppressed ones are not counted, as in dhcpd-pools).
    pub ranges: [u32; 4],
    pub shared_networks: [u32; 4],
}

impl Verdict {
    pub fn of(usage: &Usage, alarms: &Alarms, on_ranges: bool, on_networks: bool) -> Verdict {
        let mut v = Verdict::default();
        let tally = |slot: &mut [u32; 4], s: Status| {
            let i = match s {
                Status::Critical => 0,
                Status::Warning => 1,
                Status::Ok => 2,
                Status::Ignored => 3,
                Status::Suppressed => return,
            };
            slot[i] = slot[i].saturating_add(1);
        };
        if on_ranges {
            for r in &usage.ranges {
                let s = alarms.range(&r.counts, r.range.shared_network.is_some());
                tally(&mut v.ranges, s);
            }
        }
        if on_networks {
            for n in &usage.shared_networks {
                tally(&mut v.shared_networks, alarms.network(&n.counts));
            }
        }
        v
    }

    /// Nagios' codes, as dhcpd-pools gives them: 2 critical, 1 warning, 0 ok.
    pub fn exit_code(&self) -> i32 {
        if self.ranges[0] > 0 || self.shared_networks[0] > 0 {
            2
        } else if self.ranges[1] > 0 || self.shared_networks[1] > 0 {
            1
        } else {
            0
        }
    }

    pub fn word(&self) -> &'static str {
        match self.exit_code() {
            2 => "CRITICAL",
            1 => "WARNING",
            _ => "OK",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::At;

    fn range(first: &str, last: &str, shared: Option<&str>) -> Range {
        Range {
            first: first.parse().unwrap(),
            last: last.parse().unwrap(),
            kind: RangeKind::Addresses,
            subnet: String::new(),
            subnet_id: None,
            shared_network: shared.map(str::to_string),
            pool: 0,
            failover_peer: None,
            at: At::default(),
        }
    }

    fn lease(a: &str, class: Class) -> Classified {
        Classified {
            address: a.parse().unwrap(),
            prefix_len: None,
            class,
        }
    }

    #[test]
    fn leases_fall_in_their_ranges() {
        let ranges = [
            range("10.0.0.1", "10.0.0.20", Some("a")),
            range("10.1.0.1", "10.1.0.20", Some("a")),
            range("10.4.0.1", "10.4.0.20", None),
        ];
        let u = count(
            &ranges,
            &["a".to_string(), "empty".to_string()],
            [
                lease("10.0.0.1", Class::Active),
                lease("10.0.0.20", Class::Touched),
                lease("10.0.0.21", Class::Active),
                lease("10.1.0.5", Class::Backup),
                lease("10.4.0.9", Class::Active),
                lease("9.0.0.1", Class::Active),
            ],
        );
        let c: Vec<(u128, u64, u64, u64)> = u
            .ranges
            .iter()
            .map(|r| (r.counts.max, r.counts.cur, r.counts.touch, r.counts.bu))
            .collect();
        assert_eq!(c, [(20, 1, 1, 0), (20, 0, 0, 1), (20, 1, 0, 0)]);
        assert_eq!(u.outside, 2);
        assert_eq!(u.shared_networks[0].counts.max, 40);
        assert_eq!(u.shared_networks[1].counts.max, 0);
        assert_eq!(u.all.cur, 2);
        assert_eq!(u.all.free(), 58);
    }

    #[test]
    fn alarms_as_dhcpd_pools_raises_them() {
        let c = |max: u128, cur: u64| Counts {
            max,
            cur,
            ..Counts::default()
        };
        let a = Alarms {
            warning: 50.0,
            ..Alarms::default()
        };
        // Strictly above: 50 % does not warn, 55 % does.
        assert_eq!(a.range(&c(20, 10), false), Status::Ok);
        assert_eq!(a.range(&c(20, 11), false), Status::Warning);
        assert_eq!(a.range(&c(20, 19), false), Status::Critical);
        let counted = Alarms {
            warning: 40.0,
            warn_count: Some(20),
            minsize: 19,
            snet_alarms: true,
            ..Alarms::default()
        };
        // 45 % with 11 free (< 20) warns; in a shared network under snet-alarms it is
        // suppressed; a range of 19 is ignored.
        assert_eq!(counted.range(&c(20, 9), false), Status::Warning);
        assert_eq!(counted.range(&c(20, 9), true), Status::Suppressed);
        assert_eq!(counted.range(&c(19, 9), false), Status::Ignored);
        assert_eq!(counted.range(&c(19, 1), false), Status::Ok);
        // A network at or below minsize is ignored whatever its use; one without addresses
        // is suppressed.
        assert_eq!(counted.network(&c(19, 1)), Status::Ignored);
        assert_eq!(counted.network(&c(0, 0)), Status::Suppressed);
        assert_eq!(counted.network(&c(40, 21)), Status::Warning);
        assert_eq!(
            counted.network(&c(40, 17)),
            Status::Ok,
            "23 free: not below 20"
        );
    }

    #[test]
    fn time_decides_a_binding_in_use() {
        let mut e = LeaseEntry {
            address: Some("10.0.0.1".parse().unwrap()),
            binding_state: Some(Binding::Active),
            ..LeaseEntry::default()
        };
        assert_eq!(dhcpd(&e, 100).map(|c| c.class), Some(Class::Active));
        e.ends = Some(LeaseTime::At(100));
        assert_eq!(dhcpd(&e, 100).map(|c| c.class), Some(Class::Touched));
        e.ends = Some(LeaseTime::At(101));
        assert_eq!(dhcpd(&e, 100).map(|c| c.class), Some(Class::Active));
        e.binding_state = None;
        assert_eq!(dhcpd(&e, 100).map(|c| c.class), Some(Class::Active));
        e.ends = None;
        assert_eq!(dhcpd(&e, 100).map(|c| c.class), Some(Class::Touched));
        e.binding_state = Some(Binding::Backup);
        assert_eq!(dhcpd(&e, 100).map(|c| c.class), Some(Class::Backup));
    }
}
