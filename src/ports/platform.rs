//! [`Platform`]: what the session service needs of the page beyond the store (fresh session
//! ids, the tools the page registered, and running a live session: its lock, its driver task,
//! its model client and tool host), and the typed [`PlatformError`] it fails with. The
//! composition root implements it; tests implement it with scripted adapters.

use futures::future::LocalBoxFuture;

use super::HostToolSpec;

/// Why the platform could not list the tools or run a session.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlatformError {
    /// The page's tool registry could not be read.
    #[error("{0}")]
    Tools(String),
    /// The session's lock could not be asked for.
    #[error("{0}")]
    Lock(String),
    /// The provider options do not make a model client.
    #[error("{0}")]
    Provider(String),
}

/// The page's side of running sessions. `Launch` is what the session service hands over to
/// run one (its live half, configuration, provider and commands).
pub trait Platform<Launch> {
    /// A fresh session id; call once per new session.
    fn new_session_id(&self) -> String;
    /// The tools the page registered; call when resolving a session's options.
    fn registered_tools(&self) -> LocalBoxFuture<'_, Result<Vec<HostToolSpec>, PlatformError>>;
    /// Starts running `launch` (its driver may start later, once this page holds the lock);
    /// call once per opened session.
    fn launch(&self, launch: Launch) -> LocalBoxFuture<'_, Result<(), PlatformError>>;
}
