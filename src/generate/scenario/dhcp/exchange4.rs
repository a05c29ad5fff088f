//! The DHCPv4 exchanges: DORA (with retries, planted faults and the directed REQUEST), renewals,
//! INIT-REBOOT, RELEASE, INFORM, DECLINE, and relay agents' leasequery.

use std::net::Ipv4Addr;

use crate::analyse::dhcp_lb::Role;
use crate::generate::scenario::batch::Batch;
use crate::proto::dhcpv4::{self, message_type as t4, Opt as Opt4};

use super::decide::{role_index, ROLES};
use super::v4::{self, RelayInfo};
use super::{DhcpFault, DhcpScenario, Exchange, Path4, CLIENT_NS, RETRY_NS, RETRY_SECS, THINK_NS};

impl DhcpScenario {
    pub(super) fn dora(&mut self, c: usize, secs: u16, retry: bool, out: &mut Batch) {
        let path = self.v4_path(c);
        let relay = Self::relay_of(path);
        let xid = self.next_xid();
        let mut secs = secs;
        let discover = |s: &Self, secs: u16| {
            v4::client_message(
                &s.clients[c],
                t4::DISCOVER,
                xid,
                secs,
                relay,
                true,
                Vec::new(),
            )
        };
        let mut d = self.decide4(c, t4::DISCOVER, secs, None, [true, true]);
        let (mut answers, mut mark) = self.spoil(&d, true);
        let m = discover(self, secs);
        self.send4(c, &m, path, [true, true], out);
        self.mark_owner_silence(out, "DHCPDISCOVER");
        if self.active.map(|a| a.fault) == Some(DhcpFault::NoAnswer) {
            self.mark_unanswered(DhcpFault::NoAnswer, out, "DHCPDISCOVER");
            self.active = None;
            out.wait(RETRY_NS);
            secs = secs.saturating_add(RETRY_SECS);
            d = self.decide4(c, t4::DISCOVER, secs, None, [true, true]);
            answers = d.answers;
            mark = None;
            let m = discover(self, secs);
            self.send4(c, &m, path, [true, true], out);
        }
        out.wait(THINK_NS);
        let mut offered = None;
        let request_for_offer = discover(self, secs);
        for role in ROLES {
            if answers[role_index(role)] {
                let addr = self.clients[c].v4_address(role);
                let offer = v4::server_reply(
                    &self.clients[c],
                    t4::OFFER,
                    &request_for_offer,
                    self.servers[role_index(role)].v4,
                    Some(addr),
                );
                self.reply4(role, &offer, path, out);
                self.mark_if(role, mark, out, "a DHCPDISCOVER it does not own");
                // The client takes the owner's offer when there is one.
                if offered.is_none() || Some(role) == d.owner && mark.is_none() {
                    offered = Some(role);
                }
            }
        }
        if retry {
            // The client missed the offers and asks again.
            out.wait(2_000_000_000);
            secs = secs.saturating_add(2);
            let d2 = self.decide4(c, t4::DISCOVER, secs, None, [true, true]);
            let m = discover(self, secs);
            self.send4(c, &m, path, [true, true], out);
            out.wait(THINK_NS);
            offered = None;
            for role in ROLES {
                if d2.answers[role_index(role)] {
                    let offer = v4::server_reply(
                        &self.clients[c],
                        t4::OFFER,
                        &m,
                        self.servers[role_index(role)].v4,
                        Some(self.clients[c].v4_address(role)),
                    );
                    self.reply4(role, &offer, path, out);
                    if offered.is_none() || Some(role) == d2.owner {
                        offered = Some(role);
                    }
                }
            }
        }
        let Some(chosen) = offered else {
            self.active = None;
            return;
        };
        out.wait(CLIENT_NS);
        let addr = self.clients[c].v4_address(chosen);
        let server = self.servers[role_index(chosen)].v4;
        let request = |s: &Self, secs: u16| {
            v4::client_message(
                &s.clients[c],
                t4::REQUEST,
                xid,
                secs,
                relay,
                true,
                vec![
                    Opt4::requested_address(addr),
                    Opt4::server_identifier(server),
                ],
            )
        };
        self.directed4(c, chosen, secs, path, request, Some(addr), out);
        self.clients[c].v4_lease = Some((chosen, addr));
        self.active = None;
    }

