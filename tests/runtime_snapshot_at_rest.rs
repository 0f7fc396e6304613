//! The end of a run writes the fold snapshot once the log has grown enough since the last one,
//! so a finished session opens from its snapshot and a record or two, not from a tail of up
//! to `SNAPSHOT_EVERY` records. Only the next open gains from it, so it is written after the
//! page has heard the run's outcome: in the next task, or as the driver stops.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod driver_support;

use std::cell::Cell;
use std::rc::Rc;

use driver_support::*;
use futures::executor::block_on;
use futures::FutureExt;
use tabloop::core::{Agent, Input, SNAPSHOT_AT_REST, SNAPSHOT_EVERY};
use tabloop::ports::{Clock, EventStore, MemoryStore};
use tabloop::runtime::{Command, Notice};

/// `steps` replies that each read a file of their own, then an answer.
fn script(steps: usize) -> Rc<ScriptedModel> {
    let paths: Vec<String> = (0..steps).map(|i| format!("notes/{i}.md")).collect();
    let ids: Vec<String> = (0..steps).map(|i| format!("c{i}")).collect();
    let mut script: Vec<Scripted> = (0..steps)
        .map(|i| reply_calls(vec![(ids[i].as_str(), "read_file", paths[i].as_str())]))
        .collect();
    script.push(reply_text("done"));
    ScriptedModel::new(script)
}

/// Starts one task of `steps` steps on a new session over `clock`; the returned flag says
/// whether the store held a snapshot when the page heard the run's outcome.
fn start_run<C: Clock + 'static>(
    store: &Rc<MemoryStore>,
    steps: usize,
    clock: Rc<C>,
) -> (Rig, Rc<Cell<Option<bool>>>) {
    let at_outcome = Rc::new(Cell::new(None));
    let seen = at_outcome.clone();
    let held = store.clone();
    let observe = move |notice: &Notice| {
        if matches!(notice, Notice::Finished(_)) {
            let snapshot = held
                .snapshot("s")
                .now_or_never()
                .expect("the store answers at once");
            seen.set(Some(snapshot.unwrap().is_some()));
        }
    };
    let tools = Rc::new(FakeTools::default());
    let mut rig = start_observed(store.clone(), script(steps), tools, clock, observe);
    rig.send(Input::UserMessage {
        text: "read the notes".into(),
        budget: None,
    });
    (rig, at_outcome)
}

/// Runs one task of `steps` steps on a new session to its end. Returns the store.
fn finished_run(steps: usize) -> Rc<MemoryStore> {
    let store = Rc::new(MemoryStore::default());
    let (rig, _) = start_run(&store, steps, Rc::new(ManualClock::default()));
    assert!(rig.outcome().is_some(), "the run did not finish");
    store
}

#[test]
fn a_finished_run_leaves_a_snapshot_of_its_whole_log_once_it_grew_enough() {
    let store = finished_run(12);
    let stored = log(&store);
    let grown = stored.len() as u64;
    // Only the end of the run can have written it: the log is below SNAPSHOT_EVERY.
    assert!(
        (SNAPSHOT_AT_REST..SNAPSHOT_EVERY).contains(&grown),
        "{grown} records"
    );
    let snapshot = block_on(store.snapshot("s")).unwrap().expect("no snapshot");
    assert_eq!(snapshot.records, grown);
    // Opening it reads the last record besides the snapshot, and folds to what replay gives.
    let last = &stored[stored.len() - 1..];
    let resumed = Agent::from_snapshot(&snapshot.head, &snapshot.parts, last).unwrap();
    assert_eq!(resumed.state(), Agent::replay(&stored).unwrap().state());
}

#[test]
fn a_run_that_added_few_records_writes_no_snapshot() {
    let store = finished_run(1);
    let grown = log(&store).len() as u64;
    assert!(grown < SNAPSHOT_AT_REST, "{grown} records");
    assert_eq!(block_on(store.snapshot("s")).unwrap(), None);
}

/// A run of 12 steps on a [`TaskClock`], taken as far as the task in which the page hears its
/// outcome, no further. Returns whether the store held a snapshot at that moment.
fn run_to_its_outcome(store: &Rc<MemoryStore>) -> (Rig, Rc<TaskClock>, Option<bool>) {
    let clock = Rc::new(TaskClock::default());
    let (mut rig, at_outcome) = start_run(store, 12, clock.clone());
    while rig.outcome().is_none() {
        clock.run_next_task(&mut rig.pool);
    }
    (rig, clock, at_outcome.get())
}

/// Whether the stored snapshot covers the whole log.
fn snapshot_covers_the_log(store: &MemoryStore) -> bool {
    let snapshot = block_on(store.snapshot("s")).unwrap();
    snapshot.is_some_and(|s| s.records == log(store).len() as u64)
}

#[test]
fn the_page_hears_the_outcome_before_the_snapshot_is_written_in_the_next_task() {
    let store = Rc::new(MemoryStore::default());
    let (mut rig, clock, at_outcome) = run_to_its_outcome(&store);
    assert_eq!(
        at_outcome,
        Some(false),
        "written before the outcome was out"
    );
    assert_eq!(block_on(store.snapshot("s")).unwrap(), None);
    clock.run_next_task(&mut rig.pool);
    assert!(snapshot_covers_the_log(&store));
}

#[test]
fn a_driver_stopped_as_its_run_ends_still_writes_the_snapshot() {
    let store = Rc::new(MemoryStore::default());
    let (mut rig, _clock, _) = run_to_its_outcome(&store);
    // The page closes the session before the host runs another task.
    rig.commands.unbounded_send(Command::Stop).unwrap();
    rig.pool.run_until_stalled();
    assert!(snapshot_covers_the_log(&store));
}
