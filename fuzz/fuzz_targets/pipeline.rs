//! Fuzz target `pipeline`: its body, and what it checks, is `poolshark::fuzzing::pipeline`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| poolshark::fuzzing::pipeline(data));
