//! libFuzzer entry for [`crossword_fuzz::grid`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| crossword_fuzz::grid(data));
