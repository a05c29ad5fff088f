//! The address pool a failover pair shares: each lease's binding state, which server may hand it
//! out, its last client; and the pool balancing both servers run, as NOTES.md section 3 describes
//! ISC's code (lts, pass 1 by affinity, pass 2 oldest first, the POOLREQ panic level). This is the
//! generator's model of a well-behaved pair, not the project's reference balancer (that is the
//! failover analyser's); where the notes leave a detail open, the simpler reading is taken and
//! said so.

use std::net::Ipv4Addr;

use crate::analyse::dhcp_lb::{Hba, Role};
use crate::proto::failover::BindingStatus;

/// One address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub addr: Ipv4Addr,
    pub status: BindingStatus,
    /// The server that leased it (ACTIVE); for FREE the primary, for BACKUP the secondary may
    /// hand it out.
    pub holder: Role,
    /// The last client: option 61 payload (if it sent one) and MAC.
    pub client: Option<(Option<Vec<u8>>, [u8; 6])>,
    /// When the lease entered its state (seconds since the epoch).
    pub since: u32,
    pub expires: u32,
}

impl Lease {
    /// The RFC 3074 key of its last client (client identifier, else the MAC).
    pub fn key(&self) -> Option<Vec<u8>> {
        self.client
            .as_ref()
            .map(|(id, mac)| id.clone().unwrap_or_else(|| mac.to_vec()))
    }
}

/// Balancing parameters (percentages and seconds, ISC's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Balance {
    pub max_lease_misbalance: u32,
    pub max_lease_ownership: u32,
}

impl Default for Balance {
    fn default() -> Self {
        Balance {
            max_lease_misbalance: 15,
            max_lease_ownership: 10,
        }
    }
}

/// The pool.
#[derive(Clone, Debug)]
pub struct LeasePool {
    pub leases: Vec<Lease>,
    pub hba: Hba,
    pub balance: Balance,
}

/// The state a server may hand out leases from.
pub fn own_state(r: Role) -> BindingStatus {
    match r {
        Role::Primary => BindingStatus::Free,
        Role::Secondary => BindingStatus::Backup,
    }
}

impl LeasePool {
    /// `size` addresses from `base`, all FREE (the primary's) at `now`.
    pub fn new(base: Ipv4Addr, size: u32, hba: Hba, balance: Balance, now: u32) -> Self {
        LeasePool {
            leases: (0..size)
                .map(|i| Lease {
                    addr: Ipv4Addr::from(u32::from(base).wrapping_add(i)),
                    status: BindingStatus::Free,
                    holder: Role::Primary,
                    client: None,
                    since: now,
                    expires: 0,
                })
                .collect(),
            hba,
            balance,
        }
    }

    pub fn count(&self, s: BindingStatus) -> usize {
        self.leases.iter().filter(|l| l.status == s).count()
    }

    /// ISC's "leases to send" of server `r`: half its surplus over its peer.
    pub fn lts(&self, r: Role) -> i64 {
        let free = self.count(BindingStatus::Free) as i64;
        let backup = self.count(BindingStatus::Backup) as i64;
        match r {
            Role::Primary => (free - backup) / 2,
            Role::Secondary => (backup - free) / 2,
        }
    }

    /// The misbalance threshold: (free + backup) x max-lease-misbalance %.
    pub fn thresh(&self) -> i64 {
        let avail = (self.count(BindingStatus::Free) + self.count(BindingStatus::Backup)) as i64;
        avail * i64::from(self.balance.max_lease_misbalance) / 100
    }

    /// The ownership skew allowed: round(total x max-lease-ownership %).
    pub fn hold(&self) -> i64 {
        let total = self.leases.len() as i64;
        (total * i64::from(self.balance.max_lease_ownership) + 50) / 100
    }

    /// Whether `r` is short enough of leases to ask its peer (a POOLREQ): lts below twice the
    /// negative threshold (-1 when the threshold rounds to 0).
    pub fn panic_due(&self, r: Role) -> bool {
        let t = self.thresh();
        let level = if t == 0 { -1 } else { -2 * t };
        self.lts(r) < level
    }

