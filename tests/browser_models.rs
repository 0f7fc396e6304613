//! Browser tests of the model clients in headless Chromium: the remote client against the
//! loopback mock provider (`tests/support/mock_provider.mjs`, at `MOCK_PROVIDER_URL` when set at
//! build time, else `http://127.0.0.1:8791`), and the local client against a fake model module.
//! Run through `tests/support/run_with_mock.sh -- cargo test --target wasm32-unknown-unknown
//! --test browser_models`.
#![cfg(target_arch = "wasm32")]
// Test code: a failed expectation should panic. (clippy's allow-*-in-tests settings do not see
// `#[wasm_bindgen_test]` functions or their helpers.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "browser_models/support.rs"]
mod support;

#[path = "browser_models/remote.rs"]
mod remote;

#[path = "browser_models/faults.rs"]
mod faults;

#[path = "browser_models/local.rs"]
mod local;

#[path = "browser_models/late_reports.rs"]
mod late_reports;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
