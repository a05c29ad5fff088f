//! Lease state from a `dhcpd.leases` file: the same [`LeaseState`] the failover events build, so
//! an operator's lease file can seed a replay or be balanced on its own.
//!
//! Each lease keeps the file's binding state (a lease file may hold EXPIRED, RELEASED or RESET
//! leases still waiting for the peer's acknowledgement; the wire's become FREE), its client (the
//! `uid` if there is one, else the `hardware` address, as ISC hashes it), `ends` (`never` sorts
//! after every time; no `ends` means never used) and `starts` as the time it entered its state.
//! Leases are loaded in the order the file last wrote them, which is the order dhcpd's start-up
//! queues them in among leases with the same `ends`.

use super::events::Client;
use super::state::{LeaseFields, LeaseState, NEVER_USED};
use crate::analyse::dhcp_lb::Role;
use crate::analyse::KeyBytes;
use crate::proto::failover::BindingStatus;
use crate::source::leases::{Binding, LeaseEntry, LeaseFile, LeaseTime};

/// What loading a lease file did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    pub leases: usize,
    /// Leases without a binding state (nothing to balance).
    pub without_state: usize,
    /// Leases in no configured pool, or beyond the state's bound.
    pub not_kept: usize,
}

/// The failover binding status of a lease file's binding state. dhcpd's `reserved` and `bootp`
/// states have no failover counterpart.
pub fn binding_status(b: Binding) -> BindingStatus {
    match b {
        Binding::Free => BindingStatus::Free,
        Binding::Active => BindingStatus::Active,
        Binding::Expired => BindingStatus::Expired,
        Binding::Released => BindingStatus::Released,
        Binding::Abandoned => BindingStatus::Abandoned,
        Binding::Reset => BindingStatus::Reset,
        Binding::Backup => BindingStatus::Backup,
        Binding::Reserved | Binding::Bootp => BindingStatus::Other(0),
    }
}

/// Loads every lease of `file` into `state`; `now` (seconds) stands for when they were seen.
/// Both servers' memory of each lease's client is taken from the file.
pub fn load(state: &mut LeaseState, file: &LeaseFile, now: f64) -> Loaded {
    load_as(state, file, now, None)
}

/// [`load`] for a file that `role` wrote: a lease the state already holds (from the other
/// server's file) keeps the other server's memory of its client; the binding state, `ends` and
/// start of state are this file's.
pub fn load_as(state: &mut LeaseState, file: &LeaseFile, now: f64, role: Option<Role>) -> Loaded {
    let mut report = Loaded::default();
    let mut entries: Vec<_> = file.leases.iter().collect();
    entries.sort_by_key(|e| e.line);
    for e in entries {
        let (Some(address), Some(b)) = (e.address, e.binding_state) else {
            report.without_state += 1;
            continue;
        };
        let client = Client {
            id: e.uid.as_deref().map(KeyBytes::from_slice),
            hardware: e
                .hardware
                .as_ref()
                .map(|h| (h.htype, KeyBytes::from_slice(&h.address))),
        };
        let ends = match e.ends {
            Some(LeaseTime::At(t)) => t,
            Some(LeaseTime::Never) => i64::MAX,
            None => NEVER_USED,
        };
        let since = e.starts.and_then(LeaseTime::epoch).unwrap_or(NEVER_USED);
        let clients = match (role, state.get(address)) {
            (Some(Role::Primary), Some(old)) => [client, old.client(Role::Secondary).clone()],
            (Some(Role::Secondary), Some(old)) => [old.client(Role::Primary).clone(), client],
            _ => [client.clone(), client],
        };
        let fields = LeaseFields {
            status: binding_status(b),
            via: None,
            unacked_by: None,
            clients,
            ends,
            since,
            offered: None,
            freed_at: None,
        };
        if state.load(address, fields, now).is_some() {
            report.leases += 1;
        } else {
            report.not_kept += 1;
        }
    }
    report
}

/// Which server wrote a lease file, as its `failover peer ... state` blocks tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileRole {
    /// Every peer block agrees. dhcpd (3.1 on) writes `mclt` into the block only on the
    /// secondary, which learns the MCLT from the primary; the primary's blocks have none.
    Told { role: Role, peer: String },
    /// No failover peer state in the file.
    Silent,
    /// The blocks disagree: the server is primary in one pair and secondary in another.
    Mixed,
}

impl FileRole {
    /// The role the file tells, if it does.
    pub fn told(&self) -> Option<Role> {
        match self {
            FileRole::Told { role, .. } => Some(*role),
            FileRole::Silent | FileRole::Mixed => None,
        }
    }
}

/// What the file's failover peer state blocks say about the server that wrote it.
pub fn role_of(file: &LeaseFile) -> FileRole {
    let role = |p: &crate::source::leases::PeerState| {
        if p.mclt.is_some() {
            Role::Secondary
        } else {
            Role::Primary
        }
    };
    let Some(first) = file.peers.first() else {
        return FileRole::Silent;
    };
    let r = role(first);
    if file.peers.iter().any(|p| role(p) != r) {
        return FileRole::Mixed;
    }
    FileRole::Told {
        role: r,
        peer: String::from_utf8_lossy(&first.name).into_owned(),
    }
}

