//! An ISC DHCP failover pair over TCP port 647: the primary (192.0.2.1) connects to the secondary
//! (192.0.2.2), CONNECT (with the hash bucket assignment) and CONNECTACK, STATE from each, an
//! update exchange (UPDREQ, UPDDONE), then lease traffic: a BNDUPD for every lease a server hands
//! out, renews, releases or sees expire, each acknowledged by a BNDACK; CONTACTs on the receive
//! timer; pool balancing runs on each server's timer (BNDUPDs moving leases to the peer), a
//! POOLREQ from a server short of leases, answered by a balancing run and a POOLRESP.
//!
//! Clients are not sent as DHCP packets here: the pair's failover conversation is what this
//! scenario is about (the `dhcp` scenario is the client side). Which server hands a new client a
//! lease follows the bucket map, as with load balancing in ISC DHCP.
//!
//! Deviations ([`FailoverPlant`]): a balancing run that gives away a lease whose client hashes to
//! the sender (`failover.affinity`), a POOLREQ from a server that is not short of leases
//! (`failover.unexpected-poolreq`).

mod pool;

pub use pool::{own_state, Balance, Lease, LeasePool};

use std::net::{Ipv4Addr, SocketAddr};

use crate::analyse::dhcp_lb::{Hba, Role};
use crate::proto::failover::{BindingStatus, FoOption, Message, MessageType, ServerState, PORT};

use super::batch::{Batch, NS};
use super::dhcp::decide::role_index;
use super::net::ethernet;
use super::pace::{mean_gap_ns, Dice};
use super::Scenario;
use crate::generate::TcpFlow;

/// A planted deviation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailoverPlant {
    /// The balancing run (0-based, both servers' timer runs counted together) it applies to.
    pub nth: u64,
    pub fault: FailoverFault,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailoverFault {
    /// The run first gives away a lease whose last client hashes to the sender.
    AffinityViolation,
    /// The server sends a POOLREQ although it is not short of leases.
    UnexpectedPoolReq,
}

impl FailoverFault {
    pub fn rule(self) -> &'static str {
        match self {
            FailoverFault::AffinityViolation => "failover.affinity",
            FailoverFault::UnexpectedPoolReq => "failover.unexpected-poolreq",
        }
    }
}

/// A failover scenario.
#[derive(Clone, Debug)]
pub struct FailoverConfig {
    /// Sent in the primary's CONNECT, and used to pick which server leases to a new client.
    pub hba: Hba,
    pub pool_base: Ipv4Addr,
    pub pool_size: u32,
    /// Distinct clients (their MACs, some with a client identifier).
    pub clients: usize,
    pub mclt: u32,
    pub relationship: String,
    pub balance: Balance,
    /// Seconds between a server's balancing runs (jittered by a quarter).
    pub balance_every: u32,
    /// Seconds between CONTACTs (the receive timer's pace).
    pub contact_every: u32,
    /// Lease events per second.
    pub rate: f64,
    /// End after this many lease events (`None`: never).
    pub transactions: Option<u64>,
    pub plants: Vec<FailoverPlant>,
    pub lease_secs: u32,
}

impl FailoverConfig {
    pub fn new(hba: Hba) -> Self {
        FailoverConfig {
            hba,
            pool_base: Ipv4Addr::new(192, 0, 2, 100),
            pool_size: 60,
            clients: 80,
            mclt: 60,
            relationship: "poolshark".into(),
            balance: Balance::default(),
            balance_every: 30,
            contact_every: 15,
            rate: 20.0,
            transactions: None,
            plants: Vec::new(),
            lease_secs: 600,
        }
    }
}

enum Phase {
    Connect,
    Running,
}

/// The scenario (see the module documentation).
pub struct FailoverScenario {
    cfg: FailoverConfig,
    pool: Option<LeasePool>,
    flow: TcpFlow,
    dice: Dice,
    phase: Phase,
    clients: Vec<(Option<Vec<u8>>, [u8; 6])>,
    xid: [u32; 2],
    next_event: u64,
    contact_due: [u64; 2],
    balance_due: [u64; 2],
    runs: u64,
    events: u64,
    mean_gap: u64,
    started: bool,
}

