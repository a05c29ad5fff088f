//! The DHCPv6 exchanges: SOLICIT/ADVERTISE/REQUEST/REPLY (with planted faults and the directed
//! REQUEST), RENEW, REBIND, CONFIRM, RELEASE, DECLINE, INFORMATION-REQUEST, leasequery by client
//! id and by address, DHCPV4-QUERY.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use crate::analyse::dhcp_lb::Role;
use crate::dissect::dispatch::port;
use crate::generate::scenario::batch::Batch;
use crate::generate::scenario::net::udp_frame;
use crate::proto::dhcpv4::message_type as t4;
use crate::proto::dhcpv6::{self, msg_type as t6};

use super::decide::{role_index, Query, ROLES};
use super::{
    centi, v4, v6, DhcpFault, DhcpScenario, Exchange, Path6, CLIENT_NS, RETRY_NS, RETRY_SECS,
    THINK_NS,
};

impl DhcpScenario {
    pub(super) fn sarr(&mut self, c: usize, secs: u16, out: &mut Batch) {
        let path = self.v6_path(c);
        let xid = self.next_xid();
        let mut elapsed = centi(secs);
        let d = self.decide6(c, t6::SOLICIT, elapsed, None, true);
        let (mut answers, mut mark) = self.spoil(&d, true);
        let solicit = |s: &Self, e: u16| {
            v6::client_message(&s.clients[c], t6::SOLICIT, xid, e, None, None, true)
        };
        let m = solicit(self, elapsed);
        self.send6(c, m, path, [true, true], out);
        self.mark_owner_silence(out, "SOLICIT");
        if self.active.map(|a| a.fault) == Some(DhcpFault::NoAnswer) {
            self.mark_unanswered(DhcpFault::NoAnswer, out, "SOLICIT");
            self.active = None;
            out.wait(RETRY_NS);
            elapsed = elapsed.saturating_add(centi(RETRY_SECS));
            answers = self.decide6(c, t6::SOLICIT, elapsed, None, true).answers;
            mark = None;
            let m = solicit(self, elapsed);
            self.send6(c, m, path, [true, true], out);
        }
        out.wait(THINK_NS);
        let request_for = solicit(self, elapsed);
        let mut chosen = None;
        for role in ROLES {
            if answers[role_index(role)] {
                let addr = self.clients[c].v6_address(role);
                let adv = v6::server_reply(
                    t6::ADVERTISE,
                    &request_for,
                    &self.servers[role_index(role)].duid,
                    Some((v6::client_iaid(&self.clients[c]), addr)),
                    None,
                );
                self.reply6(c, role, adv, path, out);
                self.mark_if(role, mark, out, "a SOLICIT it does not own");
                if chosen.is_none() || Some(role) == d.owner && mark.is_none() {
                    chosen = Some(role);
                }
            }
        }
        let Some(chosen) = chosen else {
            self.active = None;
            return;
        };
        out.wait(CLIENT_NS);
        let addr = self.clients[c].v6_address(chosen);
        self.directed6(c, t6::REQUEST, chosen, Some(addr), path, out);
        self.clients[c].v6_lease = Some((chosen, addr));
        self.active = None;
    }

