//! Kea's `kea-dhcp4.conf` / `kea-dhcp6.conf` (JSON with comments, Kea ARM "Configuration"):
//! the `libdhcp_ha.so` hook's `high-availability` relationship (`this-server-name`, `mode`,
//! `peers` with `name`, `url`, `role`, `auto-failover`; `max-unacked-clients` and the delays),
//! `subnet4` / `subnet6` with their `pools` and `pd-pools`, `shared-networks`, and the server's
//! identifier: `server-id` (the DUID of a DHCPv6 server, when the file gives its parts) or a
//! global `dhcp-server-identifier` option (DHCPv4).
//!
//! Ranges are listed as the file gives them: the subnets outside shared networks first, then
//! each shared network's.
//!
//! Comments are blanked first (`jsonc`), so that serde_json's line and column of a syntax error
//! are those of the file. A value poolshark reads but cannot use (a pool that is not a range or
//! a prefix, a pool outside its subnet, an HA peer without a role, `this-server-name` not among
//! the peers) is an error placed at that value in the file.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde_json::{Map, Value};

use super::jsonc;
use super::{At, ConfigError, HaConfig, HaPeer, Product, Range, RangeKind, ServerConfig, ServerId};
use crate::proto::lb::Family;

/// HA modes of Kea 2.2.
const MODES: &[&str] = &["load-balancing", "hot-standby", "passive-backup"];
/// HA peer roles of Kea 2.2.
const ROLES: &[&str] = &["primary", "secondary", "standby", "backup"];

/// Reads `text`, the Kea configuration called `file`.
pub fn parse(file: &str, text: &[u8]) -> Result<ServerConfig, Vec<ConfigError>> {
    let err = |(line, col): (usize, usize), what: String| {
        vec![ConfigError {
            file: file.to_string(),
            line,
            col,
            what,
        }]
    };
    let stripped = jsonc::strip(text)
        .map_err(|at| err(at, "comment opened here ('/*') is not closed".into()))?;
    if let Some(i) = stripped.windows(9).position(|w| w == b"<?include") {
        return Err(err(
            jsonc::line_col(text, i),
            "Kea's <?include ?> is not followed: give the file with the included text in place"
                .into(),
        ));
    }
    let root: Value = serde_json::from_slice(&stripped)
        .map_err(|e| err((e.line(), e.column()), format!("not valid JSON: {e}")))?;
    let mut r = Reader {
        file,
        text: &stripped,
        errors: Vec::new(),
    };
    let cfg = r.root(&root);
    if r.errors.is_empty() {
        cfg.ok_or_else(|| err((1, 1), "no Dhcp4 or Dhcp6 object".into()))
    } else {
        r.errors.sort_by_key(|e| (e.line, e.col));
        Err(r.errors)
    }
}

struct Reader<'a> {
    file: &'a str,
    /// The comment-free text, to place errors.
    text: &'a [u8],
    errors: Vec<ConfigError>,
}

