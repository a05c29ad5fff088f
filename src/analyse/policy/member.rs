//! A pool element as the selection sees it: its settings and the state the policies keep.

use super::settings::PeSettings;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub pe_id: u32,
    pub settings: PeSettings,
    /// Round-robin position among equal keys: smaller goes first, a member that advances gets a
    /// fresh, larger number (RSPLIB's per-pool sequence number).
    pub seq: u64,
    /// WRR (RSPLIB's rule): the round this member is in.
    pub round: u64,
    /// WRR (RSPLIB's rule): picks left in this round.
    pub virtual_counter: u32,
    /// WRR (the texts' spread list): this member's slots the head has passed in the current
    /// round of the list.
    pub spread_count: u64,
    /// The range of slots of its next occurrence in the list (worked out once per occurrence:
    /// `wrr::spread_advance` compares them at every answer).
    pub spread_range: Option<(u128, u128)>,
    /// LUD and RSPLIB's degradation policies: accumulated degradation on the load scale
    /// (RFC 5356's "counter x load degradation", the draft's "counter += degradation").
    pub degradation: u64,
    /// How many answers this member appeared in since it registered.
    pub selections: u64,
}

impl Member {
    pub fn new(pe_id: u32, settings: PeSettings, seq: u64) -> Self {
        Member {
            pe_id,
            settings,
            seq,
            round: 0,
            virtual_counter: 0,
            spread_count: 0,
            spread_range: None,
            degradation: 0,
            selections: 0,
        }
    }
}

/// The order of a sorted policy: smaller first; `seq` breaks ties round-robin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SortKey {
    pub primary: u64,
    pub secondary: u64,
    pub seq: u64,
}

impl SortKey {
    pub fn new(primary: u64, secondary: u64, seq: u64) -> Self {
        SortKey {
            primary,
            secondary,
            seq,
        }
    }
}