    /// The leases `r` gives its peer in one balancing run, in the order it sends them: pass 1
    /// walks its own available leases oldest first and gives those whose last client hashes to
    /// the peer while lts stays above -hold; pass 2 (only when pass 1 reached the end) gives the
    /// oldest remaining ones while lts is above +hold (a lease never used: above 0).
    /// `against_affinity` plants one lease whose client hashes to `r` at the head of the list.
    pub fn balance_run(&self, r: Role, against_affinity: bool) -> Vec<usize> {
        let mut lts = self.lts(r);
        let hold = self.hold();
        let mut queue: Vec<usize> = (0..self.leases.len())
            .filter(|&i| self.leases[i].status == own_state(r))
            .collect();
        queue.sort_by_key(|&i| (self.leases[i].since, i));
        let mut out = Vec::new();
        if against_affinity {
            if let Some(&i) = queue.iter().find(|&&i| self.hashes_to(i) == Some(r)) {
                out.push(i);
                lts -= 1;
            }
        }
        let mut reached_end = true;
        for &i in &queue {
            if lts <= -hold {
                reached_end = false;
                break;
            }
            if !out.contains(&i) && self.hashes_to(i) == Some(r.peer()) {
                out.push(i);
                lts -= 1;
            }
        }
        if reached_end {
            for &i in &queue {
                let floor = if self.leases[i].client.is_some() {
                    hold
                } else {
                    0
                };
                if lts <= floor {
                    break;
                }
                if !out.contains(&i) {
                    out.push(i);
                    lts -= 1;
                }
            }
        }
        out
    }

    /// The server lease `i`'s last client hashes to (`None` for a lease never used).
    pub fn hashes_to(&self, i: usize) -> Option<Role> {
        let key = self.leases.get(i)?.key()?;
        Some(self.hba.owner_of_key(&key).1)
    }

    /// An available lease of `r` for a new client, oldest first.
    pub fn take(&self, r: Role) -> Option<usize> {
        (0..self.leases.len())
            .filter(|&i| self.leases[i].status == own_state(r))
            .min_by_key(|&i| (self.leases[i].since, i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_pool_gives_half_to_the_secondary_and_no_more() {
        let pool = LeasePool::new(
            Ipv4Addr::new(192, 0, 2, 100),
            60,
            Hba::split(128).unwrap(),
            Balance::default(),
            1000,
        );
        // free 60, backup 0: lts 30, hold round(60 x 10 %) = 6; never-used leases move until
        // lts is 0: 30 of them.
        assert_eq!(pool.lts(Role::Primary), 30);
        assert_eq!(pool.hold(), 6);
        assert_eq!(pool.balance_run(Role::Primary, false).len(), 30);
        assert!(pool.panic_due(Role::Secondary));
        assert!(!pool.panic_due(Role::Primary));
    }

    #[test]
    fn pass_one_prefers_leases_whose_clients_hash_to_the_peer() {
        let mut pool = LeasePool::new(
            Ipv4Addr::new(192, 0, 2, 100),
            10,
            Hba::kea(),
            Balance::default(),
            1000,
        );
        // Give every lease a last client; find one hashing to each side.
        for (i, l) in pool.leases.iter_mut().enumerate() {
            l.client = Some((None, [2, 0, 0, 0, 0, i as u8]));
        }
        let to_peer: Vec<usize> = (0..10)
            .filter(|&i| pool.hashes_to(i) == Some(Role::Secondary))
            .collect();
        let run = pool.balance_run(Role::Primary, false);
        // lts 5, hold 1: pass 1 gives peer-hashing leases while lts > -1 (at most 6); if it got
        // to the end of the queue, pass 2 gives more while lts > 1.
        let n = to_peer.len();
        let expected = if n >= 6 { 6 } else { n.max(4) };
        assert_eq!(run.len(), expected, "{n} leases hash to the secondary");
        assert_eq!(&run[..n.min(6)], &to_peer[..n.min(6)]);
        let planted = pool.balance_run(Role::Primary, true);
        assert_eq!(pool.hashes_to(planted[0]), Some(Role::Primary));
    }
}
