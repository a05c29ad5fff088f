//! Which registrar (ENRP server) a message concerns.
//!
//! A registrar shows itself under three names: its server id, the ASAP endpoints (address, port)
//! pool elements and users talk to, and the ENRP endpoints its peers talk to. The traffic ties
//! them together in a few places only, and the directory learns every tie it sees:
//!
//! * an ASAP Endpoint Keep-Alive carries the server id of the registrar that sends it, from its
//!   ASAP endpoint;
//! * an ASAP Server Announce carries the server id and names the ASAP endpoints (its SCTP and TCP
//!   transports); one with no transport names its source (RSPLIB announces from its ASAP port);
//! * every ENRP message carries its sender's id (its source is that server's ENRP endpoint) and,
//!   over SCTP, its receiver's id when not 0 (its destination); Presence and List Response name
//!   servers with their ENRP transports.
//!
//! A registration or resolution sent to an ASAP endpoint no tie names yet goes to an anonymous
//! registrar of that endpoint. When a tie names it later, the anonymous registrar is merged into
//! the named one. One more tie is taken by elimination: when exactly one registrar known by its
//! server id has no ASAP endpoint, and exactly one ASAP endpoint has no server id, they are taken
//! to be the same server (`rsplib-multi-pe.pcap`: the second registrar answers resolutions on
//! 3873 but never sends a keep-alive or an announce). Should the guess be wrong, the answers are
//! checked against a peer's view of the pools; peers of one operational scope hold the same
//! members, so what could differ is only the selection state (a round-robin position).
//!
//! A tie that contradicts an older one (an endpoint now announced by another server id: a
//! restarted registrar takes a new id) moves the endpoint to the new id.
//!
//! Server id 0 names nobody (RSPLIB sends it as "unknown receiver"). The directory is bounded:
//! past `max_registrars` the least recently active registrar is evicted (and counted).

use std::collections::BTreeMap;

use super::events::Endpoint;

/// A registrar as the replay tracks it (stable until it is merged or evicted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegistrarId(u64);

/// What the directory knows of one registrar.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Registrar {
    pub server_id: Option<u32>,
    pub asap: Vec<Endpoint>,
    pub enrp: Vec<Endpoint>,
    last_active: u64,
}

/// A change the replay must mirror in its own per-registrar state (and in the names its
/// findings gave so far: a report names each registrar one way).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// `from` turned out to be `into`: its state joins `into`'s, `from` is gone. `was`: the name
    /// `from` had.
    Merged {
        from: RegistrarId,
        into: RegistrarId,
        was: String,
    },
    /// An anonymous registrar learnt its server id; `was` the name it had.
    Named { id: RegistrarId, was: String },
    /// Forgotten to stay within the bound.
    Evicted(RegistrarId),
}

/// Endpoints kept per registrar and protocol (a multihomed server has a few).
const MAX_ENDPOINTS: usize = 16;

#[derive(Debug)]
pub struct Directory {
    next: u64,
    tick: u64,
    max_registrars: usize,
    records: BTreeMap<RegistrarId, Registrar>,
    by_server: BTreeMap<u32, RegistrarId>,
    by_asap: BTreeMap<Endpoint, RegistrarId>,
    by_enrp: BTreeMap<Endpoint, RegistrarId>,
    changes: Vec<Change>,
    /// Bumped on every new tie or record: the elimination is tried again only after one.
    generation: u64,
    eliminated_at: Option<u64>,
    pub evicted: u64,
    pub merges: u64,
    pub endpoints_dropped: u64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Asap,
    Enrp,
}

impl Directory {
    pub fn new(max_registrars: usize) -> Self {
        Directory {
            next: 0,
            tick: 0,
            max_registrars: max_registrars.max(2),
            records: BTreeMap::new(),
            by_server: BTreeMap::new(),
            by_asap: BTreeMap::new(),
            by_enrp: BTreeMap::new(),
            changes: Vec::new(),
            generation: 0,
            eliminated_at: None,
            evicted: 0,
            merges: 0,
            endpoints_dropped: 0,
        }
    }

