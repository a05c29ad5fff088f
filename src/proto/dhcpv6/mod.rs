//! dhcpv6 wire format (being written).
pub mod names;
