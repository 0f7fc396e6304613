//! The driver writing a batch behind the append still in flight: the store applies appends in
//! the order they were issued, so a strict append goes out behind a relaxed one without waiting
//! for it, and a tool that is not idempotent runs only once both are stored.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::wildcard_enum_match_arm
)]

mod driver_support;

use driver_support::*;
use tabloop::runtime::{Command, Notice};

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use futures::executor::LocalPool;
use pretty_assertions::assert_eq;
use tabloop::core::{Agent, Event, Input, Record, StopReason};
use tabloop::ports::{Clock, Durability, EventStore, MemoryStore, SessionSummary, StoreError};

/// A store that behaves as IndexedDB does with appends issued back to back: each is queued
/// when first polled and applied only when the test releases it, strictly in queue order (a
/// later one does not overtake an earlier one still held). `fail_next` makes the next released
/// append fail as a full disk does.
#[derive(Default)]
struct QueuedStore {
    inner: MemoryStore,
    held: Cell<bool>,
    fail_next: Cell<bool>,
    /// Appends issued so far (seq of the first record, count, durability), in queue order.
    issued: RefCell<Vec<(u64, usize, Durability)>>,
    /// The records stored each time the driver said the log rests.
    rested: RefCell<Vec<usize>>,
    queue: RefCell<VecDeque<futures::channel::oneshot::Sender<()>>>,
    /// Appends under way, by their last record's seq: who waits to hear whether it was stored.
    under_way: RefCell<HashMap<u64, Vec<futures::channel::oneshot::Sender<bool>>>>,
}

impl QueuedStore {
    /// The log as stored so far.
    fn log(&self) -> Vec<Record> {
        futures::executor::block_on(self.inner.load("s")).unwrap()
    }

    /// Releases every held append, one by one, until the run has ended; the log it left.
    fn run_out(&self, rig: &mut Rig) -> Vec<Record> {
        while self.release_one(&mut rig.pool) {}
        assert_eq!(rig.outcome(), Some(StopReason::Completed));
        self.log()
    }

    /// Whether the append ending at seq `last` is under way: then a receiver of whether it was
    /// stored.
    fn watch(&self, last: u64) -> Option<futures::channel::oneshot::Receiver<bool>> {
        let mut under_way = self.under_way.borrow_mut();
        let waiting = under_way.get_mut(&last)?;
        let (sender, receiver) = futures::channel::oneshot::channel();
        waiting.push(sender);
        Some(receiver)
    }

    /// Releases the oldest held append; false if none is held.
    fn release_one(&self, pool: &mut LocalPool) -> bool {
        let next = self.queue.borrow_mut().pop_front();
        let released = next.is_some_and(|gate| gate.send(()).is_ok());
        pool.run_until_stalled();
        released
    }
}

impl EventStore for QueuedStore {
    async fn append(
        &self,
        session: &str,
        records: &[Record],
        durability: Durability,
    ) -> Result<(), StoreError> {
        let first = records.first().map_or(0, |r| r.seq);
        self.issued
            .borrow_mut()
            .push((first, records.len(), durability));
        let last = records.last().map(|r| r.seq);
        if let Some(last) = last {
            self.under_way.borrow_mut().insert(last, Vec::new());
        }
        if self.held.get() {
            let (gate, wait) = futures::channel::oneshot::channel();
            self.queue.borrow_mut().push_back(gate);
            let _ = wait.await;
        }
        let result = if self.fail_next.replace(false) {
            Err(StoreError::QuotaExceeded("test disk full".into()))
        } else {
            self.inner.append(session, records, durability).await
        };
        let waiting = last.and_then(|last| self.under_way.borrow_mut().remove(&last));
        for waiter in waiting.unwrap_or_default() {
            let _ = waiter.send(result.is_ok());
        }
        result
    }
    async fn load(&self, session: &str) -> Result<Vec<Record>, StoreError> {
        self.inner.load(session).await
    }
    async fn sessions(&self) -> Result<Vec<SessionSummary>, StoreError> {
        self.inner.sessions().await
    }
    async fn delete(&self, session: &str) -> Result<(), StoreError> {
        self.inner.delete(session).await
    }
    async fn rest(&self, session: &str) -> Result<(), StoreError> {
        let stored = self.inner.load(session).await?.len();
        self.rested.borrow_mut().push(stored);
        Ok(())
    }
}

