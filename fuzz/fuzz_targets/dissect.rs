//! Fuzz target `dissect`: its body, and what it checks, is `poolshark::fuzzing::dissect`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| poolshark::fuzzing::dissect(data));
