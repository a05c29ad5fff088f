//! Sinks: text, JSON (to be written).