/// Runs the task of the pipelined tests up to the point where the strict append before
/// `append_log` (not idempotent) is issued behind the relaxed one still held: the model first
/// calls the idempotent `read_file`, whose records go out relaxed and are held, then
/// `append_log`.
fn pipelined_rig() -> (Rc<QueuedStore>, Rc<FakeTools>, Rig) {
    let store = Rc::new(QueuedStore::default());
    let model = ScriptedModel::new(vec![
        reply_calls(vec![("c1", "read_file", "a.txt")]),
        reply_calls(vec![("c2", "append_log", "b.txt")]),
        reply_text("done"),
    ]);
    let tools = Rc::new(FakeTools::default());
    let mut rig = start(store.clone(), model, tools.clone());
    store.held.set(true);
    rig.send(Input::UserMessage {
        text: "go".into(),
        budget: None,
    });
    // The task is strict: nothing runs until it is stored.
    assert!(tools.calls.borrow().is_empty());
    assert!(store.release_one(&mut rig.pool));
    (store, tools, rig)
}

/// Where in the log `call`'s ToolCallStarted is, if stored.
fn started_at(store: &QueuedStore, call: &str) -> Option<usize> {
    store
        .log()
        .iter()
        .position(|r| matches!(&r.event, Event::ToolCallStarted { call: c, .. } if c == call))
}

#[test]
fn a_strict_append_goes_out_behind_one_in_flight_and_its_tool_waits_for_both() {
    let (store, tools, mut rig) = pipelined_rig();
    // The idempotent read did not wait for its (held) relaxed append; the model answered with
    // append_log, whose strict append was issued while the relaxed one is still held.
    assert_eq!(*tools.calls.borrow(), vec!["c1"]);
    let issued = store.issued.borrow().clone();
    let durabilities: Vec<_> = issued.iter().map(|(_, _, d)| *d).collect();
    assert_eq!(
        durabilities[durabilities.len() - 2..],
        [Durability::Relaxed, Durability::Strict],
        "issued back to back: {issued:?}"
    );
    assert_eq!(started_at(&store, "c2"), None);
    // The relaxed append is stored; the tool still waits for its own.
    assert!(store.release_one(&mut rig.pool));
    assert_eq!(*tools.calls.borrow(), vec!["c1"]);
    assert_eq!(started_at(&store, "c2"), None);
    // Its ToolCallStarted is stored: now it runs.
    assert!(store.release_one(&mut rig.pool));
    assert!(started_at(&store, "c2").is_some());
    assert_eq!(*tools.calls.borrow(), vec!["c1", "c2"]);
    let stored = store.run_out(&mut rig);
    assert_eq!(
        announced(&rig),
        stored,
        "every record stored, announced in order"
    );
}

/// A run of one `append_log` call (not idempotent), then "done", whose tool host sees the
/// store's appends under way, as the browser's does; every append is held until released.
fn seeing_rig() -> (Rc<QueuedStore>, Rc<FakeTools>, Rig) {
    let store = Rc::new(QueuedStore::default());
    let model = ScriptedModel::new(vec![
        reply_calls(vec![("c1", "append_log", "a.txt")]),
        reply_text("done"),
    ]);
    let tools = Rc::new(FakeTools::default());
    let watched = store.clone();
    *tools.appends.borrow_mut() = Some(Rc::new(move |last| watched.watch(last)));
    let mut rig = start(store.clone(), model, tools.clone());
    store.held.set(true);
    rig.send(Input::UserMessage {
        text: "go".into(),
        budget: None,
    });
    // The task is stored; the model asked for append_log, whose start record is being written.
    assert!(store.release_one(&mut rig.pool));
    (store, tools, rig)
}

