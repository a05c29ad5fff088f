//! failover wire format (to be written).