fn server_addr(r: Role) -> Ipv4Addr {
    match r {
        Role::Primary => Ipv4Addr::new(192, 0, 2, 1),
        Role::Secondary => Ipv4Addr::new(192, 0, 2, 2),
    }
}

impl FailoverScenario {
    pub fn new(cfg: FailoverConfig, seed: u64) -> Self {
        let mut dice = Dice::new(seed, "failover");
        let mut flow = TcpFlow::new(
            SocketAddr::new(
                server_addr(Role::Primary).into(),
                50_000 + (dice.u32() % 10_000) as u16,
            ),
            SocketAddr::new(server_addr(Role::Secondary).into(), PORT),
            [dice.u32(), dice.u32()],
        );
        flow.link = ethernet(
            server_addr(Role::Primary).into(),
            server_addr(Role::Secondary).into(),
        );
        let clients = (0..cfg.clients.max(1))
            .map(|k| {
                let kb = (k as u32).to_be_bytes();
                let mac = [0x02, 0xfc, kb[1], kb[2], kb[3], 0x01];
                let id = (k % 3 == 1).then(|| [&[1u8][..], &mac].concat());
                (id, mac)
            })
            .collect();
        let mean_gap = mean_gap_ns(cfg.rate);
        FailoverScenario {
            pool: None,
            flow,
            dice,
            phase: Phase::Connect,
            clients,
            xid: [0, 0],
            next_event: 0,
            contact_due: [0, 0],
            balance_due: [0, 0],
            runs: 0,
            events: 0,
            mean_gap,
            started: false,
            cfg,
        }
    }

    fn send(&mut self, from: Role, m: &Message, out: &mut Batch) {
        let bytes = m.emit().unwrap_or_default();
        self.flow
            .send(from == Role::Primary, &bytes, &mut |f: &[u8]| out.push(f));
    }

    fn next_xid(&mut self, r: Role) -> u32 {
        let x = &mut self.xid[role_index(r)];
        *x = x.wrapping_add(1);
        *x
    }

    fn connect(&mut self, out: &mut Batch) {
        let now = secs(out.time());
        self.pool = Some(LeasePool::new(
            self.cfg.pool_base,
            self.cfg.pool_size,
            self.cfg.hba,
            self.cfg.balance,
            now,
        ));
        self.flow.handshake(&mut |f: &[u8]| out.push(f));
        let name = self.cfg.relationship.as_bytes().to_vec();
        let receive_timer = self.cfg.contact_every;
        let common = |name: &[u8]| {
            vec![
                FoOption::RelationshipName(name.to_vec()),
                FoOption::MaxUnackedBndupd(10),
                FoOption::ReceiveTimer(receive_timer),
                FoOption::VendorClass(b"poolshark".to_vec()),
                FoOption::ProtocolVersion(1),
            ]
        };
        let mut opts = common(&name);
        opts.extend([
            FoOption::TlsRequest(0),
            FoOption::Mclt(self.cfg.mclt),
            FoOption::HashBucketAssignment(self.cfg.hba.bytes().to_vec()),
        ]);
        let m = Message::new(MessageType::Connect, now, 0, opts);
        self.send(Role::Primary, &m, out);
        out.wait(1_000_000);
        let mut opts = common(&name);
        opts.push(FoOption::TlsReply(0));
        let m = Message::new(MessageType::ConnectAck, now, 0, opts);
        self.send(Role::Secondary, &m, out);
        for r in [Role::Secondary, Role::Primary] {
            let m = Message::new(
                MessageType::State,
                now,
                0,
                vec![
                    FoOption::ServerState(ServerState::Normal),
                    FoOption::ServerFlags(0),
                    FoOption::StartTimeOfState(now),
                ],
            );
            self.send(r, &m, out);
        }
        // Each asks for the updates it missed; there are none yet.
        for r in [Role::Primary, Role::Secondary] {
            let x = self.next_xid(r);
            self.send(
                r,
                &Message::new(MessageType::UpdReq, now, x, Vec::new()),
                out,
            );
            out.wait(500_000);
            self.send(
                r.peer(),
                &Message::new(MessageType::UpdDone, now, x, Vec::new()),
                out,
            );
        }
        let t = out.time();
        self.contact_due = [
            t + self.dice.jitter(u64::from(self.cfg.contact_every) * NS),
            t + self.dice.jitter(u64::from(self.cfg.contact_every) * NS),
        ];
        // The primary balances right after entering NORMAL, the secondary on its timer.
        self.balance_due = [
            t + 1_000_000,
            t + self.dice.jitter(u64::from(self.cfg.balance_every) * NS),
        ];
        self.next_event = t + self.dice.gap(self.mean_gap);
    }

