//! In-flight work: model and tool calls as abortable futures, keyed so an `Abort` effect can
//! cancel exactly the calls it names.

use std::collections::HashMap;

use futures::future::{self, AbortHandle, Abortable, LocalBoxFuture};
use futures::stream::FuturesUnordered;

use crate::core::Input;

/// What identifies an in-flight call.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum WorkKey {
    /// A model request.
    Model(u64),
    /// A tool call.
    Tool(String),
}

/// The calls in flight. Each resolves to the input that reports its result.
#[derive(Default)]
pub struct InFlight {
    futures: FuturesUnordered<LocalBoxFuture<'static, Option<(WorkKey, Input)>>>,
    handles: HashMap<WorkKey, AbortHandle>,
}

impl InFlight {
    /// Starts tracking `future` under `key`.
    pub fn spawn(&mut self, key: WorkKey, future: LocalBoxFuture<'static, Input>) {
        let call = self.abortable(&key, future);
        self.futures.push(Box::pin(async move {
            call.await.ok().map(|input| (key, input))
        }));
    }

    /// `spawn`, and polls the call once now: a call that begins with a host call (and then
    /// waits) has begun when this returns.
    pub async fn start(&mut self, key: WorkKey, future: LocalBoxFuture<'static, Input>) {
        let mut call = Box::pin(future::maybe_done(self.abortable(&key, future)));
        let _ = futures::poll!(call.as_mut());
        self.futures.push(Box::pin(async move {
            call.as_mut().await;
            call.as_mut()
                .take_output()
                .and_then(Result::ok)
                .map(|input| (key, input))
        }));
    }

    /// `future`, aborted by `abort(key)`.
    fn abortable(
        &mut self,
        key: &WorkKey,
        future: LocalBoxFuture<'static, Input>,
    ) -> Abortable<LocalBoxFuture<'static, Input>> {
        let (handle, registration) = AbortHandle::new_pair();
        self.handles.insert(key.clone(), handle);
        Abortable::new(future, registration)
    }

    /// Aborts the call under `key` (dropping its future aborts the request).
    pub fn abort(&mut self, key: &WorkKey) {
        if let Some(handle) = self.handles.remove(key) {
            handle.abort();
        }
    }

    /// True when nothing is in flight.
    pub fn is_empty(&self) -> bool {
        self.futures.is_empty()
    }

    /// The next finished call's input; `None` for an aborted call. Must not be polled when empty.
    pub async fn next(&mut self) -> Option<Input> {
        use futures::StreamExt;
        let (key, input) = self.futures.next().await.flatten()?;
        self.handles.remove(&key);
        Some(input)
    }
}
