//! libFuzzer entry for [`crossword_fuzz::upload_images`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| crossword_fuzz::upload_images(data));
