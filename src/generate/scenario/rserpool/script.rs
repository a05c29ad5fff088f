//! A scripted scenario's actions, with pools named by handle and PEs by id, turned into the
//! indices the scenario works with (and checked: an unknown name is an error, not a panic).

use crate::generate::scenario::pace::Dice;
use crate::generate::scenario::ScenarioError;

use super::config::{Action, PeSpec, RserpoolConfig};
use super::{asap_endpoint, Act, Pe, PoolInfo, RserpoolScenario};

/// The index of the pool with handle `h`.
pub(super) fn pool_index(pools: &[PoolInfo], h: &str) -> Result<usize, ScenarioError> {
    pools
        .iter()
        .position(|p| p.handle == h.as_bytes())
        .ok_or_else(|| ScenarioError(format!("no pool with handle {h:?}")))
}

impl RserpoolScenario {
    /// The script's actions; PEs that `RegisterInconsistent` makes up are added to `pes`.
    pub(super) fn translate(
        cfg: &RserpoolConfig,
        actions: &[Action],
        pools: &[PoolInfo],
        pes: &mut Vec<Pe>,
        dice: &mut Dice,
    ) -> Result<Vec<Act>, ScenarioError> {
        let n_users = cfg.pool_users.max(1);
        let user_ok = |u: usize| -> Result<usize, ScenarioError> {
            if u < n_users {
                Ok(u)
            } else {
                Err(ScenarioError(format!(
                    "pool user {u} does not exist (pool_users is {n_users})"
                )))
            }
        };
        let pe_index = |pool: &str, id: u32, pes: &[Pe]| {
            let pi = pool_index(pools, pool)?;
            pes.iter()
                .position(|p| p.pool == pi && p.id == id)
                .ok_or_else(|| ScenarioError(format!("pool {pool:?} has no PE 0x{id:08x}")))
        };
        let mut acts = Vec::with_capacity(actions.len());
        for a in actions {
            acts.push(match a {
                Action::Resolve { pool, user, items } => Act::Resolve {
                    pool: pool_index(pools, pool)?,
                    user: user_ok(*user)?,
                    items: *items,
                },
                Action::Register { pool, pe } => Act::Register(pe_index(pool, *pe, pes)?),
                Action::ReRegister { pool, pe, settings } => {
                    Act::ReRegister(pe_index(pool, *pe, pes)?, *settings)
                }
                Action::Deregister { pool, pe } => Act::Deregister(pe_index(pool, *pe, pes)?),
                Action::KeepAlive { pool, pe } => Act::KeepAlive(pe_index(pool, *pe, pes)?),
                Action::KeepAliveLost { pool, pe } => Act::KeepAliveLost(pe_index(pool, *pe, pes)?),
                Action::Unreachable { pool, pe, user } => {
                    Act::Unreachable(pe_index(pool, *pe, pes)?, user_ok(*user)?)
                }
                Action::RegisterInconsistent {
                    pool,
                    pe,
                    settings,
                    home,
                    accept,
                } => {
                    let pi = pool_index(pools, pool)?;
                    if *home >= cfg.registrars.len() {
                        return Err(ScenarioError(format!("registrar {home} does not exist")));
                    }
                    let spec = PeSpec::new(*pe, *settings, *home);
                    let registrar = asap_endpoint(*home, cfg.ipv6);
                    let mut stray = Self::make_pe(cfg, dice, pes.len(), pi, &spec, registrar)?;
                    stray.stray = true;
                    pes.push(stray);
                    Act::RegisterStray {
                        pe: pes.len() - 1,
                        accept: *accept,
                    }
                }
                Action::Presence => Act::Presence,
                Action::Announce => Act::Announce,
                Action::Pause(ms) => Act::Pause(*ms),
            });
        }
        Ok(acts)
    }
}
