#![no_main]
//! Fuzz target: see `tabloop_fuzz::checks::check_mcp_sampling`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| tabloop_fuzz::checks::check_mcp_sampling(data));