    /// The changes since the last call, in order.
    pub fn take_changes(&mut self) -> Vec<Change> {
        std::mem::take(&mut self.changes)
    }

    pub fn get(&self, id: RegistrarId) -> Option<&Registrar> {
        self.records.get(&id)
    }

    /// How findings and reports name a registrar: its server id, else where it answers.
    pub fn name(&self, id: RegistrarId) -> String {
        match self.records.get(&id) {
            Some(Registrar {
                server_id: Some(s), ..
            }) => super::handle::pe_hex(*s),
            Some(r) => match (r.asap.first(), r.enrp.first()) {
                (Some(a), _) => format!("at {a}"),
                (None, Some(e)) => format!("at ENRP {e}"),
                (None, None) => "(unnamed)".to_string(),
            },
            None => "(forgotten)".to_string(),
        }
    }

    fn touch(&mut self, id: RegistrarId) {
        self.tick += 1;
        if let Some(r) = self.records.get_mut(&id) {
            r.last_active = self.tick;
        }
    }

    fn create(&mut self, r: Registrar) -> RegistrarId {
        if self.records.len() >= self.max_registrars {
            self.evict_one();
        }
        let id = RegistrarId(self.next);
        self.next = self.next.wrapping_add(1);
        if let Some(s) = r.server_id {
            self.by_server.insert(s, id);
        }
        for e in &r.asap {
            self.by_asap.insert(*e, id);
        }
        for e in &r.enrp {
            self.by_enrp.insert(*e, id);
        }
        self.records.insert(id, r);
        self.generation += 1;
        self.touch(id);
        id
    }

    fn evict_one(&mut self) {
        let Some(victim) = self
            .records
            .iter()
            .min_by_key(|(_, r)| r.last_active)
            .map(|(id, _)| *id)
        else {
            return;
        };
        if let Some(r) = self.records.remove(&victim) {
            if let Some(s) = r.server_id {
                self.by_server.remove(&s);
            }
            for e in &r.asap {
                self.by_asap.remove(e);
            }
            for e in &r.enrp {
                self.by_enrp.remove(e);
            }
        }
        self.evicted += 1;
        self.generation += 1;
        self.changes.push(Change::Evicted(victim));
    }

    /// The registrar answering at an ASAP endpoint (a new anonymous one if none is known).
    pub fn asap(&mut self, ep: Endpoint) -> RegistrarId {
        let id = match self.by_asap.get(&ep) {
            Some(id) => *id,
            None => self.create(Registrar {
                asap: vec![ep],
                ..Registrar::default()
            }),
        };
        self.touch(id);
        self.eliminate(id).unwrap_or(id)
    }

    /// The registrar at an ENRP endpoint (a new anonymous one if none is known).
    pub fn enrp(&mut self, ep: Endpoint) -> RegistrarId {
        let id = match self.by_enrp.get(&ep) {
            Some(id) => *id,
            None => self.create(Registrar {
                enrp: vec![ep],
                ..Registrar::default()
            }),
        };
        self.touch(id);
        id
    }

    /// The registrar with a server id (`None` for id 0).
    pub fn server(&mut self, server_id: u32) -> Option<RegistrarId> {
        if server_id == 0 {
            return None;
        }
        let id = match self.by_server.get(&server_id) {
            Some(id) => *id,
            None => self.create(Registrar {
                server_id: Some(server_id),
                ..Registrar::default()
            }),
        };
        self.touch(id);
        Some(id)
    }

    /// The registrar with this server id, if one is known (creates nothing).
    pub fn find_server(&self, server_id: u32) -> Option<RegistrarId> {
        self.by_server.get(&server_id).copied()
    }

    /// `ep` is an ASAP endpoint of server `server_id`.
    pub fn link_asap(&mut self, ep: Endpoint, server_id: u32) {
        self.link(Side::Asap, ep, server_id);
    }

