//! The driver over in-memory ports: persistence before actions, strict intent records, resume
//! after a "reload" with no event lost, a full disk pausing the run, and cancellation.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::wildcard_enum_match_arm
)]

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use futures::channel::mpsc;
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use pretty_assertions::assert_eq;
use serde_json::json;
use tabloop::core::{
    Agent, AgentConfig, Event, Input, Permission, Record, StopReason, ToolDecl, ToolInvocation,
    ToolKind,
};
use tabloop::ports::{
    Clock, Durability, EventStore, MemoryStore, ModelClient, SessionSummary, StoreError, ToolHost,
    ToolOutput,
};
use tabloop::protocol::{
    FinishReason, ModelError, ModelReply, ModelRequest, StreamDelta, ToolCall, ToolSpec, Usage,
};
use tabloop::runtime::{Command, Driver, Notice};

enum Scripted {
    Reply(ModelReply),
}

#[derive(Default)]
struct ScriptedModel {
    script: RefCell<VecDeque<Scripted>>,
    calls: Cell<u32>,
}

impl ScriptedModel {
    fn new(script: Vec<Scripted>) -> Rc<Self> {
        Rc::new(Self {
            script: RefCell::new(script.into()),
            calls: Cell::new(0),
        })
    }
}

impl ModelClient for ScriptedModel {
    async fn complete(
        &self,
        _request: &ModelRequest,
        on_delta: &mut dyn FnMut(StreamDelta),
    ) -> Result<ModelReply, ModelError> {
        self.calls.set(self.calls.get() + 1);
        let next = self.script.borrow_mut().pop_front();
        match next {
            Some(Scripted::Reply(reply)) => {
                on_delta(StreamDelta::Text(reply.text.clone()));
                Ok(reply)
            }
            None => futures::future::pending().await,
        }
    }
}

/// Sets its flag when dropped: shows that an aborted call's future was dropped.
struct DropFlag(Rc<Cell<bool>>);
impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.set(true);
    }
}

#[derive(Default)]
struct FakeTools {
    calls: RefCell<Vec<String>>,
    hang: Cell<bool>,
    dropped: Rc<Cell<bool>>,
}

impl ToolHost for FakeTools {
    async fn call(&self, invocation: &ToolInvocation) -> ToolOutput {
        self.calls.borrow_mut().push(invocation.call.clone());
        if self.hang.get() {
            let _flag = DropFlag(self.dropped.clone());
            futures::future::pending::<()>().await;
        }
        ToolOutput {
            content: format!("contents of {}", invocation.args["path"]),
            is_error: false,
        }
    }
}

#[derive(Default)]
struct ManualClock(Cell<u64>);
impl Clock for ManualClock {
    fn now(&self) -> u64 {
        self.0.set(self.0.get() + 1);
        self.0.get()
    }
    async fn sleep(&self, _ms: u64) {
        futures::future::pending::<()>().await
    }
}

fn config() -> AgentConfig {
    let tool = |name: &str, permission, idempotent| ToolDecl {
        spec: ToolSpec {
            local_parameters: None,
            name: name.into(),
            description: name.into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        },
        permission,
        idempotent,
        parallel_safe: true,
        kind: ToolKind::Host,
        approval_scope: None,
    };
    AgentConfig {
        tools: vec![
            tool("read_file", Permission::Allow, true),
            tool("write_file", Permission::Ask, false),
            tool("append_log", Permission::Allow, false),
        ],
        ..AgentConfig::default()
    }
}

fn reply_calls(calls: Vec<(&str, &str, &str)>) -> Scripted {
    Scripted::Reply(ModelReply {
        text: String::new(),
        tool_calls: calls
            .into_iter()
            .map(|(id, name, path)| ToolCall {
                id: id.into(),
                name: name.into(),
                arguments: json!({"path": path}).to_string(),
            })
            .collect(),
        finish: FinishReason::ToolUse,
        usage: Usage {
            input_tokens: 10,
            output_tokens: 2,
            ..Usage::default()
        },
        model: "m".into(),
    })
}

fn reply_text(t: &str) -> Scripted {
    Scripted::Reply(ModelReply {
        text: t.into(),
        tool_calls: vec![],
        finish: FinishReason::EndTurn,
        usage: Usage {
            input_tokens: 10,
            output_tokens: 2,
            ..Usage::default()
        },
        model: "m".into(),
    })
}

struct Rig {
    pool: LocalPool,
    notices: Rc<RefCell<Vec<Notice>>>,
    commands: mpsc::UnboundedSender<Command>,
}

