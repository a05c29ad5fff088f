//! Fuzz target `failover`: its body, and what it checks, is `poolshark::fuzzing::failover`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| poolshark::fuzzing::failover(data));
