//! Lease state per pool, as the failover pair's binding updates (or a lease file) describe it:
//! per lease its binding state, last client, `ends` and the time it entered its state; per pool
//! the FREE and BACKUP counts and each server's free-state queue in ISC's order.
//!
//! What the wire shows is applied as dhcpd applies it (each rule was needed to reproduce the
//! servers' own balancing logs of the shared capture):
//! * EXPIRED, RELEASED and RESET are transitional: the server that receives such an update files
//!   the lease as FREE at once, the sender when the peer's BNDACK arrives. The lease is FREE
//!   here, with the state it came through ([`Lease::via`]) and, until the BNDACK, the sender that
//!   still counts it apart ([`Lease::unacked_by`], [`Pool::counts_for`]).
//! * The FREE and BACKUP queues are sorted by `ends`, oldest first. dhcpd inserts a lease that
//!   changes state or `ends` in front of the leases with the same `ends` (its insertion sort stops
//!   at the first lease whose time is not earlier); an update that changes neither leaves it in
//!   place; a lease seen for the first time goes behind its equals, as dhcpd's start-up load
//!   appends in reading order.
//! * The client is remembered per server: the sender of an update knows exactly the client it
//!   sent, while the receiver keeps the identifier it had when a FREE, BACKUP or RESET update
//!   carries none ([`Client::received_over`]). dhcpd's affinity hashes that memory, stale
//!   identifiers included.
//! * A DHCPOFFER changes the offering server's memory only: `ends` becomes now + [`OFFER_HOLD`]
//!   (unless later already) and the client the one offered to, so the lease moves in its queue
//!   and no longer counts as never used. The next binding update commits or replaces it; a
//!   restart of that server forgets it.
//!
//! Memory is bounded: at most `max_leases` leases are kept; beyond that the lease updated longest
//! ago is forgotten (and counted).

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

use super::events::{Client, ClientKey, LeaseUpdate};
use super::pools::{PoolMap, PoolName};
use crate::analyse::dhcp_lb::{Hba, Role};
use crate::proto::failover::BindingStatus;

/// `ends` of a lease that has never been used.
pub const NEVER_USED: i64 = 0;

/// How long dhcpd holds an offered lease: its DHCPDISCOVER handler sets `ends` to now + 120 s
/// ("to really expire in 2 minutes"), or leaves a later `ends` alone, whatever lease time the
/// OFFER names.
pub const OFFER_HOLD: i64 = 120;

fn idx(r: Role) -> usize {
    match r {
        Role::Primary => 0,
        Role::Secondary => 1,
    }
}

/// What an offer overwrote in the offering server's memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Offered {
    pub by: Role,
    pub ends: i64,
    pub client: Client,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Lease {
    pub address: Ipv4Addr,
    /// FREE for a lease an update called EXPIRED, RELEASED or RESET.
    pub status: BindingStatus,
    /// The transitional state the lease came to FREE through, while it stays FREE.
    pub via: Option<BindingStatus>,
    /// The server whose transitional update the peer has not acknowledged yet: until the BNDACK
    /// that server still files the lease as EXPIRED/RELEASED/RESET, not FREE.
    pub unacked_by: Option<Role>,
    /// The lease's client as each server (primary, secondary) remembers it.
    pub clients: [Client; 2],
    /// Lease expiration time, seconds since the epoch; [`NEVER_USED`] when never used.
    pub ends: i64,
    /// When the lease entered its state (the update's start time of state, else when the update
    /// was seen).
    pub since: i64,
    /// Capture time (seconds) when the lease last changed state.
    pub changed_at: f64,
    /// Capture time (seconds) when a lease that came through EXPIRED, RELEASED or RESET became
    /// FREE for the server that last did so (the receiver at the update, the sender at the
    /// BNDACK): the moment dhcpd's primary applies affinity on entry.
    pub freed_at: Option<f64>,
    /// Frame of the last update.
    pub frame: u64,
    /// Set while an uncommitted offer holds the lease: the values it replaced.
    pub offered: Option<Offered>,
    /// Position among leases with the same `ends`: smaller first.
    order: i64,
    /// Recency for eviction.
    touched: u64,
}

