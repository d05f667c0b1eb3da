//! libFuzzer entry for [`crossword_fuzz::request_bodies`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| crossword_fuzz::request_bodies(data));