    /// A REQUEST naming `chosen`, answered by ACK (with the IgnoreDirected plant and the
    /// transaction's balancing fault applied).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn directed4(
        &mut self,
        c: usize,
        chosen: Role,
        secs: u16,
        path: Path4,
        request: impl Fn(&Self, u16) -> dhcpv4::Message<'static>,
        yiaddr: Option<Ipv4Addr>,
        out: &mut Batch,
    ) {
        let mut secs = secs;
        let d = self.decide4(c, t4::REQUEST, secs, Some(chosen), [true, true]);
        let (mut answers, mark) = self.spoil(&d, false);
        let m = request(self, secs);
        self.send4(c, &m, path, [true, true], out);
        if answers[role_index(chosen)] {
            if let Some(f) = self.take_plant(&[DhcpFault::IgnoreDirected]) {
                self.mark_unanswered(f, out, "DHCPREQUEST naming its server");
                out.wait(2_000_000_000);
                secs = secs.saturating_add(2);
                let d2 = self.decide4(c, t4::REQUEST, secs, Some(chosen), [true, true]);
                answers = d2.answers;
                let m2 = request(self, secs);
                self.send4(c, &m2, path, [true, true], out);
            }
        }
        out.wait(THINK_NS);
        let m = request(self, secs);
        for role in ROLES {
            if answers[role_index(role)] {
                let ack = v4::server_reply(
                    &self.clients[c],
                    t4::ACK,
                    &m,
                    self.servers[role_index(role)].v4,
                    yiaddr.or(Some(self.clients[c].v4_address(role))),
                );
                self.reply4(role, &ack, path, out);
                self.mark_if(role, mark, out, "a DHCPREQUEST it does not own");
            }
        }
    }

    /// A request every server that receives it may answer by the rules; `false` when nobody
    /// would (the caller then does something else).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simple4(
        &mut self,
        c: usize,
        ty: u8,
        reply: Option<u8>,
        secs: u16,
        path: Path4,
        named: Option<Role>,
        extra: Vec<Opt4<'static>>,
        ciaddr: Option<Ipv4Addr>,
        out: &mut Batch,
    ) -> bool {
        let seen_by = match path {
            Path4::Unicast(_) => {
                let mut s = [false; 2];
                if let Some(n) = named {
                    s[role_index(n)] = true;
                }
                s
            }
            _ => [true, true],
        };
        let d = self.decide4(c, ty, secs, named, seen_by);
        if reply.is_some() && !d.answers.iter().any(|a| *a) {
            return false;
        }
        let (answers, mark) = self.spoil(&d, true);
        let xid = self.next_xid();
        let broadcast = !matches!(path, Path4::Unicast(_)) && ty != t4::INFORM;
        let mut m = v4::client_message(
            &self.clients[c],
            ty,
            xid,
            secs,
            Self::relay_of(path),
            broadcast,
            extra,
        );
        if let Some(a) = ciaddr {
            m.ciaddr = a;
        }
        self.send4(c, &m, path, seen_by, out);
        if named.is_none() {
            self.mark_owner_silence(out, "a balanced DHCPv4 request");
        }
        if self.active.map(|a| a.fault) == Some(DhcpFault::NoAnswer) {
            self.mark_unanswered(DhcpFault::NoAnswer, out, "a balanced DHCPv4 request");
            self.active = None;
            out.wait(RETRY_NS);
            let m2 = v4::client_message(
                &self.clients[c],
                ty,
                xid,
                secs.saturating_add(RETRY_SECS),
                Self::relay_of(path),
                broadcast,
                Vec::new(),
            );
            self.send4(c, &m2, path, seen_by, out);
        }
        let Some(rt) = reply else {
            return true;
        };
        out.wait(THINK_NS);
        for role in ROLES {
            if answers[role_index(role)] {
                let yiaddr = (ty != t4::INFORM).then(|| {
                    self.clients[c]
                        .v4_lease
                        .map_or(self.clients[c].v4_address(role), |(_, a)| a)
                });
                let r = v4::server_reply(
                    &self.clients[c],
                    rt,
                    &m,
                    self.servers[role_index(role)].v4,
                    yiaddr,
                );
                let back = match (path, ciaddr) {
                    (Path4::Broadcast(_), Some(a)) => Path4::Unicast(a),
                    (p, _) => p,
                };
                self.reply4(role, &r, back, out);
                self.mark_if(role, mark, out, "a balanced DHCPv4 request it does not own");
            }
        }
        self.active = None;
        true
    }

    /// A client that holds (it believes) a lease of the server that does not own its bucket
    /// renews by unicast with it, and that server acknowledges a balanced request it does not
    /// own: `dhcp.lb.wrong-server` on the ACK. The owner never saw the request and owes nothing.
    /// The client keeps that lease; its later renewals go to a server a correct pair leaves
    /// silent, so it starts over with a DORA instead (as for any lease of the non-owner).
    pub(super) fn wrong_server_renewal(&mut self, c: usize, out: &mut Batch) {
        let Some(owner) = self.decide4(c, t4::REQUEST, 0, None, [true, true]).owner else {
            return;
        };
        let server = owner.peer();
        let addr = self.clients[c].v4_address(server);
        let xid = self.next_xid();
        let mut m = v4::client_message(
            &self.clients[c],
            t4::REQUEST,
            xid,
            0,
            None,
            false,
            Vec::new(),
        );
        m.ciaddr = addr;
        let mut to = [false; 2];
        to[role_index(server)] = true;
        self.send4(c, &m, Path4::Unicast(addr), to, out);
        out.wait(THINK_NS);
        let ack = v4::server_reply(
            &self.clients[c],
            t4::ACK,
            &m,
            self.servers[role_index(server)].v4,
            Some(addr),
        );
        self.reply4(server, &ack, Path4::Unicast(addr), out);
        out.mark_last(
            DhcpFault::WrongServer.rule(),
            format!(
                "the {server} acknowledged a renewal of a client whose bucket the {owner} owns (planted)"
            ),
        );
        self.clients[c].v4_lease = Some((server, addr));
    }

    pub(super) fn v4_exchange(&mut self, c: usize, e: Exchange, secs: u16, out: &mut Batch) {
        let lease = self.clients[c].v4_lease;
        match e {
            Exchange::Dora => self.dora(c, secs, false, out),
            Exchange::DoraRetry => self.dora(c, secs, true, out),
            Exchange::InitReboot => {
                let addr = lease.map_or(self.clients[c].v4_address(Role::Primary), |(_, a)| a);
                let path = self.v4_path(c);
                if !self.simple4(
                    c,
                    t4::REQUEST,
                    Some(t4::ACK),
                    secs,
                    path,
                    None,
                    vec![Opt4::requested_address(addr)],
                    None,
                    out,
                ) {
                    self.dora(c, secs, false, out);
                }
            }
            Exchange::Renew => match lease {
                Some((role, addr)) => {
                    if !self.simple4(
                        c,
                        t4::REQUEST,
                        Some(t4::ACK),
                        0,
                        Path4::Unicast(addr),
                        Some(role),
                        Vec::new(),
                        Some(addr),
                        out,
                    ) {
                        self.dora(c, secs, false, out);
                    }
                }
                None => self.dora(c, secs, false, out),
            },
            Exchange::Release => match lease {
                Some((role, addr)) => {
                    let server = self.servers[role_index(role)].v4;
                    self.simple4(
                        c,
                        t4::RELEASE,
                        None,
                        0,
                        Path4::Unicast(addr),
                        Some(role),
                        vec![Opt4::server_identifier(server)],
                        Some(addr),
                        out,
                    );
                    self.clients[c].v4_lease = None;
                }
                None => self.dora(c, secs, false, out),
            },
            Exchange::Inform => {
                let addr = lease.map_or(self.clients[c].v4_address(Role::Primary), |(_, a)| a);
                let path = match self.v4_path(c) {
                    Path4::Broadcast(_) => Path4::Broadcast(addr),
                    p => p,
                };
                if !self.simple4(
                    c,
                    t4::INFORM,
                    Some(t4::ACK),
                    secs,
                    path,
                    None,
                    Vec::new(),
                    Some(addr),
                    out,
                ) {
                    self.dora(c, secs, false, out);
                }
            }
            Exchange::Decline => match lease {
                Some((role, addr)) => {
                    let server = self.servers[role_index(role)].v4;
                    let path = self.v4_path(c);
                    self.simple4(
                        c,
                        t4::DECLINE,
                        None,
                        0,
                        path,
                        Some(role),
                        vec![
                            Opt4::requested_address(addr),
                            Opt4::server_identifier(server),
                        ],
                        None,
                        out,
                    );
                    self.clients[c].v4_lease = None;
                }
                None => self.dora(c, secs, false, out),
            },
            Exchange::LeaseQuery => self.leasequery4(c, out),
            _ => {}
        }
    }

    pub(super) fn leasequery4(&mut self, c: usize, out: &mut Batch) {
        let Some((_, addr)) = self.clients[c].v4_lease else {
            self.dora(c, 0, false, out);
            return;
        };
        let relay = RelayInfo {
            giaddr: self.relays4[0],
            agent: 0,
        };
        let path = Path4::Relayed(relay);
        let xid = self.next_xid();
        let q = v4::leasequery(xid, addr, relay);
        // No profile balances DHCPv4 leasequery: both servers answer (each knows the binding).
        let d = self.decide4(c, t4::LEASEQUERY, 0, None, [true, true]);
        self.send4(c, &q, path, [true, true], out);
        out.wait(THINK_NS);
        let cltt = (out.time() / crate::generate::scenario::batch::NS) as u32;
        for role in ROLES {
            if d.answers[role_index(role)] {
                let r = v4::lease_active(
                    &self.clients[c],
                    &q,
                    self.servers[role_index(role)].v4,
                    addr,
                    cltt,
                );
                self.reply4(role, &r, path, out);
            }
        }
    }
}