impl Lease {
    /// The client `role` remembers.
    pub fn client(&self, role: Role) -> &Client {
        &self.clients[idx(role)]
    }

    /// `ends` as `role` has it: an uncommitted offer by the other server changed only the other
    /// server's memory.
    pub fn ends_for(&self, role: Role) -> i64 {
        match &self.offered {
            Some(o) if o.by != role => o.ends,
            _ => self.ends,
        }
    }

    /// `ends` and client as `role` last committed them (to its lease file and to the peer):
    /// without its own uncommitted offer.
    pub fn committed(&self, role: Role) -> (i64, &Client) {
        match &self.offered {
            Some(o) if o.by == role => (o.ends, &o.client),
            _ => (self.ends_for(role), self.client(role)),
        }
    }

    /// The hash key `role`'s affinity uses.
    pub fn key(&self, role: Role) -> Option<ClientKey> {
        self.client(role).key()
    }

    /// Whether `role`'s affinity pass would give this lease to its peer: the client `role`
    /// remembers hashes to the peer under `hba` (ISC's `peer_wants_lease`).
    pub fn peer_wants(&self, role: Role, hba: &Hba) -> bool {
        self.client(role)
            .owner(hba)
            .is_some_and(|(_, owner)| owner == role.peer())
    }
}

/// Leases per binding state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub free: u32,
    pub backup: u32,
    pub active: u32,
    /// EXPIRED, RELEASED and RESET (a lease file's, or a server's own unacknowledged ones).
    pub transitional: u32,
    pub abandoned: u32,
    /// Binding states the protocol does not define.
    pub other: u32,
}

impl Counts {
    pub fn total(&self) -> u32 {
        self.free
            .saturating_add(self.backup)
            .saturating_add(self.active)
            .saturating_add(self.transitional)
            .saturating_add(self.abandoned)
            .saturating_add(self.other)
    }

    fn slot(&mut self, s: BindingStatus) -> &mut u32 {
        match s {
            BindingStatus::Free => &mut self.free,
            BindingStatus::Backup => &mut self.backup,
            BindingStatus::Active => &mut self.active,
            BindingStatus::Expired | BindingStatus::Released | BindingStatus::Reset => {
                &mut self.transitional
            }
            BindingStatus::Abandoned => &mut self.abandoned,
            _ => &mut self.other,
        }
    }
}

type QueueKey = (u8, i64, i64, Ipv4Addr);

fn queue_key(l: &Lease) -> QueueKey {
    (l.status.to_u8(), l.ends, l.order, l.address)
}

/// The leases of one pool.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pool {
    pub name: String,
    leases: BTreeMap<Ipv4Addr, Lease>,
    /// Every lease by (binding state, `ends`, position): each state's queue in order.
    index: BTreeSet<QueueKey>,
    counts: Counts,
    /// FREE leases each server (primary, secondary) still waits to see acknowledged.
    unacked_free: [u32; 2],
}

impl Pool {
    /// Counts as the receiving server of every update sees them (transitional updates FREE at
    /// once).
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Counts as one server sees them: its own transitional updates the peer has not
    /// acknowledged are not FREE for it yet.
    pub fn counts_for(&self, role: Role) -> Counts {
        let mut c = self.counts;
        let pending = self.unacked_free[idx(role)].min(c.free);
        c.free -= pending;
        c.transitional = c.transitional.saturating_add(pending);
        c
    }

    pub fn get(&self, a: Ipv4Addr) -> Option<&Lease> {
        self.leases.get(&a)
    }

    pub fn leases(&self) -> impl Iterator<Item = &Lease> {
        self.leases.values()
    }

    fn queue_iter(&self, status: BindingStatus) -> impl Iterator<Item = &Lease> {
        let s = status.to_u8();
        let lo = (s, i64::MIN, i64::MIN, Ipv4Addr::UNSPECIFIED);
        let hi = (s, i64::MAX, i64::MAX, Ipv4Addr::BROADCAST);
        self.index
            .range(lo..=hi)
            .filter_map(|k| self.leases.get(&k.3))
    }

