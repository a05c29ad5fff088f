//! Fuzz target `dhcpv4`: its body, and what it checks, is `poolshark::fuzzing::dhcpv4`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| poolshark::fuzzing::dhcpv4(data));
