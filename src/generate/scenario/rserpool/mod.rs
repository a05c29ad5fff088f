//! RSerPool traffic: registrars (ENRP servers) peered by ENRP, pool elements registering,
//! re-registering and leaving over their own ASAP associations, pool users resolving pool handles,
//! keep-alives, Server Announces over UDP multicast.
//!
//! Every Handle Resolution Response is what a correct registrar answers: each registrar keeps a
//! reference [`Pool`] per pool handle under the configured [`Profile`], fed exactly what the wire
//! says (its own registrations and the Handle Updates of its peers, the settings read back from the
//! policy parameters as sent), asks it for the answer and commits what it sent. Deviations are
//! planted with [`Plant`]s (see `fault.rs`); the frames that carry them are marked.
//!
//! ```
//! use poolshark::analyse::policy::{PolicyKind, RSPLIB};
//! use poolshark::generate::scenario::rserpool::{
//!     Action, AnswerFault, Plant, PoolSpec, RserpoolConfig, RserpoolScenario,
//! };
//! use poolshark::generate::scenario::{Frames, Mix};
//!
//! let mut cfg = RserpoolConfig::new(&RSPLIB).pool(
//!     PoolSpec::new("RR-Pool", PolicyKind::RoundRobin)
//!         .pe(1, 0, |s| s)
//!         .pe(2, 0, |s| s)
//!         .pe(3, 1, |s| s),
//! );
//! let resolve = Action::Resolve { pool: "RR-Pool".into(), user: 0, items: Some(1) };
//! cfg.script = Some(vec![resolve.clone(), resolve.clone(), resolve]);
//! cfg.plants.push(Plant::at("RR-Pool", 2, AnswerFault::RepeatPrevious));
//! let scenario = RserpoolScenario::new(cfg, 7).unwrap();
//! let mut mix = Mix::new();
//! mix.add(Box::new(scenario), 0);
//! let mut frames = Frames::default();
//! let log = mix.run(None, &mut frames).unwrap();
//! assert_eq!(log.planted.len(), 1);
//! assert_eq!(log.planted[0].rule, "rserpool.rr-head-stuck");
//! ```

mod activity;
mod channel;
mod config;
mod enrp;
mod fault;
mod registrar;
mod resolve;
mod script;
pub mod wire;

pub use channel::{Carrier, Channel};
pub use config::{Action, Activity, PeSpec, PoolSpec, RserpoolConfig};
pub use fault::{AnswerFault, Plant};

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use crate::analyse::policy::{PeSettings, Pool, Profile};
use crate::dissect::dispatch::{port, ppid};

use super::batch::Batch;
use super::net::{v4_plus, v6_plus};
use super::pace::{mean_gap_ns, Dice};
use super::{Scenario, ScenarioError};
use wire::{wire_policy, PeWire, Wire};

/// Where RSPLIB multicasts its Server Announces (NOTES.md section 1).
const ANNOUNCE_V4: Ipv4Addr = Ipv4Addr::new(239, 0, 0, 50);
/// An IPv6 group for the same purpose (site-local scope; no standard one exists).
const ANNOUNCE_V6: Ipv6Addr = Ipv6Addr::new(0xff05, 0, 0, 0, 0, 0, 0, 0x3863);
/// A registrar's time to answer.
const THINK_NS: u64 = 150_000;

struct RegPool {
    pool: Pool,
    /// Resolutions of this pool answered by this registrar.
    resolutions: u64,
    previous: Vec<u32>,
}

struct Registrar {
    id: u32,
    addr: IpAddr,
    /// Per pool (index into the scenario's pools): the registrar's view, `None` while it knows
    /// no member (RSPLIB drops a pool with its last member).
    pools: Vec<Option<RegPool>>,
}

struct PoolInfo {
    handle: Vec<u8>,
    /// Resolutions of this pool at any registrar.
    resolutions: u64,
}