impl Reader<'_> {
    /// Where `needle` (a JSON string's contents, or a key) first appears, for an error about it.
    fn place(&self, needle: &str) -> At {
        let quoted = serde_json::to_string(needle).unwrap_or_default();
        let pos = self
            .text
            .windows(quoted.len().max(1))
            .position(|w| w == quoted.as_bytes());
        let (line, col) = pos.map_or((1, 1), |p| jsonc::line_col(self.text, p));
        At {
            file: self.file.to_string(),
            line,
            col,
        }
    }

    fn error(&mut self, needle: &str, what: String) {
        let at = self.place(needle);
        self.errors.push(ConfigError {
            file: at.file,
            line: at.line,
            col: at.col,
            what,
        });
    }

    fn root(&mut self, root: &Value) -> Option<ServerConfig> {
        let Some(top) = root.as_object() else {
            self.errors.push(ConfigError {
                file: self.file.to_string(),
                line: 1,
                col: 1,
                what: "a Kea configuration is a JSON object".into(),
            });
            return None;
        };
        let (family, key) = match (top.get("Dhcp4"), top.get("Dhcp6")) {
            (Some(_), Some(_)) => {
                self.error(
                    "Dhcp6",
                    "both Dhcp4 and Dhcp6 in one file: give each server's own file".into(),
                );
                return None;
            }
            (Some(_), None) => (Family::V4, "Dhcp4"),
            (None, Some(_)) => (Family::V6, "Dhcp6"),
            (None, None) => {
                self.errors.push(ConfigError {
                    file: self.file.to_string(),
                    line: 1,
                    col: 1,
                    what: "neither Dhcp4 nor Dhcp6: not a kea-dhcp4 or kea-dhcp6 configuration"
                        .into(),
                });
                return None;
            }
        };
        let Some(server) = top.get(key).and_then(Value::as_object) else {
            self.error(key, format!("{key} is not an object"));
            return None;
        };
        let mut cfg = ServerConfig {
            file: self.file.to_string(),
            product: Product::Kea,
            family,
            failover: Vec::new(),
            ha: None,
            server_ids: Vec::new(),
            ranges: Vec::new(),
            shared_networks: Vec::new(),
        };
        if let Some(id) = server.get("server-id") {
            if let Some(duid) = self.server_id(id) {
                cfg.server_ids.push(ServerId::Duid(duid));
            }
        }
        if let Some(a) = self.v4_server_identifier(server) {
            cfg.server_ids.push(ServerId::Addr(IpAddr::V4(a)));
        }
        cfg.ha = self.ha(server);
        let subnets_key = match family {
            Family::V4 => "subnet4",
            Family::V6 => "subnet6",
        };
        let mut pool = 0usize;
        for s in array(server.get(subnets_key)) {
            self.subnet(s, family, None, &mut pool, &mut cfg.ranges);
        }
        for n in array(server.get("shared-networks")) {
            let Some(name) = n.get("name").and_then(Value::as_str) else {
                self.error(
                    "shared-networks",
                    "a shared network without a \"name\"".into(),
                );
                continue;
            };
            cfg.shared_networks.push(name.to_string());
            for s in array(n.get(subnets_key)) {
                self.subnet(s, family, Some(name), &mut pool, &mut cfg.ranges);
            }
        }
        Some(cfg)
    }

    /// `server-id`: the DUID when the file gives every part of it (Kea makes up the rest, and
    /// keeps it in its own file, which poolshark does not read).
    fn server_id(&mut self, id: &Value) -> Option<Vec<u8>> {
        let o = id.as_object()?;
        let kind = o.get("type").and_then(Value::as_str).unwrap_or("LLT");
        let ident = match o.get("identifier").and_then(Value::as_str) {
            Some(h) => match hex(h) {
                Some(b) => b,
                None => {
                    self.error(h, format!("server-id identifier \"{h}\" is not hex"));
                    return None;
                }
            },
            None => return None,
        };
        let uint = |k: &str, default: Option<u64>| o.get(k).and_then(Value::as_u64).or(default);
        let mut duid = Vec::new();
        match kind {
            "LLT" => {
                let htype = u16::try_from(uint("htype", Some(1))?).ok()?;
                let time = u32::try_from(uint("time", None)?).ok()?;
                duid.extend_from_slice(&[0, 1]);
                duid.extend_from_slice(&htype.to_be_bytes());
                duid.extend_from_slice(&time.to_be_bytes());
            }
            "EN" => {
                // ISC's enterprise number is Kea's default.
                let ent = u32::try_from(uint("enterprise-id", Some(2495))?).ok()?;
                duid.extend_from_slice(&[0, 2]);
                duid.extend_from_slice(&ent.to_be_bytes());
            }
            "LL" => {
                let htype = u16::try_from(uint("htype", Some(1))?).ok()?;
                duid.extend_from_slice(&[0, 3]);
                duid.extend_from_slice(&htype.to_be_bytes());
            }
            other => {
                self.error(
                    other,
                    format!("server-id type \"{other}\": Kea takes LLT, EN or LL"),
                );
                return None;
            }
        }
        duid.extend_from_slice(&ident);
        Some(duid)
    }

    /// A global `dhcp-server-identifier` (option 54) in `option-data`.
    fn v4_server_identifier(&self, server: &Map<String, Value>) -> Option<Ipv4Addr> {
        array(server.get("option-data")).iter().find_map(|o| {
            let named = o.get("name").and_then(Value::as_str) == Some("dhcp-server-identifier")
                || o.get("code").and_then(Value::as_u64) == Some(54);
            if !named {
                return None;
            }
            o.get("data")?.as_str()?.trim().parse().ok()
        })
    }

    fn ha(&mut self, server: &Map<String, Value>) -> Option<HaConfig> {
        let lib = array(server.get("hooks-libraries")).iter().find(|h| {
            h.get("library")
                .and_then(Value::as_str)
                .is_some_and(|l| l.ends_with("libdhcp_ha.so"))
        })?;
        let Some(rel) = lib
            .get("parameters")
            .and_then(|p| p.get("high-availability"))
            .and_then(Value::as_array)
        else {
            self.error(
                "libdhcp_ha.so",
                "libdhcp_ha.so without parameters: high-availability: [ ... ]".into(),
            );
            return None;
        };
        let [rel] = rel.as_slice() else {
            self.error(
                "high-availability",
                format!(
                    "{} HA relationships: poolshark reads one (Kea 2.2 runs one)",
                    rel.len()
                ),
            );
            return None;
        };
        let s = |k: &str| rel.get(k).and_then(Value::as_str).map(str::to_string);
        let u = |k: &str| {
            rel.get(k)
                .and_then(Value::as_u64)
                .and_then(|v| u32::try_from(v).ok())
        };
        let Some(this) = s("this-server-name") else {
            self.error(
                "high-availability",
                "the HA relationship has no this-server-name".into(),
            );
            return None;
        };
        let mode = s("mode").unwrap_or_else(|| "load-balancing".into());
        if !MODES.contains(&mode.as_str()) {
            self.error(
                &mode,
                format!("HA mode \"{mode}\": Kea takes {}", MODES.join(", ")),
            );
            return None;
        }
        let mut peers = Vec::new();
        for p in array(rel.get("peers")) {
            let field = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
            let (Some(name), Some(url), Some(role)) = (field("name"), field("url"), field("role"))
            else {
                self.error("peers", "an HA peer needs a name, a url and a role".into());
                continue;
            };
            if !ROLES.contains(&role.as_str()) {
                self.error(
                    &role,
                    format!("HA role \"{role}\": Kea takes {}", ROLES.join(", ")),
                );
                continue;
            }
            peers.push(HaPeer {
                host: url_host(&url),
                name,
                url,
                role,
                auto_failover: p.get("auto-failover").and_then(Value::as_bool),
            });
        }
        if !peers.iter().any(|p| p.name == this) {
            self.error(
                &this,
                format!("this-server-name \"{this}\" is not among the HA peers"),
            );
            return None;
        }
        Some(HaConfig {
            at: self.place("high-availability"),
            this_server_name: this,
            mode,
            peers,
            max_unacked_clients: u("max-unacked-clients"),
            max_ack_delay: u("max-ack-delay"),
            max_response_delay: u("max-response-delay"),
            heartbeat_delay: u("heartbeat-delay"),
        })
    }

    fn subnet(
        &mut self,
        s: &Value,
        family: Family,
        shared: Option<&str>,
        pool: &mut usize,
        out: &mut Vec<Range>,
    ) {
        let Some(text) = s.get("subnet").and_then(Value::as_str) else {
            self.error("subnet", "a subnet without its \"subnet\" prefix".into());
            return;
        };
        let Some((net, len)) = prefix(text, family) else {
            self.error(
                text,
                format!("subnet \"{text}\" is not a {} prefix", family_word(family)),
            );
            return;
        };
        let id = s
            .get("id")
            .and_then(Value::as_u64)
            .and_then(|v| u32::try_from(v).ok());
        let (net_first, net_last) = span(net, len);
        let subnet = format!("{net_first}/{len}");
        for p in array(s.get("pools")) {
            let Some(ptext) = p.get("pool").and_then(Value::as_str) else {
                self.error("pools", format!("a pool of subnet {text} without \"pool\""));
                continue;
            };
            let Some((first, last)) = pool_span(ptext, family) else {
                self.error(
                    ptext,
                    format!("pool \"{ptext}\" is neither FIRST - LAST nor PREFIX/LENGTH"),
                );
                continue;
            };
            if first < net_first || last > net_last || last < first {
                self.error(
                    ptext,
                    format!("pool \"{ptext}\" does not lie in subnet {text}"),
                );
                continue;
            }
            out.push(self.range(
                first,
                last,
                RangeKind::Addresses,
                &subnet,
                id,
                shared,
                pool,
                ptext,
            ));
        }
        for p in array(s.get("pd-pools")) {
            let px = p.get("prefix").and_then(Value::as_str);
            let plen = p.get("prefix-len").and_then(Value::as_u64);
            let dlen = p.get("delegated-len").and_then(Value::as_u64);
            let (Some(px), Some(plen), Some(dlen)) = (px, plen, dlen) else {
                self.error(
                    "pd-pools",
                    "a pd-pool needs prefix, prefix-len and delegated-len".into(),
                );
                continue;
            };
            let parsed = px.parse::<Ipv6Addr>().ok().zip(u8::try_from(plen).ok());
            let (Some((a, plen)), Ok(dlen)) = (parsed, u8::try_from(dlen)) else {
                self.error(px, format!("pd-pool prefix \"{px}\" is not an IPv6 prefix"));
                continue;
            };
            if plen > 128 || dlen > 128 || dlen < plen {
                self.error(
                    px,
                    format!("pd-pool {px}/{plen}: delegated-len {dlen} must be from {plen} to 128"),
                );
                continue;
            }
            let (first, last) = span(IpAddr::V6(a), plen);
            out.push(self.range(
                first,
                last,
                RangeKind::Prefixes(dlen),
                &subnet,
                id,
                shared,
                pool,
                px,
            ));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn range(
        &self,
        first: IpAddr,
        last: IpAddr,
        kind: RangeKind,
        subnet: &str,
        subnet_id: Option<u32>,
        shared: Option<&str>,
        pool: &mut usize,
        text: &str,
    ) -> Range {
        *pool += 1;
        Range {
            first,
            last,
            kind,
            subnet: subnet.to_string(),
            subnet_id,
            shared_network: shared.map(str::to_string),
            pool: *pool - 1,
            failover_peer: None,
            at: self.place(text),
        }
    }
}

fn array(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn family_word(f: Family) -> &'static str {
    match f {
        Family::V4 => "IPv4",
        Family::V6 => "IPv6",
    }
}

fn hex(s: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = s.bytes().filter(|b| *b != b':').collect();
    if digits.is_empty() || digits.len() % 2 != 0 {
        return None;
    }
    digits
        .chunks_exact(2)
        .map(|p| {
            let t = std::str::from_utf8(p).ok()?;
            u8::from_str_radix(t, 16).ok()
        })
        .collect()
}

fn addr(s: &str, family: Family) -> Option<IpAddr> {
    let a: IpAddr = s.trim().parse().ok()?;
    (a.is_ipv4() == (family == Family::V4)).then_some(a)
}

fn prefix(s: &str, family: Family) -> Option<(IpAddr, u8)> {
    let (a, l) = s.split_once('/')?;
    let a = addr(a, family)?;
    let len: u8 = l.trim().parse().ok()?;
    let max = if a.is_ipv4() { 32 } else { 128 };
    (len <= max).then_some((a, len))
}

/// The first and last address of `a/len`.
fn span(a: IpAddr, len: u8) -> (IpAddr, IpAddr) {
    match a {
        IpAddr::V4(v) => {
            let host = u32::MAX.checked_shr(u32::from(len)).unwrap_or(0);
            let n = u32::from(v) & !host;
            (Ipv4Addr::from(n).into(), Ipv4Addr::from(n | host).into())
        }
        IpAddr::V6(v) => {
            let host = u128::MAX.checked_shr(u32::from(len)).unwrap_or(0);
            let n = u128::from(v) & !host;
            (Ipv6Addr::from(n).into(), Ipv6Addr::from(n | host).into())
        }
    }
}

/// A pool: `FIRST - LAST` (spaces optional) or `PREFIX/LENGTH`.
fn pool_span(s: &str, family: Family) -> Option<(IpAddr, IpAddr)> {
    if let Some((a, b)) = s.split_once('-') {
        return Some((addr(a, family)?, addr(b, family)?));
    }
    let (a, len) = prefix(s, family)?;
    Some(span(a, len))
}

/// The host of an HA peer's URL when it is an address: `http://192.0.2.1:8000/`,
/// `http://[2001:db8::1]:8000/`.
fn url_host(url: &str) -> Option<IpAddr> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split('/').next()?;
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => authority.split(':').next()?,
    };
    host.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERVER1: &str = r#"// server1 of the pair
{
  "Dhcp6": {
    # Kea reads '#' comments too
    "server-id": { "type": "LL", "htype": 1, "identifier": "020000000101" },
    "hooks-libraries": [
      { "library": "/usr/lib/x86_64-linux-gnu/kea/hooks/libdhcp_lease_cmds.so" },
      {
        "library": "/usr/lib/x86_64-linux-gnu/kea/hooks/libdhcp_ha.so",
        "parameters": { "high-availability": [ {
          "this-server-name": "server1",
          "mode": "load-balancing",
          "max-unacked-clients": 5,
          "peers": [
            { "name": "server1", "url": "http://[2001:db8::1]:8000/", "role": "primary" },
            /* the partner */
            { "name": "server2", "url": "http://192.0.2.2:8000/", "role": "secondary",
              "auto-failover": true }
          ]
        } ] }
      }
    ],
    "subnet6": [ {
      "id": 1, "subnet": "2001:db8:1::/64",
      "pools": [ { "pool": "2001:db8:1::100 - 2001:db8:1::1ff" }, { "pool": "2001:db8:1::1:0/112" } ],
      "pd-pools": [ { "prefix": "2001:db8:8::", "prefix-len": 56, "delegated-len": 64 } ]
    } ],
    "shared-networks": [ { "name": "lab", "subnet6": [
      { "id": 2, "subnet": "2001:db8:2::/64", "pools": [ { "pool": "2001:db8:2::10-2001:db8:2::20" } ] }
    ] } ]
  }
}"#;

    #[test]
    fn a_load_balancing_server() {
        let c = parse("s1.conf", SERVER1.as_bytes()).unwrap();
        assert_eq!(c.family, Family::V6);
        assert_eq!(
            c.server_ids,
            [ServerId::Duid(vec![0, 3, 0, 1, 2, 0, 0, 0, 1, 1])]
        );
        let ha = c.ha.unwrap();
        assert_eq!(ha.this_server_name, "server1");
        assert_eq!(ha.mode, "load-balancing");
        assert_eq!(ha.max_unacked_clients, Some(5));
        assert_eq!(ha.peers.len(), 2);
        assert_eq!(ha.peers[0].host, "2001:db8::1".parse().ok());
        assert_eq!(ha.peers[1].host, "192.0.2.2".parse().ok());
        assert_eq!(ha.peers[1].auto_failover, Some(true));
        assert_eq!(ha.this_peer().map(|p| p.role.as_str()), Some("primary"));
        let r: Vec<(String, u128, Option<&str>)> = c
            .ranges
            .iter()
            .map(|r| (r.text(), r.size(), r.shared_network.as_deref()))
            .collect();
        assert_eq!(
            r,
            [
                ("2001:db8:1::100-2001:db8:1::1ff".to_string(), 256, None),
                (
                    "2001:db8:1::1:0-2001:db8:1::1:ffff".to_string(),
                    65536,
                    None
                ),
                (
                    "2001:db8:8::-2001:db8:8:ff:ffff:ffff:ffff:ffff/64".to_string(),
                    256,
                    None
                ),
                ("2001:db8:2::10-2001:db8:2::20".to_string(), 17, Some("lab")),
            ]
        );
        assert_eq!(c.ranges[3].subnet_id, Some(2));
        assert_eq!(c.shared_networks, ["lab"]);
    }

    #[test]
    fn errors_are_placed() {
        // A syntax error: the missing comma after "a" (line 3, where "b" starts).
        let e = parse("k.conf", b"{ \"Dhcp4\": {\n  \"x\": \"a\"\n  \"b\": 1 } }").unwrap_err();
        assert_eq!((e[0].line, e[0].col), (3, 3), "{e:?}");
        assert!(
            e[0].to_string().starts_with("k.conf:3:3: not valid JSON"),
            "{}",
            e[0]
        );
        // A pool outside its subnet, on line 4.
        let e = parse(
            "k.conf",
            b"{ \"Dhcp4\": { \"subnet4\": [ {\n \"subnet\": \"192.0.2.0/24\",\n \"pools\": [\n  { \"pool\": \"192.0.3.1 - 192.0.3.9\" } ] } ] } }",
        )
        .unwrap_err();
        assert_eq!((e[0].line, e[0].col), (4, 13), "{e:?}");
        assert!(e[0].what.contains("does not lie in subnet"), "{e:?}");
        // this-server-name must be a peer.
        let text = SERVER1.replace(
            "\"this-server-name\": \"server1\"",
            "\"this-server-name\": \"server3\"",
        );
        let e = parse("k.conf", text.as_bytes()).unwrap_err();
        assert!(e[0].what.contains("server3"), "{e:?}");
        assert!(parse("k.conf", b"{ \"Control-agent\": {} }").is_err());
        assert!(parse("k.conf", b"{ /* open ").is_err());
    }

    #[test]
    fn never_panics_on_mangled_input() {
        let base = SERVER1.as_bytes();
        let mut state = 3u32;
        for _ in 0..1500 {
            let mut v = base.to_vec();
            for _ in 0..3 {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let i = (state >> 8) as usize % v.len();
                v[i] = (state >> 20) as u8;
            }
            let cut = (state as usize) % (v.len() + 1);
            let _ = parse("f", &v[..cut]);
            let _ = parse("f", &v);
        }
    }
}
