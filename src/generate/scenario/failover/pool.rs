//! The address pool a failover pair shares, as dhcpd keeps it: each lease's binding state, its
//! last client, `ends` (0 for a lease never used) and its place in its state's queue; and what a
//! balance run of either server gives its peer, decided by the project's balancer reference
//! (`analyse::failover::balancer` under `isc-code`, dhcpd 4.x as it behaves, whose levels and
//! passes were checked against the shared ISC run's own balancing logs) over the server's queue
//! in dhcpd's order.
//!
//! The queue order is dhcpd's (NOTES.md section 3, and what the failover replay reconstructs
//! from the wire): FREE and BACKUP leases sorted by `ends`, oldest first; a lease that changes
//! state or `ends` goes in front of the leases with the same `ends`, a lease loaded at start-up
//! behind them. A balance run does not change a lease's `ends` (a never-used lease stays never
//! used on the other side).

use std::net::Ipv4Addr;

use crate::analyse::dhcp_lb::{Hba, Role};
use crate::analyse::failover::balancer::{self, Candidate, Levels, Plan, Trigger};
use crate::analyse::failover::profile::{Params, Profile, ISC_CODE};
use crate::proto::failover::BindingStatus;

/// The balancing the generated pair does: dhcpd 4.x's code.
pub const PROFILE: &Profile = &ISC_CODE;

/// One address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub addr: Ipv4Addr,
    pub status: BindingStatus,
    /// The server that leased it (ACTIVE, and the transitional states it leaves through); for
    /// FREE the primary, for BACKUP the secondary, who may hand it out.
    pub holder: Role,
    /// The last client: option 61 payload (if it sent one) and MAC.
    pub client: Option<(Option<Vec<u8>>, [u8; 6])>,
    /// When the lease entered its state (seconds since the epoch): the start time of state.
    pub since: u32,
    /// Lease expiration time (seconds since the epoch); 0 for a lease never used.
    pub ends: u32,
    /// Place among the leases of its queue with the same `ends`: smaller first.
    order: i64,
}

impl Lease {
    /// The RFC 3074 key of its last client (client identifier, else the MAC).
    pub fn key(&self) -> Option<Vec<u8>> {
        self.client
            .as_ref()
            .map(|(id, mac)| id.clone().unwrap_or_else(|| mac.to_vec()))
    }
}

/// The pool.
#[derive(Clone, Debug)]
pub struct LeasePool {
    pub leases: Vec<Lease>,
    pub hba: Hba,
    pub params: Params,
    /// Hands out the queue positions (negative: in front of the equals, at a change).
    next_order: i64,
}

/// The state a server may hand out leases from.
pub fn own_state(r: Role) -> BindingStatus {
    match r {
        Role::Primary => BindingStatus::Free,
        Role::Secondary => BindingStatus::Backup,
    }
}

impl LeasePool {
    /// `size` addresses from `base`, all FREE (the primary's) and never used, in address order.
    pub fn new(base: Ipv4Addr, size: u32, hba: Hba, params: Params, now: u32) -> Self {
        let leases: Vec<Lease> = (0..size)
            .map(|i| Lease {
                addr: Ipv4Addr::from(u32::from(base).wrapping_add(i)),
                status: BindingStatus::Free,
                holder: Role::Primary,
                client: None,
                since: now,
                ends: 0,
                order: i64::from(i) + 1,
            })
            .collect();
        LeasePool {
            next_order: i64::from(size) + 1,
            leases,
            hba,
            params,
        }
    }

    pub fn count(&self, s: BindingStatus) -> usize {
        self.leases.iter().filter(|l| l.status == s).count()
    }

    /// Lease `i` enters `status` at `now` with expiration `ends` (it keeps its `ends` when
    /// `None`). Its place in its queue follows dhcpd's: in front of its equals when its state or
    /// `ends` changed, where it was otherwise.
    pub fn set(&mut self, i: usize, status: BindingStatus, ends: Option<u32>, now: u32) {
        let Some(l) = self.leases.get_mut(i) else {
            return;
        };
        let ends = ends.unwrap_or(l.ends);
        if l.status != status || l.ends != ends {
            self.next_order += 1;
            l.order = -self.next_order;
        }
        if l.status != status {
            l.since = now;
        }
        l.status = status;
        l.ends = ends;
        if status == BindingStatus::Free {
            l.holder = Role::Primary;
        } else if status == BindingStatus::Backup {
            l.holder = Role::Secondary;
        }
    }