struct Pe {
    id: u32,
    pool: usize,
    home: usize,
    wire: PeWire,
    registered: bool,
    /// Not part of the pool's spec: a PE made up by `RegisterInconsistent`.
    stray: bool,
    /// Registers during the set-up.
    at_start: bool,
    /// When it last registered (nanoseconds since the epoch).
    registered_at: u64,
    /// The PE's ASAP association with its home registrar (A: the PE).
    channel: Channel,
}

struct User {
    addr: IpAddr,
    port: u16,
    registrar: usize,
    channel: Option<Channel>,
}

struct EnrpLink {
    a: usize,
    b: usize,
    channel: Channel,
}

/// What happens next, with names resolved to indices.
#[derive(Clone, Debug)]
enum Act {
    Resolve {
        pool: usize,
        user: usize,
        items: Option<u32>,
    },
    Register(usize),
    ReRegister(usize, PeSettings),
    Deregister(usize),
    KeepAlive(usize),
    KeepAliveLost(usize),
    Unreachable(usize, usize),
    RegisterStray {
        pe: usize,
        accept: bool,
    },
    Presence,
    Announce,
    Pause(u64),
}

enum Phase {
    /// ENRP peering of link i.
    Peering(usize),
    Announce,
    /// Initial registration of PE i.
    Registering(usize),
    Running,
}

/// The scenario (see the module documentation).
pub struct RserpoolScenario {
    wire: Wire,
    profile: &'static Profile,
    carrier: Carrier,
    max_fragment: usize,
    dice: Dice,
    registrars: Vec<Registrar>,
    pools: Vec<PoolInfo>,
    pes: Vec<Pe>,
    users: Vec<User>,
    enrp: Vec<EnrpLink>,
    /// Each plant with its pool's index and whether a plant that applies once has been spent.
    plants: Vec<(usize, fault::Plant, bool)>,
    items: Vec<Option<u32>>,
    activity: Activity,
    script: Option<std::vec::IntoIter<Act>>,
    phase: Phase,
    now: u64,
    mean_gap: u64,
    udp_buf: Vec<u8>,
    ipv6: bool,
    /// Endpoint Unreachable reports per (registrar, PE) since the registrar last learnt the PE:
    /// at `MAX_BAD_PE_REPORTS` the registrar drops it, as RSPLIB's does.
    reports: std::collections::BTreeMap<(usize, usize), u32>,
}

fn registrar_addr(i: usize, ipv6: bool) -> IpAddr {
    if ipv6 {
        IpAddr::V6(v6_plus(
            Ipv6Addr::new(0x2001, 0xdb8, 0, 1, 0, 0, 0, 0),
            i as u64 + 1,
        ))
    } else {
        IpAddr::V4(v4_plus(Ipv4Addr::new(10, 0, 0, 1), i as u32))
    }
}

/// Registrar `i`'s ASAP endpoint.
fn asap_endpoint(i: usize, ipv6: bool) -> SocketAddr {
    SocketAddr::new(registrar_addr(i, ipv6), port::ASAP)
}

/// Host `n` of a /16 (v4) or a /64 (v6), skipping the .0 and .255 ends of each /24.
fn host_addr(net: u8, n: usize, ipv6: bool) -> IpAddr {
    if ipv6 {
        IpAddr::V6(v6_plus(
            Ipv6Addr::new(0x2001, 0xdb8, 0, u16::from(net), 0, 0, 0, 0),
            n as u64 + 16,
        ))
    } else {
        let n = n as u32;
        IpAddr::V4(Ipv4Addr::new(
            10,
            net,
            ((n / 250) % 256) as u8,
            (n % 250 + 2) as u8,
        ))
    }
}

