//! Fuzz target `handoff`: its body, and what it checks, is `poolshark::fuzzing::handoff`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| poolshark::fuzzing::handoff(data));
