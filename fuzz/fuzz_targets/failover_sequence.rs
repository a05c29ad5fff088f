//! Fuzz target `failover_sequence`: its body, and what it checks, is `poolshark::fuzzing::failover_sequence`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| poolshark::fuzzing::failover_sequence(data));
