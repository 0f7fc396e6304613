//! One in-tab model for the whole page: loaded on first use, shared by every session, with its
//! progress broadcast to whoever listens (the progress bar). One model at a time: asking for
//! another unloads the one loaded (once its running call ends) before the new one starts. A
//! load that nobody waits for any more (the run that asked for it was stopped) is aborted, so
//! a cancelled download stops and leaves nothing stored.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::future::{FutureExt, LocalBoxFuture, Shared};

use super::local_client::{LoadProgress, LocalLoadOptions, LocalModel};
use crate::protocol::{ModelError, ModelErrorKind};

/// A listener of load progress.
type ProgressListener = Rc<dyn Fn(&LoadProgress)>;

type Loading = Shared<LocalBoxFuture<'static, Result<Rc<LocalModel>, ModelError>>>;

/// The model loaded or loading, and how many calls wait for it.
struct Slot {
    /// Which load this is (a later one replaces it).
    generation: u64,
    /// Its GGUF (`None`: the bundled default).
    url: Option<String>,
    /// The load, shared by every waiter.
    loading: Loading,
    /// Calls waiting for the load to finish.
    waiters: usize,
}

thread_local! {
    static SLOT: RefCell<Option<Slot>> = const { RefCell::new(None) };
    static GENERATION: Cell<u64> = const { Cell::new(0) };
    static LISTENERS: RefCell<Vec<ProgressListener>> = const { RefCell::new(Vec::new()) };
    static LAST: RefCell<Option<LoadProgress>> = const { RefCell::new(None) };
}

/// Calls `listener` with every progress report from now on (and the last one, at once).
pub fn on_progress(listener: ProgressListener) {
    if let Some(last) = LAST.with(|l| l.borrow().clone()) {
        listener(&last);
    }
    LISTENERS.with(|l| l.borrow_mut().push(listener));
}

fn broadcast(report: &LoadProgress) {
    // `idle` ends a call's progress (reading the prompt, writing); after anything else (the
    // warm-up's `ready`, a load that stopped) it has nothing to say and would hide that.
    let in_call = || {
        LAST.with(|l| {
            l.borrow()
                .as_ref()
                .is_some_and(|last| last.phase == "prompt" || last.phase == "writing")
        })
    };
    if report.phase == "idle" && !in_call() {
        return;
    }
    LAST.with(|l| *l.borrow_mut() = Some(report.clone()));
    let listeners = LISTENERS.with(|l| l.borrow().clone());
    for listener in listeners {
        listener(report);
    }
}

/// Tells the listeners the model is ready with `tokens` of the prompt read ahead (the warm-up
/// on page load), so the header does not keep showing the warm-up's one written piece.
pub fn broadcast_ready(tokens: u64) {
    broadcast(&LoadProgress {
        phase: "ready".to_string(),
        loaded: tokens,
        total: Some(tokens),
        from_cache: true,
        per_second: None,
        note: None,
    });
}

/// Tells the listeners the load ended without a model (`stopped` or `failed`), where it was.
fn broadcast_end(phase: &str) {
    let last = LAST.with(|l| l.borrow().clone());
    broadcast(&LoadProgress {
        phase: phase.to_string(),
        loaded: last.as_ref().map_or(0, |p| p.loaded),
        total: last.as_ref().and_then(|p| p.total),
        from_cache: last.as_ref().is_some_and(|p| p.from_cache),
        per_second: None,
        note: None,
    });
}

fn is_current(generation: u64) -> bool {
    SLOT.with(|slot| {
        slot.borrow()
            .as_ref()
            .is_some_and(|s| s.generation == generation)
    })
}

/// The load of the model at `url`, after unloading the model it replaces.
fn start(url: Option<String>, generation: u64, previous: Option<Loading>) -> Loading {
    let future: LocalBoxFuture<'static, Result<Rc<LocalModel>, ModelError>> = async move {
        if let Some(previous) = previous {
            if let Some(Ok(model)) = previous.peek() {
                // Its memory is freed before the next model takes its own; a failure only
                // means the worker was already gone.
                let _ = model.release().await;
            }
            // A load still under way is aborted here unless a call still waits for it.
            drop(previous);
        }
        let options = LocalLoadOptions {
            module_url: None,
            model_url: url,
        };
        let model = Rc::new(LocalModel::load(&options, |report| broadcast(&report)).await?);
        if is_current(generation) {
            return Ok(model);
        }
        let _ = model.release().await;
        Err(ModelError {
            kind: ModelErrorKind::LocalModel,
            message: "another model was chosen while this one was loading; run again".to_string(),
        })
    }
    .boxed_local();
    future.shared()
}

/// Counts a call waiting for a load; the last one to leave before the load ends aborts it.
struct Waiter {
    generation: u64,
}

impl Drop for Waiter {
    fn drop(&mut self) {
        let abandoned = SLOT.with(|slot| {
            let mut slot = slot.try_borrow_mut().ok()?;
            let current = slot.as_mut().filter(|s| s.generation == self.generation)?;
            current.waiters = current.waiters.saturating_sub(1);
            if current.waiters == 0 && current.loading.peek().is_none() {
                slot.take()
            } else {
                None
            }
        });
        if let Some(abandoned) = abandoned {
            // Dropped outside the borrow: dropping the load aborts its download or start.
            drop(abandoned);
            broadcast_end("stopped");
        }
    }
}

/// The model at `url` (the default model when `None`), loading it if needed. A failed load is
/// forgotten so the next call tries again; dropping the future stops waiting (and aborts the
/// load when no other call waits for it).
pub async fn local_model(url: Option<String>) -> Result<Rc<LocalModel>, ModelError> {
    let (generation, loading) = SLOT.with(|slot| {
        let mut slot = slot.borrow_mut();
        if let Some(current) = slot.as_mut().filter(|s| s.url == url) {
            current.waiters += 1;
            return (current.generation, current.loading.clone());
        }
        let generation = GENERATION.with(|g| {
            g.set(g.get() + 1);
            g.get()
        });
        let previous = slot.take().map(|s| s.loading);
        let loading = start(url.clone(), generation, previous);
        *slot = Some(Slot {
            generation,
            url,
            loading: loading.clone(),
            waiters: 1,
        });
        (generation, loading)
    });
    let waiter = Waiter { generation };
    let result = loading.await;
    drop(waiter);
    if result.is_err() {
        let forgotten = SLOT.with(|slot| {
            let mut slot = slot.borrow_mut();
            match slot.as_ref() {
                Some(s) if s.generation == generation => slot.take(),
                Some(_) | None => None,
            }
        });
        if forgotten.is_some() {
            drop(forgotten);
            broadcast_end("failed");
        }
    }
    result
}
