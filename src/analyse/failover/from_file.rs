//! Lease state from a `dhcpd.leases` file: the same [`LeaseState`] the failover events build, so
//! an operator's lease file can seed a replay or be balanced on its own.
//!
//! Each lease keeps the file's binding state (a lease file may hold EXPIRED, RELEASED or RESET
//! leases still waiting for the peer's acknowledgement; the wire's become FREE), its client (the
//! `uid` if there is one, else the `hardware` address, as ISC hashes it), `ends` (`never` sorts
//! after every time; no `ends` means never used) and `starts` as the time it entered its state.
//! Leases are loaded in the order the file last wrote them, which is the order dhcpd's start-up
//! queues them in among leases with the same `ends`.

use super::event::Client;
use super::state::{LeaseFields, LeaseState, NEVER_USED};
use crate::proto::failover::BindingStatus;
use crate::source::leases::{Binding, LeaseFile, LeaseTime};

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
pub fn load(state: &mut LeaseState, file: &LeaseFile, now: f64) -> Loaded {
    let mut report = Loaded::default();
    let mut entries: Vec<_> = file.leases.iter().collect();
    entries.sort_by_key(|e| e.line);
    for e in entries {
        let (Some(address), Some(b)) = (e.address, e.binding_state) else {
            report.without_state += 1;
            continue;
        };
        let client = Client {
            id: e.uid.clone(),
            hardware: e.hardware.as_ref().map(|h| (h.htype, h.address.clone())),
        };
        let ends = match e.ends {
            Some(LeaseTime::At(t)) => t,
            Some(LeaseTime::Never) => i64::MAX,
            None => NEVER_USED,
        };
        let since = e.starts.and_then(LeaseTime::epoch).unwrap_or(NEVER_USED);
        let fields = LeaseFields {
            status: binding_status(b),
            via: None,
            unacked_by: None,
            clients: [client.clone(), client],
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::dhcp_lb::Role;
    use crate::analyse::failover::event::ClientKey;
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
}
