//! A `run` call whose wait the caller bounds. A run whose provider stays unreachable pauses
//! (nothing lost, resumable) and its call waits for as long as the pause lasts; a caller that
//! cannot wait that long passes a pause timeout or an abort, and the call settles with
//! [`RunEnd::Paused`] while the run itself stays paused in the log, ready to go on.

use futures::channel::oneshot;
use futures::future::{self, Either, LocalBoxFuture};
use futures::FutureExt;

use super::live::{LiveSession, Pause};
use super::live_error::LiveError;
use crate::core::RunOutcome;
use crate::ports::Clock;

/// How a bounded `run` call settled.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEnd {
    /// The run ended.
    Finished(Box<RunOutcome>),
    /// The run is paused for its provider or a tool's server and still is: it goes on after a
    /// retry (or the network's return) and ends later, heard through the session's notices.
    Paused(Pause),
}

/// How long a call waits on a run paused for its provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PauseWait {
    /// Until the run ends, however long the pause lasts (the default).
    UntilEnd,
    /// Settle as paused once a pause has lasted this many milliseconds (0: as soon as it
    /// pauses). Each pause is timed on its own.
    Settle(u64),
}

/// Waits for the run `finished` belongs to (from [`LiveSession::run`]), bounded by `wait` and
/// by `abort`. An abort while the run is paused settles the call as paused and leaves the run
/// paused; an abort while it works cancels the run, and the call settles with that outcome.
pub async fn settle_run<C: Clock>(
    live: &LiveSession,
    finished: oneshot::Receiver<Result<RunOutcome, LiveError>>,
    wait: PauseWait,
    clock: &C,
    abort: LocalBoxFuture<'_, ()>,
) -> Result<RunEnd, LiveError> {
    let ended = |result: Result<Result<RunOutcome, LiveError>, oneshot::Canceled>| match result {
        Ok(Ok(outcome)) => Ok(RunEnd::Finished(Box::new(outcome))),
        Ok(Err(error)) => Err(error),
        Err(oneshot::Canceled) => Err(LiveError::Stopped),
    };
    let mut finished = finished.fuse();
    let mut abort = abort.fuse();
    loop {
        let changed = live.pause_changed().fuse();
        let paused = live.paused();
        let timer = match (&paused, wait) {
            (Some(_), PauseWait::Settle(ms)) => Either::Left(clock.sleep(ms)),
            (Some(_), PauseWait::UntilEnd) | (None, _) => Either::Right(future::pending()),
        }
        .fuse();
        futures::pin_mut!(changed, timer);
        futures::select_biased! {
            result = finished => return ended(result),
            _ = changed => {}
            () = timer => {
                if let Some(pause) = live.paused() {
                    return Ok(RunEnd::Paused(pause));
                }
            }
            () = abort => match live.paused() {
                Some(pause) => return Ok(RunEnd::Paused(pause)),
                None => {
                    live.cancel()?;
                    return ended(finished.await);
                }
            },
        }
    }
}
