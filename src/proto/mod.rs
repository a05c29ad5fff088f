//! Application protocols on the wire: pure parsers over borrowed bytes, typed representations that
//! can be emitted back to bytes, and their display trees. No I/O here.

pub mod dhcpv4;
pub mod dhcpv6;
pub mod failover;
pub mod rserpool;
