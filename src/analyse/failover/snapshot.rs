//! One server's pools at one moment, as its `dhcpd.leases` file records them, and the balancer
//! reference's verdict on them: leases by binding state, lts and the levels it is compared with,
//! what a timer run would move now (pass 1 by affinity, pass 2 oldest) and whether it would send
//! a POOLREQ, the age of the oldest FREE and BACKUP lease, and when the next run falls due.
//!
//! Pure: a parsed file and settings in, numbers out; the command line formats them.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use super::balancer::{self, Levels, Plan, Trigger};
use super::from_file::{self, Loaded};
use super::pools::PoolMap;
use super::profile::{Params, Profile};
use super::replay::candidates;
use super::schedule::{self, Window};
use super::state::{LeaseState, NEVER_USED};
use crate::analyse::dhcp_lb::{Hba, Role};
use crate::proto::failover::BindingStatus;
use crate::source::leases::LeaseFile;

/// How the verdict is reached.
#[derive(Clone, Debug)]
pub struct Settings {
    pub profile: &'static Profile,
    pub params: Params,
    pub pools: PoolMap,
    /// The pair's hash bucket assignment; without one no lease is given away by affinity (ISC's
    /// `peer_wants_lease` answers no when load balancing is not configured).
    pub hba: Option<Hba>,
    /// The server whose file it is.
    pub role: Role,
    /// Seconds since the epoch, for the ages and the schedule.
    pub now: i64,
}

/// Whether dhcpd would balance at all in the state the file records: the balancer runs only in
/// NORMAL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Balancing {
    /// Every failover peer's `my state` is `normal`.
    Normal,
    /// A peer's `my state` is another one (the first such is named).
    NotNormal { peer: String, state: String },
    /// The file records no failover state; taken as NORMAL.
    Unknown,
}

impl Balancing {
    pub fn of(file: &LeaseFile) -> Balancing {
        if file.peers.is_empty() {
            return Balancing::Unknown;
        }
        for p in &file.peers {
            let state = p.my.as_ref().map_or("unknown-state", |m| m.state.as_str());
            if state != "normal" {
                return Balancing::NotNormal {
                    peer: String::from_utf8_lossy(&p.name).into_owned(),
                    state: state.to_string(),
                };
            }
        }
        Balancing::Normal
    }

    /// Whether a balance run can start.
    pub fn runs(&self) -> bool {
        !matches!(self, Balancing::NotNormal { .. })
    }
}

/// The oldest lease of one free-state queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Oldest {
    /// Its `ends`; [`NEVER_USED`] (0) when it has never been used.
    pub ends: i64,
    /// Seconds since `ends`, `None` for a never-used lease (or an `ends` ahead of now).
    pub age: Option<i64>,
}

/// One pool's state and verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolVerdict {
    pub name: String,
    /// The configured range, or the lowest and highest address of the file in the pool.
    pub first: Ipv4Addr,
    pub last: Ipv4Addr,
    pub configured: bool,
    /// Leases by the binding state the file names (`free`, `backup`, `active`, ...; `none` for
    /// a block that names none).
    pub by_state: BTreeMap<&'static str, u32>,
    /// Leases of the file in the pool.
    pub leases: u32,
    /// lts and its levels for the file's server.
    pub levels: Levels,
    /// Neither server holds more than half of the free-state leases by more than the
    /// max-lease-misbalance level (ISC logs "IMBALANCED" otherwise).
    pub balanced: bool,
    /// What a run of the balance timer would do now.
    pub plan: Plan,
    pub oldest_free: Option<Oldest>,
    pub oldest_backup: Option<Oldest>,
    /// When the next run is due, as dhcpd would schedule it now (no earlier run known).
    pub next_check: Window,
}

impl PoolVerdict {
    /// A run now would move leases.
    pub fn due(&self, balancing: &Balancing) -> bool {
        balancing.runs() && !self.plan.moves.is_empty()
    }

    /// A run now would send a POOLREQ.
    pub fn panic_due(&self, balancing: &Balancing) -> bool {
        balancing.runs() && self.plan.poolreq
    }
}

/// Every pool of one lease file, with the verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub pools: Vec<PoolVerdict>,
    pub loaded: Loaded,
    /// Leases in no configured pool.
    pub outside: u32,
}

fn oldest(ends: Option<i64>, now: i64) -> Option<Oldest> {
    ends.map(|ends| Oldest {
        ends,
        age: (ends != NEVER_USED && ends <= now).then(|| now.saturating_sub(ends)),
    })
}

