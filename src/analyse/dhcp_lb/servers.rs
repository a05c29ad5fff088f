//! Which server sent an answer. A server is known by its identifiers: the Server Identifier it
//! puts in its answers (a DHCPv4 address, a DHCPv6 DUID) and the addresses it sends from. The
//! identifiers seen together in one answer belong to one server; configured servers start with
//! theirs. An address seen speaking for two servers (a relay forwarding both servers' answers) is
//! dropped from the table: only Server Identifiers can name a server then.

use std::collections::BTreeMap;

use foldhash::{HashMap, HashSet};

use super::config::ConfiguredServer;
use super::events::{Answer, ServerIdent};
use crate::proto::lb::{Family, Role};

/// Identifiers kept per server (a server with more addresses is still recognised by the first).
const MAX_IDENTIFIERS: usize = 16;

#[derive(Clone, Debug)]
pub struct Server {
    pub name: String,
    /// From the configuration, or assigned once the pair is inferred.
    pub role: Option<Role>,
    pub configured: bool,
    pub identifiers: Vec<ServerIdent>,
    /// Answers sent, per family.
    pub answers: BTreeMap<Family, u64>,
}

#[derive(Debug, Default)]
pub struct Registry {
    servers: Vec<Server>,
    /// Hashed: looked up for every answer and never iterated, so their order reaches no output.
    by_ident: HashMap<ServerIdent, usize>,
    ambiguous: HashSet<ServerIdent>,
    max_servers: usize,
    /// Answers from servers beyond `max_servers`.
    pub dropped_answers: u64,
}

impl Registry {
    pub fn new(configured: &[ConfiguredServer], max_servers: usize) -> Self {
        let mut r = Registry {
            max_servers: max_servers.max(configured.len()).max(2),
            ..Registry::default()
        };
        for c in configured {
            let i = r.servers.len();
            r.servers.push(Server {
                name: c.name.clone(),
                role: c.role,
                configured: true,
                identifiers: c.identifiers.clone(),
                answers: BTreeMap::new(),
            });
            for id in &c.identifiers {
                r.by_ident.insert(id.clone(), i);
            }
        }
        r
    }

    pub fn servers(&self) -> &[Server] {
        &self.servers
    }

    pub fn get(&self, i: usize) -> Option<&Server> {
        self.servers.get(i)
    }

    pub fn name(&self, i: usize) -> &str {
        self.servers.get(i).map_or("?", |s| s.name.as_str())
    }

    pub fn set_role(&mut self, i: usize, role: Role) {
        if let Some(s) = self.servers.get_mut(i) {
            s.role = Some(role);
        }
    }

    /// The server an identifier names, if known.
    pub fn lookup(&self, id: &ServerIdent) -> Option<usize> {
        self.by_ident.get(id).copied()
    }

    /// The server that sent `a` (learning identifiers as it goes); `None` when the answer names
    /// no server or the table is full.
    pub fn identify(&mut self, a: &Answer) -> Option<usize> {
        let addr = a.server_addr.map(ServerIdent::Addr);
        let by_id = a.server_id.as_ref().and_then(|i| self.lookup(i));
        let by_addr = addr
            .as_ref()
            .filter(|x| !self.ambiguous.contains(x))
            .and_then(|x| self.lookup(x));
        let found = match (by_id, by_addr) {
            (Some(i), Some(j)) if i != j => {
                // The address answers for two servers: it is a relay's, or shared.
                if let Some(x) = &addr {
                    self.by_ident.remove(x);
                    self.ambiguous.insert(x.clone());
                }
                Some(i)
            }
            (Some(i), _) => Some(i),
            // Without a Server Identifier (BOOTP), the address decides.
            (None, Some(j)) if a.server_id.is_none() => Some(j),
            (None, _) => None,
        };
        // Every identifier of the answer already names this server (the usual answer): nothing
        // to learn. `by_ident` and `ambiguous` never share an identifier, so the learning loop
        // below would change nothing.
        let all_known = found.is_some_and(|i| {
            (a.server_id.is_none() || by_id == Some(i)) && (addr.is_none() || by_addr == Some(i))
        });
        let i = match found {
            Some(i) => i,
            None => {
                // An address known to speak for several servers names none of them.
                let usable = addr.clone().filter(|x| !self.ambiguous.contains(x));
                let first = a.server_id.clone().or(usable)?;
                if self.servers.len() >= self.max_servers {
                    self.dropped_answers += 1;
                    return None;
                }
                let i = self.servers.len();
                self.servers.push(Server {
                    name: first.text(),
                    role: None,
                    configured: false,
                    identifiers: Vec::new(),
                    answers: BTreeMap::new(),
                });
                i
            }
        };
        if !all_known {
            self.learn(i, [a.server_id.clone(), addr]);
        }
        if let Some(s) = self.servers.get_mut(i) {
            *s.answers.entry(a.family).or_default() += 1;
        }
        Some(i)
    }