    /// The leases in `status`, in dhcpd's queue order: oldest `ends` first.
    pub fn queue(&self, status: BindingStatus) -> Vec<&Lease> {
        self.queue_iter(status).collect()
    }

    /// The leases in `status` in `role`'s queue order (its own idea of `ends`).
    pub fn queue_for(&self, role: Role, status: BindingStatus) -> Vec<&Lease> {
        let mut q: Vec<&Lease> = self
            .queue_iter(status)
            .filter(|l| l.unacked_by != Some(role))
            .collect();
        // Only the other server's uncommitted offers put a lease elsewhere for `role`.
        if q.iter()
            .any(|l| l.offered.as_ref().is_some_and(|o| o.by != role))
        {
            q.sort_by_key(|l| (l.ends_for(role), l.order));
        }
        q
    }

    /// `role`'s own free-state queue (FREE on the primary, BACKUP on the secondary), oldest
    /// first, without the leases it still waits to see acknowledged.
    pub fn own_queue(&self, role: Role) -> Vec<&Lease> {
        let status = match role {
            Role::Primary => BindingStatus::Free,
            Role::Secondary => BindingStatus::Backup,
        };
        self.queue_for(role, status)
    }

    /// `ends` of the head of `role`'s `status` queue, as `role` has it (what dhcpd's next-check
    /// estimate starts from).
    pub fn oldest_ends_for(&self, role: Role, status: BindingStatus) -> Option<i64> {
        self.queue_for(role, status)
            .first()
            .map(|l| l.ends_for(role))
    }

    /// `ends` of the lease at the head of the `status` queue.
    pub fn oldest_ends(&self, status: BindingStatus) -> Option<i64> {
        self.queue_iter(status).next().map(|l| l.ends)
    }

    fn unacked(&mut self, l: &Lease, add: bool) {
        if let (BindingStatus::Free, Some(r)) = (l.status, l.unacked_by) {
            let n = &mut self.unacked_free[idx(r)];
            *n = if add {
                n.saturating_add(1)
            } else {
                n.saturating_sub(1)
            };
        }
    }
}

/// What a lease becomes: the parts an update, an offer or a lease file decides.
#[derive(Clone, Debug, PartialEq)]
pub struct LeaseFields {
    pub status: BindingStatus,
    pub via: Option<BindingStatus>,
    pub unacked_by: Option<Role>,
    pub clients: [Client; 2],
    pub ends: i64,
    pub since: i64,
    pub offered: Option<Offered>,
    pub freed_at: Option<f64>,
}

impl LeaseFields {
    fn of(l: &Lease) -> LeaseFields {
        LeaseFields {
            status: l.status,
            via: l.via,
            unacked_by: l.unacked_by,
            clients: l.clients.clone(),
            ends: l.ends,
            since: l.since,
            offered: l.offered.clone(),
            freed_at: l.freed_at,
        }
    }
}

/// What an update did to the state.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub pool: PoolName,
    pub address: Ipv4Addr,
    /// The lease before (`None`: first seen).
    pub before: Option<Lease>,
    /// The lease after.
    pub after: Lease,
}

impl Change {
    pub fn old_status(&self) -> Option<BindingStatus> {
        self.before.as_ref().map(|l| l.status)
    }
}

/// Lease state of every pool, bounded.
#[derive(Clone, Debug)]
pub struct LeaseState {
    map: PoolMap,
    pools: BTreeMap<String, Pool>,
    max_leases: usize,
    len: usize,
    /// touched -> address, for eviction.
    recency: BTreeMap<u64, Ipv4Addr>,
    clock: u64,
    next_order: i64,
    evicted: u64,
    outside: u64,
}

impl LeaseState {
    pub fn new(map: PoolMap, max_leases: usize) -> Self {
        LeaseState {
            map,
            pools: BTreeMap::new(),
            max_leases,
            len: 0,
            recency: BTreeMap::new(),
            clock: 0,
            next_order: 1,
            evicted: 0,
            outside: 0,
        }
    }

    pub fn map(&self) -> &PoolMap {
        &self.map
    }

