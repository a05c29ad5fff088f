//! Replays a failover pair's events through the lease state and the balancer reference, and
//! reports where the servers deviate from the reference ([`super::rules`] defines each rule).
//! Keeps, per pool, the free/backup series for `stats` and the TUI, and the balance runs it saw.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use super::balancer::{self, Candidate, Levels, Plan, Trigger};
use super::events::{Event, EventKind, LeaseUpdate};
use super::pools::PoolMap;
use super::profile::{Params, Profile, ISC_CODE};
use super::rules::{self, PoolReqReason, GRACE};
use super::schedule::{self, Window};
use super::series::{Point, Series};
use super::state::{Change, LeaseState, Pool};
use crate::analyse::dhcp_lb::{Hba, Role};
use crate::analyse::finding::Finding;
use crate::proto::failover::{BindingStatus, ServerState};

/// Giveaways more than this many seconds apart belong to different runs; a giveaway this soon
/// after the lease became FREE through EXPIRED/RELEASED/RESET is affinity on entry; a run this
/// soon after a POOLREQ or after entering NORMAL was started by it.
const NEAR: f64 = 2.0;

/// A run that starts this soon (seconds) after the peer's may not have seen the peer's moves:
/// both servers balanced at once (the shared capture has one such pair, 3 ms apart).
const RACE: f64 = 0.1;

/// Receive timer assumed until CONNECT/CONNECTACK name one.
const DEFAULT_RECEIVE_TIMER: u32 = 60;

/// What the replay is told.
#[derive(Clone, Debug)]
pub struct Config {
    pub profile: &'static Profile,
    pub params: Params,
    /// Where `params` came from (`default`, `config`, `command-line`), for the reports.
    pub params_source: &'static str,
    pub pools: PoolMap,
    /// The pair's hash bucket assignment; `None`: learnt from the primary's CONNECT.
    pub hba: Option<Hba>,
    /// At most this many leases are tracked.
    pub max_leases: usize,
    /// Points kept per pool in the free/backup series.
    pub max_series_points: usize,
    /// Balance runs kept for inspection (all are checked and counted).
    pub max_runs: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            profile: &ISC_CODE,
            params: Params::default(),
            params_source: "default",
            pools: PoolMap::default(),
            hba: None,
            max_leases: 1 << 20,
            max_series_points: 2048,
            max_runs: 10_000,
        }
    }
}

fn idx(r: Role) -> usize {
    match r {
        Role::Primary => 0,
        Role::Secondary => 1,
    }
}

/// The binding state of a server's own free-state queue.
pub fn own_status(r: Role) -> BindingStatus {
    match r {
        Role::Primary => BindingStatus::Free,
        Role::Secondary => BindingStatus::Backup,
    }
}

#[derive(Clone, Debug, Default)]
struct Server {
    state: Option<ServerState>,
    normal_since: Option<f64>,
    last_heard: Option<f64>,
    last_poolreq: Option<f64>,
}

#[derive(Clone, Copy, Debug)]
struct Episode {
    since: f64,
    since_frame: u64,
    fired: bool,
}

impl Episode {
    /// Starts, continues or ends an episode; `true` when it is newly overdue.
    fn step(ep: &mut Option<Episode>, cond: bool, now: f64, frame: u64, limit: f64) -> bool {
        if !cond {
            *ep = None;
            return false;
        }
        let e = ep.get_or_insert(Episode {
            since: now,
            since_frame: frame,
            fired: false,
        });
        if !e.fired && now - e.since > limit {
            e.fired = true;
            return true;
        }
        false
    }
}

/// Per-pool counters for `stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Observed balance runs, by server (primary, secondary).
    pub runs: [u32; 2],
    /// Leases those runs moved.
    pub moved: [u32; 2],
    /// Leases the primary handed over by affinity on entry.
    pub entry_affinity: u32,
    /// Runs whose move count the reference matched.
    pub runs_matching: [u32; 2],
}

/// A balance run seen on the wire: consecutive giveaways by one server with one start time of
/// state, and what the reference does from the state just before the first of them.
#[derive(Clone, Debug, PartialEq)]
pub struct ObservedRun {
    pub pool: String,
    pub server: Role,
    pub first_frame: u64,
    pub time: f64,
    /// The start time of state the giveaways carry (dhcpd's time of the run).
    pub stos: Option<u32>,
    pub trigger: Trigger,
    pub before: Levels,
    pub expected: Plan,
    /// When the peer's own run started less than 0.1 s earlier: the reference from the state
    /// without the peer's moves, which this server may not have processed yet. The run matches
    /// the reference when it matches either plan.
    pub expected_without_peer_run: Option<Plan>,
    pub moved: Vec<Ipv4Addr>,
    /// For a run answering a POOLREQ: the addresses-transferred count of the POOLRESP that
    /// preceded it (dhcpd sends the POOLRESP, then the run's BNDUPDs).
    pub poolresp: Option<u32>,
    last_time: f64,
}

