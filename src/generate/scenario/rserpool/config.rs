//! What an RSerPool scenario is made of: registrars, pools and their PEs, pool users, the
//! encoding and transport, what happens (a script, or a random mix of activities), and the
//! deviations to plant.

use crate::analyse::policy::{scaled_from_percent, PeSettings, PolicyKind, Profile};
use crate::proto::rserpool::Encoding;

use super::channel::Carrier;
use super::fault::Plant;

/// A pool element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeSpec {
    pub id: u32,
    /// Its policy settings (the policy must be its pool's, unless the PE is meant to be rejected).
    pub settings: PeSettings,
    /// Index of its home registrar in [`RserpoolConfig::registrars`].
    pub home: usize,
    /// Registered during the set-up; otherwise it waits for a `Register` action (or, in random
    /// mode, for churn).
    pub registered_at_start: bool,
}

impl PeSpec {
    pub fn new(id: u32, settings: PeSettings, home: usize) -> Self {
        PeSpec {
            id,
            settings,
            home,
            registered_at_start: true,
        }
    }
}

/// A pool: its handle, policy and elements (in registration order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolSpec {
    pub handle: Vec<u8>,
    pub policy: PolicyKind,
    pub pes: Vec<PeSpec>,
}

impl PoolSpec {
    pub fn new(handle: &str, policy: PolicyKind) -> Self {
        PoolSpec {
            handle: handle.as_bytes().to_vec(),
            policy,
            pes: Vec::new(),
        }
    }

    /// Adds a PE with the pool's policy; `f` sets its words (`|s| s.with_weight(3)`).
    pub fn pe(mut self, id: u32, home: usize, f: impl FnOnce(PeSettings) -> PeSettings) -> Self {
        self.pes
            .push(PeSpec::new(id, f(PeSettings::new(self.policy)), home));
        self
    }

    /// Like [`PoolSpec::pe`], for a PE that registers only when an action says so.
    pub fn pe_later(
        mut self,
        id: u32,
        home: usize,
        f: impl FnOnce(PeSettings) -> PeSettings,
    ) -> Self {
        let mut pe = PeSpec::new(id, f(PeSettings::new(self.policy)), home);
        pe.registered_at_start = false;
        self.pes.push(pe);
        self
    }
}

/// One thing that happens, for scripted scenarios. Pools are named by handle, PEs by id, users
/// and registrars by index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Pool user `user` asks its registrar for `pool`; `items` is the Handle Resolution Option.
    Resolve {
        pool: String,
        user: usize,
        items: Option<u32>,
    },
    /// A PE registers (again) with its current settings.
    Register {
        pool: String,
        pe: u32,
    },
    /// A PE registers again with new settings (a changed load, say).
    ReRegister {
        pool: String,
        pe: u32,
        settings: PeSettings,
    },
    Deregister {
        pool: String,
        pe: u32,
    },
    /// The home registrar checks a PE, which answers.
    KeepAlive {
        pool: String,
        pe: u32,
    },
    /// The home registrar checks a PE, which does not answer: the registrar drops it and tells
    /// its peers (ENRP Handle Update, delete).
    KeepAliveLost {
        pool: String,
        pe: u32,
    },
    /// Pool user `user` reports a PE unreachable to its registrar, which then checks it (the PE
    /// answers: nothing changes), except at the third report since the registrar learnt the PE,
    /// where it drops the PE unchecked, as RSPLIB's registrar does (`-maxbadpereports 3`).
    Unreachable {
        pool: String,
        pe: u32,
        user: usize,
    },
    /// A PE (not in the pool's spec) registers with `settings` whose policy differs from the
    /// pool's: a correct registrar rejects it (cause 0x5); `accept` plants the deviation of
    /// accepting it.
    RegisterInconsistent {
        pool: String,
        pe: u32,
        settings: PeSettings,
        home: usize,
        accept: bool,
    },
    /// Every registrar sends an ENRP Presence to each peer.
    Presence,
    /// Every registrar sends an ASAP Server Announce (UDP multicast).
    Announce,
    /// Nothing for a while (milliseconds).
    Pause(u64),
}

/// How often each kind of exchange happens in random mode (relative weights).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Activity {
    pub resolve: u32,
    pub keep_alive: u32,
    /// A PE of a load-based pool re-registers with a new load.
    pub load_change: u32,
    /// A PE deregisters, or a missing PE registers again.
    pub churn: u32,
    /// A keep-alive goes unanswered and the PE is dropped.
    pub keep_alive_lost: u32,
    pub unreachable: u32,
    pub presence: u32,
    pub announce: u32,
}

