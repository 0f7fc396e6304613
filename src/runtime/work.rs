//! In-flight work: model and tool calls as futures, keyed so an `Abort` effect can cancel
//! exactly the calls it names.
//!
//! An aborted call's future is dropped at once, inside `abort`, not when the set is next polled:
//! dropping it is what aborts the browser work behind it (the fetch, the page's `signal`), and
//! the driver may settle the run (a cancel's records committed) before it polls the work again.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures::future::{self, LocalBoxFuture};
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

/// One call's future, shared between the set that polls it and the key that can drop it.
struct Slot {
    /// The call; `None` once it finished or was aborted.
    future: Option<LocalBoxFuture<'static, Input>>,
    /// Who polled it last, woken by an abort so the set forgets the call.
    waker: Option<Waker>,
}

type SharedSlot = Rc<RefCell<Slot>>;

/// Polls a slot's call; resolves to `None` once the call was aborted.
struct Tracked {
    key: Option<WorkKey>,
    slot: SharedSlot,
}

impl Future for Tracked {
    type Output = Option<(WorkKey, Input)>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = self.slot.borrow_mut();
        let Some(future) = slot.future.as_mut() else {
            return Poll::Ready(None);
        };
        match future.as_mut().poll(cx) {
            Poll::Ready(input) => {
                let finished = slot.future.take();
                drop(slot);
                drop(finished);
                Poll::Ready(self.key.take().map(|key| (key, input)))
            }
            Poll::Pending => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// The calls in flight. Each resolves to the input that reports its result.
#[derive(Default)]
pub struct InFlight {
    futures: FuturesUnordered<LocalBoxFuture<'static, Option<(WorkKey, Input)>>>,
    slots: HashMap<WorkKey, SharedSlot>,
}

impl InFlight {
    /// Starts tracking `future` under `key`.
    pub fn spawn(&mut self, key: WorkKey, future: LocalBoxFuture<'static, Input>) {
        let tracked = self.track(key, future);
        self.futures.push(Box::pin(tracked));
    }

    /// `spawn`, and polls the call once now: a call that begins with a host call (and then
    /// waits) has begun when this returns.
    pub async fn start(&mut self, key: WorkKey, future: LocalBoxFuture<'static, Input>) {
        let mut tracked = self.track(key, future);
        match futures::poll!(&mut tracked) {
            Poll::Ready(done) => self.futures.push(Box::pin(future::ready(done))),
            Poll::Pending => self.futures.push(Box::pin(tracked)),
        }
    }

    fn track(&mut self, key: WorkKey, future: LocalBoxFuture<'static, Input>) -> Tracked {
        let slot = Rc::new(RefCell::new(Slot {
            future: Some(future),
            waker: None,
        }));
        self.slots.insert(key.clone(), Rc::clone(&slot));
        Tracked {
            key: Some(key),
            slot,
        }
    }

    /// Aborts the call under `key`: its future is dropped now, which aborts the request.
    pub fn abort(&mut self, key: &WorkKey) {
        let Some(slot) = self.slots.remove(key) else {
            return;
        };
        // Taken out first, dropped with no borrow held: dropping may call into the page.
        let (future, waker) = {
            let mut slot = slot.borrow_mut();
            (slot.future.take(), slot.waker.take())
        };
        drop(future);
        if let Some(waker) = waker {
            waker.wake();
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
        self.slots.remove(&key);
        Some(input)
    }
}
