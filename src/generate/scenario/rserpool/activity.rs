//! Random mode: what happens next, drawn by the configured weights among what the pools' state
//! allows (a PE to deregister only when its pool keeps another, and so on).

use crate::analyse::policy::{scaled_from_percent, PeSettings, PolicyKind};
use crate::generate::scenario::pace::Dice;

use super::wire::settings_from_wire;
use super::{Act, RserpoolScenario};

impl RserpoolScenario {
    /// The next random activity.
    pub(super) fn draw(&mut self, now: u64) -> Act {
        // A registration about to reach half its lifetime is renewed first.
        let refresh = self.pes.iter().position(|p| {
            p.registered
                && !p.stray
                && now.saturating_sub(p.registered_at)
                    > u64::try_from(p.wire.life_ms).unwrap_or(0) * 1_000_000 / 2
        });
        if let Some(p) = refresh {
            return Act::Register(p);
        }
        let a = self.activity;
        let weights = [
            a.resolve,
            a.keep_alive,
            a.load_change,
            a.churn,
            a.keep_alive_lost,
            a.unreachable,
            a.presence,
            a.announce,
        ];
        let registered: Vec<usize> = (0..self.pes.len())
            .filter(|&i| self.pes[i].registered && !self.pes[i].stray)
            .collect();
        let pick = |d: &mut Dice, v: &[usize]| v.get(d.below(v.len())).copied();
        let user = self.dice.below(self.users.len());
        let resolve = |s: &mut Self| Act::Resolve {
            pool: s.dice.below(s.pools.len()),
            user,
            items: s.items[s.dice.below(s.items.len())],
        };
        if self.pools.is_empty() {
            return Act::Presence;
        }
        match self.dice.weighted(&weights) {
            1 => pick(&mut self.dice, &registered).map_or_else(|| resolve(self), Act::KeepAlive),
            2 => {
                let loaded: Vec<usize> = registered
                    .iter()
                    .copied()
                    .filter(|&i| {
                        settings_from_wire(&self.pes[i].wire.policy)
                            .is_some_and(|s| s.policy.uses().load)
                    })
                    .collect();
                match pick(&mut self.dice, &loaded) {
                    Some(p) => {
                        let mut s = settings_from_wire(&self.pes[p].wire.policy)
                            .unwrap_or_else(|| PeSettings::new(self.pools_policy(p)));
                        let pct = self.dice.below(101) as f64;
                        s.load = scaled_from_percent(pct).unwrap_or(0);
                        Act::ReRegister(p, s)
                    }
                    None => resolve(self),
                }
            }
            3 => {
                let all: Vec<usize> = (0..self.pes.len())
                    .filter(|&i| !self.pes[i].stray)
                    .collect();
                match pick(&mut self.dice, &all) {
                    Some(p) if !self.pes[p].registered => Act::Register(p),
                    // Keep at least one PE in each pool.
                    Some(p) if self.registered_in(self.pes[p].pool) > 1 => Act::Deregister(p),
                    _ => resolve(self),
                }
            }
            // Dropping a PE shows on the wire only in the Handle Updates to the peers.
            4 => match pick(&mut self.dice, &registered) {
                Some(p) if self.registered_in(self.pes[p].pool) > 1 && !self.enrp.is_empty() => {
                    Act::KeepAliveLost(p)
                }
                _ => resolve(self),
            },
            5 => pick(&mut self.dice, &registered)
                .map_or_else(|| resolve(self), |p| Act::Unreachable(p, user)),
            6 => Act::Presence,
            7 => Act::Announce,
            _ => resolve(self),
        }
    }

    pub(super) fn pools_policy(&self, p: usize) -> PolicyKind {
        self.registrars
            .iter()
            .find_map(|r| {
                r.pools[self.pes[p].pool]
                    .as_ref()
                    .map(|rp| rp.pool.policy())
            })
            .unwrap_or(PolicyKind::RoundRobin)
    }

    pub(super) fn registered_in(&self, pool: usize) -> usize {
        self.pes
            .iter()
            .filter(|p| p.pool == pool && p.registered && !p.stray)
            .count()
    }
}
