//! Where the configurations of a pair's two servers disagree. Each server of a dhcpd failover
//! pair declares the same `failover peer`, from its own side; each server of a Kea HA pair lists
//! the same peers. What one says of the pair the other must say the same way, or the pair does
//! not run as either file describes: two primaries, an `address` the other calls by another
//! `peer address`, two bucket maps, two MCLTs, pool balance statements or delayed-service
//! thresholds that differ (each server then balances by its own), two HA modes or peer lists.

use std::net::IpAddr;

use super::{FailoverPeer, HaConfig, Product, ServerConfig};

/// One setting two files disagree on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The pair: `failover peer "NAME"`, or `HA server1+server2`.
    pub pair: String,
    /// The setting, as the files name it (`split`/`hba`, `mclt`, `role`, `peer address`, ...).
    pub setting: String,
    /// Each file with its value.
    pub values: Vec<(String, String)>,
    pub impact: Impact,
    /// What the difference does.
    pub why: String,
}

/// What a disagreement does to the pair (the finding's severity follows from it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Impact {
    /// It breaks the load balancing itself: roles, addresses, bucket maps, HA modes, peers.
    Breaks,
    /// It changes timing or balance (MCLTs, pool balance statements, delayed-service thresholds).
    Shifts,
}

/// Every disagreement between the files that configure one pair.
pub fn disagreements(configs: &[ServerConfig]) -> Vec<Disagreement> {
    let mut out = Vec::new();
    let dhcpd: Vec<(&str, &FailoverPeer)> = configs
        .iter()
        .filter(|c| c.product == Product::Dhcpd)
        .flat_map(|c| c.failover.iter().map(move |p| (c.file.as_str(), p)))
        .collect();
    for (i, (fa, a)) in dhcpd.iter().enumerate() {
        for (fb, b) in dhcpd.iter().skip(i + 1) {
            if a.name == b.name && fa != fb {
                failover_pair(fa, a, fb, b, &mut out);
            }
        }
    }
    let kea: Vec<(&str, &HaConfig)> = configs
        .iter()
        .filter_map(|c| c.ha.as_ref().map(|h| (c.file.as_str(), h)))
        .collect();
    for (i, (fa, a)) in kea.iter().enumerate() {
        for (fb, b) in kea.iter().skip(i + 1) {
            let shared = a
                .peers
                .iter()
                .any(|p| b.peers.iter().any(|q| q.name == p.name));
            if shared && fa != fb {
                ha_pair(fa, a, fb, b, &mut out);
            }
        }
    }
    out
}

/// An address as written, or in its canonical form when it is one (so `192.0.2.001` and
/// `192.0.2.1` match, as dhcpd reads both alike).
fn canonical(a: &str) -> String {
    super::dhcpd::ipv4(a).map_or_else(
        |_| {
            a.parse::<IpAddr>()
                .map_or_else(|_| a.to_ascii_lowercase(), |x| x.to_string())
        },
        |v| v.to_string(),
    )
}

fn failover_pair(
    fa: &str,
    a: &FailoverPeer,
    fb: &str,
    b: &FailoverPeer,
    out: &mut Vec<Disagreement>,
) {
    let pair = format!("failover peer \"{}\"", a.name);
    let mut add = |setting: &str, va: String, vb: String, impact: Impact, why: &str| {
        out.push(Disagreement {
            pair: pair.clone(),
            setting: setting.to_string(),
            values: vec![(fa.to_string(), va), (fb.to_string(), vb)],
            impact,
            why: why.to_string(),
        });
    };
    let (ra, rb) = (a.effective_role(), b.effective_role());
    if ra == rb {
        add(
            "role",
            ra.to_string(),
            rb.to_string(),
            Impact::Breaks,
            "a failover pair is one primary and one secondary",
        );
    }
    for (x, fx, y, fy) in [(a, fa, b, fb), (b, fb, a, fa)] {
        if let (Some(own), Some(seen)) = (&x.address, &y.peer_address) {
            if canonical(own) != canonical(seen) {
                add(
                    "address / peer address",
                    format!("{fx}: address {own}"),
                    format!("{fy}: peer address {seen}"),
                    Impact::Breaks,
                    "each server's peer address must be the other's address",
                );
            }
        }
        let own = x.port.unwrap_or(super::defaults::PORT);
        let seen = y.peer_port.unwrap_or(super::defaults::PORT);
        if own != seen {
            add(
                "port / peer port",
                format!("{fx}: port {own}"),
                format!("{fy}: peer port {seen}"),
                Impact::Breaks,
                "each server's peer port must be the port the other listens on",
            );
        }
    }
    if let (Some(ha), Some(hb)) = (&a.hba, &b.hba) {
        if ha != hb {
            add(
                "split / hba",
                a.hba_text.clone().unwrap_or_default(),
                b.hba_text.clone().unwrap_or_default(),
                Impact::Breaks,
                "the two maps give some buckets to both servers or to neither",
            );
        }
    }
    let opt = |v: Option<u32>| v.map_or("not set".to_string(), |v| v.to_string());
    if let (Some(ma), Some(mb)) = (a.mclt, b.mclt) {
        if ma != mb {
            add(
                "mclt",
                ma.to_string(),
                mb.to_string(),
                Impact::Shifts,
                "the secondary takes the primary's MCLT from CONNECT: one file does not say what runs",
            );
        }
    }
    if a.threshold() != b.threshold() {
        add(
            "load balance max seconds",
            opt(a.load_balance_max_seconds),
            opt(b.load_balance_max_seconds),
            Impact::Shifts,
            "each server answers its peer's clients after its own threshold: the pair balances unevenly",
        );
    }
    let (ba, bb) = (a.balance(), b.balance());
    for (name, x, y, sx, sy) in [
        (
            "max-lease-misbalance",
            ba.max_lease_misbalance,
            bb.max_lease_misbalance,
            a.max_lease_misbalance,
            b.max_lease_misbalance,
        ),
        (
            "max-lease-ownership",
            ba.max_lease_ownership,
            bb.max_lease_ownership,
            a.max_lease_ownership,
            b.max_lease_ownership,
        ),
        (
            "min-balance",
            ba.min_balance,
            bb.min_balance,
            a.min_balance,
            b.min_balance,
        ),
        (
            "max-balance",
            ba.max_balance,
            bb.max_balance,
            a.max_balance,
            b.max_balance,
        ),
    ] {
        if x != y {
            add(
                name,
                sx.map_or(format!("{x} (default)"), |v| v.to_string()),
                sy.map_or(format!("{y} (default)"), |v| v.to_string()),
                Impact::Shifts,
                "each server balances its pools by its own statements",
            );
        }
    }
}

