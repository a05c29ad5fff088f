//! An ISC DHCP failover pair over TCP port 647: the primary (192.0.2.1) connects to the secondary
//! (192.0.2.2), CONNECT (with the hash bucket assignment) and CONNECTACK, STATE from each, the
//! secondary's UPDREQALL answered with every lease of the pool (all FREE and never used, as a new
//! pair starts), the primary's UPDREQ, then lease traffic: a BNDUPD for every lease a server
//! hands out, renews, releases or sees expire, each acknowledged by a BNDACK; CONTACTs on the
//! receive timer; pool balancing runs when each server's schedule says (BNDUPDs moving leases to
//! the peer), a POOLREQ from a server short of leases, answered by a POOLRESP and a balancing
//! run.
//!
//! Clients are not sent as DHCP packets here: the pair's failover conversation is what this
//! scenario is about (the `dhcp` scenario is the client side). Which server hands a new client a
//! lease follows the bucket map, as with load balancing in ISC DHCP.
//!
//! The pair behaves as dhcpd 4.x does (`pool.rs` and NOTES.md section 3), so that a capture
//! without plants is one the failover replay finds nothing wrong with:
//! * a run gives the peer what the project's balancer reference (`isc-code`) gives from the
//!   server's state and queue;
//! * each server's next run is due when the reference schedule says (`analyse::failover::
//!   schedule`: from the age of the oldest FREE and BACKUP lease, no earlier than min-balance
//!   after its last run, no later than max-balance, plus 0-4 s), recomputed and only ever moved
//!   earlier when a lease enters or leaves FREE or BACKUP; a server enters NORMAL with a run;
//! * a timer run below the panic level sends a POOLREQ; the peer answers with a POOLRESP and
//!   then the BNDUPDs of its run;
//! * a lease released or expired goes to FREE through the transitional state (BNDUPD RELEASED
//!   or EXPIRED, acknowledged), and the primary at once hands a FREE lease whose client hashes to
//!   the secondary over to it (dhcpd's affinity on entry);
//! * new clients come less often as the pool fills, so that the pair keeps some leases free and
//!   has something to balance.
//!
//! Deviations ([`FailoverPlant`]): a balancing run that gives away a lease whose client hashes to
//! the sender while one that hashes to the peer stays (`failover.affinity`), a run that gives one
//! lease more than the reference (`failover.overbalance`), a POOLREQ from a server that is not
//! short of leases (`failover.unexpected-poolreq`).

mod pool;

pub use pool::{own_state, Lease, LeasePool, PROFILE};

use std::net::{Ipv4Addr, SocketAddr};

use crate::analyse::dhcp_lb::{Hba, Role};
use crate::analyse::failover::balancer::{Pass, Plan, Trigger};
use crate::analyse::failover::profile::Params;
use crate::analyse::failover::schedule;
use crate::proto::failover::{BindingStatus, FoOption, Message, MessageType, ServerState, PORT};

use super::batch::{Batch, NS};
use super::dhcp::decide::role_index;
use super::net::ethernet;
use super::pace::{mean_gap_ns, Dice};
use super::Scenario;
use crate::generate::TcpFlow;

/// A giveaway this soon (seconds) after the lease entered its state would read as the primary's
/// affinity on entry: planted giveaways keep clear of it, so that each shows as one finding.
const CLEAR_SECS: u32 = 2;
/// The failover replay takes a run within 0.1 s of the peer's as one that may not have seen the
/// peer's moves; planted runs keep well clear of that.
const RUN_CLEAR_NS: u64 = NS / 2;

/// A planted deviation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailoverPlant {
    /// Timer runs (both servers' counted together) that pass before the first it may apply to.
    pub nth: u64,
    /// Capture time (nanoseconds since the epoch) before which it does not apply.
    pub not_before: u64,
    pub fault: FailoverFault,
}

impl FailoverPlant {
    /// Applies to the first run from the `nth` timer run on where it can.
    pub fn at_run(nth: u64, fault: FailoverFault) -> Self {
        FailoverPlant {
            nth,
            not_before: 0,
            fault,
        }
    }

