//! Analysers: typed events in, reference algorithms, findings out. Policy lives here, apart from
//! parsing.

pub mod dhcp_lb;
pub mod failover;
pub mod finding;
pub mod policy;