fn ha_pair(fa: &str, a: &HaConfig, fb: &str, b: &HaConfig, out: &mut Vec<Disagreement>) {
    let mut names: Vec<&str> = a.peers.iter().map(|p| p.name.as_str()).collect();
    names.sort_unstable();
    let pair = format!("HA {}", names.join("+"));
    let mut add = |setting: &str, va: String, vb: String, impact: Impact, why: &str| {
        out.push(Disagreement {
            pair: pair.clone(),
            setting: setting.to_string(),
            values: vec![(fa.to_string(), va), (fb.to_string(), vb)],
            impact,
            why: why.to_string(),
        });
    };
    if a.this_server_name == b.this_server_name {
        add(
            "this-server-name",
            a.this_server_name.clone(),
            b.this_server_name.clone(),
            Impact::Breaks,
            "the two files describe the same server: give each server's own",
        );
    }
    if a.mode != b.mode {
        add(
            "mode",
            a.mode.clone(),
            b.mode.clone(),
            Impact::Breaks,
            "both servers must run the same HA mode",
        );
    }
    let describe = |c: &HaConfig| {
        let mut v: Vec<String> = c
            .peers
            .iter()
            .map(|p| format!("{} {} {}", p.name, p.role, p.url))
            .collect();
        v.sort();
        v.join(", ")
    };
    let (pa, pb) = (describe(a), describe(b));
    if pa != pb {
        add(
            "peers",
            pa,
            pb,
            Impact::Breaks,
            "both servers must list the same peers with the same roles and URLs",
        );
    }
    let opt = |v: Option<u32>| v.map_or("not set".to_string(), |v| v.to_string());
    for (name, x, y) in [
        (
            "max-unacked-clients",
            a.max_unacked_clients,
            b.max_unacked_clients,
        ),
        ("max-ack-delay", a.max_ack_delay, b.max_ack_delay),
        (
            "max-response-delay",
            a.max_response_delay,
            b.max_response_delay,
        ),
        ("heartbeat-delay", a.heartbeat_delay, b.heartbeat_delay),
    ] {
        if x != y {
            add(
                name,
                opt(x),
                opt(y),
                Impact::Shifts,
                "each server detects its partner's failure by its own settings",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{dhcpd, At};

    fn conf(file: &str, text: &str) -> ServerConfig {
        let mut no = |_: &str, _: &str| Err("no includes here".to_string());
        dhcpd::parse(file, text.as_bytes(), &mut no).unwrap()
    }

    const POOL: &str = "subnet 10.0.0.0 netmask 255.255.255.0 { pool { failover peer \"fo\"; range 10.0.0.10 10.0.0.99; } }";

    #[test]
    fn a_consistent_pair_and_one_that_is_not() {
        let p = conf(
            "p.conf",
            &format!("failover peer \"fo\" {{ primary; address 10.0.0.1; peer address 10.0.0.2; mclt 60; split 128; load balance max seconds 3; }}\n{POOL}"),
        );
        let s = conf(
            "s.conf",
            &format!("failover peer \"fo\" {{ secondary; address 10.0.0.2; peer address 10.0.0.1; load balance max seconds 3; }}\n{POOL}"),
        );
        assert_eq!(disagreements(&[p.clone(), s]), []);
        // Another primary with split 100, mclt 30, min-balance 5 and the wrong peer address.
        let q = conf(
            "q.conf",
            &format!("failover peer \"fo\" {{ primary; address 10.0.0.2; peer address 10.0.0.9; mclt 30; split 100; min-balance 5; }}\n{POOL}"),
        );
        let d = disagreements(&[p, q]);
        let settings: Vec<&str> = d.iter().map(|d| d.setting.as_str()).collect();
        assert_eq!(
            settings,
            [
                "role",
                "address / peer address",
                "split / hba",
                "mclt",
                "load balance max seconds",
                "min-balance"
            ]
        );
        assert_eq!(d[2].values[0].1, "split 128");
        assert_eq!(d[2].values[1].1, "split 100");
        assert_eq!(d[5].values[0].1, "60 (default)");
        assert_eq!(d[0].impact, Impact::Breaks);
        assert_eq!(d[3].impact, Impact::Shifts);
        let _ = At::default();
    }
}