    /// A message naming `chosen` (REQUEST, RENEW, RELEASE, DECLINE), answered by REPLY.
    pub(super) fn directed6(
        &mut self,
        c: usize,
        ty: u8,
        chosen: Role,
        addr: Option<Ipv6Addr>,
        path: Path6,
        out: &mut Batch,
    ) -> bool {
        let xid = self.next_xid();
        let d = self.decide6(c, ty, 0, Some(chosen), true);
        if !d.answers.iter().any(|a| *a) && self.active.is_none() {
            return false;
        }
        let (mut answers, mark) = self.spoil(&d, false);
        let server = self.servers[role_index(chosen)].duid.clone();
        let msg = |s: &Self, e: u16| {
            v6::client_message(&s.clients[c], ty, xid, e, Some(&server), addr, true)
        };
        let m = msg(self, 0);
        self.send6(c, m, path, [true, true], out);
        let mut elapsed = 0;
        if answers[role_index(chosen)] && matches!(ty, t6::REQUEST | t6::RENEW) {
            if let Some(f) = self.take_plant(&[DhcpFault::IgnoreDirected]) {
                self.mark_unanswered(f, out, "a DHCPv6 message naming its server");
                out.wait(2_000_000_000);
                elapsed = 200;
                answers = self.decide6(c, ty, elapsed, Some(chosen), true).answers;
                let m = msg(self, elapsed);
                self.send6(c, m, path, [true, true], out);
            }
        }
        out.wait(THINK_NS);
        let m = msg(self, elapsed);
        for role in ROLES {
            if answers[role_index(role)] {
                let (lease, status) = match ty {
                    t6::RELEASE => (None, Some((0, "Release received."))),
                    t6::DECLINE => (None, Some((0, "Decline received."))),
                    _ => (
                        Some((
                            v6::client_iaid(&self.clients[c]),
                            addr.unwrap_or(self.clients[c].v6_address(role)),
                        )),
                        None,
                    ),
                };
                let r = v6::server_reply(
                    t6::REPLY,
                    &m,
                    &self.servers[role_index(role)].duid,
                    lease,
                    status,
                );
                self.reply6(c, role, r, path, out);
                self.mark_if(role, mark, out, "a DHCPv6 message it does not own");
            }
        }
        true
    }

    /// A message without a server named (REBIND, CONFIRM, INFORMATION-REQUEST), answered by
    /// REPLY from whoever the rules say; `false` when nobody would answer.
    pub(super) fn open6(
        &mut self,
        c: usize,
        ty: u8,
        with_client_id: bool,
        out: &mut Batch,
    ) -> bool {
        let path = self.v6_path(c);
        let d = self.decide6(c, ty, 0, None, with_client_id);
        if !d.answers.iter().any(|a| *a) {
            return false;
        }
        let (answers, mark) = self.spoil(&d, true);
        let xid = self.next_xid();
        let addr = self.clients[c].v6_lease.map(|(_, a)| a);
        let m = v6::client_message(&self.clients[c], ty, xid, 0, None, addr, with_client_id);
        let request = m.clone();
        self.send6(c, m, path, [true, true], out);
        self.mark_owner_silence(out, "a balanced DHCPv6 request");
        if self.active.map(|a| a.fault) == Some(DhcpFault::NoAnswer) {
            self.mark_unanswered(DhcpFault::NoAnswer, out, "a balanced DHCPv6 request");
            self.active = None;
            out.wait(RETRY_NS);
            let m = v6::client_message(
                &self.clients[c],
                ty,
                xid,
                centi(RETRY_SECS),
                None,
                addr,
                with_client_id,
            );
            self.send6(c, m, path, [true, true], out);
        }
        out.wait(THINK_NS);
        for role in ROLES {
            if answers[role_index(role)] {
                let (lease, status) = match ty {
                    t6::CONFIRM => (None, Some((0, "All addresses still on link."))),
                    t6::INFORMATION_REQUEST => (None, None),
                    _ => (
                        Some((
                            v6::client_iaid(&self.clients[c]),
                            addr.unwrap_or(self.clients[c].v6_address(role)),
                        )),
                        None,
                    ),
                };
                let r = v6::server_reply(
                    t6::REPLY,
                    &request,
                    &self.servers[role_index(role)].duid,
                    lease,
                    status,
                );
                self.reply6(c, role, r, path, out);
                self.mark_if(role, mark, out, "a balanced DHCPv6 request it does not own");
            }
        }
        self.active = None;
        true
    }

