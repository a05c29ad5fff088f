//! Fuzz target `dhcpv6`: its body, and what it checks, is `poolshark::fuzzing::dhcpv6`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| poolshark::fuzzing::dhcpv6(data));
