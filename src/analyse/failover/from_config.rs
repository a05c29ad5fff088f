//! The operator's dhcpd.conf files as the pool balancer's settings: each server's pool balance
//! statements (`max-lease-misbalance`, `max-lease-ownership`, `min-balance`, `max-balance`,
//! dhcpd's defaults where a file leaves one out), the pair's bucket map (the primary's `split`
//! or `hba`), each server's role, and the failover pools: the ranges of every pool with a
//! `failover peer`, named as dhcpd names them in its `balancing pool` log lines (the shared
//! network, or the subnet for a subnet declared alone).

use std::collections::BTreeMap;
use std::net::IpAddr;

use super::pools::PoolRange;
use super::profile::Params;
use crate::analyse::dhcp_lb::{Hba, Role};
use crate::config::{Product, ServerConfig};

/// What the configuration files say of a failover pair.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FailoverSetup {
    /// The `failover peer` name the settings are taken from.
    pub peer: Option<String>,
    /// Each server's pool balance statements: the primary's, then the secondary's.
    pub params: [Option<Params>; 2],
    /// The primary's `split` / `hba`.
    pub hba: Option<Hba>,
    /// The roles the files declare (one per file declaring the peer).
    pub roles: Vec<Role>,
    /// The primary's `mclt`.
    pub mclt: Option<u32>,
    /// The ranges of the pools with a failover peer.
    pub pools: Vec<PoolRange>,
}

fn slot(r: Role) -> usize {
    usize::from(r == Role::Secondary)
}

impl FailoverSetup {
    /// The statements of `role`'s file, else of the other server's.
    pub fn params_for(&self, role: Role) -> Option<Params> {
        self.params[slot(role)].or(self.params[slot(role.peer())])
    }

    /// The one role the files declare, when they declare exactly one (a single server's
    /// file).
    pub fn only_role(&self) -> Option<Role> {
        match self.roles.as_slice() {
            [r] => Some(*r),
            _ => None,
        }
    }
}

/// The failover pair of `configs`: the first `failover peer` declared.
pub fn setup(configs: &[ServerConfig]) -> FailoverSetup {
    let dhcpd: Vec<&ServerConfig> = configs
        .iter()
        .filter(|c| c.product == Product::Dhcpd)
        .collect();
    let Some(name) = dhcpd
        .iter()
        .flat_map(|c| c.failover.iter())
        .map(|p| p.name.clone())
        .next()
    else {
        return FailoverSetup::default();
    };
    let mut s = FailoverSetup {
        peer: Some(name.clone()),
        ..FailoverSetup::default()
    };
    for c in &dhcpd {
        let Some(p) = c.failover.iter().find(|p| p.name == name) else {
            continue;
        };
        let role = p.effective_role();
        s.roles.push(role);
        let b = p.balance();
        s.params[slot(role)].get_or_insert(Params {
            max_lease_misbalance: b.max_lease_misbalance,
            max_lease_ownership: b.max_lease_ownership,
            min_balance: b.min_balance,
            max_balance: b.max_balance,
        });
        if role == Role::Primary {
            s.hba = s.hba.or(p.hba);
            s.mclt = s.mclt.or(p.mclt);
        }
    }
    s.pools = pools(&dhcpd, &name);
    s
}

/// The v4 ranges of `peer`'s pools, each named after its shared network (numbered when the
/// network holds several failover pools). Two files naming the same range give it once.
fn pools(configs: &[&ServerConfig], peer: &str) -> Vec<PoolRange> {
    let mut out: Vec<PoolRange> = Vec::new();
    for c in configs {
        // Pools per network, in the order declared.
        let mut per_net: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for r in c
            .ranges
            .iter()
            .filter(|r| r.failover_peer.as_deref() == Some(peer))
        {
            let net = r.shared_network.clone().unwrap_or_else(|| r.subnet.clone());
            let pools = per_net.entry(net).or_default();
            if !pools.contains(&r.pool) {
                pools.push(r.pool);
            }
        }
        for r in c
            .ranges
            .iter()
            .filter(|r| r.failover_peer.as_deref() == Some(peer))
        {
            let (IpAddr::V4(first), IpAddr::V4(last)) = (r.first, r.last) else {
                continue;
            };
            let net = r.shared_network.clone().unwrap_or_else(|| r.subnet.clone());
            let pools = per_net.get(&net).map_or(&[][..], Vec::as_slice);
            let name = match pools.iter().position(|p| *p == r.pool) {
                Some(i) if pools.len() > 1 => format!("{net} pool {}", i + 1),
                _ => net,
            };
            if !out.iter().any(|o| o.first == first && o.last == last) {
                out.push(PoolRange { name, first, last });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::dhcpd;

    fn conf(text: &str) -> ServerConfig {
        let mut no = |_: &str, _: &str| Err(String::new());
        dhcpd::parse("f.conf", text.as_bytes(), &mut no).unwrap()
    }

    #[test]
    fn the_pairs_statements_and_pools() {
        let p = conf(
            "failover peer \"fo\" { primary; peer address 10.0.0.2; mclt 60; split 100; min-balance 5; max-balance 30; }\n\
             subnet 10.0.0.0 netmask 255.255.255.0 { pool { failover peer \"fo\"; range 10.0.0.10 10.0.0.19; range 10.0.0.30 10.0.0.39; } }\n\
             shared-network lab { subnet 10.1.0.0 netmask 255.255.255.0 { pool { failover peer \"fo\"; range 10.1.0.1 10.1.0.9; } pool { failover peer \"fo\"; range 10.1.0.20 10.1.0.29; } pool { range 10.1.0.50 10.1.0.59; } } }",
        );
        let s = conf(
            "failover peer \"fo\" { secondary; peer address 10.0.0.1; max-lease-misbalance 20; }\n\
             subnet 10.0.0.0 netmask 255.255.255.0 { pool { failover peer \"fo\"; range 10.0.0.10 10.0.0.19; range 10.0.0.30 10.0.0.39; } }\n\
             shared-network lab { subnet 10.1.0.0 netmask 255.255.255.0 { pool { failover peer \"fo\"; range 10.1.0.1 10.1.0.9; } pool { failover peer \"fo\"; range 10.1.0.20 10.1.0.29; } } }",
        );
        let f = setup(&[p.clone(), s]);
        assert_eq!(f.peer.as_deref(), Some("fo"));
        assert_eq!(f.hba, Some(Hba::split(100).unwrap()));
        assert_eq!(f.mclt, Some(60));
        assert_eq!(f.roles, [Role::Primary, Role::Secondary]);
        assert_eq!(f.only_role(), None);
        let p_params = f.params_for(Role::Primary).unwrap();
        assert_eq!(
            (
                p_params.min_balance,
                p_params.max_balance,
                p_params.max_lease_misbalance
            ),
            (5, 30, 15)
        );
        let s_params = f.params_for(Role::Secondary).unwrap();
        assert_eq!(
            (s_params.min_balance, s_params.max_lease_misbalance),
            (60, 20)
        );
        let names: Vec<String> = f
            .pools
            .iter()
            .map(|r| format!("{}={}-{}", r.name, r.first, r.last))
            .collect();
        assert_eq!(
            names,
            [
                "10.0.0.0/24=10.0.0.10-10.0.0.19",
                "10.0.0.0/24=10.0.0.30-10.0.0.39",
                "lab pool 1=10.1.0.1-10.1.0.9",
                "lab pool 2=10.1.0.20-10.1.0.29",
            ]
        );
        assert_eq!(setup(&[p]).only_role(), Some(Role::Primary));
        assert_eq!(setup(&[]), FailoverSetup::default());
    }
}