    pub(super) fn leasequery6(&mut self, c: usize, by_client: bool, out: &mut Batch) {
        let Some((_, addr)) = self.clients[c].v6_lease else {
            self.sarr(c, 0, out);
            return;
        };
        let requestor_addr = self.relays6[0];
        let xid = self.next_xid();
        let duid = self.clients[c].duid.clone();
        let q = v6::leasequery(xid, &self.requestor, by_client.then_some(&duid), addr);
        let d = self.pair.decide(&Query {
            msg_type: Some(t6::LEASEQUERY),
            v6: true,
            client_id: by_client.then(|| duid.bytes()),
            chaddr: &[],
            hlen: 0,
            elapsed: 0,
            named: None,
            seen_by: [true, true],
            leasequery_by_client: by_client,
        });
        let (answers, mark) = self.spoil(&d, true);
        let bytes = dhcpv6::Message::client(q.clone()).emit();
        let from = SocketAddr::new(IpAddr::V6(requestor_addr), port::DHCPV6_SERVER);
        self.request_at = out.pushed();
        for i in 0..2 {
            let to = SocketAddr::new(IpAddr::V6(self.servers[i].v6), port::DHCPV6_SERVER);
            let f = udp_frame(&mut self.buf, from, to, &bytes);
            out.push(f);
        }
        self.mark_owner_silence(out, "LEASEQUERY by client id");
        if self.active.map(|a| a.fault) == Some(DhcpFault::NoAnswer) {
            self.mark_unanswered(DhcpFault::NoAnswer, out, "LEASEQUERY by client id");
            self.active = None;
            return;
        }
        out.wait(THINK_NS);
        for role in ROLES {
            if answers[role_index(role)] {
                let i = role_index(role);
                let r = v6::leasequery_reply(&q, &self.servers[i].duid, &self.clients[c], addr);
                let bytes = dhcpv6::Message::client(r).emit();
                let f = udp_frame(
                    &mut self.buf,
                    SocketAddr::new(IpAddr::V6(self.servers[i].v6), port::DHCPV6_SERVER),
                    from,
                    &bytes,
                );
                out.push(f);
                self.mark_if(role, mark, out, "a LEASEQUERY it does not own");
            }
        }
        self.active = None;
    }

    pub(super) fn dhcpv4_query(&mut self, c: usize, out: &mut Batch) {
        let path = self.v6_path(c);
        let xid = self.next_xid();
        let inner = v4::client_message(
            &self.clients[c],
            t4::DISCOVER,
            xid,
            0,
            None,
            false,
            Vec::new(),
        );
        let d = self.decide6(c, t6::DHCPV4_QUERY, 0, None, false);
        let (answers, mark) = self.spoil(&d, true);
        self.send6(c, v6::dhcpv4_query(inner.clone()), path, [true, true], out);
        out.wait(THINK_NS);
        for role in ROLES {
            if answers[role_index(role)] {
                let offer = v4::server_reply(
                    &self.clients[c],
                    t4::OFFER,
                    &inner,
                    self.servers[role_index(role)].v4,
                    Some(self.clients[c].v4_address(role)),
                );
                self.reply6(c, role, v6::dhcpv4_response(offer), path, out);
                self.mark_if(role, mark, out, "a DHCPV4-QUERY it does not own");
            }
        }
        self.active = None;
    }

    pub(super) fn v6_exchange(&mut self, c: usize, e: Exchange, secs: u16, out: &mut Batch) {
        let lease = self.clients[c].v6_lease;
        let path = self.v6_path(c);
        match e {
            Exchange::Sarr => self.sarr(c, secs, out),
            Exchange::Renew6 | Exchange::Release6 | Exchange::Decline6 => {
                let Some((role, addr)) = lease else {
                    self.sarr(c, secs, out);
                    return;
                };
                let ty = match e {
                    Exchange::Renew6 => t6::RENEW,
                    Exchange::Release6 => t6::RELEASE,
                    _ => t6::DECLINE,
                };
                if !self.directed6(c, ty, role, Some(addr), path, out) {
                    self.sarr(c, secs, out);
                    return;
                }
                if ty != t6::RENEW {
                    self.clients[c].v6_lease = None;
                }
            }
            Exchange::Rebind6 | Exchange::Confirm6 => {
                if lease.is_none() {
                    self.sarr(c, secs, out);
                    return;
                }
                let ty = if e == Exchange::Rebind6 {
                    t6::REBIND
                } else {
                    t6::CONFIRM
                };
                if !self.open6(c, ty, true, out) {
                    self.sarr(c, secs, out);
                }
            }
            Exchange::InfoRequest | Exchange::InfoRequestAnonymous => {
                let answered =
                    self.open6(c, t6::INFORMATION_REQUEST, e == Exchange::InfoRequest, out);
                if !answered {
                    self.sarr(c, secs, out);
                }
            }
            Exchange::LeaseQueryClientId => self.leasequery6(c, true, out),
            Exchange::LeaseQueryAddress => self.leasequery6(c, false, out),
            Exchange::Dhcpv4Query => self.dhcpv4_query(c, out),
            _ => {}
        }
    }
}
