//! DHCP load balancing: two servers sharing the clients by the RFC 3074 hash of their keys, DHCPv4
//! and DHCPv6 clients on the servers' link and behind relay agents (DHCPv6 clients also behind two
//! relays), DORA and SARR exchanges, renewals, retries, INFORM and INFORMATION-REQUEST,
//! leasequery (v4 by address, v6 by client id and by address) and DHCPV4-QUERY.
//!
//! Who answers each message is decided by the configured profile's rules (`analyse::dhcp_lb`:
//! which types are balanced, on which key, the delayed-service exception for clients that waited
//! past the threshold) and the bucket map: a capture without plants is one in which every answer
//! is the one a correct pair gives. Requests a correct pair leaves unanswered by design (a renewal
//! sent to a server that does not own the client) are not generated: the client starts over
//! instead, so that clean traffic never shows a request without an answer.
//!
//! Deviations: [`DhcpPlant`] (wrong server, double answer, no answer, ignored directed request),
//! and in the configuration a secondary with its own map (`secondary_hba`) or servers hashing only
//! part of long DUIDs (`stid_max_len`).

mod clients;
mod config;
pub mod decide;
mod exchange4;
mod exchange6;
mod paths;
mod v4;
mod v6;

pub use clients::Client;
pub use config::{DhcpAction, DhcpActivity, DhcpConfig, DhcpFault, DhcpPlant, Exchange};

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::analyse::dhcp_lb::Role;
use crate::proto::dhcpv4;
use crate::proto::dhcpv6::Duid;

use super::batch::Batch;
use super::pace::{mean_gap_ns, Dice};
use super::{Scenario, ScenarioError};
use decide::{role_index, Decision, Pair, Query};
use v4::RelayInfo;

/// A server's time to answer.
const THINK_NS: u64 = 1_500_000;
/// A client's time between an answer and its next message.
const CLIENT_NS: u64 = 8_000_000;
/// How long a client waits before sending an unanswered request again. Two seconds keep a
/// retry of a fresh request within the usual delayed-service threshold (3 s), so that the
/// retry is answered by the owner alone.
const RETRY_SECS: u16 = 2;
const RETRY_NS: u64 = RETRY_SECS as u64 * 1_000_000_000;

/// `All_DHCP_Relay_Agents_and_Servers` (RFC 8415).
const ALL_DHCP: Ipv6Addr = Ipv6Addr::new(0xff02, 0, 0, 0, 0, 0, 1, 2);

struct Server {
    role: Role,
    v4: Ipv4Addr,
    v6: Ipv6Addr,
    duid: Duid<'static>,
}

/// How a DHCPv4 client message reaches the servers.
#[derive(Clone, Copy)]
enum Path4 {
    /// Broadcast on the servers' link (from `src`, 0.0.0.0 before the client has an address).
    Broadcast(Ipv4Addr),
    /// Forwarded by a relay agent to each server.
    Relayed(RelayInfo),
    /// Unicast from the client's address to one server.
    Unicast(Ipv4Addr),
}

/// How a DHCPv6 client message reaches the servers.
#[derive(Clone, Copy)]
enum Path6 {
    Multicast,
    Relayed {
        relay: Ipv6Addr,
        outer: Option<Ipv6Addr>,
    },
}

/// The deviation a transaction is carrying out, once taken from the plants.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Active {
    fault: DhcpFault,
    marked: bool,
}

/// The scenario (see the module documentation).
pub struct DhcpScenario {
    pair: Pair,
    servers: [Server; 2],
    clients: Vec<Client>,
    relays4: Vec<Ipv4Addr>,
    relays6: Vec<Ipv6Addr>,
    outer6: Vec<Ipv6Addr>,
    requestor: Duid<'static>,
    activity: Vec<(Exchange, u32)>,
    script: Option<std::vec::IntoIter<DhcpAction>>,
    plants: Vec<(DhcpPlant, bool)>,
    transactions: u64,
    limit: Option<u64>,
    late_share: f64,
    dice: Dice,
    now: u64,
    mean_gap: u64,
    buf: Vec<u8>,
    /// The fault of the transaction under way, if any.
    active: Option<Active>,
    /// The fault a planted transaction of its own is making (taken at its first balanced
    /// message).
    armed: Option<DhcpFault>,
    /// The batch's push number of the first frame of the client message sent last: the copy
    /// (of those a relay sends, one to each server) the analyser reports the message at.
    request_at: u64,
    /// Per client: when its last exchange ends.
    busy_until: Vec<u64>,
    /// Transactions so far, for their ids.
    xids: u32,
}

