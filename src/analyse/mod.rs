//! Analysers: reference algorithms and replays.

pub mod dhcp_lb;