impl ObservedRun {
    /// Whether the run moved as many leases as the reference (either plan when concurrent).
    pub fn matches(&self) -> bool {
        let n = self.moved.len();
        n == self.expected.moves.len()
            || self
                .expected_without_peer_run
                .as_ref()
                .is_some_and(|p| p.moves.len() == n)
    }
}

#[derive(Debug)]
struct PoolTrack {
    series: Series,
    misbalance: Option<Episode>,
    kept: Option<Episode>,
    panic: [Option<Episode>; 2],
    stats: PoolStats,
    /// The pool's counts changed since its episodes were last looked at.
    dirty: bool,
    /// The primary's and the secondary's levels at that last look.
    levels: Option<(Levels, Levels)>,
}

impl PoolTrack {
    fn new(max_points: usize) -> Self {
        PoolTrack {
            series: Series::new(max_points),
            misbalance: None,
            kept: None,
            panic: [None, None],
            stats: PoolStats::default(),
            dirty: true,
            levels: None,
        }
    }
}

/// The replay: feed it events in capture order, collect findings.
#[derive(Debug)]
pub struct Replay {
    cfg: Config,
    state: LeaseState,
    servers: [Server; 2],
    hba: Option<Hba>,
    receive_timer: Option<u32>,
    tracks: BTreeMap<String, PoolTrack>,
    open: Vec<ObservedRun>,
    runs: Vec<ObservedRun>,
    runs_dropped: u64,
    /// The count each server's last POOLRESP announced, until its run shows up.
    poolresp: [Option<u32>; 2],
    was_normal: bool,
}