    /// Applies to the first run from `ns` (nanoseconds since the epoch) on where it can.
    pub fn after(ns: u64, fault: FailoverFault) -> Self {
        FailoverPlant {
            nth: 0,
            not_before: ns,
            fault,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailoverFault {
    /// A run with affinity moves (pass 1) first gives away a lease whose last client hashes to
    /// the sender, while the peer's leases are still there, in place of the run's last move.
    /// While such a plant is due, the primary keeps a freed lease of the secondary's clients
    /// rather than handing it over on entry, so that its next run has an affinity move.
    AffinityViolation,
    /// A run gives one lease more than the reference: the next lease whose client hashes to the
    /// peer, else the oldest one left.
    Overbalance,
    /// The server sends a POOLREQ although it is not short of leases.
    UnexpectedPoolReq,
}

impl FailoverFault {
    pub fn rule(self) -> &'static str {
        match self {
            FailoverFault::AffinityViolation => "failover.affinity",
            FailoverFault::Overbalance => "failover.overbalance",
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
    /// The pool-balance statements both servers are configured with.
    pub params: Params,
    /// Seconds between CONTACTs (jittered by a quarter); the receive timer the servers announce
    /// is three times this, so that a CONTACT always comes in time.
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
            params: Params::default(),
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
    /// When each server's next balance run is due (nanoseconds since the epoch).
    balance_due: [u64; 2],
    /// Each server's last balance run: seconds (dhcpd's `last_balance`) and nanoseconds.
    last_balance: [Option<i64>; 2],
    last_run_ns: [u64; 2],
    /// Whether each server's last run moved any lease.
    last_run_moved: [bool; 2],
    /// The lease the primary keeps for a planted affinity fault ([`Self::hold_for_affinity`]):
    /// no new client gets it while it waits in FREE for the primary's next run.
    kept: Option<usize>,
    /// The plants, and whether each has been applied.
    plants: Vec<(FailoverPlant, bool)>,
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

fn secs(ns: u64) -> u32 {
    u32::try_from(ns / NS).unwrap_or(u32::MAX)
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
            balance_due: [u64::MAX, u64::MAX],
            last_balance: [None, None],
            last_run_ns: [0, 0],
            last_run_moved: [false, false],
            kept: None,
            plants: cfg.plants.iter().map(|p| (*p, false)).collect(),
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
            self.cfg.params,
            now,
        ));
        self.flow.handshake(&mut |f: &[u8]| out.push(f));
        let name = self.cfg.relationship.as_bytes().to_vec();
        let receive_timer = self.cfg.contact_every.saturating_mul(3);
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
        // The secondary, new to the pool, asks for every lease: the primary sends each (all
        // FREE, never used), so that both know the whole pool from the start.
        let x = self.next_xid(Role::Secondary);
        self.send(
            Role::Secondary,
            &Message::new(MessageType::UpdReqAll, now, x, Vec::new()),
            out,
        );
        out.wait(500_000);
        for i in 0..self.cfg.pool_size as usize {
            self.update(Role::Primary, i, out, None);
        }
        self.send(
            Role::Primary,
            &Message::new(MessageType::UpdDone, now, x, Vec::new()),
            out,
        );
        // The primary asks for the updates it missed; there are none.
        let x = self.next_xid(Role::Primary);
        self.send(
            Role::Primary,
            &Message::new(MessageType::UpdReq, now, x, Vec::new()),
            out,
        );
        out.wait(500_000);
        self.send(
            Role::Secondary,
            &Message::new(MessageType::UpdDone, now, x, Vec::new()),
            out,
        );
        // Entering NORMAL, each server balances (the primary first: it holds every lease).
        out.wait(1_000_000);
        self.run(Role::Primary, Trigger::EnteredNormal, false, out);
        out.wait(1_000_000);
        self.run(Role::Secondary, Trigger::EnteredNormal, false, out);
        let t = out.time();
        self.contact_due = [
            t + self.dice.jitter(u64::from(self.cfg.contact_every) * NS),
            t + self.dice.jitter(u64::from(self.cfg.contact_every) * NS),
        ];
        self.next_event = t + self.dice.gap(self.mean_gap);
    }

    /// A BNDUPD for lease `i` as it now stands, from `from`, and the peer's BNDACK.
    fn update(
        &mut self,
        from: Role,
        i: usize,
        out: &mut Batch,
        mark: Option<(&'static str, String)>,
    ) {
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
            l.ends.saturating_add(self.cfg.mclt)
        } else {
            l.ends
        };
        opts.extend([
            FoOption::LeaseExpirationTime(l.ends),
            FoOption::PotentialExpirationTime(potential),
            FoOption::StartTimeOfState(l.since),
        ]);
        if l.status == BindingStatus::Active {
            opts.push(FoOption::ClientLastTransactionTime(now));
        }
        let x = self.next_xid(from);
        self.send(from, &Message::new(MessageType::BndUpd, now, x, opts), out);
        if let Some((rule, detail)) = mark {
            out.mark_last(rule, detail);
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

    /// The plants of one of `faults` due now (by run count and time) and not applied yet, in
    /// the order given.
    fn due_plants(&self, faults: &[FailoverFault], now_ns: u64) -> Vec<usize> {
        (0..self.plants.len())
            .filter(|&k| {
                let (p, used) = &self.plants[k];
                !*used && faults.contains(&p.fault) && p.nth < self.runs && p.not_before <= now_ns
            })
            .collect()
    }

    /// `moves` with a planted deviation applied, when one is due and `r`'s run allows it to
    /// show as exactly one finding; the lease that shows it and the plant.
    fn spoil_run(
        &self,
        r: Role,
        plan: &Plan,
        moves: &[usize],
        out: &Batch,
    ) -> Option<(Vec<usize>, usize, usize)> {
        let now_ns = out.time();
        let due = self.due_plants(
            &[FailoverFault::AffinityViolation, FailoverFault::Overbalance],
            now_ns,
        );
        // A run right after the peer's is judged against two states (the peer's moves seen or
        // not yet): keep clear, unless the peer's moved nothing (both states are one). The two
        // servers' runs often fall in the same second: both keep min-balance from the start.
        // Nor right after its own run that moved leases (a POOLREQ's, then the timer's in the
        // same second): the replay reads giveaways stamped with the same time as one run.
        let peer = role_index(r.peer());
        let own = role_index(r);
        if due.is_empty()
            || (self.last_run_moved[peer]
                && now_ns.saturating_sub(self.last_run_ns[peer]) < RUN_CLEAR_NS)
            || (self.last_run_moved[own]
                && now_ns.saturating_sub(self.last_run_ns[own]) < u64::from(CLEAR_SECS + 1) * NS)
        {
            return None;
        }
        due.into_iter().find_map(|at| {
            self.spoil_with(self.plants[at].0.fault, r, plan, moves, now_ns)
                .map(|(spoiled, lease)| (spoiled, lease, at))
        })
    }

    fn spoil_with(
        &self,
        fault: FailoverFault,
        r: Role,
        plan: &Plan,
        moves: &[usize],
        now_ns: u64,
    ) -> Option<(Vec<usize>, usize)> {
        let pool = self.pool.as_ref()?;
        let now = secs(now_ns);
        let settled = |i: usize| pool.leases[i].since.saturating_add(CLEAR_SECS) <= now;
        let queue = pool.queue(r);
        match fault {
            FailoverFault::AffinityViolation => {
                // A run with affinity moves: the planted lease goes first, while the peer's
                // leases the reference gives in pass 1 are still there, and the run's last move
                // stays behind, so that the run keeps its count. Whatever it gives after the
                // planted lease is no further finding: pass 1's peer leases, then (when the
                // reference went on to pass 2, having walked the whole queue) the oldest of its
                // own, with no peer lease left. The reference's moves settled: a lease of the
                // peer's clients freed within 2 s reads as affinity on entry (the planted one,
                // of the sender's clients, never does).
                if !plan.moves.iter().any(|m| m.pass == Pass::One)
                    || !moves.iter().all(|&i| settled(i))
                {
                    return None;
                }
                let own = queue
                    .iter()
                    .copied()
                    .find(|&i| pool.hashes_to(i) == Some(r) && !moves.contains(&i))?;
                let mut spoiled = vec![own];
                spoiled.extend_from_slice(&moves[..moves.len() - 1]);
                Some((spoiled, own))
            }
            FailoverFault::Overbalance => {
                let left: Vec<usize> = queue
                    .iter()
                    .copied()
                    .filter(|i| !moves.contains(i))
                    .collect();
                let peers = |i: &usize| pool.hashes_to(*i) == Some(r.peer());
                // The next lease the peer wants, else (when it wants none) the oldest left: never
                // one against affinity while a lease the peer wants stays.
                let extra = match left.iter().find(|i| peers(i)) {
                    Some(&i) => i,
                    None => *left.first()?,
                };
                if !settled(extra) {
                    return None;
                }
                let mut spoiled = moves.to_vec();
                spoiled.push(extra);
                Some((spoiled, extra))
            }
            FailoverFault::UnexpectedPoolReq => None,
        }
    }

    /// Whether the primary keeps the lease just freed, whose client hashes to the secondary,
    /// instead of handing it over on entry: so that a planted affinity fault has a lease the
    /// reference gives in pass 1 (dhcpd's pairs hand such leases over at once, and a run then
    /// rarely has one to give). Only while an affinity plant is due, the primary's queue holds
    /// no such lease yet, and no run of either server can come before the lease is settled (a
    /// giveaway within 2 s of the release reads as affinity on entry, not as the run's). No new
    /// client gets it meanwhile: in a busy pool the queue turns over within a second. Neither
    /// is a deviation the analysers judge (which lease a server hands a new client, whether it
    /// hands a freed lease over on entry); the primary's next run gives it in pass 1.
    fn hold_for_affinity(&self, now_ns: u64) -> bool {
        let Some(pool) = self.pool.as_ref() else {
            return false;
        };
        if self
            .due_plants(&[FailoverFault::AffinityViolation], now_ns)
            .is_empty()
        {
            return false;
        }
        // One kept at a time, until a run gives it (the secondary's runs also put leases of its
        // clients in the primary's queue, but new clients take those from its head at once).
        if self.kept.is_some_and(|k| {
            pool.leases
                .get(k)
                .is_some_and(|l| l.status == BindingStatus::Free)
        }) {
            return false;
        }
        let clear = now_ns.saturating_add(u64::from(CLEAR_SECS + 1) * NS);
        [Role::Primary, Role::Secondary].into_iter().all(|r| {
            self.balance_due[role_index(r)] >= clear && self.earliest_run(r, now_ns) >= clear
        })
    }

    /// The earliest time the reference schedule allows `r`'s next run from now (without the
    /// random delay [`Self::schedule`] adds).
    fn earliest_run(&self, r: Role, now_ns: u64) -> u64 {
        let Some(pool) = self.pool.as_ref() else {
            return u64::MAX;
        };
        let w = schedule::next_check(
            PROFILE,
            &self.cfg.params,
            r,
            i64::from(secs(now_ns)),
            pool.oldest_ends(BindingStatus::Free),
            pool.oldest_ends(BindingStatus::Backup),
            self.last_balance[role_index(r)],
        );
        u64::try_from(w.earliest)
            .unwrap_or(0)
            .saturating_mul(NS)
            .max(now_ns + 1_000_000)
    }

    /// A balance run of `r` started by `trigger`: the leases the reference gives (spoiled when a
    /// plant says so), each in a BNDUPD the peer acknowledges; after a POOLREQ (`poolresp`) the
    /// POOLRESP with their count goes first, as dhcpd sends it.
    fn run(&mut self, r: Role, trigger: Trigger, poolresp: bool, out: &mut Batch) -> usize {
        let Some(pool) = self.pool.as_ref() else {
            return 0;
        };
        let (plan, moves) = pool.plan(r, trigger);
        let (moves, marked) = match self.spoil_run(r, &plan, &moves, out) {
            Some((spoiled, lease, at)) => {
                self.plants[at].1 = true;
                (spoiled, Some((lease, self.plants[at].0.fault)))
            }
            None => (moves, None),
        };
        let now = secs(out.time());
        if poolresp {
            let n = u32::try_from(moves.len()).unwrap_or(u32::MAX);
            let resp = Message::new(
                MessageType::PoolResp,
                now,
                self.xid[role_index(r.peer())],
                vec![FoOption::AddressesTransferred(n)],
            );
            self.send(r, &resp, out);
            out.wait(300_000);
        }
        for (k, &i) in moves.iter().enumerate() {
            let mark = marked.and_then(|(lease, fault)| {
                let addr = self.pool.as_ref()?.leases.get(lease)?.addr;
                match fault {
                    FailoverFault::AffinityViolation if i == lease => Some((
                        fault.rule(),
                        format!(
                            "the {r} gave {addr} to its peer although its client hashes to the {r}"
                        ),
                    )),
                    // Reported on the run's first BNDUPD.
                    FailoverFault::Overbalance if k == 0 => Some((
                        fault.rule(),
                        format!(
                            "the {r}'s run gave {} lease(s), {addr} one more than the reference's {}",
                            moves.len(),
                            plan.moves.len()
                        ),
                    )),
                    _ => None,
                }
            });
            if let Some(p) = self.pool.as_mut() {
                p.set(i, own_state(r.peer()), None, now);
            }
            self.update(r, i, out, mark);
        }
        self.last_balance[role_index(r)] = Some(i64::from(now));
        self.last_run_ns[role_index(r)] = out.time();
        self.last_run_moved[role_index(r)] = !moves.is_empty();
        // A timer run set the next one afresh; any other only brings a scheduled one forward.
        let keep = trigger != Trigger::Timer;
        self.schedule(r, out.time(), keep);
        if !moves.is_empty() {
            self.schedule(r.peer(), out.time(), true);
        }
        moves.len()
    }

    /// When `r`'s next run is due, by the reference schedule from now (`keep`: only if earlier
    /// than the one already due), with dhcpd's 0-4 s of random delay.
    fn schedule(&mut self, r: Role, now_ns: u64, keep: bool) {
        let Some(pool) = self.pool.as_ref() else {
            return;
        };
        let w = schedule::next_check(
            PROFILE,
            &self.cfg.params,
            r,
            i64::from(secs(now_ns)),
            pool.oldest_ends(BindingStatus::Free),
            pool.oldest_ends(BindingStatus::Backup),
            self.last_balance[role_index(r)],
        );
        let spread = u64::try_from(w.latest.saturating_sub(w.earliest)).unwrap_or(0);
        let delay = self
            .dice
            .below(usize::try_from(spread * 1000 + 1).unwrap_or(1)) as u64;
        let at = u64::try_from(w.earliest)
            .unwrap_or(0)
            .saturating_mul(NS)
            .saturating_add(delay * 1_000_000)
            // Never in the past: a check due now runs at once.
            .max(now_ns + 1_000_000);
        let due = &mut self.balance_due[role_index(r)];
        if !keep || at < *due {
            *due = at;
        }
    }

    /// A lease entered or left FREE or BACKUP: both servers look at their schedules again.
    fn pool_changed(&mut self, now_ns: u64) {
        self.schedule(Role::Primary, now_ns, true);
        self.schedule(Role::Secondary, now_ns, true);
    }

    fn balance_timer(&mut self, r: Role, out: &mut Batch) {
        let now_ns = out.time();
        self.runs += 1;
        let panic = self.pool.as_ref().is_some_and(|p| p.panic_due(r));
        let planted = if panic {
            None
        } else {
            self.due_plants(&[FailoverFault::UnexpectedPoolReq], now_ns)
                .first()
                .copied()
        };
        self.run(r, Trigger::Timer, false, out);
        if !(panic || planted.is_some()) {
            return;
        }
        let now = secs(out.time());
        let x = self.next_xid(r);
        self.send(
            r,
            &Message::new(MessageType::PoolReq, now, x, Vec::new()),
            out,
        );
        if let Some(at) = planted {
            self.plants[at].1 = true;
            out.mark_last(
                FailoverFault::UnexpectedPoolReq.rule(),
                format!("the {r} asked for leases although it is not short of them"),
            );
        }
        out.wait(2_000_000);
        self.run(r.peer(), Trigger::PoolRequest, true, out);
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
        let available = pool.count(BindingStatus::Free) + pool.count(BindingStatus::Backup);
        let size = pool.leases.len();
        let roll = self.dice.below(100);
        // New clients come as often as renewals while most of the pool is free, less often as it
        // fills (never more than 1.5 x the free share of the pool): a pool that stays about a
        // quarter free, whose servers have leases to balance.
        let newcomer = roll < 45 && self.dice.below(2 * size) < 3 * available;
        if newcomer || active.is_empty() {
            // A new client: its bucket's owner leases, or the peer if the owner has nothing left.
            let (id, mac) = self.clients[self.dice.below(self.clients.len())].clone();
            let key = id.clone().unwrap_or_else(|| mac.to_vec());
            let owner = self.cfg.hba.owner_of_key(&key).1;
            let kept = self.kept.filter(|&k| {
                pool.leases
                    .get(k)
                    .is_some_and(|l| l.status == BindingStatus::Free)
            });
            let Some((server, i)) = pool
                .take(owner, kept)
                .map(|i| (owner, i))
                .or_else(|| pool.take(owner.peer(), kept).map(|i| (owner.peer(), i)))
            else {
                return;
            };
            if let Some(p) = self.pool.as_mut() {
                p.set(
                    i,
                    BindingStatus::Active,
                    Some(now.saturating_add(self.cfg.lease_secs)),
                    now,
                );
                if let Some(l) = p.leases.get_mut(i) {
                    l.holder = server;
                    l.client = Some((id, mac));
                }
            }
            self.update(server, i, out, None);
            self.pool_changed(out.time());
            return;
        }
        let i = active[self.dice.below(active.len())];
        let holder = pool.leases[i].holder;
        if roll < 80 {
            if let Some(p) = self.pool.as_mut() {
                p.set(
                    i,
                    BindingStatus::Active,
                    Some(now.saturating_add(self.cfg.lease_secs)),
                    now,
                );
            }
            self.update(holder, i, out, None);
            return;
        }
        // Released (the client said so) or expired (the server noticed): the holder's update in
        // the transitional state, acknowledged, makes it FREE on both servers.
        let passing = if roll < 90 {
            BindingStatus::Released
        } else {
            BindingStatus::Expired
        };
        if let Some(p) = self.pool.as_mut() {
            p.set(i, passing, Some(now), now);
        }
        self.update(holder, i, out, None);
        let to_secondary = match self.pool.as_mut() {
            Some(p) => {
                p.set(i, BindingStatus::Free, None, now);
                p.hashes_to(i) == Some(Role::Secondary)
            }
            None => false,
        };
        // Affinity on entry: the primary gives the secondary a freed lease whose client hashes
        // to it, unless it keeps one for a planted affinity fault.
        let keep = to_secondary && self.hold_for_affinity(out.time());
        if keep {
            self.kept = Some(i);
        }
        if to_secondary && !keep {
            if let Some(p) = self.pool.as_mut() {
                p.set(i, BindingStatus::Backup, None, now);
            }
            self.update(Role::Primary, i, out, None);
        }
        self.pool_changed(out.time());
    }
}

impl Scenario for FailoverScenario {
    fn name(&self) -> &'static str {
        "failover"
    }

    fn plants_left(&self) -> usize {
        self.plants.iter().filter(|(_, used)| !*used).count()
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
