//! Leptos components over read-only view models. One public component per file; components never
//! construct adapters (the composition root in `app` does).

mod playground;

pub use playground::Playground;