/// The times of `e` that record something that happened: `starts` (the lease or its state
/// began) and `cltt` (the client's last transaction). `ends`, `tstp`, `tsfp` and `atsfp` may lie
/// ahead of the moment dhcpd wrote the block, even for a FREE or BACKUP lease (the shared
/// secondary's file has a BACKUP lease written at 04:33:42 that ends at 04:35:42).
fn past_times(e: &LeaseEntry) -> impl Iterator<Item = i64> + '_ {
    [e.starts, e.cltt]
        .into_iter()
        .flatten()
        .filter_map(LeaseTime::epoch)
}

/// The latest time the file shows as past (seconds since the epoch): a lower bound for when it
/// was written. `None` when it records no such time (only never-used leases, say).
pub fn latest_past_time(file: &LeaseFile) -> Option<i64> {
    let leases = file.leases.iter().flat_map(past_times);
    let peers = file
        .peers
        .iter()
        .flat_map(|p| [p.my.as_ref(), p.partner.as_ref()])
        .flatten()
        .filter_map(|l| l.at.and_then(LeaseTime::epoch));
    leases.chain(peers).max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::dhcp_lb::Role;
    use crate::analyse::failover::events::ClientKey;
    use crate::analyse::failover::pools::PoolMap;
    use crate::source::leases;
    use std::net::Ipv4Addr;

    #[test]
    fn a_small_file_becomes_pool_state() {
        let f = leases::parse(
            b"lease 10.0.0.3 { binding state backup; ends epoch 200; hardware ethernet 00:01:02:03:04:05; }\n\
              lease 10.0.0.1 { binding state free; }\n\
              lease 10.0.0.2 { binding state free; ends epoch 100; starts epoch 90; uid \"\\001ab\"; hardware ethernet 00:00:00:00:00:01; }\n\
              lease 10.0.0.4 { binding state expired; ends never; }\n\
              lease 10.0.0.5 { hardware ethernet 00:00:00:00:00:02; }\n",
        );
        assert!(f.errors.is_empty());
        let mut s = LeaseState::new(PoolMap::default(), 100);
        let r = load(&mut s, &f, 0.0);
        assert_eq!(
            r,
            Loaded {
                leases: 4,
                without_state: 1,
                not_kept: 0
            }
        );
        let p = s.pool("10.0.0.0/24").unwrap();
        let c = p.counts();
        assert_eq!((c.free, c.backup, c.transitional), (2, 1, 1));
        let order: Vec<u8> = p
            .queue(BindingStatus::Free)
            .iter()
            .map(|l| l.address.octets()[3])
            .collect();
        assert_eq!(order, [1, 2], "never used (ends 0) before ends 100");
        let l2 = p.get(Ipv4Addr::new(10, 0, 0, 2)).unwrap();
        assert_eq!(
            l2.key(Role::Secondary),
            Some(ClientKey::ClientId(b"\x01ab".to_vec()))
        );
        assert_eq!((l2.ends, l2.since), (100, 90));
        let l3 = p.get(Ipv4Addr::new(10, 0, 0, 3)).unwrap();
        assert_eq!(
            l3.key(Role::Primary).as_ref().and_then(|c| c.stid()),
            Some(&[0u8, 1, 2, 3, 4, 5][..])
        );
        assert_eq!(p.get(Ipv4Addr::new(10, 0, 0, 4)).unwrap().ends, i64::MAX);
    }

    #[test]
    fn the_role_is_told_by_the_mclt_that_only_the_secondary_writes() {
        let primary = leases::parse(
            b"failover peer \"fo\" state { my state normal at epoch 10; partner state normal at epoch 20; }\n",
        );
        assert_eq!(
            role_of(&primary),
            FileRole::Told {
                role: Role::Primary,
                peer: "fo".into()
            }
        );
        let secondary = leases::parse(
            b"failover peer \"fo\" state { my state normal at epoch 10; mclt 60; }\n",
        );
        assert_eq!(role_of(&secondary).told(), Some(Role::Secondary));
        let mixed = leases::parse(
            b"failover peer \"a\" state { mclt 60; }\nfailover peer \"b\" state { my state normal; }\n",
        );
        assert_eq!(role_of(&mixed), FileRole::Mixed);
        assert_eq!(
            role_of(&leases::parse(b"lease 10.0.0.1 { }\n")),
            FileRole::Silent
        );
        // The peer states' times count among the file's past times.
        assert_eq!(latest_past_time(&primary), Some(20));
    }

    #[test]
    fn a_second_file_keeps_the_other_servers_memory_of_the_client() {
        let primary = leases::parse(b"lease 10.0.0.1 { binding state free; uid \"A\"; }\n");
        let secondary = leases::parse(b"lease 10.0.0.1 { binding state backup; uid \"C\"; }\n");
        let mut s = LeaseState::new(PoolMap::default(), 10);
        load_as(&mut s, &primary, 0.0, Some(Role::Primary));
        load_as(&mut s, &secondary, 0.0, Some(Role::Secondary));
        let l = s.get(Ipv4Addr::new(10, 0, 0, 1)).unwrap();
        assert_eq!(l.status, BindingStatus::Backup, "the later file's state");
        assert_eq!(
            l.key(Role::Primary),
            Some(ClientKey::ClientId(b"A".to_vec()))
        );
        assert_eq!(
            l.key(Role::Secondary),
            Some(ClientKey::ClientId(b"C".to_vec()))
        );
        // Without a role, a file sets both.
        load_as(&mut s, &primary, 0.0, None);
        let l = s.get(Ipv4Addr::new(10, 0, 0, 1)).unwrap();
        assert_eq!(
            l.key(Role::Secondary),
            Some(ClientKey::ClientId(b"A".to_vec()))
        );
    }
}
