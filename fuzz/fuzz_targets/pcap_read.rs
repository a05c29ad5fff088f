//! Fuzz target `pcap_read`: its body, and what it checks, is `poolshark::fuzzing::pcap_read`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| poolshark::fuzzing::pcap_read(data));