impl Replay {
    pub fn new(cfg: Config) -> Self {
        Replay {
            state: LeaseState::new(cfg.pools.clone(), cfg.max_leases),
            hba: cfg.hba,
            cfg,
            servers: Default::default(),
            receive_timer: None,
            tracks: BTreeMap::new(),
            open: Vec::new(),
            runs: Vec::new(),
            runs_dropped: 0,
            poolresp: [None, None],
            was_normal: false,
        }
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The lease state as the events have left it.
    pub fn state(&self) -> &LeaseState {
        &self.state
    }

    /// Seeds the lease state from a `dhcpd.leases` file (one server's), as if its leases had
    /// been seen at `now` (seconds); returns what was loaded.
    pub fn load_lease_file(
        &mut self,
        file: &crate::source::leases::LeaseFile,
        now: f64,
    ) -> super::from_file::Loaded {
        self.load_lease_file_as(file, now, None)
    }

    /// [`Self::load_lease_file`] for the file of `role` (see [`super::from_file::load_as`]).
    pub fn load_lease_file_as(
        &mut self,
        file: &crate::source::leases::LeaseFile,
        now: f64,
        role: Option<Role>,
    ) -> super::from_file::Loaded {
        let loaded = super::from_file::load_as(&mut self.state, file, now, role);
        let max = self.cfg.max_series_points;
        for p in self.state.pools() {
            self.tracks
                .entry(p.name.clone())
                .or_insert_with(|| PoolTrack::new(max))
                .dirty = true;
        }
        loaded
    }

    /// The hash bucket assignment in use (configured or learnt).
    pub fn hba(&self) -> Option<Hba> {
        self.hba
    }

    /// The last announced state of a server.
    pub fn server_state(&self, r: Role) -> Option<ServerState> {
        self.servers[idx(r)].state
    }

    pub fn series(&self, pool: &str) -> Option<&Series> {
        self.tracks.get(pool).map(|t| &t.series)
    }

    pub fn pool_stats(&self, pool: &str) -> Option<&PoolStats> {
        self.tracks.get(pool).map(|t| &t.stats)
    }

    /// Closed runs kept (see [`Config::max_runs`]).
    pub fn runs(&self) -> &[ObservedRun] {
        &self.runs
    }

    /// Closed runs not kept.
    pub fn runs_dropped(&self) -> u64 {
        self.runs_dropped
    }

    /// The levels of `role` in `pool` now.
    pub fn levels_now(&self, pool: &str, role: Role) -> Option<Levels> {
        let c = self.state.pool(pool)?.counts_for(role);
        Some(balancer::levels(
            self.cfg.profile,
            &self.cfg.params,
            role,
            c.free,
            c.backup,
        ))
    }

    /// `role`'s own free-state queue in `pool`, oldest first, as the balancer sees it.
    pub fn candidates(&self, pool: &str, role: Role) -> Vec<Candidate> {
        match self.state.pool(pool) {
            Some(p) => candidates(p, role, self.hba),
            None => Vec::new(),
        }
    }

    /// What a balance run of `role` in `pool` would do now.
    pub fn plan_now(&self, pool: &str, role: Role, trigger: Trigger) -> Option<Plan> {
        let l = self.levels_now(pool, role)?;
        Some(balancer::plan(
            self.cfg.profile,
            l,
            &self.candidates(pool, role),
            trigger,
        ))
    }

    /// When `role`'s next balance run of `pool` is due, computed at `now` (seconds) as dhcpd
    /// does after a run at `last_balance` that gave away `moved` (their leases count in the
    /// peer's queue, not in `role`'s).
    pub fn next_check(
        &self,
        pool: &str,
        role: Role,
        now: i64,
        last_balance: Option<i64>,
        moved: &[Ipv4Addr],
    ) -> Option<Window> {
        let p = self.state.pool(pool)?;
        let own = own_status(role);
        let peer = own_status(role.peer());
        let head = |status: BindingStatus| {
            let mut ends: Vec<i64> = p
                .queue_for(role, status)
                .into_iter()
                .filter(|l| status != own || !moved.contains(&l.address))
                .map(|l| l.ends_for(role))
                .collect();
            if status == peer {
                ends.extend(
                    moved
                        .iter()
                        .filter_map(|a| p.get(*a))
                        .map(|l| l.ends_for(role)),
                );
            }
            ends.into_iter().min()
        };
        let (free, backup) = (head(BindingStatus::Free), head(BindingStatus::Backup));
        Some(schedule::next_check(
            self.cfg.profile,
            &self.cfg.params,
            role,
            now,
            free,
            backup,
            last_balance,
        ))
    }

    fn in_normal_operation(&self, now: f64) -> bool {
        let timeout = f64::from(self.receive_timer.unwrap_or(DEFAULT_RECEIVE_TIMER));
        self.servers.iter().all(|s| {
            s.state == Some(ServerState::Normal) && s.last_heard.is_some_and(|t| now - t <= timeout)
        })
    }

    /// Feeds one event; findings it settles are appended to `out`.
    pub fn push(&mut self, ev: &Event, out: &mut Vec<Finding>) {
        let now = ev.time.as_f64();
        self.close_stale_runs(now, out);
        let from = idx(ev.from);
        self.servers[from].last_heard = Some(now);
        match &ev.kind {
            EventKind::LeaseUpdate(u) => self.lease_update(ev, u, now, out),
            EventKind::PoolRequest => self.pool_request(ev, now, out),
            EventKind::Offer {
                address, client, ..
            } => {
                if let Some(change) = self.state.offer(*address, ev.from, client, now, ev.frame) {
                    self.record_point(&change, now, ev.frame);
                }
            }
            EventKind::PoolResponse { transferred } => self.poolresp[from] = *transferred,
            EventKind::State { state, startup } => {
                if *startup {
                    // A server announcing start-up has just (re)started and reloaded its
                    // lease file: its uncommitted offers are gone.
                    self.state.forget_offers(ev.from, now, ev.frame);
                }
                let s = &mut self.servers[from];
                if *state == ServerState::Normal && s.state != Some(ServerState::Normal) {
                    s.normal_since = Some(now);
                }
                s.state = Some(*state);
            }
            EventKind::Connect {
                hba, receive_timer, ..
            } => {
                if self.cfg.hba.is_none() && hba.is_some() {
                    self.hba = *hba;
                }
                if receive_timer.is_some() {
                    self.receive_timer = *receive_timer;
                }
            }
            EventKind::ConnectAck { receive_timer, .. } => {
                if receive_timer.is_some() {
                    self.receive_timer = *receive_timer;
                }
            }
            EventKind::LeaseAck {
                address: Some(a),
                reject: None,
            } => {
                if let Some(change) = self.state.ack(*a, ev.from, now, ev.frame) {
                    self.record_point(&change, now, ev.frame);
                }
            }
            EventKind::LeaseAck { .. }
            | EventKind::UpdateRequest { .. }
            | EventKind::UpdateDone
            | EventKind::Contact
            | EventKind::Disconnect => {}
        }
        self.check_episodes(now, ev.frame, out);
    }

    /// Closes what is still open at the end of the input.
    pub fn finish(&mut self, out: &mut Vec<Finding>) {
        for run in std::mem::take(&mut self.open) {
            self.close_run(run, out);
        }
    }

    fn track(&mut self, pool: &str) -> &mut PoolTrack {
        let max = self.cfg.max_series_points;
        self.tracks
            .entry(pool.to_string())
            .or_insert_with(|| PoolTrack::new(max))
    }

    fn lease_update(&mut self, ev: &Event, u: &LeaseUpdate, now: f64, out: &mut Vec<Finding>) {
        let sender = ev.from;
        let Some(pool_name) = self.state.pool_of(u.address) else {
            // Counted by the state.
            let _ = self.state.apply(u, sender, now, ev.frame);
            return;
        };
        let before = self.state.pool(&pool_name).and_then(|p| p.get(u.address));
        let giveaway = before.is_some_and(|l| l.status == own_status(sender))
            && u.status == own_status(sender.peer())
            && self.servers[idx(sender)].state == Some(ServerState::Normal);
        if giveaway {
            let before = before.cloned();
            self.giveaway(ev, u, &pool_name, before.as_ref(), now, out);
        }
        if let Some(change) = self.state.apply(u, sender, now, ev.frame) {
            self.record_point(&change, now, ev.frame);
        }
    }

    fn giveaway(
        &mut self,
        ev: &Event,
        u: &LeaseUpdate,
        pool_name: &str,
        before: Option<&super::state::Lease>,
        now: f64,
        out: &mut Vec<Finding>,
    ) {
        let sender = ev.from;
        let Some(pool) = self.state.pool(pool_name) else {
            return;
        };
        // Affinity: the given lease's client hashes to the sender while a peer lease stays.
        if let (Some(hba), Some(lease)) = (self.hba, before) {
            if let Some((bucket, owner)) = lease.client(sender).owner(&hba) {
                if owner == sender {
                    let instead = pool
                        .own_queue(sender)
                        .into_iter()
                        .find(|l| l.address != u.address && l.peer_wants(sender, &hba));
                    if let (Some(instead), Some(key)) = (instead, lease.key(sender)) {
                        out.push(rules::affinity(
                            ev.frame,
                            pool_name,
                            sender,
                            u.address,
                            &key,
                            bucket,
                            instead.address,
                        ));
                    }
                }
            }
        }

        // Affinity on entry: the primary hands over a lease that has just come to FREE
        // through EXPIRED, RELEASED or RESET (at the peer's update, or at the peer's BNDACK of
        // its own), whatever run is going on. dhcpd does so only for a lease whose client
        // hashes to the peer (`send_to_backup = peer_wants_lease(lease)`): a just-freed lease
        // of its own clients that it gives away is its run's (pass 2 reaches the newest leases
        // of a short queue in a busy pool).
        let entry = sender == Role::Primary
            && before.is_some_and(|l| {
                l.freed_at.is_some_and(|t| now - t < NEAR)
                    && self.hba.is_none_or(|h| l.peer_wants(sender, &h))
            });
        if entry {
            let stats = &mut self.track(pool_name).stats;
            stats.entry_affinity = stats.entry_affinity.saturating_add(1);
            return;
        }
        // Part of an open run?
        if let Some(run) = self
            .open
            .iter_mut()
            .find(|r| r.server == sender && r.pool == pool_name && r.stos == u.since)
        {
            run.moved.push(u.address);
            run.last_time = now;
            return;
        }
        // A new run: close the sender's previous one in this pool, then plan from here.
        if let Some(i) = self
            .open
            .iter()
            .position(|r| r.server == sender && r.pool == pool_name)
        {
            let old = self.open.swap_remove(i);
            self.close_run(old, out);
        }
        let Some(pool) = self.state.pool(pool_name) else {
            return;
        };
        let c = pool.counts_for(sender);
        let levels = balancer::levels(self.cfg.profile, &self.cfg.params, sender, c.free, c.backup);
        let trigger = self.trigger_of(sender, now);
        let queue = candidates(pool, sender, self.hba);
        let expected = balancer::plan(self.cfg.profile, levels, &queue, trigger);
        let expected_without_peer_run = self
            .open
            .iter()
            .find(|r| r.server == sender.peer() && r.pool == pool_name && now - r.time < RACE)
            .map(|peer_run| {
                // Undo the peer's moves: they left its queue for ours.
                let k = u32::try_from(peer_run.moved.len()).unwrap_or(u32::MAX);
                let (mut free, mut backup) = (levels.free, levels.backup);
                match sender {
                    Role::Primary => {
                        free = free.saturating_sub(k);
                        backup = backup.saturating_add(k);
                    }
                    Role::Secondary => {
                        backup = backup.saturating_sub(k);
                        free = free.saturating_add(k);
                    }
                }
                let l = balancer::levels(self.cfg.profile, &self.cfg.params, sender, free, backup);
                let q: Vec<Candidate> = queue
                    .iter()
                    .filter(|c| !peer_run.moved.contains(&c.address))
                    .copied()
                    .collect();
                balancer::plan(self.cfg.profile, l, &q, trigger)
            });
        self.open.push(ObservedRun {
            pool: pool_name.to_string(),
            server: sender,
            first_frame: ev.frame,
            time: now,
            stos: u.since,
            trigger,
            before: levels,
            expected,
            expected_without_peer_run,
            moved: vec![u.address],
            poolresp: if trigger == Trigger::PoolRequest {
                self.poolresp[idx(sender)].take()
            } else {
                None
            },
            last_time: now,
        });
    }

    fn trigger_of(&self, sender: Role, now: f64) -> Trigger {
        let peer = &self.servers[idx(sender.peer())];
        if peer.last_poolreq.is_some_and(|t| now - t <= NEAR) {
            Trigger::PoolRequest
        } else if self.servers[idx(sender)]
            .normal_since
            .is_some_and(|t| now - t <= NEAR)
        {
            Trigger::EnteredNormal
        } else {
            Trigger::Timer
        }
    }

    fn close_stale_runs(&mut self, now: f64, out: &mut Vec<Finding>) {
        let mut i = 0;
        while i < self.open.len() {
            if now - self.open[i].last_time > NEAR {
                let run = self.open.swap_remove(i);
                self.close_run(run, out);
            } else {
                i += 1;
            }
        }
    }

    fn close_run(&mut self, run: ObservedRun, out: &mut Vec<Finding>) {
        let r = idx(run.server);
        let moved = run.moved.len();
        let matches = run.matches();
        let profile = self.cfg.profile.name;
        let stats = &mut self.track(&run.pool).stats;
        stats.runs[r] = stats.runs[r].saturating_add(1);
        stats.moved[r] = stats.moved[r].saturating_add(u32::try_from(moved).unwrap_or(u32::MAX));
        if matches {
            stats.runs_matching[r] = stats.runs_matching[r].saturating_add(1);
        } else {
            out.push(rules::ownership_run(
                run.first_frame,
                &run.pool,
                &run.before,
                &run.expected,
                moved,
                profile,
            ));
        }
        if self.runs.len() < self.cfg.max_runs {
            self.runs.push(run);
        } else {
            self.runs_dropped += 1;
        }
    }

    fn pool_request(&mut self, ev: &Event, now: f64, out: &mut Vec<Finding>) {
        let sender = ev.from;
        let s = &self.servers[idx(sender)];
        // The pool that comes closest to panic names the finding.
        let closest: Option<(String, Levels)> = self
            .state
            .pools()
            .map(|p| {
                let c = p.counts_for(sender);
                let l =
                    balancer::levels(self.cfg.profile, &self.cfg.params, sender, c.free, c.backup);
                (p.name.clone(), l)
            })
            .min_by_key(|(_, l)| l.lts.saturating_mul(100).saturating_sub(l.panic.0));
        let pool = closest.as_ref().map(|(n, _)| n.clone()).unwrap_or_default();
        let why = if s.state != Some(ServerState::Normal) {
            Some(PoolReqReason::NotNormal(
                s.state.map(|x| x.name()).unwrap_or("unknown").to_string(),
            ))
        } else if let Some(last) = s
            .last_poolreq
            .filter(|t| now - t < f64::from(self.cfg.params.min_balance))
        {
            Some(PoolReqReason::TooSoon {
                seconds: now - last,
                min_balance: self.cfg.params.min_balance,
            })
        } else {
            match &closest {
                Some((_, l)) if !l.panic_due() => Some(PoolReqReason::NotShort(*l)),
                _ => None,
            }
        };
        if let Some(why) = why {
            out.push(rules::unexpected_poolreq(ev.frame, &pool, sender, &why));
        }
        self.servers[idx(sender)].last_poolreq = Some(now);
        // A POOLREQ starts a new stretch of every panic episode of its sender.
        for t in self.tracks.values_mut() {
            if let Some(e) = &mut t.panic[idx(sender)] {
                e.since = now;
                e.since_frame = ev.frame;
                e.fired = false;
            }
        }
    }

    fn record_point(&mut self, change: &Change, now: f64, frame: u64) {
        let Some(pool) = self.state.pool(&change.pool) else {
            return;
        };
        let c = pool.counts();
        let max = self.cfg.max_series_points;
        let Some(track) = super::pool_entry(&mut self.tracks, &change.pool, || PoolTrack::new(max))
        else {
            return;
        };
        track.dirty = true;
        let changed = track
            .series
            .last()
            .is_none_or(|p| p.free != c.free || p.backup != c.backup);
        if changed {
            let age = |s| {
                pool.oldest_ends(s)
                    .map(|e: i64| (now.floor() as i64).saturating_sub(e))
            };
            track.series.push(Point {
                time: now,
                frame,
                free: c.free,
                backup: c.backup,
                lts: (i64::from(c.free) - i64::from(c.backup)) / 2,
                oldest_free_age: age(BindingStatus::Free),
                oldest_backup_age: age(BindingStatus::Backup),
            });
        }
    }

    /// Starts, continues, ends or fires the episodes of the pools whose counts changed, of the
    /// pools with an episode going on, and of every pool when normal operation begins or ends.
    fn check_episodes(&mut self, now: f64, frame: u64, out: &mut Vec<Finding>) {
        let normal = self.in_normal_operation(now);
        let all = normal != self.was_normal;
        self.was_normal = normal;
        let profile = self.cfg.profile;
        let params = self.cfg.params;
        let limit = f64::from(params.max_balance) + GRACE;
        for (name, track) in self.tracks.iter_mut() {
            let open = track.misbalance.is_some()
                || track.kept.is_some()
                || track.panic.iter().any(Option::is_some);
            if !(all || track.dirty || open) {
                continue;
            }
            // Counts only change with the pool (dirty); otherwise only time and normal operation
            // move an episode on, and the levels of the last look still hold.
            let (lp, ls) = match (track.dirty || all, track.levels) {
                (false, Some(l)) => l,
                _ => {
                    let Some(pool) = self.state.pool(name) else {
                        continue;
                    };
                    let level = |role: Role| {
                        let c = pool.counts_for(role);
                        balancer::levels(profile, &params, role, c.free, c.backup)
                    };
                    let l = (level(Role::Primary), level(Role::Secondary));
                    track.levels = Some(l);
                    l
                }
            };
            track.dirty = false;
            let holder = if lp.lts >= ls.lts { lp } else { ls };

            let mis = normal && holder.imbalanced();
            if Episode::step(&mut track.misbalance, mis, now, frame, limit) {
                if let Some(e) = track.misbalance {
                    out.push(rules::misbalance(
                        frame,
                        name,
                        &holder,
                        e.since_frame,
                        now - e.since,
                        params.max_balance,
                    ));
                }
            }

            let kept = normal
                && !profile.skip_below_misbalance
                && holder.above_hold()
                && !holder.imbalanced();
            if Episode::step(&mut track.kept, kept, now, frame, limit) {
                if let Some(e) = track.kept {
                    out.push(rules::ownership_kept(
                        frame,
                        name,
                        &holder,
                        e.since_frame,
                        now - e.since,
                    ));
                }
            }

            for l in [lp, ls] {
                let ep = &mut track.panic[idx(l.role)];
                if Episode::step(ep, normal && l.panic_due(), now, frame, limit) {
                    if let Some(e) = *ep {
                        out.push(rules::panic_missing(
                            frame,
                            name,
                            &l,
                            e.since_frame,
                            now - e.since,
                        ));
                    }
                }
            }
        }
    }
}

/// A server's own free-state queue as the balancer sees it.
pub fn candidates(pool: &Pool, role: Role, hba: Option<Hba>) -> Vec<Candidate> {
    pool.own_queue(role)
        .into_iter()
        .map(|l| Candidate {
            address: l.address,
            ends: l.ends_for(role),
            peer_wants: hba.is_some_and(|h| l.peer_wants(role, &h)),
        })
        .collect()
}
