//! rserpool wire format (to be written).
