//! libFuzzer entry for [`crossword_fuzz::puzzle_files`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| crossword_fuzz::puzzle_files(data));