    /// A BNDUPD for lease `i` as it now stands, from `from`, and the peer's BNDACK.
    fn update(&mut self, from: Role, i: usize, out: &mut Batch, mark: Option<&'static str>) {
        let Some(l) = self.pool.as_ref().and_then(|p| p.leases.get(i)).cloned() else {
            return;
        };
        let now = secs(out.time());
        let mut opts = vec![
            FoOption::AssignedIpAddress(l.addr),
            FoOption::BindingStatus(l.status),
        ];
        if let Some((id, mac)) = &l.client {
            if let Some(id) = id {
                opts.push(FoOption::ClientIdentifier(id.clone()));
            }
            opts.push(FoOption::ClientHardwareAddress {
                htype: 1,
                address: mac.to_vec(),
            });
        }
        let potential = if l.status == BindingStatus::Active {
            l.expires.saturating_add(self.cfg.mclt)
        } else {
            l.expires
        };
        opts.extend([
            FoOption::LeaseExpirationTime(l.expires),
            FoOption::PotentialExpirationTime(potential),
            FoOption::StartTimeOfState(l.since),
        ]);
        if l.status == BindingStatus::Active {
            opts.push(FoOption::ClientLastTransactionTime(l.since));
        }
        let x = self.next_xid(from);
        self.send(from, &Message::new(MessageType::BndUpd, now, x, opts), out);
        if let Some(rule) = mark {
            out.mark_last(
                rule,
                format!(
                    "the {from} gave {} to its peer although its client hashes to the {from}",
                    l.addr
                ),
            );
        }
        out.wait(400_000);
        let ack = Message::new(
            MessageType::BndAck,
            now,
            x,
            vec![FoOption::AssignedIpAddress(l.addr)],
        );
        self.send(from.peer(), &ack, out);
    }

    /// `r`'s balancing run: moves leases to the peer. Returns how many moved.
    fn balance(&mut self, r: Role, against_affinity: bool, out: &mut Batch) -> u32 {
        let Some(pool) = self.pool.as_ref() else {
            return 0;
        };
        let moving = pool.balance_run(r, against_affinity);
        let now = secs(out.time());
        let mut n = 0;
        for (k, i) in moving.into_iter().enumerate() {
            if let Some(l) = self.pool.as_mut().and_then(|p| p.leases.get_mut(i)) {
                l.status = own_state(r.peer());
                l.holder = r.peer();
                l.since = now;
                l.expires = now;
            }
            let mark =
                (against_affinity && k == 0).then_some(FailoverFault::AffinityViolation.rule());
            self.update(r, i, out, mark);
            n += 1;
        }
        n
    }

    fn balance_timer(&mut self, r: Role, out: &mut Batch) {
        let run = self.runs;
        self.runs += 1;
        let plant = self
            .cfg
            .plants
            .iter()
            .find(|p| p.nth == run)
            .map(|p| p.fault);
        let panic = self.pool.as_ref().is_some_and(|p| p.panic_due(r));
        if panic || plant == Some(FailoverFault::UnexpectedPoolReq) {
            let now = secs(out.time());
            let x = self.next_xid(r);
            self.send(
                r,
                &Message::new(MessageType::PoolReq, now, x, Vec::new()),
                out,
            );
            if !panic {
                out.mark_last(
                    FailoverFault::UnexpectedPoolReq.rule(),
                    format!("the {r} asked for leases although it is not short of them"),
                );
            }
            out.wait(2_000_000);
            let moved = self.balance(r.peer(), false, out);
            let resp = Message::new(
                MessageType::PoolResp,
                secs(out.time()),
                x,
                vec![FoOption::AddressesTransferred(moved)],
            );
            self.send(r.peer(), &resp, out);
        } else {
            self.balance(r, plant == Some(FailoverFault::AffinityViolation), out);
        }
        let every = u64::from(self.cfg.balance_every.max(1)) * NS;
        self.balance_due[role_index(r)] = out.time() + self.dice.jitter(every);
    }

