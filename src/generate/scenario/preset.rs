//! The large mixed capture of `poolshark generate`: which scenarios, how they are set up, and how
//! the requested frame rate is shared between them.

use std::str::FromStr;

use crate::analyse::dhcp_lb::{self, Hba};
use crate::analyse::policy;
use crate::proto::rserpool::Encoding;

use super::background::{BackgroundConfig, BackgroundScenario};
use super::batch::NS;
use super::dhcp::{DhcpConfig, DhcpFault, DhcpPlant, DhcpScenario};
use super::failover::{FailoverConfig, FailoverFault, FailoverPlant, FailoverScenario};
use super::faults::{FaultKind, FaultPlan};
use super::mix::Mix;
use super::pace::DEFAULT_START_SECS;
use super::rserpool::{AnswerFault, Carrier, Plant, RserpoolConfig, RserpoolScenario};
use super::ScenarioError;
use crate::analyse::policy::PolicyKind;

/// One scenario of the mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Rserpool,
    Dhcp,
    Failover,
    Background,
}

impl Part {
    pub const ALL: [Part; 4] = [Part::Rserpool, Part::Dhcp, Part::Failover, Part::Background];

    pub fn name(self) -> &'static str {
        match self {
            Part::Rserpool => "rserpool",
            Part::Dhcp => "dhcp",
            Part::Failover => "failover",
            Part::Background => "background",
        }
    }

    /// Frames an exchange of this scenario averages (measured on generated captures), to turn a
    /// share of frames into a rate of exchanges.
    fn frames_per_exchange(self) -> f64 {
        match self {
            Part::Rserpool => 2.1,
            Part::Dhcp => 4.1,
            Part::Failover => 2.0,
            Part::Background => 7.9,
        }
    }

    /// The default share of frames.
    fn default_weight(self) -> f64 {
        match self {
            Part::Rserpool => 4.0,
            Part::Dhcp => 3.0,
            Part::Failover => 1.0,
            Part::Background => 2.0,
        }
    }
}

/// `rserpool,dhcp:2,background`: scenarios with optional relative weights.
#[derive(Clone, Debug, PartialEq)]
pub struct PartList(pub Vec<(Part, f64)>);

impl FromStr for PartList {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let mut out = Vec::new();
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (name, weight) = match item.split_once([':', '=']) {
                Some((n, w)) => (
                    n.trim(),
                    Some(
                        w.trim()
                            .parse::<f64>()
                            .ok()
                            .filter(|w| w.is_finite() && *w > 0.0)
                            .ok_or_else(|| {
                                format!("--mix {item}: the weight must be a positive number")
                            })?,
                    ),
                ),
                None => (item, None),
            };
            let part = Part::ALL
                .into_iter()
                .find(|p| p.name().eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    format!(
                        "--mix: unknown scenario {name:?}: use rserpool, dhcp, failover, background"
                    )
                })?;
            if out.iter().any(|(p, _)| *p == part) {
                return Err(format!("--mix: {name} is given twice"));
            }
            out.push((part, weight.unwrap_or(part.default_weight())));
        }
        if out.is_empty() {
            return Err("--mix needs at least one scenario".into());
        }
        Ok(PartList(out))
    }
}

/// Everything the mixed capture depends on.
#[derive(Clone, Debug)]
pub struct MixOptions {
    pub seed: u64,
    /// Time of the first frame, nanoseconds since the epoch.
    pub start_ns: u64,
    /// Frames per second of capture time, all scenarios together.
    pub rate: f64,
    pub parts: PartList,
    pub rserpool_profile: &'static policy::Profile,
    pub encoding: Encoding,
    pub carrier: Carrier,
    pub registrars: usize,
    pub pes_per_pool: usize,
    pub pool_users: usize,
    pub dhcp_profile: &'static dhcp_lb::Profile,
    /// `None`: the DHCP profile's own map (Kea's), else `split:128`.
    pub hba: Option<Hba>,
    pub clients: usize,
    pub relays: usize,
    /// Faults of each kind to plant ([`FaultPlan`]); 0 for a clean capture.
    pub faults: u32,
    /// Frames the run will write, over which the faults are spread.
    pub frames: u64,
}

impl Default for MixOptions {
    fn default() -> Self {
        MixOptions {
            seed: 1,
            start_ns: DEFAULT_START_SECS * NS,
            rate: 2000.0,
            parts: PartList(Part::ALL.iter().map(|p| (*p, p.default_weight())).collect()),
            rserpool_profile: &policy::RSPLIB,
            encoding: Encoding::Rfc,
            carrier: Carrier::Sctp,
            registrars: 2,
            pes_per_pool: 4,
            pool_users: 16,
            dhcp_profile: &dhcp_lb::profile::KEA,
            hba: None,
            clients: 500,
            relays: 2,
            faults: 0,
            frames: 100_000,
        }
    }
}

impl MixOptions {
    /// The map the DHCP pair and the failover pair use.
    pub fn hba(&self) -> Hba {
        self.hba
            .or_else(|| self.dhcp_profile.fixed_hba())
            .unwrap_or_else(|| Hba::split(128).unwrap_or_else(|_| Hba::kea()))
    }