#[test]
fn a_host_that_sees_the_append_starts_the_call_while_it_commits_and_runs_the_tool_once_stored() {
    let (store, tools, mut rig) = seeing_rig();
    assert_eq!(
        *tools.started_early.borrow(),
        vec!["c1"],
        "started in the host"
    );
    assert!(
        tools.calls.borrow().is_empty(),
        "the tool waits for its record"
    );
    assert_eq!(started_at(&store, "c1"), None);
    // Stored: the tool runs (in the host, the driver not woken in between).
    assert!(store.release_one(&mut rig.pool));
    assert!(started_at(&store, "c1").is_some());
    assert_eq!(*tools.calls.borrow(), vec!["c1"]);
    let stored = store.run_out(&mut rig);
    assert_eq!(
        announced(&rig),
        stored,
        "every record stored, announced in order"
    );
    let finished = stored
        .iter()
        .position(|r| matches!(&r.event, Event::ToolCallFinished { call, .. } if call == "c1"))
        .unwrap();
    assert!(started_at(&store, "c1").unwrap() < finished);
    assert_eq!(*tools.calls.borrow(), vec!["c1"], "ran once");
}

#[test]
fn when_the_append_a_started_call_waits_for_fails_its_tool_never_runs_and_runs_once_after_the_retry(
) {
    let (store, tools, mut rig) = seeing_rig();
    assert_eq!(*tools.started_early.borrow(), vec!["c1"]);
    store.fail_next.set(true);
    assert!(store.release_one(&mut rig.pool));
    assert!(rig
        .notices
        .borrow()
        .iter()
        .any(|n| matches!(n, Notice::StorageFailed(m) if m.contains("storage is full"))));
    assert!(tools.calls.borrow().is_empty(), "the tool did not run");
    assert_eq!(started_at(&store, "c1"), None);
    // Retried: the record is stored first, then the tool runs, once.
    store.held.set(false);
    rig.commands.unbounded_send(Command::RetryStorage).unwrap();
    rig.pool.run_until_stalled();
    assert!(rig.notices.borrow().contains(&Notice::StorageRecovered));
    assert_eq!(*tools.calls.borrow(), vec!["c1"]);
    assert_eq!(rig.outcome(), Some(StopReason::Completed));
    let log = store.log();
    assert!(log.iter().enumerate().all(|(i, r)| r.seq == i as u64));
    let results = log
        .iter()
        .filter(|r| matches!(&r.event, Event::ToolCallFinished { call, .. } if call == "c1"))
        .count();
    assert_eq!(results, 1, "one result: the dropped call left none");
}

#[test]
fn when_the_append_in_flight_fails_the_one_behind_it_fails_too_and_both_are_written_on_retry() {
    let (store, tools, mut rig) = pipelined_rig();
    let stored_before = store.log().len();
    // The held relaxed append fails; the strict one behind it no longer continues the log.
    store.fail_next.set(true);
    assert!(store.release_one(&mut rig.pool));
    assert!(store.release_one(&mut rig.pool));
    assert!(rig
        .notices
        .borrow()
        .iter()
        .any(|n| matches!(n, Notice::StorageFailed(m) if m.contains("storage is full"))));
    assert_eq!(*tools.calls.borrow(), vec!["c1"], "append_log did not run");
    assert_eq!(
        store.log().len(),
        stored_before,
        "neither append was stored"
    );
    // Retried: every queued record goes out in order, then the tool runs, once.
    store.held.set(false);
    rig.commands.unbounded_send(Command::RetryStorage).unwrap();
    rig.pool.run_until_stalled();
    assert!(rig.notices.borrow().contains(&Notice::StorageRecovered));
    assert_eq!(*tools.calls.borrow(), vec!["c1", "c2"]);
    assert_eq!(rig.outcome(), Some(StopReason::Completed));
    let log = store.log();
    assert!(log.iter().enumerate().all(|(i, r)| r.seq == i as u64));
    assert_eq!(Agent::replay(&log).unwrap().run().unwrap().step, 3);
}

#[test]
fn the_store_hears_the_log_rests_once_a_run_ended_and_every_record_is_stored() {
    let (store, _tools, mut rig) = pipelined_rig();
    // Mid-run (appends still held) the log does not rest.
    assert_eq!(*store.rested.borrow(), Vec::<usize>::new());
    let stored = store.run_out(&mut rig).len();
    assert_eq!(*store.rested.borrow(), vec![stored]);
    // A writer that stops says so again (nothing was appended since).
    rig.commands.unbounded_send(Command::Stop).unwrap();
    rig.pool.run_until_stalled();
    assert_eq!(*store.rested.borrow(), vec![stored, stored]);
}