    pub fn pool(&self, name: &str) -> Option<&Pool> {
        self.pools.get(name)
    }

    pub fn pools(&self) -> impl Iterator<Item = &Pool> {
        self.pools.values()
    }

    pub fn pool_of(&self, a: Ipv4Addr) -> Option<PoolName> {
        self.map.pool_of(a)
    }

    pub fn get(&self, a: Ipv4Addr) -> Option<&Lease> {
        self.pools.get(self.map.pool_of(a)?.as_str())?.get(a)
    }

    /// Leases kept.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Leases forgotten to stay within the bound.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }

    /// Updates for addresses outside every configured pool.
    pub fn outside(&self) -> u64 {
        self.outside
    }

    /// Applies one binding update sent by `from`, seen at capture time `now` in `frame`.
    /// `None` when the address lies in no pool.
    pub fn apply(&mut self, u: &LeaseUpdate, from: Role, now: f64, frame: u64) -> Option<Change> {
        let (status, via) = match u.status {
            s @ (BindingStatus::Expired | BindingStatus::Released | BindingStatus::Reset) => {
                (BindingStatus::Free, Some(s))
            }
            s => (s, None),
        };
        let since = u.since.map(i64::from).unwrap_or(now.floor() as i64);
        self.put(u.address, now, frame, |old| {
            let ends = u
                .ends
                .map(i64::from)
                .or(old.map(|l| l.ends))
                .unwrap_or(NEVER_USED);
            let via = match (via, old) {
                (Some(v), _) => Some(v),
                // Still FREE: keep how it got there.
                (None, Some(l)) if status == BindingStatus::Free && l.status == status => l.via,
                _ => None,
            };
            let mut clients = [u.client.clone(), u.client.clone()];
            if let Some(l) = old {
                let r = idx(from.peer());
                clients[r] = u.client.received_over(&l.clients[r], u.status);
            }
            let freed_at = match old {
                _ if u.status != status => Some(now),
                Some(l) if l.status == status => l.freed_at,
                _ => None,
            };
            LeaseFields {
                status,
                via,
                // Converted to FREE: the sender files it so only once the peer acknowledges.
                unacked_by: (u.status != status).then_some(from),
                clients,
                ends,
                since,
                offered: None,
                freed_at,
            }
        })
    }

    /// A BNDACK from `from` for `address`: the update its peer sent is acknowledged, and a lease
    /// that came to FREE through a transitional state is FREE for the peer too.
    pub fn ack(&mut self, address: Ipv4Addr, from: Role, now: f64, frame: u64) -> Option<Change> {
        let old = self.get(address)?;
        if old.unacked_by != Some(from.peer()) {
            return None;
        }
        // The lease enters the sender's FREE queue now. Only the primary's FREE queue is
        // balanced, so that is the order kept: requeued at the primary's own acknowledgement
        // (a FREE lease the secondary freed took its place when the primary received it).
        let requeue = old.unacked_by == Some(Role::Primary);
        let mut fields = LeaseFields::of(old);
        fields.unacked_by = None;
        fields.freed_at = Some(now);
        self.put_requeued(address, now, frame, requeue, |_| fields)
    }

    /// A FREE or BACKUP lease offered by `by` at `now` to `client`. A lease in another state, or
    /// not known, is left alone (`None`).
    pub fn offer(
        &mut self,
        address: Ipv4Addr,
        by: Role,
        client: &Client,
        now: f64,
        frame: u64,
    ) -> Option<Change> {
        let old = self.get(address)?;
        if !matches!(old.status, BindingStatus::Free | BindingStatus::Backup) {
            return None;
        }
        let mut fields = LeaseFields::of(old);
        if fields.offered.is_none() {
            fields.offered = Some(Offered {
                by,
                ends: old.ends,
                client: old.client(by).clone(),
            });
        }
        fields.ends = fields
            .ends
            .max((now.floor() as i64).saturating_add(OFFER_HOLD));
        fields.clients[idx(by)] = client.clone();
        self.put(address, now, frame, |_| fields)
    }

