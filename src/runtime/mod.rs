//! The async driver: feeds inputs to the core, persists the records it emits (one atomic batch
//! per input, before any action), performs the actions through the ports and feeds the results
//! back. It makes no loop decisions; every one is the core's.

mod driver;
mod notice;
pub mod options;
pub mod prices;
pub mod synthetic;
mod work;

pub use driver::{Command, Driver, DriverError};
pub use notice::{Notice, Observer};
