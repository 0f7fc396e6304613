//! The driver over in-memory ports: persistence before actions, strict intent records, resume
//! after a "reload" with no event lost, a full disk pausing the run, and cancellation.
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
use std::rc::Rc;

use pretty_assertions::assert_eq;
use tabloop::core::{Agent, BudgetKind, BudgetLimits, Event, Input, Record, StopReason};
use tabloop::ports::{Durability, EventStore, MemoryStore, SessionSummary, StoreError};
use tabloop::protocol::StreamDelta;

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
    rig.send(Input::cancel());
    assert!(
        tools.dropped.get(),
        "the tool's future was dropped (aborted)"
    );
    assert_eq!(rig.outcome(), Some(StopReason::Cancelled));
}

/// The run's end reaches the page only once the cancelled work was dropped (which aborts the
/// fetch or the page's `signal`): the driver may take the end's commit before it polls its work
/// again, so an abort that waited for that poll came after the end, or never.
#[test]
fn a_cancelled_call_is_dropped_before_the_run_end_is_announced() {
    for hanging in ["model", "tool"] {
        let tools = Rc::new(FakeTools::default());
        tools.hang.set(hanging == "tool");
        let model = ScriptedModel::new(match hanging {
            "tool" => vec![reply_calls(vec![("c1", "read_file", "a.txt")])],
            _ => vec![],
        });
        let dropped = match hanging {
            "tool" => tools.dropped.clone(),
            _ => model.dropped.clone(),
        };
        let dropped_at_end = Rc::new(Cell::new(None));
        let seen = dropped_at_end.clone();
        let observe = move |notice: &Notice| {
            if matches!(notice, Notice::Finished(_)) {
                seen.set(Some(dropped.get()));
            }
        };
        let clock = Rc::new(ManualClock::default());
        let store = Rc::new(MemoryStore::default());
        let mut rig = start_observed(store, model, tools, clock, observe);
        rig.send(Input::UserMessage {
            text: "go".into(),
            budget: None,
        });
        rig.send(Input::cancel());
        assert_eq!(rig.outcome(), Some(StopReason::Cancelled), "{hanging}");
        assert_eq!(dropped_at_end.get(), Some(true), "{hanging}");
    }
}

#[test]
fn cancel_while_the_model_writes_records_what_it_had_written() {
    let store = Rc::new(MemoryStore::default());
    let tools = Rc::new(FakeTools::default());
    let Scripted::Reply(mut looking) = reply_calls(vec![("c1", "read_file", "a.txt")]) else {
        unreachable!()
    };
    looking.text = "Looking first.".into();
    let model = ScriptedModel::new(vec![
        Scripted::Reply(looking),
        Scripted::Writing(vec![
            StreamDelta::Thinking("a plan".into()),
            StreamDelta::Text("Once upon ".into()),
            StreamDelta::Text("a time".into()),
        ]),
    ]);
    let mut rig = start(store.clone(), model, tools);
    rig.send(Input::UserMessage {
        text: "read a.txt, then tell a story".into(),
        budget: None,
    });
    rig.send(Input::cancel());
    assert_eq!(rig.outcome(), Some(StopReason::Cancelled));
    // The second call's visible text only: not the first reply's, not the reasoning.
    assert_eq!(abandoned_replies(&store), ["Once upon a time"]);
}

#[test]
fn a_time_budget_stop_while_the_model_writes_records_what_it_had_written() {
    let store = Rc::new(MemoryStore::default());
    let model = ScriptedModel::new(vec![Scripted::Writing(vec![
        StreamDelta::Text("Once upon ".into()),
        StreamDelta::Text("a time".into()),
    ])]);
    let clock = Rc::new(PassingClock::starting_at(1_000_000));
    let mut rig = start_with_clock(
        store.clone(),
        model,
        Rc::new(FakeTools::default()),
        clock.clone(),
    );
    rig.send(Input::UserMessage {
        text: "tell a story".into(),
        budget: Some(BudgetLimits {
            max_wall_ms: Some(60_000),
            ..BudgetLimits::default()
        }),
    });
    clock.pass(1_000);
    rig.pool.run_until_stalled();
    assert_eq!(rig.outcome(), None, "a second is inside the budget");
    clock.pass(60_000);
    rig.pool.run_until_stalled();
    assert_eq!(
        rig.outcome(),
        Some(StopReason::BudgetExhausted {
            budget: BudgetKind::WallClock
        })
    );
    assert_eq!(abandoned_replies(&store), ["Once upon a time"]);
}

#[test]
fn a_new_api_key_reaches_the_model_client_and_not_the_log() {
    let store = Rc::new(MemoryStore::default());
    let model = ScriptedModel::new(vec![reply_text("hello")]);
    let mut rig = start(store.clone(), model.clone(), Rc::new(FakeTools::default()));
    rig.commands
        .unbounded_send(Command::SetApiKey("sk-the-right-one".into()))
        .unwrap();
    rig.send(Input::UserMessage {
        text: "say hello".into(),
        budget: None,
    });
    assert_eq!(*model.keys.borrow(), vec!["sk-the-right-one".to_string()]);
    assert_eq!(rig.outcome(), Some(StopReason::Completed));
    let exported = tabloop::core::to_jsonl(&log(&store));
    assert!(!exported.contains("sk-the-right-one"));
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

/// The text kept by each model call given up, in order.
fn abandoned_replies(store: &MemoryStore) -> Vec<String> {
    log(store)
        .into_iter()
        .filter_map(|r| match r.event {
            Event::ModelCallAbandoned { partial_reply, .. } => Some(partial_reply),
            _ => None,
        })
        .collect()
}

#[test]
fn a_tool_that_cannot_reach_its_server_pauses_the_run_and_a_retry_sends_the_call_again() {
    let store = Rc::new(MemoryStore::default());
    let model = ScriptedModel::new(vec![
        reply_calls(vec![("c1", "read_file", "a.txt")]),
        reply_text("done"),
    ]);
    let tools = Rc::new(FakeTools::default());
    tools.offline.set(1);
    let mut rig = start(store.clone(), model.clone(), tools.clone());
    rig.send(Input::UserMessage {
        text: "go".into(),
        budget: None,
    });
    assert_eq!(rig.outcome(), None, "paused, not ended");
    assert!(matches!(
        log(&store).last().unwrap().event,
        Event::RunPaused { .. }
    ));
    assert_eq!(
        model.calls.get(),
        1,
        "the model saw no error and was not asked again"
    );
    rig.send(Input::RetryPaused);
    assert_eq!(rig.outcome(), Some(StopReason::Completed));
    assert_eq!(*tools.calls.borrow(), vec!["c1", "c1"]);
    assert!(log(&store).iter().all(|r| !matches!(
        &r.event,
        Event::ToolCallFinished { content, .. } if content.contains("offline")
    )));
}