impl DhcpScenario {
    pub fn new(cfg: DhcpConfig, seed: u64) -> Result<Self, ScenarioError> {
        let v6 = cfg.v6 && cfg.profile.v6.is_some();
        let v4 = cfg.v4 && cfg.profile.v4.is_some();
        if !v4 && !v6 {
            return Err(ScenarioError(format!(
                "the {} profile balances neither of the families asked for",
                cfg.profile.name
            )));
        }
        let n_clients = cfg.clients.max(1);
        if let Some(script) = &cfg.script {
            for a in script {
                if let DhcpAction::Do {
                    client, exchange, ..
                } = a
                {
                    if *client >= n_clients {
                        return Err(ScenarioError(format!(
                            "client {client} does not exist (clients is {n_clients})"
                        )));
                    }
                    if exchange.is_v6() && cfg.profile.v6.is_none() {
                        return Err(ScenarioError(format!(
                            "{exchange:?} is DHCPv6, which the {} profile does not balance",
                            cfg.profile.name
                        )));
                    }
                }
            }
        }
        let server = |role: Role, n: u8| Server {
            role,
            v4: Ipv4Addr::new(192, 0, 2, n),
            v6: Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, u16::from(n)),
            duid: Duid::llt(1, 0x2b00_0000, &[0x00, 0x16, 0x3e, 0, 0, n]),
        };
        let relays = cfg.relays;
        let activity = cfg
            .activity
            .0
            .iter()
            .copied()
            .filter(|(e, _)| if e.is_v6() { v6 } else { v4 })
            .collect();
        Ok(DhcpScenario {
            pair: Pair {
                profile: cfg.profile,
                maps: [cfg.hba, cfg.secondary_hba.unwrap_or(cfg.hba)],
                threshold_secs: cfg.threshold_secs,
                stid_max_len: cfg.stid_max_len,
            },
            servers: [server(Role::Primary, 1), server(Role::Secondary, 2)],
            clients: (0..n_clients).map(|k| Client::new(k, relays)).collect(),
            relays4: (0..relays.max(1))
                .map(|r| Ipv4Addr::new(10, 33u8.wrapping_add(r as u8), 0, 1))
                .collect(),
            relays6: (0..relays.max(1))
                .map(|r| Ipv6Addr::new(0x2001, 0xdb8, 0x101 + r as u16, 0, 0, 0, 0, 1))
                .collect(),
            outer6: (0..relays.max(1))
                .map(|r| Ipv6Addr::new(0x2001, 0xdb8, 0x201 + r as u16, 0, 0, 0, 0, 1))
                .collect(),
            requestor: Duid::ll(1, &[0x00, 0x16, 0x3e, 0xaa, 0, 1]),
            activity,
            script: cfg.script.map(|s| s.into_iter()),
            plants: cfg.plants.into_iter().map(|p| (p, false)).collect(),
            transactions: 0,
            limit: cfg.transactions,
            late_share: cfg.late_share,
            dice: Dice::new(seed, "dhcp"),
            now: 0,
            mean_gap: mean_gap_ns(cfg.rate),
            buf: Vec::with_capacity(1600),
            active: None,
            armed: None,
            request_at: 0,
            busy_until: vec![0; n_clients],
            xids: 0,
        })
    }

    /// A transaction id no other transaction of the scenario has (until 2^24 of them): the
    /// counter through a bijection of 24 bits, so ids look random, and a byte of the counter's
    /// high part above it for DHCPv4's 32 bits (DHCPv6 keeps the low 24).
    fn next_xid(&mut self) -> u32 {
        self.xids = self.xids.wrapping_add(1);
        let mut x = self.xids.wrapping_mul(0x9e37_79b1) & 0x00ff_ffff;
        x ^= x >> 12;
        x = x.wrapping_mul(0x2c_1b3d) & 0x00ff_ffff;
        x ^= x >> 11;
        x | (self.xids >> 24) << 24 | 0x2a00_0000
    }

    /// Takes the first unused plant due by now whose fault is one of `kinds` (a plant making a
    /// transaction of its own is taken by [`Self::planted`] instead).
    fn take_plant(&mut self, kinds: &[DhcpFault]) -> Option<DhcpFault> {
        let now = self.transactions;
        let (p, used) = self.plants.iter_mut().find(|(p, used)| {
            !*used && p.after.is_none() && p.nth <= now && kinds.contains(&p.fault)
        })?;
        *used = true;
        Some(p.fault)
    }

    /// The first plant making a transaction of its own that is due at `now`.
    fn due_own(&self, now: u64) -> Option<usize> {
        self.plants
            .iter()
            .position(|(p, used)| !*used && p.after.is_some_and(|t| t <= now))
    }

    /// Whether the profile balances a DHCPv4 REQUEST that names no server (Kea and the draft;
    /// ISC balances DISCOVER only).
    fn balances_open_request(&self) -> bool {
        self.pair
            .profile
            .v4
            .is_some_and(|v| v.balances(Some(dhcpv4::message_type::REQUEST)))
    }

    /// Client `c` makes a transaction for plant `k` ([`DhcpPlant::after`]). The plant counts as
    /// spent only once its fault made it onto the wire.
    fn planted(&mut self, k: usize, c: usize, out: &mut Batch) {
        let Some((p, _)) = self.plants.get(k).copied() else {
            return;
        };
        let marked = out.pushed();
        let open_request = self.balances_open_request();
        match p.fault {
            DhcpFault::WrongServer if open_request => self.wrong_server_renewal(c, out),
            DhcpFault::DoubleAnswer if open_request => {
                self.armed = Some(p.fault);
                self.v4_exchange(c, Exchange::InitReboot, 0, out);
            }
            DhcpFault::WrongServer | DhcpFault::DoubleAnswer | DhcpFault::NoAnswer => {
                self.armed = Some(p.fault);
                self.dora(c, 0, false, out);
            }
            DhcpFault::IgnoreDirected => {}
        }
        self.transactions += 1;
        let spent = self.armed.is_none() && out.pushed() > marked;
        self.armed = None;
        if let Some(slot) = self.plants.get_mut(k) {
            slot.1 = spent;
        }
    }

    /// Applies the transaction's balancing fault (taking one from the plants at its first
    /// balanced message) to a decision. Returns the answers and the role whose answer shows the
    /// deviation.
    fn spoil(&mut self, d: &Decision, first: bool) -> ([bool; 2], Option<Role>) {
        let clean = (d.answers, None);
        let Some(owner) = d.owner else {
            return clean;
        };
        // Only a message both servers received can show which of them answers.
        if !d.balanced || d.delayed || d.seen_by != [true, true] {
            return clean;
        }
        if first && self.active.is_none() {
            let armed = self.armed.take();
            if let Some(f) = armed.or_else(|| {
                self.take_plant(&[
                    DhcpFault::WrongServer,
                    DhcpFault::DoubleAnswer,
                    DhcpFault::NoAnswer,
                ])
            }) {
                self.active = Some(Active {
                    fault: f,
                    marked: false,
                });
            }
        }
        let other = owner.peer();
        match self.active.map(|a| a.fault) {
            Some(DhcpFault::WrongServer) => {
                let mut a = [false; 2];
                a[role_index(other)] = true;
                (a, Some(other))
            }
            Some(DhcpFault::DoubleAnswer) => ([true, true], Some(other)),
            _ => clean,
        }
    }

    fn v4_path(&self, c: usize) -> Path4 {
        match self.clients[c].relay {
            Some(r) => Path4::Relayed(RelayInfo {
                giaddr: self.relays4[r % self.relays4.len()],
                agent: r,
            }),
            None => Path4::Broadcast(Ipv4Addr::UNSPECIFIED),
        }
    }

    fn v6_path(&self, c: usize) -> Path6 {
        match self.clients[c].relay {
            Some(r) => Path6::Relayed {
                relay: self.relays6[r % self.relays6.len()],
                outer: self.clients[c]
                    .nested
                    .then(|| self.outer6[r % self.outer6.len()]),
            },
            None => Path6::Multicast,
        }
    }

    fn relay_of(path: Path4) -> Option<RelayInfo> {
        match path {
            Path4::Relayed(r) => Some(r),
            _ => None,
        }
    }

    fn query4<'q>(
        c: &'q Client,
        chaddr: &'q [u8; 16],
        ty: u8,
        secs: u16,
        named: Option<Role>,
        seen_by: [bool; 2],
    ) -> Query<'q> {
        Query {
            msg_type: Some(ty),
            v6: false,
            client_id: c.client_id.as_deref(),
            chaddr,
            hlen: 6,
            elapsed: secs,
            named,
            seen_by,
            leasequery_by_client: false,
        }
    }

    fn decide4(
        &self,
        c: usize,
        ty: u8,
        secs: u16,
        named: Option<Role>,
        seen_by: [bool; 2],
    ) -> Decision {
        let client = &self.clients[c];
        let chaddr = client.chaddr();
        self.pair
            .decide(&Self::query4(client, &chaddr, ty, secs, named, seen_by))
    }

    fn decide6(
        &self,
        c: usize,
        ty: u8,
        elapsed: u16,
        named: Option<Role>,
        with_client_id: bool,
    ) -> Decision {
        let client = &self.clients[c];
        self.pair.decide(&Query {
            msg_type: Some(ty),
            v6: true,
            client_id: with_client_id.then(|| client.duid.bytes()),
            chaddr: &[],
            hlen: 0,
            elapsed,
            named,
            seen_by: [true, true],
            leasequery_by_client: false,
        })
    }

    /// Answers from every role in `answers`, marking the one in `mark`.
    fn mark_if(&mut self, role: Role, mark: Option<Role>, out: &mut Batch, what: &str) {
        if mark == Some(role) {
            if let Some(a) = self.active.as_mut() {
                a.marked = true;
                let rule = a.fault.rule();
                out.mark_last(rule, format!("the {role} answered {what} (planted)"));
            }
        }
    }

    /// Marks the request just sent (its first copy) as the unanswered one of a planted fault.
    fn mark_unanswered(&mut self, fault: DhcpFault, out: &mut Batch, what: &str) {
        out.mark_pushed(
            self.request_at,
            fault.rule(),
            format!("{what} left unanswered (planted)"),
        );
    }

    /// Marks the request just sent, which reached both servers and names neither, as the one
    /// its owner leaves unanswered when the transaction's fault is `WrongServer`.
    fn mark_owner_silence(&mut self, out: &mut Batch, what: &str) {
        if self.active.map(|a| a.fault) == Some(DhcpFault::WrongServer) {
            out.mark_pushed(
                self.request_at,
                DhcpFault::NoAnswer.rule(),
                format!(
                    "{what} left unanswered by its owner, which the other server answers (planted)"
                ),
            );
        }
    }

    fn exchange(&mut self, c: usize, e: Exchange, secs: u16, out: &mut Batch) {
        if e.is_v6() {
            self.v6_exchange(c, e, secs, out);
        } else {
            self.v4_exchange(c, e, secs, out);
        }
        self.transactions += 1;
    }

    fn draw(&mut self) -> (usize, Exchange, u16) {
        let c = self.dice.below(self.clients.len());
        let weights: Vec<u32> = self.activity.iter().map(|(_, w)| *w).collect();
        let e = self
            .activity
            .get(self.dice.weighted(&weights))
            .map_or(Exchange::Dora, |(e, _)| *e);
        let secs =
            if matches!(e, Exchange::Dora | Exchange::Sarr) && self.dice.chance(self.late_share) {
                // A client that has been trying for a while (its earlier attempts not captured).
                let over = self
                    .pair
                    .threshold_secs
                    .saturating_add(1 + self.dice.below(3) as u32);
                u16::try_from(over).unwrap_or(u16::MAX)
            } else {
                0
            };
        (c, e, secs)
    }
}

