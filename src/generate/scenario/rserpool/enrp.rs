//! The registrars among themselves: ENRP peering at set-up (Presence, List and Handle Table
//! exchanges), periodic Presence, and the ASAP Server Announces they multicast over UDP.

use std::net::{IpAddr, SocketAddr};

use crate::dissect::dispatch::port;
use crate::generate::scenario::batch::Batch;
use crate::generate::scenario::net::udp_frame;
use crate::proto::rserpool::Parameter;

use super::wire;
use super::{RserpoolScenario, ANNOUNCE_V4, ANNOUNCE_V6, THINK_NS};

impl RserpoolScenario {
    /// Sends an ENRP message from registrar `from` to registrar `to`.
    pub(super) fn enrp_send(&mut self, from: usize, to: usize, msg: &[u8], out: &mut Batch) {
        if let Some(l) = self
            .enrp
            .iter_mut()
            .find(|l| (l.a, l.b) == (from.min(to), from.max(to)))
        {
            l.channel.send(l.a == from, msg, out);
        }
    }

    pub(super) fn peers(&self, r: usize) -> Vec<usize> {
        self.enrp
            .iter()
            .filter_map(|l| {
                if l.a == r {
                    Some(l.b)
                } else if l.b == r {
                    Some(l.a)
                } else {
                    None
                }
            })
            .collect()
    }

    pub(super) fn checksum(&self, r: usize) -> u16 {
        let owned: Vec<(&[u8], u32)> = self
            .pes
            .iter()
            .filter(|p| p.home == r && p.registered)
            .map(|p| (self.pools[p.pool].handle.as_slice(), p.id))
            .collect();
        wire::pe_checksum(owned)
    }

    pub(super) fn peering(&mut self, link: usize, out: &mut Batch) {
        let Some(l) = self.enrp.get(link) else {
            return;
        };
        let (a, b) = (l.a, l.b);
        let (ia, ib) = (self.registrars[a].id, self.registrars[b].id);
        let info = |s: &Self, r: usize| {
            s.wire
                .server_information(s.registrars[r].id, s.registrars[r].addr, port::ENRP)
        };
        let m = self
            .wire
            .presence(ia, ib, true, self.checksum(a), info(self, a));
        self.enrp_send(a, b, &m.emit(), out);
        out.wait(THINK_NS);
        let m = self
            .wire
            .presence(ib, ia, false, self.checksum(b), info(self, b));
        self.enrp_send(b, a, &m.emit(), out);
        let m = self.wire.list_request(ia, ib);
        self.enrp_send(a, b, &m.emit(), out);
        out.wait(THINK_NS);
        let infos = (0..self.registrars.len()).map(|r| info(self, r)).collect();
        let m = self.wire.list_response(ib, ia, infos);
        self.enrp_send(b, a, &m.emit(), out);
        let m = self.wire.handle_table_request(ia, ib);
        self.enrp_send(a, b, &m.emit(), out);
        out.wait(THINK_NS);
        let m = self.wire.handle_table_response(ib, ia, self.owned_table(b));
        self.enrp_send(b, a, &m.emit(), out);
    }

    /// The pools and PEs registrar `r` is home of, for a Handle Table Response.
    pub(super) fn owned_table(&self, r: usize) -> Vec<(Vec<u8>, Vec<Parameter>)> {
        let home_id = self.registrars[r].id;
        let mut out: Vec<(Vec<u8>, Vec<Parameter>)> = Vec::new();
        for (pi, pool) in self.pools.iter().enumerate() {
            let pes: Vec<Parameter> = self
                .pes
                .iter()
                .filter(|p| p.pool == pi && p.home == r && p.registered)
                .map(|p| p.wire.parameter(home_id, true))
                .collect();
            if !pes.is_empty() {
                out.push((pool.handle.clone(), pes));
            }
        }
        out
    }

    pub(super) fn announce(&mut self, out: &mut Batch) {
        for r in 0..self.registrars.len() {
            let (id, addr) = (self.registrars[r].id, self.registrars[r].addr);
            let m = self.wire.server_announce(id, addr, port::ASAP).emit();
            let group = if self.ipv6 {
                IpAddr::V6(ANNOUNCE_V6)
            } else {
                IpAddr::V4(ANNOUNCE_V4)
            };
            let f = udp_frame(
                &mut self.udp_buf,
                SocketAddr::new(addr, port::ASAP),
                SocketAddr::new(group, port::ASAP),
                &m,
            );
            out.push(f);
        }
    }

    pub(super) fn presence_round(&mut self, out: &mut Batch) {
        for i in 0..self.enrp.len() {
            let (a, b) = (self.enrp[i].a, self.enrp[i].b);
            for (from, to) in [(a, b), (b, a)] {
                let info = self.wire.server_information(
                    self.registrars[from].id,
                    self.registrars[from].addr,
                    port::ENRP,
                );
                let m = self.wire.presence(
                    self.registrars[from].id,
                    self.registrars[to].id,
                    false,
                    self.checksum(from),
                    info,
                );
                self.enrp_send(from, to, &m.emit(), out);
            }
        }
    }
}
