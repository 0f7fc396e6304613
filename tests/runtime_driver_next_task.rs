//! The driver and the host's next task: the page hears of stored records in a later task than
//! the step that stored them (or while the next commit is under way), records only reversible
//! work follows go out in the next task or with a strict batch, and a run that never waits lets
//! the host have a task after each slice.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::wildcard_enum_match_arm
)]

mod driver_support;

use driver_support::*;
use tabloop::runtime::Notice;

use std::rc::Rc;

use pretty_assertions::assert_eq;
use tabloop::core::{Input, StopReason};
use tabloop::ports::Durability;

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
