//! The operator's configuration files (dhcpd.conf, Kea's) as the replay's [`ConfigFile`]: the
//! pair's servers with their roles and identifiers, the bucket map, the delayed-service
//! threshold and the profile, written as a poolshark TOML would give them, so that the replay
//! has one kind of configuration and reports what it set as coming from the config.
//!
//! * dhcpd: the first `failover peer` the files declare. Each file's own server is known by its
//!   `address` (and `server-identifier`), its partner by its `peer address`; the servers are
//!   named by those addresses, as the replay names servers it meets. The map is the primary's
//!   `split` / `hba`, the threshold `load balance max seconds`, the profile `isc`. With no
//!   threshold (dhcpd's 0), dhcpd does not balance at all: neither map nor threshold is taken.
//! * Kea: the HA relationship. Servers are the `peers`, named as there, known by their URL's
//!   address and, for the file's own server, by its `server-id` DUID or `dhcp-server-identifier`.
//!   `load-balancing` is Kea's map (even buckets to the primary), `hot-standby` gives every
//!   bucket to the primary, `passive-backup` is no pair; the profile is `kea`.

use std::net::IpAddr;

use super::config::{ConfigFile, ServerEntry};
use crate::config::{Product, ServerConfig, ServerId};

fn ident(id: &ServerId) -> String {
    match id {
        ServerId::Addr(a) => a.to_string(),
        ServerId::Duid(d) => crate::field::hex_colons(d),
    }
}

/// Adds `ids` to the server called `name`, making it when it is new.
fn add(servers: &mut Vec<ServerEntry>, name: &str, role: Option<&str>, ids: Vec<String>) {
    let i = match servers.iter().position(|s| s.name == name) {
        Some(i) => i,
        None => {
            servers.push(ServerEntry {
                name: name.to_string(),
                role: None,
                identifiers: Vec::new(),
            });
            servers.len() - 1
        }
    };
    let s = &mut servers[i];
    if s.role.is_none() {
        s.role = role.map(str::to_string);
    }
    for id in ids {
        if !s.identifiers.contains(&id) {
            s.identifiers.push(id);
        }
    }
}

/// A literal address as written (`192.0.2.001` read as dhcpd reads it); a host name gives none.
fn literal(a: &str) -> Option<IpAddr> {
    crate::source::leases::ipv4(a)
        .map(IpAddr::V4)
        .ok()
        .or_else(|| a.parse().ok())
}

/// The replay's configuration from `configs`, and notes on what could not be taken.
pub fn config_file(configs: &[ServerConfig]) -> (ConfigFile, Vec<String>) {
    let mut f = ConfigFile::default();
    let mut notes = Vec::new();
    let dhcpd_peer = configs
        .iter()
        .filter(|c| c.product == Product::Dhcpd)
        .flat_map(|c| c.failover.iter())
        .map(|p| p.name.clone())
        .next();
    if let Some(name) = dhcpd_peer {
        f.profile = Some("isc".into());
        let mut threshold = None;
        for c in configs.iter().filter(|c| c.product == Product::Dhcpd) {
            let Some(p) = c.failover.iter().find(|p| p.name == name) else {
                continue;
            };
            let role = p.effective_role();
            let own_ids: Vec<String> = c.server_ids.iter().map(ident).collect();
            if let Some(a) = p.address.as_deref().and_then(literal) {
                let mut ids = vec![a.to_string()];
                ids.extend(own_ids);
                add(&mut f.servers, &a.to_string(), Some(role.name()), ids);
            }
            if let Some(a) = p.peer_address.as_deref().and_then(literal) {
                add(
                    &mut f.servers,
                    &a.to_string(),
                    Some(role.peer().name()),
                    vec![a.to_string()],
                );
            }
            if role == super::Role::Primary {
                f.hba = f.hba.take().or(p.hba.map(|h| h.to_string()));
                threshold = p.load_balance_max_seconds.or(threshold);
            } else {
                threshold = threshold.or(p.load_balance_max_seconds);
            }
        }
        match threshold {
            Some(t) if t > 0 => f.delayed_service_threshold = Some(t),
            _ => {
                f.hba = None;
                notes.push(format!(
                    "failover peer \"{name}\" has no load balance max seconds (dhcpd's 0): dhcpd does not balance it, so its map is not the reference"
                ));
            }
        }
    } else if let Some(ha) = configs.iter().find_map(|c| c.ha.as_ref()) {
        match ha.mode.as_str() {
            "load-balancing" => f.hba = Some("kea".into()),
            "hot-standby" => f.hba = Some("split:256".into()),
            _ => {
                notes.push(format!(
                    "HA mode {}: the servers do not share the clients, no pair to replay",
                    ha.mode
                ));
                return (f, notes);
            }
        }
        f.profile = Some("kea".into());
        for c in configs {
            let Some(h) = &c.ha else { continue };
            for p in &h.peers {
                let role = match p.role.as_str() {
                    "primary" => Some("primary"),
                    "secondary" | "standby" => Some("secondary"),
                    _ => continue,
                };
                let mut ids: Vec<String> = p.host.iter().map(IpAddr::to_string).collect();
                if p.name == h.this_server_name {
                    ids.extend(c.server_ids.iter().map(ident));
                }
                add(&mut f.servers, &p.name, role, ids);
            }
        }
    }
    let unknown: Vec<String> = f
        .servers
        .iter()
        .filter(|s| s.identifiers.is_empty())
        .map(|s| s.name.clone())
        .collect();
    if !unknown.is_empty() {
        notes.push(format!(
            "{} known by no address or identifier in the configuration: left to the capture",
            unknown.join(", ")
        ));
    }
    f.servers.retain(|s| !s.identifiers.is_empty());
    (f, notes)
}

