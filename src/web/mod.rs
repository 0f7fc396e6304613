//! Browser adapters (wasm only): they implement the ports with IndexedDB, fetch, the JS tool
//! registry and the in-tab model. They make no loop decisions.

pub mod js_error;
