#![no_main]
//! Fuzz target: see `tabloop_fuzz::checks::check_sse_providers`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| tabloop_fuzz::checks::check_sse_providers(data));
