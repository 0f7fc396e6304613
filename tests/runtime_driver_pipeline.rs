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

use std::rc::Rc;

use pretty_assertions::assert_eq;
use tabloop::core::{Agent, Event, Input, StopReason};
use tabloop::ports::Durability;

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
