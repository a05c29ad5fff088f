//! dhcpv6 wire format (to be written).
