//! The async driver: feeds inputs to the core, persists the records it emits (one atomic batch
//! per input, before any action), performs the actions through the ports and feeds the results
//! back. It makes no loop decisions; every one is the core's. Above it, the session service:
//! the only session lifecycle code (open, list, import, export, fork, delete) and the live
//! session the JS API and the UI control.

mod bounded;
mod commit;
mod driver;
mod driver_error;
pub mod guard_options;
mod live;
mod live_error;
mod notice;
pub mod options;
mod options_error;
pub mod prices;
mod resume;
pub mod sampling;
mod service;
pub mod synthetic;
pub mod synthetic_stream;
mod work;

pub use crate::ports::{DynFiles, DynStore, HostToolSpec, Platform, PlatformError};
pub use bounded::{settle_run, PauseWait, RunEnd};
pub use driver::{Command, Driver};
pub use driver_error::DriverError;
pub use live::{Listener, LiveSession, Pause, SessionEvent};
pub use live_error::LiveError;
pub use notice::{Notice, Observer};
pub use service::{
    drive, merge_provider, Launch, ListedSession, Resolved, ServiceError, SessionService,
    MAX_NAME_CHARS,
};
