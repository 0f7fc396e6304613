//! tabloop: an LLM agent loop that lives in a browser tab.
//!
//! The loop core ([`core`]) is a sans-IO state machine: inputs in, effects out, no clock, no I/O.
//! [`protocol`] holds the wire types and pure stream parsers, [`ports`] the traits the runtime
//! performs effects through, [`runtime`] the async driver that connects them, and [`view`] the
//! view models the UI and the JS API present. The browser
//! adapters (`web`), the composition root (`app`) and the Leptos UI (`ui`) exist only on
//! `wasm32`; the UI only with the `playground` feature (on by default, off in the library
//! package).

pub mod core;
pub mod ports;
pub mod protocol;
pub mod providers;
pub mod runtime;
pub mod view;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(all(target_arch = "wasm32", feature = "playground"))]
pub mod ui;
#[cfg(target_arch = "wasm32")]
pub mod web;
