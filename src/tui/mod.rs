//! `poolshark tui`: the balance of every pool over time, in a terminal.
//!
//! It shows what `poolshark stats` and `check` compute (the analysers' [`crate::analyse::Report`]:
//! per-subject windows and findings), in layers kept apart so each can be tested alone:
//!
//! * [`loader`]: the pipeline and the analysers on background threads, sending [`snapshot::Update`]s
//!   (progress, and copies of the results) to the UI; the same path serves a file and a live
//!   capture (any [`crate::source::FrameSource`] that is `Send`);
//! * [`app`]: the model: the subjects and findings as last sent, and where the user is (selection,
//!   focused pane, display interval, filters, scroll positions, help and detail views);
//! * [`keys`]: a key becomes an [`app::Action`] that [`app::App::handle`] applies;
//! * [`view`]: pure rendering of an `&App` into a ratatui frame ([`crate::output::chart`] works out what the chart
//!   plots, [`palette`] the colours or their absence);
//! * [`detail`]: the frame behind a finding, decoded again;
//! * [`terminal`] and [`event_loop`]: the real terminal (restored on exit and on panic) and the loop
//!   tying it together.

pub mod app;
pub mod detail;
pub mod event_loop;
pub mod keys;
pub mod loader;
pub mod palette;
pub mod snapshot;
pub mod terminal;
pub mod view;
pub mod wrap;

#[cfg(test)]
mod tests;

pub use app::App;
pub use event_loop::{run, FrameLookup};
pub use loader::{Loader, LoaderConfig};
pub use snapshot::LoadState;
