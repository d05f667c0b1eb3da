//! libFuzzer entry for [`crossword_fuzz::data_files`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| crossword_fuzz::data_files(data));