    /// `role` restarted: what its offers changed is forgotten (dhcpd never wrote them to its
    /// lease file). Returns how many leases went back.
    pub fn forget_offers(&mut self, role: Role, now: f64, frame: u64) -> usize {
        let held: Vec<Ipv4Addr> = self
            .pools
            .values()
            .flat_map(|p| p.leases.values())
            .filter(|l| l.offered.as_ref().is_some_and(|o| o.by == role))
            .map(|l| l.address)
            .collect();
        for &a in &held {
            let Some(old) = self.get(a) else { continue };
            let mut fields = LeaseFields::of(old);
            if let Some(o) = fields.offered.take() {
                fields.ends = o.ends;
                fields.clients[idx(role)] = o.client;
            }
            self.put(a, now, frame, |_| fields);
        }
        held.len()
    }

    /// Puts a lease read from elsewhere (a lease file) as it is; a lease not known yet goes
    /// behind the leases with the same `ends`, as dhcpd's start-up load appends them.
    pub fn load(&mut self, address: Ipv4Addr, fields: LeaseFields, now: f64) -> Option<Change> {
        self.put(address, now, 0, |_| fields)
    }

    fn put(
        &mut self,
        address: Ipv4Addr,
        now: f64,
        frame: u64,
        make: impl FnOnce(Option<&Lease>) -> LeaseFields,
    ) -> Option<Change> {
        self.put_requeued(address, now, frame, false, make)
    }

    /// [`Self::put`], moving the lease in front of its equals even when neither its state nor
    /// its `ends` changes when `requeue` says so.
    fn put_requeued(
        &mut self,
        address: Ipv4Addr,
        now: f64,
        frame: u64,
        requeue: bool,
        make: impl FnOnce(Option<&Lease>) -> LeaseFields,
    ) -> Option<Change> {
        let Some(pool_name) = self.map.pool_of(address) else {
            self.outside += 1;
            return None;
        };
        let exists = |s: &Self| {
            s.pools
                .get(pool_name.as_str())
                .is_some_and(|p| p.leases.contains_key(&address))
        };
        if self.len >= self.max_leases && !exists(self) {
            self.evict_one();
            if self.len >= self.max_leases {
                // A bound of 0 keeps nothing.
                return None;
            }
        }
        self.clock += 1;
        let touched = self.clock;
        let next_order = &mut self.next_order;
        let pool = super::pool_entry(&mut self.pools, &pool_name, || Pool {
            name: pool_name.to_string(),
            ..Pool::default()
        })?;
        // Replaced in place: one search, and the B-tree moves no leases around as a remove and
        // an insert would.
        let (before, after) = match pool.leases.entry(address) {
            Entry::Occupied(mut o) => {
                let after = next_lease(
                    Some(o.get()),
                    make,
                    address,
                    now,
                    frame,
                    requeue,
                    touched,
                    next_order,
                );
                (Some(std::mem::replace(o.get_mut(), after.clone())), after)
            }
            Entry::Vacant(v) => {
                let after = next_lease(
                    None, make, address, now, frame, requeue, touched, next_order,
                );
                v.insert(after.clone());
                (None, after)
            }
        };
        let key = queue_key(&after);
        if let Some(b) = &before {
            let slot = pool.counts.slot(b.status);
            *slot = slot.saturating_sub(1);
            pool.unacked(b, false);
            let old = queue_key(b);
            // Same state, `ends` and position: the lease keeps its place in its queue.
            if old != key {
                pool.index.remove(&old);
                pool.index.insert(key);
            }
            self.recency.remove(&b.touched);
        } else {
            self.len += 1;
            pool.index.insert(key);
        }
        let slot = pool.counts.slot(after.status);
        *slot = slot.saturating_add(1);
        pool.unacked(&after, true);
        self.recency.insert(touched, address);
        Some(Change {
            pool: pool_name,
            address,
            before,
            after,
        })
    }

