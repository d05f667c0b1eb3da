//! libFuzzer entry for [`crossword_fuzz::normalize`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| crossword_fuzz::normalize(data));