impl RserpoolScenario {
    pub fn new(cfg: RserpoolConfig, seed: u64) -> Result<Self, ScenarioError> {
        let err = |m: String| Err(ScenarioError(m));
        if cfg.registrars.is_empty() {
            return err("an RSerPool scenario needs at least one registrar".into());
        }
        let mut dice = Dice::new(seed, "rserpool");
        let wire = Wire::new(cfg.encoding);
        let n_reg = cfg.registrars.len();
        let registrars: Vec<Registrar> = cfg
            .registrars
            .iter()
            .enumerate()
            .map(|(i, &id)| Registrar {
                id,
                addr: registrar_addr(i, cfg.ipv6),
                pools: (0..cfg.pools.len()).map(|_| None).collect(),
            })
            .collect();
        let mut pes = Vec::new();
        for (pi, pool) in cfg.pools.iter().enumerate() {
            if !cfg.profile.defines(pool.policy) {
                return err(format!(
                    "pool {}: the {} profile defines no {} policy",
                    String::from_utf8_lossy(&pool.handle),
                    cfg.profile.name,
                    pool.policy
                ));
            }
            for pe in &pool.pes {
                if pe.settings.policy != pool.policy {
                    return err(format!(
                        "PE 0x{:08x} of pool {} has policy {}, the pool {} (use \
                         Action::RegisterInconsistent for a PE meant to be rejected)",
                        pe.id,
                        String::from_utf8_lossy(&pool.handle),
                        pe.settings.policy,
                        pool.policy
                    ));
                }
                let pe = Self::make_pe(
                    &cfg,
                    &mut dice,
                    pes.len(),
                    pi,
                    pe,
                    asap_endpoint(pe.home, cfg.ipv6),
                )?;
                if pes.iter().any(|q: &Pe| q.id == pe.id) {
                    return err(format!("PE id 0x{:08x} is used twice", pe.id));
                }
                pes.push(pe);
            }
        }
        let pools: Vec<PoolInfo> = cfg
            .pools
            .iter()
            .map(|p| PoolInfo {
                handle: p.handle.clone(),
                resolutions: 0,
            })
            .collect();
        let n_users = cfg.pool_users.max(1);
        let mut plants = Vec::new();
        for p in &cfg.plants {
            plants.push((script::pool_index(&pools, &p.pool)?, p.clone(), false));
        }
        let script = match &cfg.script {
            None => None,
            Some(actions) => {
                Some(Self::translate(&cfg, actions, &pools, &mut pes, &mut dice)?.into_iter())
            }
        };
        let users = (0..n_users)
            .map(|u| User {
                addr: host_addr(2, u, cfg.ipv6),
                port: 40_000 + (u % 20_000) as u16,
                registrar: u % n_reg,
                channel: None,
            })
            .collect();
        let mut enrp = Vec::new();
        if cfg.enrp {
            for a in 0..n_reg {
                for b in a + 1..n_reg {
                    let ca = SocketAddr::new(registrar_addr(a, cfg.ipv6), port::ENRP);
                    let cb = SocketAddr::new(registrar_addr(b, cfg.ipv6), port::ENRP);
                    let channel =
                        Channel::new(cfg.carrier, ca, cb, ppid::ENRP, cfg.max_fragment, &mut dice);
                    enrp.push(EnrpLink { a, b, channel });
                }
            }
        }
        Ok(RserpoolScenario {
            wire,
            profile: cfg.profile,
            carrier: cfg.carrier,
            max_fragment: cfg.max_fragment,
            dice,
            registrars,
            pools,
            pes,
            users,
            enrp,
            plants,
            items: if cfg.items.is_empty() {
                vec![None]
            } else {
                cfg.items.clone()
            },
            activity: cfg.activity,
            script,
            phase: Phase::Peering(0),
            now: 0,
            mean_gap: mean_gap_ns(cfg.rate),
            udp_buf: Vec::with_capacity(256),
            ipv6: cfg.ipv6,
            reports: std::collections::BTreeMap::new(),
        })
    }