    fn contact(&mut self, r: Role, out: &mut Batch) {
        let now = secs(out.time());
        self.send(
            r,
            &Message::new(MessageType::Contact, now, 0, Vec::new()),
            out,
        );
        out.wait(300_000);
        self.flow
            .ack(r == Role::Secondary, &mut |f: &[u8]| out.push(f));
        let every = u64::from(self.cfg.contact_every.max(1)) * NS;
        self.contact_due[role_index(r)] = out.time() + self.dice.jitter(every);
    }

    /// One lease event: a new client, a renewal, a release or an expiry.
    fn lease_event(&mut self, out: &mut Batch) {
        self.events += 1;
        let now = secs(out.time());
        let Some(pool) = self.pool.as_ref() else {
            return;
        };
        let active: Vec<usize> = (0..pool.leases.len())
            .filter(|&i| pool.leases[i].status == BindingStatus::Active)
            .collect();
        let roll = self.dice.below(100);
        if roll < 45 || active.is_empty() {
            // A new client: its bucket's owner leases, or the peer if the owner has nothing left.
            let (id, mac) = self.clients[self.dice.below(self.clients.len())].clone();
            let key = id.clone().unwrap_or_else(|| mac.to_vec());
            let owner = self.cfg.hba.owner_of_key(&key).1;
            let Some((server, i)) = pool
                .take(owner)
                .map(|i| (owner, i))
                .or_else(|| pool.take(owner.peer()).map(|i| (owner.peer(), i)))
            else {
                return;
            };
            if let Some(l) = self.pool.as_mut().and_then(|p| p.leases.get_mut(i)) {
                l.status = BindingStatus::Active;
                l.holder = server;
                l.client = Some((id, mac));
                l.since = now;
                l.expires = now.saturating_add(self.cfg.lease_secs);
            }
            self.update(server, i, out, None);
            return;
        }
        let i = active[self.dice.below(active.len())];
        let holder = pool.leases[i].holder;
        if roll < 80 {
            if let Some(l) = self.pool.as_mut().and_then(|p| p.leases.get_mut(i)) {
                l.since = now;
                l.expires = now.saturating_add(self.cfg.lease_secs);
            }
            self.update(holder, i, out, None);
            return;
        }
        // Released (the client said so) or expired (the server noticed): the lease goes back to
        // the state its holder hands leases out from, after the peer acknowledged the change.
        let passing = if roll < 90 {
            BindingStatus::Released
        } else {
            BindingStatus::Expired
        };
        if let Some(l) = self.pool.as_mut().and_then(|p| p.leases.get_mut(i)) {
            l.status = passing;
            l.since = now;
            l.expires = now;
        }
        self.update(holder, i, out, None);
        if let Some(l) = self.pool.as_mut().and_then(|p| p.leases.get_mut(i)) {
            l.status = own_state(holder);
        }
        self.update(holder, i, out, None);
    }
}

fn secs(ns: u64) -> u32 {
    u32::try_from(ns / NS).unwrap_or(u32::MAX)
}

impl Scenario for FailoverScenario {
    fn name(&self) -> &'static str {
        "failover"
    }

    fn step(&mut self, out: &mut Batch) -> bool {
        match self.phase {
            Phase::Connect => {
                self.connect(out);
                self.phase = Phase::Running;
                self.started = true;
                return true;
            }
            Phase::Running => {}
        }
        // The earliest of the timers and the next lease event goes next.
        let timers = [
            (self.balance_due[0], 0usize),
            (self.balance_due[1], 1),
            (self.contact_due[0], 2),
            (self.contact_due[1], 3),
        ];
        let (t_timer, which) = timers.into_iter().min().unwrap_or((u64::MAX, 0));
        if t_timer <= self.next_event {
            out.begin_after(t_timer);
            match which {
                0 => self.balance_timer(Role::Primary, out),
                1 => self.balance_timer(Role::Secondary, out),
                2 => self.contact(Role::Primary, out),
                _ => self.contact(Role::Secondary, out),
            }
            return true;
        }
        if self.cfg.transactions.is_some_and(|n| self.events >= n) {
            return false;
        }
        out.begin_after(self.next_event);
        self.lease_event(out);
        self.next_event = out.time() + self.dice.gap(self.mean_gap);
        true
    }
}