/// `over` with what it leaves unset taken from `base` (a poolshark TOML over the operator's
/// files).
pub fn merged(base: ConfigFile, over: ConfigFile) -> ConfigFile {
    ConfigFile {
        profile: over.profile.or(base.profile),
        hba: over.hba.or(base.hba),
        delayed_service_threshold: over
            .delayed_service_threshold
            .or(base.delayed_service_threshold),
        secs_byte_order_check: over.secs_byte_order_check.or(base.secs_byte_order_check),
        answer_window: over.answer_window.or(base.answer_window),
        failover_link_timeout: over.failover_link_timeout.or(base.failover_link_timeout),
        servers: if over.servers.is_empty() {
            base.servers
        } else {
            over.servers
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{dhcpd, kea};

    fn dhcpd(text: &str) -> ServerConfig {
        let mut no = |_: &str, _: &str| Err(String::new());
        dhcpd::parse("f.conf", text.as_bytes(), &mut no).unwrap()
    }

    const POOL: &str = "subnet 192.0.2.0 netmask 255.255.255.0 { pool { failover peer \"fo\"; range 192.0.2.100 192.0.2.159; } }";

    #[test]
    fn a_dhcpd_pair() {
        let p = dhcpd(&format!(
            "failover peer \"fo\" {{ primary; address 192.0.2.1; peer address 192.0.2.2; mclt 60; split 128; load balance max seconds 3; }}\n{POOL}"
        ));
        let (f, notes) = config_file(&[p]);
        assert_eq!(notes, Vec::<String>::new());
        assert_eq!(f.profile.as_deref(), Some("isc"));
        assert_eq!(f.hba.as_deref(), Some("split:128"));
        assert_eq!(f.delayed_service_threshold, Some(3));
        let s: Vec<(&str, Option<&str>, &[String])> = f
            .servers
            .iter()
            .map(|s| (s.name.as_str(), s.role.as_deref(), s.identifiers.as_slice()))
            .collect();
        assert_eq!(
            s,
            [
                ("192.0.2.1", Some("primary"), &["192.0.2.1".to_string()][..]),
                (
                    "192.0.2.2",
                    Some("secondary"),
                    &["192.0.2.2".to_string()][..]
                ),
            ]
        );
        // It makes Settings as a TOML file would.
        let settings = super::super::Settings::resolve(Some(&f), &Default::default()).unwrap();
        assert_eq!(
            settings.threshold,
            Some((3, super::super::config::Source::ConfigFile))
        );
        // Without a threshold dhcpd does not balance: the map is not taken.
        let off = dhcpd(&format!(
            "failover peer \"fo\" {{ primary; peer address 192.0.2.2; mclt 60; split 128; }}\n{POOL}"
        ));
        let (f, notes) = config_file(&[off]);
        assert_eq!(f.hba, None);
        assert!(notes[0].contains("does not balance"), "{notes:?}");
    }

    #[test]
    fn a_kea_pair() {
        let k = kea::parse(
            "k.conf",
            br#"{"Dhcp6": {"server-id": {"type": "LL", "htype": 1, "identifier": "020000000202"},
              "hooks-libraries": [{"library": "libdhcp_ha.so", "parameters": {"high-availability": [{
                "this-server-name": "server2", "mode": "load-balancing",
                "peers": [{"name": "server1", "url": "http://[fe80::1]:8000/", "role": "primary"},
                          {"name": "server2", "url": "http://localhost:8001/", "role": "secondary"}]}]}}]}}"#,
        )
        .unwrap();
        let (f, notes) = config_file(&[k]);
        assert_eq!(notes, Vec::<String>::new());
        assert_eq!(f.hba.as_deref(), Some("kea"));
        assert_eq!(f.profile.as_deref(), Some("kea"));
        assert_eq!(f.servers[0].identifiers, ["fe80::1"]);
        assert_eq!(f.servers[1].name, "server2");
        assert_eq!(f.servers[1].identifiers, ["00:03:00:01:02:00:00:00:02:02"]);
        let toml = ConfigFile {
            hba: Some("split:10".into()),
            ..ConfigFile::default()
        };
        let m = merged(f, toml);
        assert_eq!(m.hba.as_deref(), Some("split:10"));
        assert_eq!(m.servers.len(), 2);
    }
}
