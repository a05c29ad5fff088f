//! What happened to a registrar's pools over time, as events on a timeline: a PE deregistering
//! (an accepted ASAP Deregistration), a PE registering again while registered (with what
//! changed), and the registrar taking over a failed peer's PEs (ENRP Takeover Server).
//!
//! Each event is a point in time with its frame, the registrar, the pools it concerns and a
//! sentence: what a shared episode or event type needs (subject, kind, start = end, frames,
//! text). `check` lists them per registrar (text and JSON), `stats` per pool, and the TUI marks
//! them on a pool's chart; all from the same record.

use serde_json::{json, Value};

use super::handle::{pe_hex, PoolHandle};
use crate::analyse::policy::{percent_of, SettingChange};
use crate::base::Timestamp;

/// Events kept per registrar (the rest are counted).
pub const MAX_EVENTS: usize = 256;
/// Pools named by one event (a takeover may concern every pool; the PEs are counted whole).
pub const MAX_EVENT_POOLS: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EventKind {
    Deregistration,
    Reregistration,
    Takeover,
}

impl EventKind {
    /// The name JSON gives it.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Deregistration => "deregistration",
            EventKind::Reregistration => "reregistration",
            EventKind::Takeover => "takeover",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct RegistrarEvent {
    pub kind: EventKind,
    pub frame: u64,
    pub time: Timestamp,
    /// The pools it concerns: the PE's, or (a takeover) every pool holding a PE whose home was
    /// the target.
    pub pools: Vec<PoolHandle>,
    /// The PE that deregistered or registered again.
    pub pe: Option<u32>,
    /// A takeover: the server id of the registrar whose PEs were taken over, and how many.
    pub target: Option<u32>,
    pub taken: usize,
    /// A re-registration: what changed ("load 50.0 % -> 5.0 %"), empty when nothing did.
    pub changes: Vec<String>,
}

impl RegistrarEvent {
    pub fn deregistration(frame: u64, time: Timestamp, pool: &PoolHandle, pe: u32) -> Self {
        RegistrarEvent {
            kind: EventKind::Deregistration,
            frame,
            time,
            pools: vec![pool.clone()],
            pe: Some(pe),
            target: None,
            taken: 0,
            changes: Vec::new(),
        }
    }

    pub fn reregistration(
        frame: u64,
        time: Timestamp,
        pool: &PoolHandle,
        pe: u32,
        changes: &[SettingChange],
    ) -> Self {
        RegistrarEvent {
            kind: EventKind::Reregistration,
            frame,
            time,
            pools: vec![pool.clone()],
            pe: Some(pe),
            target: None,
            taken: 0,
            changes: changes.iter().map(change_text).collect(),
        }
    }

    pub fn takeover(
        frame: u64,
        time: Timestamp,
        target: u32,
        pools: Vec<PoolHandle>,
        taken: usize,
    ) -> Self {
        RegistrarEvent {
            kind: EventKind::Takeover,
            frame,
            time,
            pools,
            pe: None,
            target: Some(target),
            taken,
            changes: Vec::new(),
        }
    }

    /// What happened, in words, without the registrar ("0x00010005 deregistered from RR-Pool").
    pub fn describe(&self) -> String {
        let pools: Vec<String> = self.pools.iter().map(ToString::to_string).collect();
        let pe = self.pe.map(pe_hex).unwrap_or_default();
        match self.kind {
            EventKind::Deregistration => format!("{pe} deregistered from {}", pools.join(", ")),
            EventKind::Reregistration if self.changes.is_empty() => {
                format!("{pe} registered again in {}, unchanged", pools.join(", "))
            }
            EventKind::Reregistration => format!(
                "{pe} registered again in {}: {}",
                pools.join(", "),
                self.changes.join(", ")
            ),
            EventKind::Takeover => {
                let target = self
                    .target
                    .map(|t| format!("0x{t:08x}"))
                    .unwrap_or_default();
                let pools = if pools.is_empty() {
                    String::new()
                } else {
                    format!(" in {}", pools.join(", "))
                };
                format!(
                    "took over registrar {target} (ENRP Takeover Server): {} PE(s) now at home here{pools}",
                    self.taken
                )
            }
        }
    }

    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "kind": self.kind.name(),
            "frame": self.frame,
            "time": self.time.as_f64(),
            "pools": self.pools.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "text": self.describe(),
        });
        if let Some(pe) = self.pe {
            v["pe"] = pe_hex(pe).into();
        }
        if let Some(t) = self.target {
            v["target"] = format!("0x{t:08x}").into();
            v["pes_taken"] = self.taken.into();
        }
        if self.kind == EventKind::Reregistration {
            v["changes"] = self.changes.clone().into();
        }
        v
    }
}

/// A setting a re-registration changed, in words.
fn change_text(c: &SettingChange) -> String {
    match *c {
        SettingChange::Weight { from, to } => format!("weight {from} -> {to}"),
        SettingChange::Priority { from, to } => format!("priority {from} -> {to}"),
        SettingChange::Load { from, to } => {
            format!("load {:.1} % -> {:.1} %", percent_of(from), percent_of(to))
        }
        SettingChange::LoadDegradation { from, to } => format!(
            "load degradation {:.1} % -> {:.1} %",
            percent_of(from),
            percent_of(to)
        ),
    }
}

/// One registrar's events in time order, bounded.
#[derive(Clone, Debug, Default)]
pub struct EventLog {
    events: Vec<RegistrarEvent>,
    /// Events past [`MAX_EVENTS`], counted only.
    pub dropped: u64,
}

impl EventLog {
    pub fn push(&mut self, e: RegistrarEvent) {
        if self.events.len() < MAX_EVENTS {
            self.events.push(e);
        } else {
            self.dropped += 1;
        }
    }

    pub fn list(&self) -> &[RegistrarEvent] {
        &self.events
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty() && self.dropped == 0
    }

    /// Takes another log of the same registrar (two names of it), in frame order.
    pub fn absorb(&mut self, other: EventLog) {
        self.dropped += other.dropped;
        self.events.extend(other.events);
        self.events.sort_by_key(|e| e.frame);
        if self.events.len() > MAX_EVENTS {
            self.dropped += (self.events.len() - MAX_EVENTS) as u64;
            self.events.truncate(MAX_EVENTS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::policy::scaled_from_percent;

    #[test]
    fn events_in_words_and_json() {
        let pool = PoolHandle::new(b"LU-Pool");
        let t = Timestamp::new(1_700_000_000, 500_000_000);
        let load = |p| scaled_from_percent(p).expect("percent");
        let e = RegistrarEvent::reregistration(
            12,
            t,
            &pool,
            0x60004,
            &[SettingChange::Load {
                from: load(80.0),
                to: load(5.0),
            }],
        );
        assert_eq!(
            e.describe(),
            "0x00060004 registered again in LU-Pool: load 80.0 % -> 5.0 %"
        );
        assert_eq!(e.to_json()["changes"], json!(["load 80.0 % -> 5.0 %"]));
        let e = RegistrarEvent::takeover(40, t, 1, vec![pool.clone()], 2);
        assert_eq!(
            e.describe(),
            "took over registrar 0x00000001 (ENRP Takeover Server): 2 PE(s) now at home here in LU-Pool"
        );
        assert_eq!(e.to_json()["kind"], "takeover");
        let mut log = EventLog::default();
        for i in 0..MAX_EVENTS as u64 + 3 {
            log.push(RegistrarEvent::deregistration(i, t, &pool, 1));
        }
        assert_eq!((log.list().len(), log.dropped), (MAX_EVENTS, 3));
    }
}
