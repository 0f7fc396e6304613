//! The host's next task, as the driver's run loop sees it: when to hear of it (stored records
//! are announced, and relaxed ones written, in a later task than the step that made them), and
//! when to wait for it (a run that never waits on anything outside would otherwise hold the
//! host until it ends: in a browser nothing painted, no input heard, nothing written).

use std::rc::Rc;

use futures::future::LocalBoxFuture;

use crate::core::Millis;
use crate::ports::Clock;

/// How long the driver goes on with no task of the host's seen in between before it lets the
/// host have one (a frame, in a browser).
const SLICE_MS: Millis = 16;

/// The next task the driver asked the host for, and since when it has gone on without seeing
/// one run.
pub(super) struct NextTask<C> {
    clock: Rc<C>,
    /// The host's next task, while the driver has something due in it.
    due: Option<LocalBoxFuture<'static, ()>>,
    /// When the slice began (`None`: at the next wait). Only a task seen ends it: a long wait
    /// for a wake in which none was asked for (a model call with nothing to announce) costs
    /// one needless task hop afterwards.
    since: Option<Millis>,
}

impl<C: Clock + 'static> NextTask<C> {
    pub(super) fn new(clock: Rc<C>) -> Self {
        Self {
            clock,
            due: None,
            since: None,
        }
    }

    /// Called as the driver goes back to waiting, with whether something is due in a later task
    /// (records to announce or write). True when a whole slice went by without the host getting
    /// a task: the driver should `wait` for one now.
    pub(super) async fn before_waiting(&mut self, something_due: bool) -> bool {
        // One that came while the driver worked is no longer a later task.
        if let Some(due) = self.due.as_mut() {
            if futures::poll!(due).is_ready() {
                self.seen();
            }
        }
        if !something_due {
            self.due = None;
        } else if self.due.is_none() {
            let clock = self.clock.clone();
            self.due = Some(Box::pin(async move { clock.soon().await }));
        }
        let now = self.clock.now();
        now.saturating_sub(*self.since.get_or_insert(now)) >= SLICE_MS
    }

    /// Waits for the host's next task.
    pub(super) async fn wait(&mut self) {
        match self.due.take() {
            Some(due) => due.await,
            None => self.clock.soon().await,
        }
        self.seen();
    }

    /// Resolves when the task asked for comes; never while none is due.
    pub(super) async fn came(&mut self) {
        match self.due.as_mut() {
            Some(due) => due.await,
            None => futures::future::pending().await,
        }
    }

    /// The host ran a task: a new slice starts.
    pub(super) fn seen(&mut self) {
        self.due = None;
        self.since = None;
    }
}
