//! dhcpv4 wire format (to be written).