impl Default for Activity {
    fn default() -> Self {
        Activity {
            resolve: 800,
            keep_alive: 80,
            load_change: 30,
            churn: 20,
            keep_alive_lost: 4,
            unreachable: 6,
            presence: 30,
            announce: 30,
        }
    }
}

/// An RSerPool scenario.
#[derive(Clone, Debug)]
pub struct RserpoolConfig {
    pub encoding: Encoding,
    /// Whose selection rules the registrars follow.
    pub profile: &'static Profile,
    pub carrier: Carrier,
    /// Registrar (ENRP server) identifiers; registrar i listens at 10.0.0.(i+1) (or
    /// 2001:db8:0:1::(i+1) with `ipv6`), ASAP port 3863, ENRP port 9901.
    pub registrars: Vec<u32>,
    pub pools: Vec<PoolSpec>,
    /// Pool users; user u asks registrar u mod (number of registrars).
    pub pool_users: usize,
    /// The Handle Resolution Options users send, drawn at random in random mode (`None`: no
    /// option, the registrar's default number of items).
    pub items: Vec<Option<u32>>,
    /// Exchanges per second in random mode.
    pub rate: f64,
    pub activity: Activity,
    /// `Some`: these actions after the set-up, then the scenario ends. `None`: random activity
    /// without end.
    pub script: Option<Vec<Action>>,
    pub plants: Vec<Plant>,
    pub ipv6: bool,
    /// Longest user data per SCTP chunk.
    pub max_fragment: usize,
    /// ENRP peering, Presence and Handle Table exchange at set-up.
    pub enrp: bool,
    /// The registration lifetime PEs ask for, milliseconds. In random mode each PE registers
    /// again after half of it, so that no registration expires; a script says itself when PEs
    /// register.
    pub registration_life_ms: i32,
}

impl RserpoolConfig {
    /// Two registrars, no pools yet, RFC encoding over SCTP, the `rsplib` reading.
    pub fn new(profile: &'static Profile) -> Self {
        RserpoolConfig {
            encoding: Encoding::Rfc,
            profile,
            carrier: Carrier::Sctp,
            registrars: vec![0x1111_1111, 0x2222_2222],
            pools: Vec::new(),
            pool_users: 4,
            items: vec![None, Some(1), Some(1), Some(2), Some(u32::MAX)],
            rate: 400.0,
            activity: Activity::default(),
            script: None,
            plants: Vec::new(),
            ipv6: false,
            max_fragment: 1200,
            enrp: true,
            // 30 minutes, as in `rsplib-multi-pe.pcap`.
            registration_life_ms: 1_800_000,
        }
    }

    pub fn pool(mut self, p: PoolSpec) -> Self {
        self.pools.push(p);
        self
    }

    /// One pool per policy that both the profile and the encoding define, `pes` elements each
    /// with settings that make the policy matter (weights 1, 2, 3..., priorities, loads 10 %,
    /// 35 %, 60 %...), homes spread over the registrars. Handles are `RR-Pool`, `WRR-Pool`...
    pub fn standard_pools(mut self, pes: usize) -> Self {
        let n_reg = self.registrars.len().max(1);
        let mut id_base: u32 = 0x0001_0000;
        for policy in PolicyKind::RUNNABLE {
            if !self.profile.defines(policy)
                || super::wire::wire_policy(self.encoding, &PeSettings::new(policy)).is_none()
            {
                continue;
            }
            let handle = format!("{}-Pool", policy.cli_name().to_ascii_uppercase());
            let mut pool = PoolSpec::new(&handle, policy);
            for k in 0..pes {
                let k32 = k as u32;
                let pct = |p: u32| scaled_from_percent(f64::from(p % 100)).unwrap_or(0);
                let s = PeSettings::new(policy)
                    .with_weight(1 + k32 % 4)
                    .with_priority(10 * (1 + k32 % 3))
                    .with_load(pct(10 + 25 * k32))
                    .with_load_degradation(pct(1 + 4 * k32));
                pool.pes.push(PeSpec::new(id_base + k32 + 1, s, k % n_reg));
            }
            self.pools.push(pool);
            id_base += 0x0001_0000;
        }
        self
    }
}
