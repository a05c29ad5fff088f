//! Fuzz target `display_filter`: its body, and what it checks, is `poolshark::fuzzing::display_filter`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| poolshark::fuzzing::display_filter(data));