    /// The balancer's levels of server `r` now (lts, the misbalance, ownership and panic
    /// levels).
    pub fn levels(&self, r: Role) -> Levels {
        let free = self.count(BindingStatus::Free);
        let backup = self.count(BindingStatus::Backup);
        balancer::levels(
            PROFILE,
            &self.params,
            r,
            u32::try_from(free).unwrap_or(u32::MAX),
            u32::try_from(backup).unwrap_or(u32::MAX),
        )
    }

    /// Whether `r` is short enough of leases to ask its peer (a POOLREQ from a timer run).
    pub fn panic_due(&self, r: Role) -> bool {
        self.levels(r).panic_due()
    }

    /// The leases in `status`, in dhcpd's queue order: oldest `ends` first.
    pub fn queue_of(&self, status: BindingStatus) -> Vec<usize> {
        let mut q: Vec<usize> = (0..self.leases.len())
            .filter(|&i| self.leases[i].status == status)
            .collect();
        q.sort_by_key(|&i| (self.leases[i].ends, self.leases[i].order));
        q
    }

    /// Server `r`'s own free-state queue (FREE on the primary, BACKUP on the secondary).
    pub fn queue(&self, r: Role) -> Vec<usize> {
        self.queue_of(own_state(r))
    }

    /// `ends` of the oldest lease in `status` (`None`: the queue is empty), for the schedule.
    pub fn oldest_ends(&self, status: BindingStatus) -> Option<i64> {
        self.queue_of(status)
            .first()
            .map(|&i| i64::from(self.leases[i].ends))
    }

    /// The lease at `addr`.
    pub fn index_of(&self, addr: Ipv4Addr) -> Option<usize> {
        self.leases.iter().position(|l| l.addr == addr)
    }

    /// What a balance run of `r` started by `trigger` does now: the reference's plan over `r`'s
    /// queue, and the leases it gives the peer, in the order it sends them.
    pub fn plan(&self, r: Role, trigger: Trigger) -> (Plan, Vec<usize>) {
        let queue: Vec<Candidate> = self
            .queue(r)
            .into_iter()
            .map(|i| Candidate {
                address: self.leases[i].addr,
                ends: i64::from(self.leases[i].ends),
                peer_wants: self.hashes_to(i) == Some(r.peer()),
            })
            .collect();
        let plan = balancer::plan(PROFILE, self.levels(r), &queue, trigger);
        let moves = plan
            .moves
            .iter()
            .filter_map(|m| self.index_of(m.address))
            .collect();
        (plan, moves)
    }

    /// The server lease `i`'s last client hashes to (`None` for a lease never used).
    pub fn hashes_to(&self, i: usize) -> Option<Role> {
        let key = self.leases.get(i)?.key()?;
        Some(self.hba.owner_of_key(&key).1)
    }

