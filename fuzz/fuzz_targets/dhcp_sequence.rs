//! Fuzz target `dhcp_sequence`: its body, and what it checks, is `poolshark::fuzzing::dhcp_sequence`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| poolshark::fuzzing::dhcp_sequence(data));
