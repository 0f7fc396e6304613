//! Browser adapters (wasm only): they implement the ports with IndexedDB, fetch, the JS tool
//! registry and the in-tab model, and expose the public JS API. They make no loop decisions.

pub mod abort;
pub mod any_model;
pub mod api;
#[cfg(feature = "diagnostics")]
pub mod bench;
pub mod commit_gates;
pub mod custom_client;
pub mod digest_cache;
pub mod http_stream;
pub mod idb_index;
pub mod idb_store;
pub mod js_error;
pub mod js_value;
pub mod local_bridge;
pub mod local_client;
pub mod local_shared;
pub mod local_warm;
pub mod locks;
pub mod log_channel;
pub mod mcp_api;
pub mod model_library;
pub mod network;
pub mod provider;
pub mod remote_client;
pub mod run_bound;
pub mod sampler;
pub mod session_follow;
pub mod stop_hook;
pub mod timer;
pub mod tool_host;
pub mod verify_api;
pub mod vfs_files;
pub mod visibility;
pub mod warm_open;

pub use http_stream::Timeouts;
pub use local_client::{LoadProgress, LocalLoadOptions, LocalModel};
pub use provider::Provider;
pub use remote_client::RemoteModel;
pub use timer::BrowserClock;
