//! A `run` call bounded by a pause timeout or an abort: a run whose provider is unreachable
//! pauses, the call settles as paused when the caller asked for it (and only then), the run stays
//! paused in the log, and a retry finishes it with nothing lost. An abort while the run works
//! cancels it instead.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod driver_support;

use std::cell::RefCell;
use std::rc::Rc;

use driver_support::{reply_text, FakeTools, ManualClock, Scripted, ScriptedModel};
use futures::channel::oneshot;
use futures::executor::{LocalPool, LocalSpawner};
use futures::future::{FutureExt, LocalBoxFuture};
use futures::task::LocalSpawnExt;
use pretty_assertions::assert_eq;
use tabloop::core::{Event, StopReason};
use tabloop::ports::{Clock, EventStore, MemoryStore};
use tabloop::ports::{HostToolSpec, PlatformError};
use tabloop::protocol::{ModelError, ModelErrorKind};
use tabloop::runtime::options::{AgentOptions, ProviderKind, ProviderOptions};
use tabloop::runtime::{
    drive, settle_run, Launch, LiveError, LiveSession, PauseWait, Platform, RunEnd, SessionService,
};

/// The caller's clock: each timer waits until the test fires it, and says how long it was.
#[derive(Default)]
struct FiredClock {
    timers: RefCell<Vec<(u64, oneshot::Sender<()>)>>,
}
impl FiredClock {
    /// Fires every timer set so far; returns their lengths.
    fn fire(&self) -> Vec<u64> {
        self.timers
            .borrow_mut()
            .drain(..)
            .map(|(ms, timer)| {
                let _ = timer.send(());
                ms
            })
            .collect()
    }
}
impl Clock for FiredClock {
    fn now(&self) -> u64 {
        0
    }
    async fn sleep(&self, ms: u64) {
        let (sender, receiver) = oneshot::channel();
        self.timers.borrow_mut().push((ms, sender));
        let _ = receiver.await;
    }
}

struct TestPlatform {
    store: Rc<MemoryStore>,
    model: Rc<ScriptedModel>,
    spawner: LocalSpawner,
}

impl Platform<Launch> for TestPlatform {
    fn new_session_id(&self) -> String {
        "s".into()
    }
    fn registered_tools(&self) -> LocalBoxFuture<'_, Result<Vec<HostToolSpec>, PlatformError>> {
        Box::pin(async { Ok(Vec::new()) })
    }
    fn launch(&self, launch: Launch) -> LocalBoxFuture<'_, Result<(), PlatformError>> {
        let (model, store) = (self.model.clone(), self.store.clone());
        let live = launch.live.clone();
        live.holds_lock();
        self.spawner
            .spawn_local(async move {
                live.became_writer();
                let clock = Rc::new(ManualClock::default());
                drive(launch, model, store, Rc::new(FakeTools::default()), clock).await;
            })
            .unwrap();
        Box::pin(async { Ok(()) })
    }
}

struct Rig {
    pool: LocalPool,
    store: Rc<MemoryStore>,
    model: Rc<ScriptedModel>,
    live: Rc<LiveSession>,
    clock: Rc<FiredClock>,
}

fn rig() -> Rig {
    let mut pool = LocalPool::new();
    let store = Rc::new(MemoryStore::default());
    let model = ScriptedModel::new(Vec::new());
    let platform = Rc::new(TestPlatform {
        store: store.clone(),
        model: model.clone(),
        spawner: pool.spawner(),
    });
    let service = SessionService::new(store.clone(), platform);
    let options = AgentOptions {
        provider: Some(ProviderOptions {
            kind: ProviderKind::Openai,
            base_url: Some("http://127.0.0.1:1/v1".into()),
            api_key: Some("sk".into()),
            model: Some("m".into()),
        }),
        ..AgentOptions::default()
    };
    let live = pool.run_until(service.open(options)).unwrap();
    Rig {
        pool,
        store,
        model,
        live,
        clock: Rc::default(),
    }
}

fn offline() -> Scripted {
    Scripted::Fail(ModelError {
        kind: ModelErrorKind::Network,
        message: "offline: the browser has no network".into(),
    })
}

/// The call's result once it settled, `None` while it still waits.
type Slot = Rc<RefCell<Option<Result<RunEnd, LiveError>>>>;

impl Rig {
    /// Starts a bounded run of `task` on the pool; `abort` ends the wait when it resolves.
    fn start(&self, task: &str, wait: PauseWait, abort: oneshot::Receiver<()>) -> Slot {
        let slot: Slot = Rc::default();
        let (live, out) = (self.live.clone(), slot.clone());
        let finished = live.run(task.into(), None);
        let clock = self.clock.clone();
        self.pool
            .spawner()
            .spawn_local(async move {
                let abort = abort.map(|_| ()).boxed_local();
                let end = settle_run(&live, finished, wait, &*clock, abort).await;
                *out.borrow_mut() = Some(end);
            })
            .unwrap();
        slot
    }

    fn events(&self) -> Vec<Event> {
        futures::executor::block_on(self.store.load("s"))
            .unwrap()
            .into_iter()
            .map(|r| r.event)
            .collect()
    }
}