    /// `ep` is an ENRP endpoint of server `server_id`.
    pub fn link_enrp(&mut self, ep: Endpoint, server_id: u32) {
        self.link(Side::Enrp, ep, server_id);
    }

    fn map(&mut self, side: Side) -> &mut BTreeMap<Endpoint, RegistrarId> {
        match side {
            Side::Asap => &mut self.by_asap,
            Side::Enrp => &mut self.by_enrp,
        }
    }

    fn link(&mut self, side: Side, ep: Endpoint, server_id: u32) {
        if server_id == 0 {
            return;
        }
        let by_ep = self.map(side).get(&ep).copied();
        let by_id = self.by_server.get(&server_id).copied();
        match (by_ep, by_id) {
            (None, None) => {
                let mut r = Registrar {
                    server_id: Some(server_id),
                    ..Registrar::default()
                };
                match side {
                    Side::Asap => r.asap.push(ep),
                    Side::Enrp => r.enrp.push(ep),
                }
                self.create(r);
            }
            (Some(a), None) => {
                let anonymous = self.records.get(&a).is_some_and(|r| r.server_id.is_none());
                if anonymous {
                    let was = self.name(a);
                    if let Some(r) = self.records.get_mut(&a) {
                        r.server_id = Some(server_id);
                    }
                    self.changes.push(Change::Named { id: a, was });
                    self.by_server.insert(server_id, a);
                    self.generation += 1;
                } else {
                    self.detach(side, ep, a);
                    let mut r = Registrar {
                        server_id: Some(server_id),
                        ..Registrar::default()
                    };
                    match side {
                        Side::Asap => r.asap.push(ep),
                        Side::Enrp => r.enrp.push(ep),
                    }
                    self.create(r);
                }
            }
            (None, Some(s)) => self.attach(side, ep, s),
            (Some(a), Some(s)) if a == s => {}
            (Some(a), Some(s)) => {
                let anonymous = self.records.get(&a).is_some_and(|r| r.server_id.is_none());
                if anonymous {
                    self.merge(a, s);
                } else {
                    self.detach(side, ep, a);
                    self.attach(side, ep, s);
                }
            }
        }
    }

    fn attach(&mut self, side: Side, ep: Endpoint, id: RegistrarId) {
        let mut dropped = None;
        if let Some(r) = self.records.get_mut(&id) {
            let list = match side {
                Side::Asap => &mut r.asap,
                Side::Enrp => &mut r.enrp,
            };
            if !list.contains(&ep) {
                if list.len() >= MAX_ENDPOINTS {
                    dropped = Some(list.remove(0));
                }
                list.push(ep);
            }
        }
        if let Some(old) = dropped {
            self.map(side).remove(&old);
            self.endpoints_dropped += 1;
        }
        self.map(side).insert(ep, id);
        self.generation += 1;
    }

    fn detach(&mut self, side: Side, ep: Endpoint, id: RegistrarId) {
        if let Some(r) = self.records.get_mut(&id) {
            match side {
                Side::Asap => r.asap.retain(|e| *e != ep),
                Side::Enrp => r.enrp.retain(|e| *e != ep),
            }
        }
        self.map(side).remove(&ep);
        self.generation += 1;
    }

    /// Moves everything `from` is known by to `into`.
    fn merge(&mut self, from: RegistrarId, into: RegistrarId) {
        let was = self.name(from);
        let Some(r) = self.records.remove(&from) else {
            return;
        };
        if let Some(s) = r.server_id {
            self.by_server.remove(&s);
        }
        for e in r.asap {
            self.by_asap.remove(&e);
            self.attach(Side::Asap, e, into);
        }
        for e in r.enrp {
            self.by_enrp.remove(&e);
            self.attach(Side::Enrp, e, into);
        }
        self.merges += 1;
        self.generation += 1;
        self.changes.push(Change::Merged { from, into, was });
    }

