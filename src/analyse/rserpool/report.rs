//! What `check` shows of the RSerPool replay besides the findings, as data: the registrars in
//! their order, each pool's row (answers counted, those not checked), and the profile a
//! registrar's counts are shown under. `output::report::rserpool` writes it as text and JSON.

use std::collections::BTreeSet;

use super::directory::RegistrarId;
use super::handle::PoolHandle;
use super::replay::Engine;
use super::selection::policy_name;
use super::state::{PoolEntry, RegistrarState};
use super::RserpoolAnalyser;
use crate::analyse::timeline::Window;

impl RserpoolAnalyser {
    /// The replay engine whose state the report shows.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }
}

/// Registrars in a stable order: named ones by server id, then anonymous ones by endpoint.
pub(crate) fn ordered(r: &Engine) -> Vec<RegistrarId> {
    let mut ids: Vec<RegistrarId> = r
        .registrars()
        .filter(|(_, s)| !s.pools.is_empty() || !s.unknown_pools.is_empty() || !s.events.is_empty())
        .map(|(id, _)| id)
        .collect();
    ids.sort_by_key(|id| {
        let reg = r.directory().get(*id);
        (
            reg.and_then(|g| g.server_id).is_none(),
            reg.and_then(|g| g.server_id),
            reg.and_then(|g| g.asap.first().copied()),
            *id,
        )
    });
    ids
}

/// One line of a registrar's pool table: a pool it held, or one it answered for without being
/// seen to hold it (then only counted).
pub(crate) struct PoolRow<'a> {
    pub(crate) handle: &'a PoolHandle,
    pub(crate) policy: String,
    pub(crate) pes: usize,
    pub(crate) most_pes: usize,
    /// Every answer for the pool here, checked or not.
    pub(crate) resolutions: u64,
    pub(crate) deviations: u64,
    pub(crate) unmodelled: u64,
    /// Answers not checked: given while the pool was not known here, or whose request was not
    /// seen.
    pub(crate) not_checked: u64,
    pub(crate) entry: Option<&'a PoolEntry>,
    /// The answers' counts per PE (`check`'s, which `stats` adds up per pool).
    pub(crate) answers: Window,
}

pub(crate) fn pool_rows(state: &RegistrarState, shown: usize) -> Vec<PoolRow<'_>> {
    let handles: BTreeSet<&PoolHandle> = state
        .pools
        .keys()
        .chain(state.unknown_pools.keys())
        .collect();
    handles
        .into_iter()
        .map(|handle| {
            let entry = state.pools.get(handle);
            let unknown = state.unknown_pools.get(handle);
            let mut tally = entry.map(|e| e.tally.clone()).unwrap_or_default();
            if let Some(u) = unknown {
                tally.add(u);
            }
            let not_checked = state.not_checked(handle);
            PoolRow {
                handle,
                policy: policy_name(entry.and_then(|e| e.membership.last_policy())),
                pes: entry.map_or(0, |e| e.membership.len()),
                most_pes: entry.map_or(0, |e| e.most_members),
                resolutions: entry.map_or(0, |e| e.resolutions) + not_checked,
                deviations: entry.map_or(0, |e| e.deviations(shown)),
                unmodelled: entry.map_or(0, |e| e.unmodelled(shown)),
                not_checked,
                entry,
                answers: tally.window(),
            }
        })
        .collect()
}

/// The profile whose counts a registrar's table shows: the one it follows under `auto`.
pub(crate) fn shown_profile(r: &Engine, id: RegistrarId) -> usize {
    if r.is_auto() {
        r.best_profile(id)
    } else {
        0
    }
}
