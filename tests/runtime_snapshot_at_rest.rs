//! The end of a run writes the fold snapshot once the log has grown enough since the last one,
//! so a finished session opens from its snapshot and a record or two, not from a tail of up
//! to `SNAPSHOT_EVERY` records.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod driver_support;

use std::rc::Rc;

use driver_support::*;
use futures::executor::block_on;
use tabloop::core::{Agent, Input, SNAPSHOT_AT_REST, SNAPSHOT_EVERY};
use tabloop::ports::{EventStore, MemoryStore};

/// Runs one task on a new session: `steps` steps that each read a file of their own, then an
/// answer. Returns the store.
fn finished_run(steps: usize) -> Rc<MemoryStore> {
    let paths: Vec<String> = (0..steps).map(|i| format!("notes/{i}.md")).collect();
    let ids: Vec<String> = (0..steps).map(|i| format!("c{i}")).collect();
    let mut script: Vec<Scripted> = (0..steps)
        .map(|i| reply_calls(vec![(ids[i].as_str(), "read_file", paths[i].as_str())]))
        .collect();
    script.push(reply_text("done"));
    let store = Rc::new(MemoryStore::default());
    let mut rig = start(
        store.clone(),
        ScriptedModel::new(script),
        Rc::new(FakeTools::default()),
    );
    rig.send(Input::UserMessage {
        text: "read the notes".into(),
        budget: None,
    });
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