    /// The tie by elimination (see the module docs), tried for an anonymous registrar once per
    /// change of the directory. Returns the registrar `id` became.
    fn eliminate(&mut self, id: RegistrarId) -> Option<RegistrarId> {
        if self.records.get(&id)?.server_id.is_some() {
            return None;
        }
        if self.eliminated_at == Some(self.generation) {
            return None;
        }
        self.eliminated_at = Some(self.generation);
        let mut named_without_asap = self
            .records
            .iter()
            .filter(|(_, r)| r.server_id.is_some() && r.asap.is_empty())
            .map(|(k, _)| *k);
        let candidate = named_without_asap.next()?;
        if named_without_asap.next().is_some() {
            return None;
        }
        let mut anonymous = self
            .records
            .iter()
            .filter(|(_, r)| r.server_id.is_none() && !r.asap.is_empty())
            .map(|(k, _)| *k);
        let only = anonymous.next()?;
        if only != id || anonymous.next().is_some() {
            return None;
        }
        self.merge(id, candidate);
        Some(candidate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(port: u16) -> Endpoint {
        Endpoint::new([192, 0, 2, 2].into(), port)
    }

    #[test]
    fn keep_alive_names_an_anonymous_registrar_and_merges_it() {
        let mut d = Directory::new(16);
        let anon = d.asap(ep(3863));
        assert_eq!(d.name(anon), "at 192.0.2.2:3863");
        let named = d.server(0x1111_1111).expect("id");
        d.link_enrp(ep(9901), 0x1111_1111);
        // Two servers without an ASAP endpoint: no guess yet.
        d.server(0x2222_2222);
        assert_eq!(d.asap(ep(3863)), anon);
        d.link_asap(ep(3863), 0x1111_1111);
        assert_eq!(
            d.take_changes(),
            vec![Change::Merged {
                from: anon,
                into: named,
                was: "at 192.0.2.2:3863".into()
            }]
        );
        assert_eq!(d.asap(ep(3863)), named);
        assert_eq!(d.name(named), "0x11111111");
        assert_eq!(d.enrp(ep(9901)), named);
    }

    #[test]
    fn the_last_unnamed_endpoint_is_the_last_server_without_one() {
        let mut d = Directory::new(16);
        d.link_enrp(ep(9901), 1);
        d.link_enrp(ep(9902), 2);
        d.link_asap(ep(3863), 1);
        let second = d.find_server(2).expect("known");
        let got = d.asap(ep(3873));
        assert_eq!(got, second);
        assert_eq!(d.get(second).map(|r| r.asap.clone()), Some(vec![ep(3873)]));
        // A third endpoint finds no server left to be.
        let third = d.asap(ep(3883));
        assert_ne!(third, second);
        assert_eq!(d.get(third).and_then(|r| r.server_id), None);
    }

    #[test]
    fn a_new_id_at_a_known_endpoint_takes_the_endpoint() {
        let mut d = Directory::new(16);
        d.link_asap(ep(3863), 1);
        let old = d.asap(ep(3863));
        d.link_asap(ep(3863), 7);
        let new = d.asap(ep(3863));
        assert_ne!(old, new);
        assert_eq!(d.name(new), "0x00000007");
        assert_eq!(d.get(old).map(|r| r.asap.len()), Some(0));
        // Id 0 names nobody.
        d.link_asap(ep(4000), 0);
        assert_eq!(d.server(0), None);
    }

    #[test]
    fn bounded_with_evictions_reported() {
        let mut d = Directory::new(3);
        let first = d.asap(ep(1));
        d.asap(ep(2));
        d.asap(ep(3));
        d.asap(ep(2));
        d.asap(ep(3));
        d.asap(ep(4));
        assert_eq!(d.evicted, 1);
        assert!(d.take_changes().contains(&Change::Evicted(first)));
        assert!(d.get(first).is_none());
        assert_eq!(d.records.len(), 3);
    }
}