    /// When the faults of `--faults` are due (no kind when there are none to plant).
    pub fn fault_plan(&self) -> FaultPlan {
        let parts: Vec<Part> = self.parts.0.iter().map(|(p, _)| *p).collect();
        let mut plan = FaultPlan::new(self.faults, &parts, self.start_ns, self.frames, self.rate);
        if self.faults == 0 {
            plan.kinds.clear();
        }
        plan
    }

    /// The scenarios, ready to run.
    pub fn build(&self) -> Result<Mix, ScenarioError> {
        let total: f64 = self.parts.0.iter().map(|(_, w)| w).sum();
        let plan = self.fault_plan();
        let mut mix = Mix::new();
        for (part, weight) in &self.parts.0 {
            let rate =
                self.rate * weight / total.max(f64::MIN_POSITIVE) / part.frames_per_exchange();
            match part {
                Part::Rserpool => {
                    let mut cfg = RserpoolConfig::new(self.rserpool_profile);
                    cfg.encoding = self.encoding;
                    cfg.carrier = self.carrier;
                    cfg.registrars = (0..self.registrars.max(1) as u32)
                        .map(|i| 0x1111_1111u32.wrapping_mul(i + 1))
                        .collect();
                    cfg.pool_users = self.pool_users;
                    cfg.rate = rate;
                    let mut cfg = cfg.standard_pools(self.pes_per_pool.max(1));
                    cfg.plants = rserpool_faults(&cfg, &plan)?;
                    mix.add(
                        Box::new(RserpoolScenario::new(cfg, self.seed)?),
                        self.start_ns,
                    );
                }
                Part::Dhcp => {
                    let mut cfg = DhcpConfig::new(self.dhcp_profile, self.hba());
                    cfg.clients = self.clients;
                    cfg.relays = self.relays;
                    cfg.rate = rate;
                    for (kind, fault) in [
                        (FaultKind::WrongServer, DhcpFault::WrongServer),
                        (FaultKind::DoubleAnswer, DhcpFault::DoubleAnswer),
                        (FaultKind::NoAnswer, DhcpFault::NoAnswer),
                    ] {
                        cfg.plants.extend(
                            plan.times(kind)
                                .into_iter()
                                .map(|t| DhcpPlant::after(t, fault)),
                        );
                    }
                    mix.add(Box::new(DhcpScenario::new(cfg, self.seed)?), self.start_ns);
                }
                Part::Failover => {
                    let mut cfg = FailoverConfig::new(self.hba());
                    cfg.rate = rate;
                    for (kind, fault) in [
                        (FaultKind::Affinity, FailoverFault::AffinityViolation),
                        (FaultKind::Overbalance, FailoverFault::Overbalance),
                    ] {
                        cfg.plants.extend(
                            plan.times(kind)
                                .into_iter()
                                .map(|t| FailoverPlant::after(t, fault)),
                        );
                    }
                    mix.add(
                        Box::new(FailoverScenario::new(cfg, self.seed)),
                        self.start_ns,
                    );
                }
                Part::Background => {
                    let cfg = BackgroundConfig {
                        rate,
                        ..BackgroundConfig::default()
                    };
                    mix.add(
                        Box::new(BackgroundScenario::new(cfg, self.seed)),
                        self.start_ns,
                    );
                }
            }
        }
        Ok(mix)
    }
}

/// The RSerPool faults of `plan`, each in the first standard pool of the policy it needs
/// (duplicate and unknown PEs in a random pool, whose answers have no order to upset).
fn rserpool_faults(cfg: &RserpoolConfig, plan: &FaultPlan) -> Result<Vec<Plant>, ScenarioError> {
    let mut plants = Vec::new();
    for (kind, policy) in [
        (FaultKind::DuplicatePe, PolicyKind::Random),
        (FaultKind::UnknownPe, PolicyKind::Random),
        (FaultKind::LuOrder, PolicyKind::LeastUsed),
        (FaultKind::RrHeadStuck, PolicyKind::RoundRobin),
    ] {
        let times = plan.times(kind);
        if times.is_empty() {
            continue;
        }
        let Some(pool) = cfg.pools.iter().find(|p| p.policy == policy) else {
            return Err(ScenarioError(format!(
                "--faults plants {} in a {policy} pool, which the {} profile or encoding lacks",
                kind.rule(),
                cfg.profile.name
            )));
        };
        let handle = String::from_utf8_lossy(&pool.handle).into_owned();
        for (j, t) in times.into_iter().enumerate() {
            let fault = match kind {
                FaultKind::DuplicatePe => AnswerFault::DuplicateFirst,
                // An id no standard pool hands out (theirs are 0x000N000k).
                FaultKind::UnknownPe => AnswerFault::UnknownPe(0xdead_0000 + j as u32),
                FaultKind::LuOrder => AnswerFault::SwapFirstTwo,
                _ => AnswerFault::RepeatPrevious,
            };
            plants.push(Plant::after(&handle, t, fault));
        }
    }
    Ok(plants)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_lists_parse_names_and_weights() {
        let l: PartList = "rserpool, dhcp:2,Background".parse().unwrap();
        assert_eq!(
            l.0,
            vec![
                (Part::Rserpool, 4.0),
                (Part::Dhcp, 2.0),
                (Part::Background, 2.0)
            ]
        );
        assert!("rserpool,rserpool".parse::<PartList>().is_err());
        assert!("tcp".parse::<PartList>().is_err());
        assert!("dhcp:0".parse::<PartList>().is_err());
        assert!("".parse::<PartList>().is_err());
    }
}
