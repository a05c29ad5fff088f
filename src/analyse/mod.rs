//! Analysers: reference algorithms and replays (to be written).

pub mod policy;
