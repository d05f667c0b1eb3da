//! libFuzzer entry for [`crossword_fuzz::compose_intent`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| crossword_fuzz::compose_intent(data));
