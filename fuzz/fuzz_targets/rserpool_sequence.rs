//! Fuzz target `rserpool_sequence`: its body, and what it checks, is `poolshark::fuzzing::rserpool_sequence`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| poolshark::fuzzing::rserpool_sequence(data));