    /// An available lease of `r` for a new client: the head of its queue, passing over `kept`.
    pub fn take(&self, r: Role, kept: Option<usize>) -> Option<usize> {
        self.queue(r).into_iter().find(|&i| Some(i) != kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::failover::balancer::Pass;

    fn params() -> Params {
        Params::default()
    }

    #[test]
    fn a_fresh_pool_gives_half_to_the_secondary_and_no_more() {
        let pool = LeasePool::new(
            Ipv4Addr::new(192, 0, 2, 100),
            60,
            Hba::split(128).unwrap(),
            params(),
            1000,
        );
        // free 60, backup 0: lts 30 and, of the 60 free-state leases, hold round(6) = 6 and a
        // misbalance level of 9 (the shared ISC run's first line: "total 60 free 60 backup 0
        // lts 30 max-own (+/-)6"); never-used leases move until lts is 0: 30 of them, oldest
        // (here: lowest address) first.
        let l = pool.levels(Role::Primary);
        assert_eq!(
            (l.lts, l.hold.whole(), l.thresh.whole()),
            (30, Some(6), Some(9))
        );
        let (plan, moves) = pool.plan(Role::Primary, Trigger::EnteredNormal);
        assert_eq!(plan.moves.len(), 30);
        assert!(plan.moves.iter().all(|m| m.pass == Pass::Two));
        assert_eq!(moves, (0..30).collect::<Vec<_>>());
        assert!(pool.panic_due(Role::Secondary));
        assert!(!pool.panic_due(Role::Primary));
    }

    #[test]
    fn hold_and_panic_levels_count_the_free_state_leases_only() {
        // 60 addresses, 56 of them active: free 0, backup 4. Of 4 free-state leases the
        // ownership level rounds to 0 and the misbalance level to 1 (4 x 15 % = 0.6), so the
        // primary at lts -2 is at its panic level (-2), not below it: no POOLREQ.
        let mut pool = LeasePool::new(
            Ipv4Addr::new(192, 0, 2, 100),
            60,
            Hba::kea(),
            params(),
            1000,
        );
        for i in 0..56 {
            pool.set(i, BindingStatus::Active, Some(2000), 1000);
        }
        for i in 56..60 {
            pool.set(i, BindingStatus::Backup, None, 1000);
        }
        let l = pool.levels(Role::Primary);
        assert_eq!(
            (l.lts, l.hold.whole(), l.thresh.whole()),
            (-2, Some(0), Some(1))
        );
        assert!(!pool.panic_due(Role::Primary));
        // One lease fewer on the primary's side of things: free 0, backup 6 -> lts -3 < -2.
        pool.set(0, BindingStatus::Backup, None, 1001);
        pool.set(1, BindingStatus::Backup, None, 1001);
        assert!(pool.panic_due(Role::Primary));
    }

    #[test]
    fn queues_follow_ends_and_a_change_goes_in_front_of_its_equals() {
        let mut pool = LeasePool::new(Ipv4Addr::new(192, 0, 2, 100), 5, Hba::kea(), params(), 1000);
        // Never used: address order. Lease 3 given to the secondary and back keeps ends 0 but
        // goes in front of the other never-used leases.
        assert_eq!(pool.queue(Role::Primary), vec![0, 1, 2, 3, 4]);
        pool.set(3, BindingStatus::Backup, None, 1001);
        pool.set(3, BindingStatus::Free, None, 1002);
        assert_eq!(pool.queue(Role::Primary), vec![3, 0, 1, 2, 4]);
        // Used leases come after the never-used ones, oldest `ends` first; of two freed in the
        // same second the later is in front.
        pool.set(0, BindingStatus::Active, Some(1600), 1003);
        pool.set(1, BindingStatus::Active, Some(1600), 1003);
        pool.set(0, BindingStatus::Free, Some(1010), 1010);
        pool.set(1, BindingStatus::Free, Some(1010), 1010);
        pool.set(2, BindingStatus::Active, Some(1600), 1003);
        pool.set(2, BindingStatus::Free, Some(1005), 1005);
        assert_eq!(pool.queue(Role::Primary), vec![3, 4, 2, 1, 0]);
        assert_eq!(pool.oldest_ends(BindingStatus::Free), Some(0));
        assert_eq!(pool.take(Role::Primary, None), Some(3));
    }

    #[test]
    fn pass_one_prefers_leases_whose_clients_hash_to_the_peer() {
        let mut pool = LeasePool::new(
            Ipv4Addr::new(192, 0, 2, 100),
            20,
            Hba::kea(),
            params(),
            1000,
        );
        // Ten leases used and freed (each with a client), ten given to the secondary unused:
        // free 10, backup 10, lts 0 and hold 2: pass 1 gives the peer's leases down to lts -2.
        for i in 0..10 {
            pool.leases[i].client = Some((None, [2, 0, 0, 0, 0, i as u8]));
            pool.set(i, BindingStatus::Active, Some(1600), 1000);
            pool.set(
                i,
                BindingStatus::Free,
                Some(1100 + i as u32),
                1100 + i as u32,
            );
        }
        for i in 10..20 {
            pool.set(i, BindingStatus::Backup, None, 1000);
        }
        let to_peer: Vec<usize> = pool
            .queue(Role::Primary)
            .into_iter()
            .filter(|&i| pool.hashes_to(i) == Some(Role::Secondary))
            .collect();
        let (plan, moves) = pool.plan(Role::Primary, Trigger::Timer);
        assert_eq!(plan.levels.hold.whole(), Some(2));
        let n = to_peer.len().min(2);
        assert_eq!(&moves[..n], &to_peer[..n]);
        assert!(plan.moves[..n].iter().all(|m| m.pass == Pass::One));
    }
}