fn start<S: EventStore + 'static>(
    store: Rc<S>,
    model: Rc<ScriptedModel>,
    tools: Rc<FakeTools>,
) -> Rig {
    let mut pool = LocalPool::new();
    let notices = Rc::new(RefCell::new(Vec::new()));
    let sink = notices.clone();
    let observer = Box::new(move |n: &Notice| sink.borrow_mut().push(n.clone()));
    let driver = pool
        .run_until(Driver::open(
            "s",
            config(),
            model,
            store,
            tools,
            Rc::new(ManualClock::default()),
            observer,
        ))
        .unwrap();
    let (commands, rx) = mpsc::unbounded();
    pool.spawner()
        .spawn_local(async move {
            driver.run(rx).await;
        })
        .unwrap();
    Rig {
        pool,
        notices,
        commands,
    }
}

impl Rig {
    fn send(&mut self, input: Input) {
        self.commands.unbounded_send(Command::Input(input)).unwrap();
        self.pool.run_until_stalled();
    }
    fn outcome(&self) -> Option<StopReason> {
        self.notices.borrow().iter().find_map(|n| match n {
            Notice::Finished(o) => Some(o.stop.clone()),
            _ => None,
        })
    }
}

fn log(store: &MemoryStore) -> Vec<tabloop::core::Record> {
    futures::executor::block_on(store.load("s")).unwrap()
}

/// The seq of the first record whose event matches.
fn position(store: &MemoryStore, event: impl Fn(&Event) -> bool) -> usize {
    log(store).iter().position(|r| event(&r.event)).unwrap()
}

/// Asserts that exactly the appends holding one of `records` (by seq) were strict.
fn assert_strict_exactly(store: &MemoryStore, records: &[usize]) {
    let mut end = 0;
    for (len, durability) in store.appends() {
        let start = end;
        end += len;
        let holds = records.iter().any(|seq| (start..end).contains(seq));
        assert_eq!(
            durability == Durability::Strict,
            holds,
            "batch {start}..{end}"
        );
    }
}