/// A clock whose `soon` resolves only when the test runs "the next task" (`run_next_task`),
/// as the browser's does after the current one; its sleeps never end.
#[derive(Default)]
struct TaskClock {
    now: Cell<u64>,
    next_task: RefCell<Vec<futures::channel::oneshot::Sender<()>>>,
}

impl TaskClock {
    fn run_next_task(&self, pool: &mut LocalPool) {
        for waiting in self.next_task.borrow_mut().drain(..) {
            let _ = waiting.send(());
        }
        pool.run_until_stalled();
    }
}

impl Clock for TaskClock {
    fn now(&self) -> u64 {
        self.now.set(self.now.get() + 1);
        self.now.get()
    }
    async fn sleep(&self, _ms: u64) {
        futures::future::pending::<()>().await
    }
    fn soon(&self) -> impl std::future::Future<Output = ()> {
        let (sender, receiver) = futures::channel::oneshot::channel();
        self.next_task.borrow_mut().push(sender);
        async move {
            let _ = receiver.await;
        }
    }
}

/// A run of `replies` on a [`TaskClock`] with the task "go" given: the store holds every
/// append from the start when `held`, the tools hang when `hang`.
fn go_on_task_clock(
    replies: Vec<Scripted>,
    held: bool,
    hang: bool,
) -> (Rc<QueuedStore>, Rc<FakeTools>, Rc<TaskClock>, Rig) {
    let store = Rc::new(QueuedStore::default());
    let tools = Rc::new(FakeTools::default());
    tools.hang.set(hang);
    let clock = Rc::new(TaskClock::default());
    let model = ScriptedModel::new(replies);
    let mut rig = start_with_clock(store.clone(), model, tools.clone(), clock.clone());
    store.held.set(held);
    rig.send(Input::UserMessage {
        text: "go".into(),
        budget: None,
    });
    (store, tools, clock, rig)
}