    fn make_pe(
        cfg: &RserpoolConfig,
        dice: &mut Dice,
        index: usize,
        pool: usize,
        spec: &PeSpec,
        registrar: SocketAddr,
    ) -> Result<Pe, ScenarioError> {
        if spec.home >= cfg.registrars.len() {
            return Err(ScenarioError(format!(
                "PE 0x{:08x}: home registrar {} does not exist",
                spec.id, spec.home
            )));
        }
        let policy = wire_policy(cfg.encoding, &spec.settings).ok_or_else(|| {
            ScenarioError(format!(
                "PE 0x{:08x}: the {} encoding has no {} policy",
                spec.id,
                cfg.encoding.name(),
                spec.settings.policy
            ))
        })?;
        let addr = host_addr(1, index, cfg.ipv6);
        let asap_port = 20_000 + (index % 20_000) as u16;
        let channel = Channel::new(
            cfg.carrier,
            SocketAddr::new(addr, asap_port),
            registrar,
            ppid::ASAP,
            cfg.max_fragment,
            dice,
        );
        Ok(Pe {
            id: spec.id,
            pool,
            home: spec.home,
            wire: PeWire {
                id: spec.id,
                addr,
                user_port: 5000 + (index % 10_000) as u16,
                asap_port,
                policy,
                life_ms: cfg.registration_life_ms,
            },
            registered: false,
            registered_at: 0,
            stray: false,
            at_start: spec.registered_at_start,
            channel,
        })
    }

    fn run(&mut self, act: Act, out: &mut Batch) {
        match act {
            Act::Resolve { pool, user, items } => self.resolve(pool, user, items, out),
            Act::Register(p) => self.register(p, out),
            Act::ReRegister(p, settings) => {
                if let Some(policy) = wire_policy(self.wire.enc, &settings) {
                    self.pes[p].wire.policy = policy;
                }
                self.register(p, out);
            }
            Act::Deregister(p) => self.deregister(p, out),
            Act::KeepAlive(p) => self.keep_alive(p, true, out),
            Act::KeepAliveLost(p) => self.keep_alive(p, false, out),
            Act::Unreachable(p, u) => self.unreachable(p, u, out),
            Act::RegisterStray { pe, accept } => self.register_stray(pe, accept, out),
            Act::Presence => self.presence_round(out),
            Act::Announce => self.announce(out),
            Act::Pause(ms) => out.wait(ms.saturating_mul(1_000_000)),
        }
    }
}

impl Scenario for RserpoolScenario {
    fn name(&self) -> &'static str {
        "rserpool"
    }

    fn plants_left(&self) -> usize {
        self.plants
            .iter()
            .filter(|(_, p, spent)| p.after.is_some() && !*spent)
            .count()
    }

    fn step(&mut self, out: &mut Batch) -> bool {
        // Registrar state changes with every exchange: exchanges never overlap.
        out.begin_after(self.now);
        loop {
            match self.phase {
                Phase::Peering(i) if i < self.enrp.len() => {
                    self.peering(i, out);
                    self.phase = Phase::Peering(i + 1);
                }
                Phase::Peering(_) => {
                    self.phase = Phase::Announce;
                    continue;
                }
                Phase::Announce => {
                    self.announce(out);
                    self.phase = Phase::Registering(0);
                }
                Phase::Registering(i) => {
                    let next =
                        (i..self.pes.len()).find(|&k| self.pes[k].at_start && !self.pes[k].stray);
                    match next {
                        Some(k) => {
                            self.register(k, out);
                            self.phase = Phase::Registering(k + 1);
                        }
                        None => {
                            self.phase = Phase::Running;
                            continue;
                        }
                    }
                }
                Phase::Running => {
                    let act = match &mut self.script {
                        Some(s) => match s.next() {
                            Some(a) => a,
                            None => return false,
                        },
                        None => self.draw(out.time()),
                    };
                    self.run(act, out);
                }
            }
            break;
        }
        self.now = out.time().saturating_add(self.dice.gap(self.mean_gap));
        true
    }
}