    /// Files the identifiers an answer of server `i` came with: a new one names `i`, one that
    /// named another server names none from now on.
    fn learn(&mut self, i: usize, ids: [Option<ServerIdent>; 2]) {
        for id in ids.into_iter().flatten() {
            if self.ambiguous.contains(&id) {
                continue;
            }
            match self.by_ident.get(&id) {
                Some(&j) if j != i => {
                    self.by_ident.remove(&id);
                    self.ambiguous.insert(id);
                }
                Some(_) => {}
                None => {
                    if let Some(s) = self.servers.get_mut(i) {
                        if s.identifiers.len() < MAX_IDENTIFIERS {
                            s.identifiers.push(id.clone());
                            self.by_ident.insert(id, i);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::KeyBytes;
    use crate::base::Timestamp;
    use std::net::IpAddr;

    fn answer(id: Option<&str>, addr: Option<&str>) -> Answer {
        Answer {
            frame: 1,
            time: Timestamp::default(),
            family: Family::V4,
            msg_type: Some(2),
            xid: 1,
            match_key: KeyBytes::default(),
            server_id: id.and_then(ServerIdent::parse),
            server_addr: addr.map(|a| a.parse::<IpAddr>().unwrap()),
            relay_depth: 0,
        }
    }

    #[test]
    fn identifiers_join_and_relays_are_dropped() {
        let mut r = Registry::new(&[], 8);
        let a = r
            .identify(&answer(Some("10.0.0.1"), Some("10.0.0.1")))
            .unwrap();
        let b = r
            .identify(&answer(Some("10.0.0.2"), Some("10.0.0.2")))
            .unwrap();
        assert_ne!(a, b);
        assert_eq!(r.name(a), "10.0.0.1");
        // A relay forwards both servers' answers from its own address.
        assert_eq!(
            r.identify(&answer(Some("10.0.0.1"), Some("10.9.9.9"))),
            Some(a)
        );
        assert_eq!(
            r.identify(&answer(Some("10.0.0.2"), Some("10.9.9.9"))),
            Some(b)
        );
        let relay = ServerIdent::parse("10.9.9.9").unwrap();
        assert_eq!(r.lookup(&relay), None);
        // BOOTP: no Server Identifier, the address decides.
        assert_eq!(r.identify(&answer(None, Some("10.0.0.2"))), Some(b));
        assert_eq!(r.identify(&answer(None, Some("10.9.9.9"))), None);
        assert_eq!(r.servers()[b].answers[&Family::V4], 3);
    }

    #[test]
    fn bounded() {
        let mut r = Registry::new(&[], 2);
        for i in 1..=5 {
            r.identify(&answer(Some(&format!("10.0.0.{i}")), None));
        }
        assert_eq!(r.servers().len(), 2);
        assert_eq!(r.dropped_answers, 3);
    }
}
