//! The RSerPool replay of `poolshark check`: every Handle Resolution Response is compared with
//! the answer the reference policies (`analyse::policy`) give for the pool as its registrar must
//! hold it.
//!
//! The layers, each in its file:
//! * `events.rs`: typed events from decoded ASAP/ENRP messages (the replay sees nothing else);
//! * `directory.rs`: which registrar a message concerns (server ids, ASAP and ENRP endpoints,
//!   and how one is tied to the other);
//! * `pending.rs`: requests matched to their responses per association and pool handle;
//! * `membership.rs`: who is in a pool at a registrar (registrations, updates, expiry,
//!   keep-alives, unreachable reports);
//! * `selection.rs`: the reference selection state per profile and the checks of an answer;
//! * `spread.rs`: weighted round robin under the texts, judged by the list's properties;
//! * `fit.rs`: the goodness-of-fit of randomised pools;
//! * `registrar_events.rs`: deregistrations, re-registrations and takeovers per registrar;
//! * `replay/`: the engine tying them together; `report.rs`: what the report shows (registrars
//!   in order, pool rows), which `output::report::rserpool` writes as tables and sentences.
//!
//! # Findings
//!
//! | rule | severity | expected | observed |
//! |---|---|---|---|
//! | `rserpool.duplicate-pe` | error | the answer's PEs, each once | PEs listed more than once |
//! | `rserpool.unknown-pe` | error | the pool's members | listed PEs that are not members |
//! | `rserpool.too-many` | error | items allowed (number) | PEs listed (number) |
//! | `rserpool.too-few` | warning | PEs the reference lists (number) | PEs listed (number) |
//! | `rserpool.zero-weight` | error | `[]` | listed PEs the policy never picks |
//! | `rserpool.order` | warning | the listed PEs in key order | the answer |
//! | `rserpool.not-least` | warning | the reference's answer | the answer |
//! | `rserpool.rr-head-stuck` | warning | the reference's first PE | the answer's first PE |
//! | `rserpool.sequence` | warning | the reference's answer | the answer |
//! | `rserpool.wrr-ratio` | warning | weights by PE | first places by PE in one round |
//! | `rserpool.wrr-repeat` | warning | `null`, or the repeats a heavy PE cannot avoid | the PE, or its repeats |
//! | `rserpool.distribution` | warning | expected counts by PE | observed counts by PE |
//! | `rserpool.policy-inconsistent` | error (accepted, or listed in an answer) / warning (rejected though consistent) | the pool's policy | the offered or listed policy |
//! | `rserpool.not-found` | warning | the pool's members | the causes of the negative answer |
//! | `rserpool.unknown-pool` | info | `null` | the answer (not checked) |
//! | `rserpool.expired`, `rserpool.keep-alive-failed`, `rserpool.unreachable-removed` | info | `null` | the PE removed |
//!
//! PE ids are JSON strings `0x%08x`; pools are named by their handle, as text when printable,
//! else in hex. Each message names the registrar. Which checks run on an answer, and in which
//! order, is in `selection.rs`: `sequence` is reported only when no more specific rule explains
//! the difference, so one wrong answer gives one finding. After each answer the reference state
//! follows what the registrar said, and after a deviation it resynchronises to the registrar's
//! state as its answers show it (`selection.rs`), so one fault is not reported again in every
//! later answer. Weighted round robin under the texts is judged by the properties of the list
//! (`spread.rs`), not by one order.
//!
//! # Profiles
//!
//! `--profile rfc5356|draft01|rsplib` replays under that reading. `auto` (the default) replays
//! every registrar under all three, holds the per-answer findings of each (10,000 per profile
//! whole, the rest tallied so that their counts stay exact), and at the end reports
//! for each registrar those of the profile with the fewest deviations plus resolutions it cannot
//! model (ties: rsplib, then rfc5356, then draft01), with a sentence saying how far the others
//! are. Under `auto` the timeline records the expectations of rsplib.
//!
//! # Timeline
//!
//! Every checked answer is recorded (members as `0x%08x`) with the lead profile's probability of
//! each member being first and being listed: the exact answer for deterministic policies, the
//! draw probabilities for randomised ones. The gauge `pes` counts the members; members are
//! described by their settings ("weight 3", "load 50.0 %") with their long-run share of first
//! places. A pool's series joins the answers of all registrars.

mod directory;
mod events;
mod fit;
mod handle;
mod membership;
mod pending;
pub(crate) mod registrar_events;
pub(crate) mod replay;
pub(crate) mod report;
pub(crate) mod rules;
mod selection;
mod spread;
pub(crate) mod state;

pub use directory::RegistrarId;
pub use events::{from_decoded, Endpoint, Event, Meta, PeInfo, PolicyInfo};
pub use handle::PoolHandle;
pub use membership::MAX_BAD_PE_REPORTS;
pub use replay::Counters;
pub use rules::Rule;

use super::policy::{Profile, DRAFT01, RFC5356, RSPLIB};
use super::{Analyser, Report, View};
use crate::base::Timestamp;
use crate::pipeline::Decoded;
use crate::proto::AppProtocol;

/// The RSerPool replay as an analyser of `poolshark check`.
pub struct RserpoolAnalyser {
    engine: replay::Engine,
}

impl RserpoolAnalyser {
    /// Under one profile.
    pub fn with_profile(profile: &'static Profile) -> Self {
        RserpoolAnalyser {
            engine: replay::Engine::new(vec![profile], false),
        }
    }

    /// Under every profile, reporting per registrar the one it follows.
    pub fn auto() -> Self {
        RserpoolAnalyser {
            engine: replay::Engine::new(vec![&RSPLIB, &RFC5356, &DRAFT01], true),
        }
    }

    /// Under `auto`, holds at most `n` whole findings per profile until the end chooses one; the
    /// others are tallied by rule, subject and time window, so counts stay exact (default 10,000).
    pub fn holding(mut self, n: usize) -> Self {
        self.engine.set_held_limit(n);
        self
    }

    /// From `--profile`: `rfc5356`, `draft01`, `rsplib`, or `auto` / none.
    pub fn from_profile_name(name: Option<&str>) -> Result<Self, String> {
        match name {
            None | Some("auto") => Ok(Self::auto()),
            Some(n) => Profile::by_name(n).map(Self::with_profile).ok_or_else(|| {
                format!("unknown RSerPool profile {n:?}: use rfc5356, draft01, rsplib or auto")
            }),
        }
    }

    /// Counts of what the replay could not use.
    pub fn counters(&self) -> &Counters {
        &self.engine.counters
    }
}

impl Analyser for RserpoolAnalyser {
    fn name(&self) -> &'static str {
        "rserpool"
    }

    fn protocols(&self) -> &'static [AppProtocol] {
        &[AppProtocol::Asap, AppProtocol::Enrp]
    }

    fn message(&mut self, d: &Decoded<'_>, report: &mut Report) {
        if let Some((meta, event)) = from_decoded(d) {
            self.engine.handle(&meta, event, report);
        }
    }

    /// The end: what the replay held, and the pools' windows up to the capture's last frame
    /// (members still registered were there until then).
    fn finish(&mut self, last: Option<Timestamp>, report: &mut Report) {
        self.engine.finish(report);
        if let Some(t) = last {
            report.timeline.extend_members(t);
        }
    }

    fn view(&self) -> View<'_> {
        View::Rserpool(self)
    }
}
