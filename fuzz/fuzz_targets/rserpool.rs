//! Fuzz target `rserpool`: its body, and what it checks, is `poolshark::fuzzing::rserpool`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| poolshark::fuzzing::rserpool(data));