/// The state of every pool `file` holds and the verdict on each.
pub fn snapshot(file: &LeaseFile, s: &Settings) -> Snapshot {
    // Every lease of a file is kept: the bound only guards the replay against endless captures.
    let mut state = LeaseState::new(s.pools.clone(), file.leases.len());
    let loaded = from_file::load(&mut state, file, s.now as f64);

    struct Seen {
        first: Ipv4Addr,
        last: Ipv4Addr,
        configured: bool,
        by_state: BTreeMap<&'static str, u32>,
        leases: u32,
    }
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    if let PoolMap::Ranges(ranges) = &s.pools {
        for r in ranges {
            seen.insert(
                r.name.clone(),
                Seen {
                    first: r.first,
                    last: r.last,
                    configured: true,
                    by_state: BTreeMap::new(),
                    leases: 0,
                },
            );
        }
    }
    let mut outside = 0u32;
    for e in &file.leases {
        let Some(a) = e.address else { continue };
        let Some(name) = s.pools.pool_of(a) else {
            outside = outside.saturating_add(1);
            continue;
        };
        let p = seen.entry(name.to_string()).or_insert(Seen {
            first: a,
            last: a,
            configured: false,
            by_state: BTreeMap::new(),
            leases: 0,
        });
        if !p.configured {
            p.first = p.first.min(a);
            p.last = p.last.max(a);
        }
        let state_name = e.binding_state.map_or("none", |b| b.name());
        let n = p.by_state.entry(state_name).or_default();
        *n = n.saturating_add(1);
        p.leases = p.leases.saturating_add(1);
    }

    let role = s.role;
    let pools = seen
        .into_iter()
        .map(|(name, p)| {
            let pool = state.pool(&name);
            let c = pool.map(|p| p.counts_for(role)).unwrap_or_default();
            let levels = balancer::levels(s.profile, &s.params, role, c.free, c.backup);
            let peer = balancer::levels(s.profile, &s.params, role.peer(), c.free, c.backup);
            let queue = pool.map(|p| candidates(p, role, s.hba)).unwrap_or_default();
            let plan = balancer::plan(s.profile, levels, &queue, Trigger::Timer);
            let head = |status| pool.and_then(|p| p.oldest_ends_for(role, status));
            let (free, backup) = (head(BindingStatus::Free), head(BindingStatus::Backup));
            PoolVerdict {
                name,
                first: p.first,
                last: p.last,
                configured: p.configured,
                by_state: p.by_state,
                leases: p.leases,
                levels,
                balanced: !levels.imbalanced() && !peer.imbalanced(),
                plan,
                oldest_free: oldest(free, s.now),
                oldest_backup: oldest(backup, s.now),
                next_check: schedule::next_check(
                    s.profile, &s.params, role, s.now, free, backup, None,
                ),
            }
        })
        .collect();
    Snapshot {
        pools,
        loaded,
        outside,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::failover::balancer::{Level, Pass};
    use crate::analyse::failover::profile::{ISC_CODE, ISC_DOC};
    use crate::source::leases;

    fn settings(role: Role) -> Settings {
        Settings {
            profile: &ISC_CODE,
            params: Params::default(),
            pools: PoolMap::default(),
            hba: Some(Hba::split(128).unwrap()),
            role,
            now: 10_000,
        }
    }

    /// Buckets of one-byte client identifiers: the hash starts at the key length (1) and takes
    /// T[1 ^ byte] from the RFC 3074 table, so "A" (0x41) is T[0x40] = 40 (the primary's under
    /// split 128), "C" (0x43) is T[0x42] = 219 and "G" (0x47) is T[0x46] = 210 (the secondary's).
    const FILE: &[u8] = b"
lease 10.0.0.1 { binding state free; ends epoch 1000; uid \"A\"; }
lease 10.0.0.2 { binding state free; ends epoch 2000; uid \"C\"; }
lease 10.0.0.3 { binding state free; ends epoch 3000; uid \"A\"; }
lease 10.0.0.4 { binding state free; ends epoch 4000; uid \"G\"; }
lease 10.0.0.5 { binding state free; ends epoch 5000; uid \"A\"; }
lease 10.0.0.6 { binding state free; ends epoch 6000; uid \"A\"; }
lease 10.0.0.7 { binding state free; }
lease 10.0.0.8 { binding state free; ends epoch 8000; uid \"A\"; }
lease 10.0.0.9 { binding state backup; ends epoch 9000; uid \"C\"; }
lease 10.0.0.10 { binding state backup; ends epoch 9500; uid \"A\"; }
lease 10.0.0.11 { binding state active; ends epoch 20000; uid \"A\"; }
lease 10.0.0.12 { binding state expired; ends epoch 9900; }
lease 10.0.0.13 { hardware ethernet 00:00:00:00:00:01; }
lease 10.0.1.1 { binding state backup; }
";

    #[test]
    fn counts_levels_and_the_primarys_run() {
        let f = leases::parse(FILE);
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        let s = snapshot(&f, &settings(Role::Primary));
        assert_eq!(s.pools.len(), 2);
        let p = &s.pools[0];
        assert_eq!(p.name, "10.0.0.0/24");
        assert_eq!(
            (p.first, p.last),
            ("10.0.0.1".parse().unwrap(), "10.0.0.13".parse().unwrap())
        );
        let by: Vec<(&str, u32)> = p.by_state.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(
            by,
            [
                ("active", 1),
                ("backup", 2),
                ("expired", 1),
                ("free", 8),
                ("none", 1)
            ]
        );
        // free 8, backup 2: lts (8 - 2) / 2 = 3; 10 free-state leases: thresh 15 % = 1.5 -> 2,
        // hold 10 % = 1, panic below -4.
        let l = p.levels;
        assert_eq!(
            (l.lts, l.thresh, l.hold, l.panic),
            (3, Level(200), Level(100), Level(-400))
        );
        assert!(!p.balanced, "lts 3 > thresh 2");
        // The FREE queue oldest first: .7 (never used), .1, .2, ... Pass 1 gives .2 and .4
        // (clients C and G hash to the secondary): lts 1, the queue ends above -1. Pass 2: .7 is
        // never used and lts 1 > 0: it goes (lts 0); .1 is used and lts 0 <= hold: stop.
        let moves: Vec<(u8, Pass)> = p
            .plan
            .moves
            .iter()
            .map(|m| (m.address.octets()[3], m.pass))
            .collect();
        assert_eq!(moves, [(2, Pass::One), (4, Pass::One), (7, Pass::Two)]);
        assert!(!p.plan.poolreq);
        assert!(p.due(&Balancing::Unknown));
        assert!(!p.due(&Balancing::NotNormal {
            peer: "x".into(),
            state: "recover".into()
        }));
        assert_eq!(p.oldest_free, Some(Oldest { ends: 0, age: None }));
        assert_eq!(
            p.oldest_backup,
            Some(Oldest {
                ends: 9000,
                age: Some(1000)
            })
        );
        // The BACKUP queue's estimate: 1000 s x 15 % = 150 s. The FREE queue's head is never used
        // (ends 0, so aged 10 000 s here): 1500 s, doubled as the primary's own queue. The smaller
        // wins, under max-balance (3600 s).
        assert_eq!(p.next_check.earliest, 10_150);
        assert_eq!(s.pools[1].name, "10.0.1.0/24");
        assert_eq!(s.loaded.without_state, 1);
    }

    #[test]
    fn the_secondary_short_of_leases_asks_for_them() {
        let f = leases::parse(FILE);
        let s = snapshot(&f, &settings(Role::Secondary));
        let p = &s.pools[0];
        // lts (2 - 8) / 2 = -3: not below -4, no POOLREQ.
        assert_eq!(p.levels.lts, -3);
        assert!(!p.plan.poolreq);
        assert!(
            p.plan.moves.is_empty(),
            "lts -3 is already at or below -hold (-1)"
        );
        let mut st = settings(Role::Secondary);
        st.params.max_lease_misbalance = 5;
        // thresh 10 x 5 % = 0.5 -> 1 (half up), panic below -2: lts -3 panics.
        let p = snapshot(&f, &st).pools.remove(0);
        assert_eq!(p.levels.panic, Level(-200));
        assert!(p.plan.poolreq && p.panic_due(&Balancing::Normal));
        assert!(!p.panic_due(&Balancing::NotNormal {
            peer: "x".into(),
            state: "communications-interrupted".into()
        }));
    }

    #[test]
    fn the_man_page_skips_below_misbalance() {
        let f = leases::parse(FILE);
        let mut st = settings(Role::Primary);
        st.profile = &ISC_DOC;
        st.params.max_lease_misbalance = 40;
        // 10 x 40 % = 4 exactly: lts 3 < 4, the run is skipped.
        let p = snapshot(&f, &st).pools.remove(0);
        assert!(p.plan.skipped && p.plan.moves.is_empty());
    }

    #[test]
    fn configured_pools_are_listed_even_when_empty_and_leases_outside_counted() {
        let f = leases::parse(FILE);
        let mut st = settings(Role::Primary);
        st.pools = PoolMap::ranges(vec![
            "a=10.0.0.1-10.0.0.4".parse().unwrap(),
            "b=10.0.5.1-10.0.5.9".parse().unwrap(),
        ])
        .unwrap();
        let s = snapshot(&f, &st);
        let names: Vec<&str> = s.pools.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(s.pools[0].leases, 4);
        assert_eq!(s.pools[1].leases, 0);
        assert_eq!(s.pools[1].levels.lts, 0);
        assert_eq!(s.outside, 10);
        assert_eq!(s.pools[1].first, "10.0.5.1".parse::<Ipv4Addr>().unwrap());
    }

    #[test]
    fn balancing_follows_my_state() {
        let f = leases::parse(
            b"failover peer \"a\" state { my state normal at epoch 1; }\n\
              failover peer \"b\" state { my state recover at epoch 1; }\n",
        );
        assert_eq!(
            Balancing::of(&f),
            Balancing::NotNormal {
                peer: "b".into(),
                state: "recover".into()
            }
        );
        assert_eq!(Balancing::of(&leases::parse(b"")), Balancing::Unknown);
    }
}