fn stop_of(end: &Option<Result<RunEnd, LiveError>>) -> Option<StopReason> {
    match end {
        Some(Ok(RunEnd::Finished(outcome))) => Some(outcome.stop.clone()),
        other => panic!("expected a finished run, got {other:?}"),
    }
}

#[test]
fn an_unbounded_call_waits_through_a_pause_and_settles_when_the_retry_finishes_the_run() {
    let mut r = rig();
    r.model.script.borrow_mut().push_back(offline());
    let (_keep, abort) = oneshot::channel();
    let end = r.start("say hi", PauseWait::UntilEnd, abort);
    r.pool.run_until_stalled();
    assert!(r.live.paused().unwrap().message.contains("offline"));
    assert_eq!(*end.borrow(), None, "the default waits for the end");
    assert_eq!(
        r.clock.fire(),
        Vec::<u64>::new(),
        "no timer without a bound"
    );

    r.model.script.borrow_mut().push_back(reply_text("hi"));
    r.live.retry_paused().unwrap();
    r.pool.run_until_stalled();
    assert_eq!(stop_of(&end.borrow()), Some(StopReason::Completed));
    assert_eq!(r.live.paused(), None);
}

#[test]
fn a_pause_timeout_settles_the_call_as_paused_and_the_run_still_finishes_after_a_retry() {
    let mut r = rig();
    r.model.script.borrow_mut().push_back(offline());
    let (_keep, abort) = oneshot::channel();
    let end = r.start("say hi", PauseWait::Settle(30_000), abort);
    r.pool.run_until_stalled();
    assert_eq!(
        *end.borrow(),
        None,
        "paused, but the timeout has not passed"
    );
    assert_eq!(r.clock.fire(), vec![30_000]);
    r.pool.run_until_stalled();
    let message = r.live.paused().unwrap();
    assert_eq!(*end.borrow(), Some(Ok(RunEnd::Paused(message))));
    // The run stays paused in the log, resumable.
    assert!(matches!(r.events().last(), Some(Event::RunPaused { .. })));

    r.model.script.borrow_mut().push_back(reply_text("hi"));
    let finished = r.live.run(String::new(), None);
    r.live.retry_paused().unwrap();
    r.pool.run_until_stalled();
    let events = r.events();
    assert!(events.iter().any(|e| matches!(e, Event::RunUnpaused)));
    assert!(matches!(
        events.last(),
        Some(Event::RunFinished { outcome }) if outcome.stop == StopReason::Completed
    ));
    drop(finished);
}

#[test]
fn a_zero_pause_timeout_settles_as_soon_as_the_run_pauses() {
    let mut r = rig();
    r.model.script.borrow_mut().push_back(offline());
    let (_keep, abort) = oneshot::channel();
    let end = r.start("say hi", PauseWait::Settle(0), abort);
    r.pool.run_until_stalled();
    assert_eq!(r.clock.fire(), vec![0]);
    r.pool.run_until_stalled();
    assert!(matches!(&*end.borrow(), Some(Ok(RunEnd::Paused(m))) if m.message.contains("offline")));
}

#[test]
fn a_pause_that_ends_before_its_timeout_does_not_settle_the_call() {
    let mut r = rig();
    r.model.script.borrow_mut().push_back(offline());
    let (_keep, abort) = oneshot::channel();
    let end = r.start("say hi", PauseWait::Settle(5_000), abort);
    r.pool.run_until_stalled();
    // The provider is back before the timeout: the call waits on for the run's end.
    r.live.retry_paused().unwrap();
    r.pool.run_until_stalled();
    assert_eq!(r.live.paused(), None);
    assert_eq!(r.clock.fire(), vec![5_000]);
    r.pool.run_until_stalled();
    assert_eq!(
        *end.borrow(),
        None,
        "the run works again (its provider hangs)"
    );
    r.live.cancel().unwrap();
    r.pool.run_until_stalled();
    assert_eq!(stop_of(&end.borrow()), Some(StopReason::Cancelled));
}

#[test]
fn an_abort_while_paused_settles_as_paused_and_leaves_the_run_paused() {
    let mut r = rig();
    r.model.script.borrow_mut().push_back(offline());
    let (stop, abort) = oneshot::channel();
    let end = r.start("say hi", PauseWait::UntilEnd, abort);
    r.pool.run_until_stalled();
    assert_eq!(*end.borrow(), None);
    stop.send(()).unwrap();
    r.pool.run_until_stalled();
    assert!(matches!(&*end.borrow(), Some(Ok(RunEnd::Paused(_)))));
    assert!(r.live.paused().is_some());
    assert!(matches!(r.events().last(), Some(Event::RunPaused { .. })));
}

#[test]
fn an_abort_while_the_run_works_cancels_it() {
    let mut r = rig();
    // No answer queued: the provider hangs, the run is not paused.
    let (stop, abort) = oneshot::channel();
    let end = r.start("say hi", PauseWait::Settle(0), abort);
    r.pool.run_until_stalled();
    assert_eq!(*end.borrow(), None);
    stop.send(()).unwrap();
    r.pool.run_until_stalled();
    assert_eq!(stop_of(&end.borrow()), Some(StopReason::Cancelled));
}
