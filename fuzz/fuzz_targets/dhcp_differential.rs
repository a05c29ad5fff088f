//! Fuzz target `dhcp_differential`: its body, and what it checks, is `poolshark::fuzzing::dhcp_differential`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| poolshark::fuzzing::dhcp_differential(data));