    fn evict_one(&mut self) {
        let Some((_, address)) = self.recency.pop_first() else {
            return;
        };
        let Some(name) = self.map.pool_of(address) else {
            return;
        };
        if let Some(pool) = self.pools.get_mut(name.as_str()) {
            if let Some(l) = pool.leases.remove(&address) {
                let slot = pool.counts.slot(l.status);
                *slot = slot.saturating_sub(1);
                pool.unacked(&l, false);
                pool.index.remove(&queue_key(&l));
                self.len -= 1;
                self.evicted += 1;
            }
            if pool.leases.is_empty() {
                self.pools.remove(name.as_str());
            }
        }
    }
}

/// The lease an update makes of `before` (`None`: first seen).
#[allow(clippy::too_many_arguments)]
fn next_lease(
    before: Option<&Lease>,
    make: impl FnOnce(Option<&Lease>) -> LeaseFields,
    address: Ipv4Addr,
    now: f64,
    frame: u64,
    requeue: bool,
    touched: u64,
    next_order: &mut i64,
) -> Lease {
    let f = make(before);
    let order = match before {
        None => {
            *next_order += 1;
            *next_order
        }
        Some(l) if requeue || l.status != f.status || l.ends != f.ends => {
            *next_order += 1;
            -*next_order
        }
        Some(l) => l.order,
    };
    let changed_at = match before {
        Some(l) if l.status == f.status => l.changed_at,
        _ => now,
    };
    Lease {
        address,
        status: f.status,
        via: f.via,
        unacked_by: f.unacked_by,
        clients: f.clients,
        ends: f.ends,
        since: f.since,
        changed_at,
        freed_at: f.freed_at,
        frame,
        offered: f.offered,
        order,
        touched,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upd(last: u8, status: BindingStatus, ends: Option<u32>) -> LeaseUpdate {
        LeaseUpdate {
            address: Ipv4Addr::new(192, 0, 2, last),
            status,
            client: Client::default(),
            ends,
            since: None,
            potential_expiry: None,
            client_last_transaction: None,
        }
    }

    fn ip(last: u8) -> Ipv4Addr {
        Ipv4Addr::new(192, 0, 2, last)
    }

    impl LeaseState {
        fn apply_p(&mut self, u: &LeaseUpdate, now: f64, frame: u64) -> Option<Change> {
            self.apply(u, Role::Primary, now, frame)
        }
    }

    fn order(p: &Pool, s: BindingStatus) -> Vec<u8> {
        p.queue(s).iter().map(|l| l.address.octets()[3]).collect()
    }

    fn state() -> LeaseState {
        LeaseState::new(PoolMap::default(), 1000)
    }

    const POOL: &str = "192.0.2.0/24";

    #[test]
    fn counts_follow_updates_and_transitional_states_become_free() {
        let mut s = state();
        for i in 100..110 {
            s.apply_p(&upd(i, BindingStatus::Free, Some(0)), 1.0, 1);
        }
        s.apply_p(&upd(100, BindingStatus::Backup, None), 2.0, 2);
        s.apply_p(&upd(101, BindingStatus::Active, Some(500)), 2.0, 3);
        let c = s
            .apply_p(&upd(101, BindingStatus::Released, Some(400)), 3.0, 4)
            .unwrap();
        assert_eq!(c.old_status(), Some(BindingStatus::Active));
        assert_eq!(c.after.status, BindingStatus::Free);
        assert_eq!(c.after.via, Some(BindingStatus::Released));
        assert_eq!(c.after.ends, 400);
        let p = s.pool(POOL).unwrap();
        assert_eq!(
            (p.counts().free, p.counts().backup, p.counts().active),
            (9, 1, 0)
        );
        // The sender (the primary) counts it FREE only after the secondary's BNDACK.
        assert_eq!(p.counts_for(Role::Primary).free, 8);
        assert_eq!(p.counts_for(Role::Primary).transitional, 1);
        assert_eq!(p.counts_for(Role::Secondary).free, 9);
        assert_eq!(p.own_queue(Role::Primary).len(), 8);
        // An acknowledgement from the sender itself changes nothing; the peer's does.
        assert!(s.ack(ip(101), Role::Primary, 3.5, 5).is_none());
        assert!(s.ack(ip(101), Role::Secondary, 3.5, 5).is_some());
        assert_eq!(s.pool(POOL).unwrap().counts_for(Role::Primary).free, 9);
        // The lease kept its `ends` when the BACKUP update carried none.
        assert_eq!(s.get(ip(100)).unwrap().ends, 0);
        // A later plain FREE update keeps the way it came.
        let c = s
            .apply_p(&upd(101, BindingStatus::Free, Some(400)), 4.0, 6)
            .unwrap();
        assert_eq!(c.after.via, Some(BindingStatus::Released));
    }

    #[test]
    fn queue_order_as_dhcpd_keeps_it() {
        let mut s = state();
        // First seen: appended behind equal `ends`, in order of appearance.
        for i in 100..105 {
            s.apply_p(&upd(i, BindingStatus::Free, Some(0)), 1.0, 1);
        }
        assert_eq!(
            order(s.pool(POOL).unwrap(), BindingStatus::Free),
            [100, 101, 102, 103, 104]
        );
        // The same state again does not move a lease.
        s.apply_p(&upd(103, BindingStatus::Free, Some(0)), 2.0, 2);
        assert_eq!(
            order(s.pool(POOL).unwrap(), BindingStatus::Free),
            [100, 101, 102, 103, 104]
        );
        // Changing queues puts a lease in front of its equals: the BACKUP queue fills head first,
        // as the secondary's allocations in the shared capture show (129, 128, ... from a run that
        // sent 100..129 in order).
        for i in [100, 101, 102] {
            s.apply_p(&upd(i, BindingStatus::Backup, Some(0)), 3.0, 3);
        }
        assert_eq!(
            order(s.pool(POOL).unwrap(), BindingStatus::Backup),
            [102, 101, 100]
        );
        // Older `ends` first whatever the order of arrival.
        s.apply_p(&upd(104, BindingStatus::Backup, Some(50)), 4.0, 4);
        s.apply_p(&upd(103, BindingStatus::Backup, Some(40)), 4.0, 4);
        let p = s.pool(POOL).unwrap();
        assert_eq!(order(p, BindingStatus::Backup), [102, 101, 100, 103, 104]);
        assert_eq!(p.oldest_ends(BindingStatus::Backup), Some(0));
        assert_eq!(p.oldest_ends(BindingStatus::Free), None);
    }

    #[test]
    fn each_server_remembers_the_client_it_knows() {
        let mut s = state();
        let with_id = LeaseUpdate {
            client: Client {
                id: Some(vec![1, 2, 3].into()),
                hardware: Some((1, vec![9, 9].into())),
            },
            ..upd(7, BindingStatus::Active, Some(100))
        };
        s.apply(&with_id, Role::Primary, 1.0, 1);
        // The lease comes back as FREE; the primary's update names chaddr only (a client
        // without an identifier had it in between): the primary knows no identifier, the
        // secondary keeps the one it had, as dhcpd does for FREE, BACKUP and RESET updates.
        let without = LeaseUpdate {
            client: Client {
                id: None,
                hardware: Some((1, vec![8, 8].into())),
            },
            ..upd(7, BindingStatus::Free, Some(200))
        };
        s.apply(&without, Role::Primary, 2.0, 2);
        let l = s.get(ip(7)).unwrap();
        assert_eq!(
            l.key(Role::Primary),
            Some(ClientKey::Hardware {
                htype: 1,
                address: vec![8, 8]
            })
        );
        assert_eq!(
            l.key(Role::Secondary),
            Some(ClientKey::ClientId(vec![1, 2, 3]))
        );
        assert_eq!(
            l.client(Role::Secondary).hardware,
            Some((1, vec![8, 8].into()))
        );
        // An ACTIVE update without an identifier clears it on the receiver too.
        let active = LeaseUpdate {
            client: without.client.clone(),
            ..upd(7, BindingStatus::Active, Some(300))
        };
        s.apply(&active, Role::Primary, 3.0, 3);
        assert_eq!(s.get(ip(7)).unwrap().client(Role::Secondary).id, None);
    }

    #[test]
    fn offers_move_a_lease_in_its_queue_until_committed_or_forgotten() {
        let mut s = state();
        for i in 1..=3 {
            s.apply(&upd(i, BindingStatus::Free, Some(0)), Role::Primary, 1.0, 1);
            s.apply(
                &upd(i, BindingStatus::Backup, Some(0)),
                Role::Primary,
                1.0,
                1,
            );
        }
        // Head first: 3, 2, 1 (each went to BACKUP in turn).
        assert_eq!(
            order(s.pool(POOL).unwrap(), BindingStatus::Backup),
            [3, 2, 1]
        );
        let client = Client {
            id: None,
            hardware: Some((1, vec![5].into())),
        };
        s.offer(ip(3), Role::Secondary, &client, 100.4, 2).unwrap();
        let l = s.get(ip(3)).unwrap();
        assert_eq!((l.ends, l.status), (220, BindingStatus::Backup));
        assert_eq!(
            l.ends_for(Role::Primary),
            0,
            "the primary never heard of the offer"
        );
        assert_eq!(l.client(Role::Secondary), &client);
        assert_eq!(l.client(Role::Primary), &Client::default());
        assert_eq!(
            order(s.pool(POOL).unwrap(), BindingStatus::Backup),
            [2, 1, 3]
        );
        // The primary restarting forgets nothing of the secondary's; the secondary's restart does.
        assert_eq!(s.forget_offers(Role::Primary, 101.0, 3), 0);
        assert_eq!(s.forget_offers(Role::Secondary, 101.0, 3), 1);
        let l = s.get(ip(3)).unwrap();
        assert_eq!((l.ends, l.offered.as_ref()), (0, None));
        assert_eq!(l.client(Role::Secondary), &Client::default());
        // An update commits: the overlay is gone and a restart changes nothing.
        s.offer(ip(2), Role::Secondary, &client, 102.0, 4).unwrap();
        s.apply(
            &upd(2, BindingStatus::Backup, Some(162)),
            Role::Secondary,
            103.0,
            5,
        );
        assert_eq!(s.forget_offers(Role::Secondary, 104.0, 6), 0);
        assert_eq!(s.get(ip(2)).unwrap().ends, 162);
        // A later `ends` is kept.
        s.offer(ip(2), Role::Secondary, &client, 30.0, 7).unwrap();
        assert_eq!(s.get(ip(2)).unwrap().ends, 162);
        // Only FREE and BACKUP leases are offered.
        s.apply(
            &upd(1, BindingStatus::Active, Some(500)),
            Role::Primary,
            105.0,
            7,
        );
        assert!(s.offer(ip(1), Role::Primary, &client, 106.0, 8).is_none());
        assert!(s.offer(ip(99), Role::Primary, &client, 106.0, 8).is_none());
    }

    #[test]
    fn bounded_by_evicting_the_least_recently_updated() {
        let mut s = LeaseState::new(PoolMap::default(), 3);
        for i in 1..=3 {
            s.apply_p(&upd(i, BindingStatus::Free, None), 1.0, 1);
        }
        s.apply_p(&upd(1, BindingStatus::Active, None), 2.0, 2);
        s.apply_p(&upd(4, BindingStatus::Free, None), 3.0, 3);
        assert_eq!(s.len(), 3);
        assert_eq!(s.evicted(), 1);
        let p = s.pool(POOL).unwrap();
        assert!(p.get(ip(2)).is_none(), "2 was updated longest ago");
        assert_eq!((p.counts().free, p.counts().active), (2, 1));
        let mut none = LeaseState::new(PoolMap::default(), 0);
        assert!(none
            .apply_p(&upd(1, BindingStatus::Free, None), 1.0, 1)
            .is_none());
    }

    #[test]
    fn addresses_outside_configured_pools_are_counted() {
        let map = PoolMap::ranges(vec!["p=192.0.2.100-192.0.2.159".parse().unwrap()]).unwrap();
        let mut s = LeaseState::new(map, 10);
        assert!(s
            .apply_p(&upd(99, BindingStatus::Free, None), 1.0, 1)
            .is_none());
        assert!(s
            .apply_p(&upd(100, BindingStatus::Free, None), 1.0, 1)
            .is_some());
        assert_eq!(s.outside(), 1);
        assert_eq!(s.pool("p").unwrap().counts().total(), 1);
    }
}