#[test]
fn a_run_completes_and_every_record_is_persisted_before_it_is_announced() {
    let store = Rc::new(MemoryStore::default());
    let model = ScriptedModel::new(vec![
        reply_calls(vec![("c1", "read_file", "a.txt")]),
        reply_text("done"),
    ]);
    let tools = Rc::new(FakeTools::default());
    let mut rig = start(store.clone(), model, tools.clone());
    rig.send(Input::UserMessage {
        text: "go".into(),
        budget: None,
    });
    assert_eq!(rig.outcome(), Some(StopReason::Completed));
    let persisted: Vec<_> = rig
        .notices
        .borrow()
        .iter()
        .filter_map(|n| match n {
            Notice::Persisted(r) => Some(r.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        persisted,
        log(&store),
        "every persisted record was announced, in order"
    );
    assert!(rig
        .notices
        .borrow()
        .contains(&Notice::Delta(StreamDelta::Text("done".into()))));
    assert_eq!(*tools.calls.borrow(), vec!["c1"]);
    // The task's batch is strict; nothing irreversible followed any other batch (an
    // idempotent read, model calls): all relaxed.
    let task = position(&store, |e| matches!(e, Event::UserMessage { .. }));
    assert_strict_exactly(&store, &[task]);
    assert_eq!(
        Agent::replay(&log(&store))
            .unwrap()
            .state()
            .transcript
            .all()
            .len(),
        4
    );
}

#[test]
fn the_task_and_the_batch_before_a_tool_that_is_not_idempotent_are_strict_and_only_those() {
    let store = Rc::new(MemoryStore::default());
    let model = ScriptedModel::new(vec![
        reply_calls(vec![("c1", "read_file", "a.txt")]),
        reply_calls(vec![("c2", "append_log", "b.txt")]),
        reply_text("done"),
    ]);
    let tools = Rc::new(FakeTools::default());
    let mut rig = start(store.clone(), model, tools.clone());
    rig.send(Input::UserMessage {
        text: "go".into(),
        budget: None,
    });
    assert_eq!(rig.outcome(), Some(StopReason::Completed));
    assert_eq!(*tools.calls.borrow(), vec!["c1", "c2"]);
    // Which batches held the task and the ToolCallStarted of c2: they alone were strict.
    let started_c2 = position(
        &store,
        |e| matches!(e, Event::ToolCallStarted { call, .. } if call == "c2"),
    );
    let task = position(&store, |e| matches!(e, Event::UserMessage { .. }));
    assert_strict_exactly(&store, &[task, started_c2]);
}

#[test]
fn reopening_a_session_resumes_it_with_no_event_lost() {
    let store = Rc::new(MemoryStore::default());
    let tools = Rc::new(FakeTools::default());
    tools.hang.set(true);
    let model = ScriptedModel::new(vec![reply_calls(vec![("c1", "read_file", "a.txt")])]);
    let mut rig = start(store.clone(), model, tools.clone());
    rig.send(Input::UserMessage {
        text: "go".into(),
        budget: None,
    });
    let before = log(&store);
    assert!(matches!(
        before.last().unwrap().event,
        Event::ToolCallStarted { .. }
    ));
    // "Reload": the old driver is gone; a new one opens the same session.
    drop(rig);
    tools.hang.set(false);
    let model = ScriptedModel::new(vec![reply_text("done after reload")]);
    let rig = start(store.clone(), model, tools.clone());
    let mut rig = rig;
    rig.pool.run_until_stalled();
    assert_eq!(rig.outcome(), Some(StopReason::Completed));
    let after = log(&store);
    assert_eq!(
        after[..before.len()],
        before[..],
        "the old log is an untouched prefix"
    );
    let kinds: Vec<_> = after[before.len()..]
        .iter()
        .map(|r| {
            serde_json::to_value(&r.event).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        &kinds[..3],
        &["resumed", "tool_call_interrupted", "tool_call_started"]
    );
    assert_eq!(
        *tools.calls.borrow(),
        vec!["c1", "c1"],
        "the idempotent read ran again"
    );
}

#[test]
fn a_full_disk_pauses_the_run_and_nothing_irreversible_runs_before_its_record_is_written() {
    let store = Rc::new(MemoryStore::with_quota(6));
    let tools = Rc::new(FakeTools::default());
    let model = ScriptedModel::new(vec![
        reply_calls(vec![("c1", "append_log", "a.txt")]),
        reply_text("done"),
    ]);
    let mut rig = start(store.clone(), model, tools.clone());
    rig.send(Input::UserMessage {
        text: "go".into(),
        budget: None,
    });
    assert!(rig
        .notices
        .borrow()
        .iter()
        .any(|n| matches!(n, Notice::StorageFailed(m) if m.contains("storage is full"))));
    assert!(
        tools.calls.borrow().is_empty(),
        "the tool that is not safe to run twice did not run without its record"
    );
    let written = log(&store);
    assert!(written.len() <= 6);
    // The user frees space: the same records are written and the run goes on.
    store.set_quota(None);
    rig.commands.unbounded_send(Command::RetryStorage).unwrap();
    rig.pool.run_until_stalled();
    assert!(rig.notices.borrow().contains(&Notice::StorageRecovered));
    assert_eq!(rig.outcome(), Some(StopReason::Completed));
    let full = log(&store);
    assert_eq!(full[..written.len()], written[..]);
    assert_eq!(Agent::replay(&full).unwrap().run().unwrap().step, 2);
}

#[test]
fn cancel_drops_the_running_tool_call() {
    let store = Rc::new(MemoryStore::default());
    let tools = Rc::new(FakeTools::default());
    tools.hang.set(true);
    let model = ScriptedModel::new(vec![reply_calls(vec![("c1", "read_file", "a.txt")])]);
    let mut rig = start(store, model, tools.clone());
    rig.send(Input::UserMessage {
        text: "go".into(),
        budget: None,
    });
    assert!(!tools.dropped.get());
    rig.send(Input::Cancel);
    assert!(
        tools.dropped.get(),
        "the tool's future was dropped (aborted)"
    );
    assert_eq!(rig.outcome(), Some(StopReason::Cancelled));
}

#[test]
fn an_approval_is_announced_and_the_decision_runs_the_call() {
    let store = Rc::new(MemoryStore::default());
    let tools = Rc::new(FakeTools::default());
    let model = ScriptedModel::new(vec![
        reply_calls(vec![("w1", "write_file", "out.txt")]),
        reply_text("written"),
    ]);
    let mut rig = start(store, model, tools.clone());
    rig.send(Input::UserMessage {
        text: "write".into(),
        budget: None,
    });
    let hash = rig.notices.borrow().iter().find_map(|n| match n {
        Notice::ApprovalNeeded { args_hash, .. } => Some(args_hash.clone()),
        _ => None,
    });
    assert!(tools.calls.borrow().is_empty());
    rig.send(Input::ApprovalDecided {
        call: "w1".into(),
        args_hash: hash.unwrap(),
        approved: true,
        reason: None,
    });
    assert_eq!(*tools.calls.borrow(), vec!["w1"]);
    assert_eq!(rig.outcome(), Some(StopReason::Completed));
}

/// A store whose relaxed appends wait until the test opens the gate: shows what the driver
/// does while a commit is still under way.
#[derive(Default)]
struct GatedStore {
    inner: MemoryStore,
    closed: Cell<bool>,
    held: RefCell<Vec<futures::channel::oneshot::Sender<()>>>,
}

impl GatedStore {
    fn open_gate(&self) {
        self.closed.set(false);
        for gate in self.held.borrow_mut().drain(..) {
            let _ = gate.send(());
        }
    }
}

impl EventStore for GatedStore {
    async fn append(
        &self,
        session: &str,
        records: &[Record],
        durability: Durability,
    ) -> Result<(), StoreError> {
        if durability == Durability::Relaxed && self.closed.get() {
            let (gate, wait) = futures::channel::oneshot::channel();
            self.held.borrow_mut().push(gate);
            let _ = wait.await;
        }
        self.inner.append(session, records, durability).await
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
}

#[test]
fn reversible_work_does_not_wait_for_its_commit_but_the_run_ends_only_once_all_is_stored() {
    let store = Rc::new(GatedStore::default());
    let model = ScriptedModel::new(vec![
        reply_calls(vec![("c1", "read_file", "a.txt")]),
        reply_text("done"),
    ]);
    let tools = Rc::new(FakeTools::default());
    let mut rig = start(store.clone(), model, tools.clone());
    let opened = store.inner.appends().len();
    store.closed.set(true);
    rig.send(Input::UserMessage {
        text: "go".into(),
        budget: None,
    });
    // The task went out strictly (the gate holds relaxed appends only)...
    let before = futures::executor::block_on(store.load("s")).unwrap();
    assert!(before
        .iter()
        .any(|r| matches!(r.event, Event::UserMessage { .. })));
    // ...the next append is held, yet the model was called and the idempotent read ran...
    assert_eq!(*tools.calls.borrow(), vec!["c1"]);
    // ...but the run does not end, nor is anything announced, before its records are stored.
    assert_eq!(rig.outcome(), None);
    let announced = rig
        .notices
        .borrow()
        .iter()
        .filter(|n| matches!(n, Notice::Persisted(_)))
        .count();
    assert_eq!(announced, before.len());
    store.open_gate();
    rig.pool.run_until_stalled();
    assert_eq!(rig.outcome(), Some(StopReason::Completed));
    let stored = futures::executor::block_on(store.load("s")).unwrap();
    let persisted: Vec<_> = rig
        .notices
        .borrow()
        .iter()
        .filter_map(|n| match n {
            Notice::Persisted(r) => Some(r.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(persisted, stored, "every record stored, announced in order");
    // The task, then what gathered while the held append waited went out together: three
    // appends in all.
    assert_eq!(store.inner.appends().len(), opened + 3);
}

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
    queue: RefCell<VecDeque<futures::channel::oneshot::Sender<()>>>,
}

impl QueuedStore {
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
        if self.held.get() {
            let (gate, wait) = futures::channel::oneshot::channel();
            self.queue.borrow_mut().push_back(gate);
            let _ = wait.await;
        }
        if self.fail_next.replace(false) {
            return Err(StoreError::QuotaExceeded("test disk full".into()));
        }
        self.inner.append(session, records, durability).await
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
    futures::executor::block_on(store.inner.load("s"))
        .unwrap()
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
    while store.release_one(&mut rig.pool) {}
    assert_eq!(rig.outcome(), Some(StopReason::Completed));
    let persisted: Vec<_> = rig
        .notices
        .borrow()
        .iter()
        .filter_map(|n| match n {
            Notice::Persisted(r) => Some(r.clone()),
            _ => None,
        })
        .collect();
    let stored = futures::executor::block_on(store.inner.load("s")).unwrap();
    assert_eq!(persisted, stored, "every record stored, announced in order");
}

#[test]
fn when_the_append_in_flight_fails_the_one_behind_it_fails_too_and_both_are_written_on_retry() {
    let (store, tools, mut rig) = pipelined_rig();
    let stored_before = futures::executor::block_on(store.inner.load("s"))
        .unwrap()
        .len();
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
        futures::executor::block_on(store.inner.load("s"))
            .unwrap()
            .len(),
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
    let log = futures::executor::block_on(store.inner.load("s")).unwrap();
    assert!(log.iter().enumerate().all(|(i, r)| r.seq == i as u64));
    assert_eq!(Agent::replay(&log).unwrap().run().unwrap().step, 3);
}
