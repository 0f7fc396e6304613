//! The four ports one session runs on, named together, so the driver states what it needs of
//! them once instead of in every `impl` block of its files.

use super::{Clock, EventStore, ModelClient, ToolHost};

/// A model client, an event store, a tool host and a clock, as one type: a tuple
/// `(model, store, tools, clock)` of types that implement those ports is one.
pub trait PortSet: 'static {
    /// Answers the model calls.
    type Model: ModelClient + 'static;
    /// Keeps the event log.
    type Store: EventStore + 'static;
    /// Runs the host's tools.
    type Tools: ToolHost + 'static;
    /// Tells the time and waits.
    type Clock: Clock + 'static;
}

impl<M, S, T, C> PortSet for (M, S, T, C)
where
    M: ModelClient + 'static,
    S: EventStore + 'static,
    T: ToolHost + 'static,
    C: Clock + 'static,
{
    type Model = M;
    type Store = S;
    type Tools = T;
    type Clock = C;
}
