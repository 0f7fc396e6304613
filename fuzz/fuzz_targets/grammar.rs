#![no_main]
//! Fuzz target: see `tabloop_fuzz::checks::check_grammar`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| tabloop_fuzz::checks::check_grammar(data));