/// Seconds as DHCPv6 elapsed time (hundredths of a second).
fn centi(secs: u16) -> u16 {
    secs.saturating_mul(100)
}

impl Scenario for DhcpScenario {
    fn name(&self) -> &'static str {
        "dhcp"
    }

    fn plants_left(&self) -> usize {
        self.plants
            .iter()
            .filter(|(p, used)| p.after.is_some() && !*used)
            .count()
    }

    fn step(&mut self, out: &mut Batch) -> bool {
        if self.limit.is_some_and(|l| self.transactions >= l) {
            return false;
        }
        match &mut self.script {
            // A script is played one exchange after the other, so that its frames come in the
            // order written.
            Some(s) => {
                let next = s.next();
                out.begin_after(self.now);
                match next {
                    Some(DhcpAction::Do {
                        client,
                        exchange,
                        elapsed,
                    }) => self.exchange(client, exchange, elapsed, out),
                    Some(DhcpAction::Pause(ms)) => out.wait(ms.saturating_mul(1_000_000)),
                    None => return false,
                }
                self.now = out.time().saturating_add(self.dice.gap(self.mean_gap));
            }
            // Random clients overlap: one waits for its retry while others go on. A client busy
            // with an exchange is left alone until it is done.
            None => {
                let start = self.now.max(out.floor());
                out.begin(start);
                let (c, e, secs) = self.draw();
                if self.busy_until[c] <= start {
                    match self.due_own(start) {
                        Some(k) => self.planted(k, c, out),
                        None => self.exchange(c, e, secs, out),
                    }
                    self.busy_until[c] = out.time();
                }
                self.now = start.saturating_add(self.dice.gap(self.mean_gap));
            }
        }
        true
    }
}