/// The records the observer has been told are stored, in the order it heard of them.
fn announced(rig: &Rig) -> Vec<Record> {
    rig.notices
        .borrow()
        .iter()
        .filter_map(|n| match n {
            Notice::Persisted(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_tool_starts_before_the_page_hears_of_its_stored_records_which_follow_in_the_next_task() {
    let replies = vec![
        reply_calls(vec![("c1", "append_log", "a.txt")]),
        reply_text("done"),
    ];
    let (store, tools, clock, mut rig) = go_on_task_clock(replies, false, true);
    // The tool runs once its ToolCallStarted is stored, without waiting for the page.
    assert_eq!(*tools.calls.borrow(), vec!["c1"]);
    let stored = store.log();
    let started = started_at(&store, "c1").expect("ToolCallStarted stored");
    assert!(
        announced(&rig).len() <= started,
        "told before the next task"
    );
    assert_eq!(announced(&rig), stored[..announced(&rig).len()]);
    // In the next task the page hears of every stored record, in order.
    clock.run_next_task(&mut rig.pool);
    assert_eq!(announced(&rig), stored);
}

#[test]
fn records_stored_earlier_are_announced_while_a_strict_append_commits() {
    let replies = vec![
        reply_calls(vec![("c1", "read_file", "a.txt")]),
        reply_calls(vec![("c2", "append_log", "b.txt")]),
        reply_text("done"),
    ];
    // No task ever runs after the current one: only the wait for a commit can tell the page.
    let (store, tools, _clock, mut rig) = go_on_task_clock(replies, true, false);
    assert!(store.release_one(&mut rig.pool));
    // The task's records are stored; read_file's records (due in a later task, which never
    // comes) went with append_log's strict batch, held. While it commits the page heard of
    // everything stored before it.
    assert_eq!(*tools.calls.borrow(), vec!["c1"]);
    let stored = store.log();
    assert!(!stored.is_empty());
    assert_eq!(announced(&rig), stored);
    let stored = store.run_out(&mut rig);
    assert_eq!(
        announced(&rig),
        stored,
        "every record announced once, in order"
    );
    let finished = rig
        .notices
        .borrow()
        .iter()
        .position(|n| matches!(n, Notice::Finished(_)))
        .unwrap();
    assert_eq!(
        rig.notices.borrow()[..finished]
            .iter()
            .filter(|n| matches!(n, Notice::Persisted(_)))
            .count(),
        stored.len(),
        "the page hears of every record before the run's end"
    );
}

#[test]
fn records_only_reversible_work_follows_go_out_in_the_next_task_or_with_a_strict_batch() {
    let replies = vec![
        reply_calls(vec![("c1", "read_file", "a.txt")]),
        reply_calls(vec![("c2", "append_log", "b.txt")]),
        reply_text("done"),
    ];
    let (store, tools, _clock, rig) = go_on_task_clock(replies, false, false);
    // read_file (idempotent) ran at once; its records, made in the same task as append_log's
    // strict batch, went out with it: the task's append, then one strict write of the rest.
    assert_eq!(*tools.calls.borrow(), vec!["c1", "c2"]);
    let issued = store.issued.borrow().clone();
    let c1_started = started_at(&store, "c1").unwrap() as u64;
    let c2_started = started_at(&store, "c2").unwrap() as u64;
    let holding = |seq: u64| {
        issued
            .iter()
            .position(|(first, len, _)| (*first..*first + *len as u64).contains(&seq))
            .unwrap()
    };
    assert_eq!(holding(c1_started), holding(c2_started), "{issued:?}");
    assert_eq!(issued[holding(c2_started)].2, Durability::Strict);
    assert_eq!(rig.outcome(), Some(StopReason::Completed));
}

#[test]
fn records_no_strict_batch_takes_along_are_written_in_the_next_task() {
    let replies = vec![reply_calls(vec![("c1", "read_file", "a.txt")])];
    let (store, tools, clock, mut rig) = go_on_task_clock(replies, false, true);
    // read_file runs (and hangs) before its records are written: only reversible work
    // followed them, and they wait for the next task.
    assert_eq!(*tools.calls.borrow(), vec!["c1"]);
    assert_eq!(started_at(&store, "c1"), None);
    let appends = store.issued.borrow().len();
    clock.run_next_task(&mut rig.pool);
    assert!(started_at(&store, "c1").is_some());
    let issued = store.issued.borrow().clone();
    assert_eq!(issued.len(), appends + 1, "one write: {issued:?}");
    assert_eq!(issued[appends].2, Durability::Relaxed);
    // Once stored, the page hears of them in the task after.
    let stored = store.log();
    assert!(announced(&rig).len() < stored.len());
    clock.run_next_task(&mut rig.pool);
    assert_eq!(announced(&rig), stored);
}

#[test]
fn a_run_that_never_waits_lets_the_host_have_its_next_task_after_each_slice() {
    // A model that answers at once and a tool safe to run twice: nothing in the run waits on
    // anything outside, so only the driver can let the host (the page) have a task.
    let ids: Vec<(String, String)> = (0..15)
        .map(|i| (format!("c{i}"), format!("f{i}.txt")))
        .collect();
    let mut replies: Vec<Scripted> = ids
        .iter()
        .map(|(id, path)| reply_calls(vec![(id.as_str(), "read_file", path.as_str())]))
        .collect();
    replies.push(reply_text("done"));
    let (store, tools, clock, mut rig) = go_on_task_clock(replies, false, false);
    assert_eq!(rig.outcome(), None, "the run held the host to its end");
    let first_slice = tools.calls.borrow().len();
    // What the first slice wrote: the task, before anything ran.
    let written_first = store.issued.borrow().len();
    assert!(
        first_slice > 0 && first_slice < ids.len(),
        "{first_slice} calls in the first slice"
    );
    let mut tasks = 0;
    let mut written_while_running = false;
    while rig.outcome().is_none() && tasks < 1_000 {
        clock.run_next_task(&mut rig.pool);
        tasks += 1;
        written_while_running |=
            rig.outcome().is_none() && store.issued.borrow().len() > written_first;
    }
    assert_eq!(
        rig.outcome(),
        Some(StopReason::Completed),
        "after {tasks} tasks"
    );
    assert!(tasks > 1, "it went on in slices");
    assert!(written_while_running, "records were written between slices");
    assert_eq!(tools.calls.borrow().len(), ids.len());
    let stored = store.log();
    clock.run_next_task(&mut rig.pool);
    assert_eq!(announced(&rig), stored);
}
