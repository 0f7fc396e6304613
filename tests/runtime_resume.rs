//! Fast resume over in-memory ports: a long session opens from its fold snapshot plus the tail,
//! a snapshot that does not match the log is discarded (the log is replayed in full), and the
//! driver writes a fresh snapshot as the log grows.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::rc::Rc;

use futures::channel::mpsc;
use futures::executor::block_on;
use pretty_assertions::assert_eq;
use tabloop::core::{Agent, AgentConfig, Input, SnapshotWrite, ToolInvocation, SNAPSHOT_EVERY};
use tabloop::ports::{
    Clock, Durability, EventStore, MemoryStore, ModelClient, ToolHost, ToolOutput,
};
use tabloop::protocol::{FinishReason, ModelError, ModelReply, ModelRequest, StreamDelta, Usage};
use tabloop::runtime::synthetic::session_log;
use tabloop::runtime::Driver;

struct Done;
impl ModelClient for Done {
    async fn complete(
        &self,
        _request: &ModelRequest,
        _on_delta: &mut dyn FnMut(StreamDelta),
    ) -> Result<ModelReply, ModelError> {
        Ok(ModelReply {
            text: "done".into(),
            tool_calls: vec![],
            finish: FinishReason::EndTurn,
            usage: Usage::default(),
            model: "m".into(),
            reasoning: String::new(),
        })
    }
}

struct NoTools;
impl ToolHost for NoTools {
    async fn call(&self, _invocation: &ToolInvocation) -> ToolOutput {
        ToolOutput::result(String::new(), true)
    }
}

struct Fixed;
impl Clock for Fixed {
    fn now(&self) -> u64 {
        1_000_000
    }
    async fn sleep(&self, _ms: u64) {
        futures::future::pending::<()>().await
    }
}

fn open(store: &Rc<MemoryStore>) -> Driver<(Done, MemoryStore, NoTools, Fixed)> {
    block_on(Driver::open(
        "long",
        AgentConfig::default(),
        Rc::new(Done),
        store.clone(),
        Rc::new(NoTools),
        Rc::new(Fixed),
        Box::new(|_| {}),
    ))
    .unwrap()
}

/// A store holding a finished 1,200-record session, with a snapshot of all of it but the last
/// `tail` records.
fn long_session(tail: usize) -> (Rc<MemoryStore>, Vec<tabloop::core::Record>, SnapshotWrite) {
    let log = session_log(1_200, "long");
    let store = Rc::new(MemoryStore::default());
    block_on(store.append("long", &log, Durability::Strict)).unwrap();
    let k = log.len() - tail;
    let write = Agent::replay(&log[..k])
        .unwrap()
        .snapshot(&log[k - 1], 0)
        .unwrap();
    assert!(
        !write.parts.is_empty(),
        "a log this long has transcript parts"
    );
    block_on(store.save_snapshot("long", write.clone())).unwrap();
    (store, log, write)
}

/// `write` with another head, adding no parts.
fn with_head(write: &SnapshotWrite, records: u64, head: String) -> SnapshotWrite {
    SnapshotWrite {
        records,
        head,
        first_part: write.parts.len() as u64,
        parts: Vec::new(),
    }
}

#[test]
fn a_long_session_opens_from_its_snapshot_and_tail_as_replay_would() {
    let (store, _, _) = long_session(37);
    let driver = open(&store);
    let stored = block_on(store.load("long")).unwrap();
    assert_eq!(
        driver.agent().state(),
        Agent::replay(&stored).unwrap().state()
    );
}

#[test]
fn the_snapshot_is_used_when_it_matches_and_discarded_when_it_does_not() {
    // A snapshot whose state says something else but that ends with the log's record is
    // trusted: this shows the open really reads it.
    let (store, log, write) = long_session(10);
    let k = (log.len() - 10) as u64;
    let marked = write.head.replace("synthetic task of long", "marked");
    assert_ne!(marked, write.head);
    block_on(store.save_snapshot("long", with_head(&write, k, marked))).unwrap();
    assert_eq!(open(&store).agent().state().last_user_text, "marked");

    // One that ends with a record the log does not hold there is discarded.
    let shifted = with_head(&write, k + 1, write.head.clone());
    block_on(store.save_snapshot("long", shifted)).unwrap();
    let driver = open(&store);
    assert_eq!(driver.agent().state(), Agent::replay(&log).unwrap().state());
    // Garbage is discarded too.
    let garbage = with_head(&write, k, "{\"version\":1".into());
    block_on(store.save_snapshot("long", garbage)).unwrap();
    assert_eq!(
        open(&store).agent().state(),
        Agent::replay(&log).unwrap().state()
    );
}

#[test]
fn the_driver_writes_a_fresh_snapshot_once_the_log_has_grown_enough() {
    let log = session_log(1_200, "long");
    let store = Rc::new(MemoryStore::default());
    block_on(store.append("long", &log, Durability::Strict)).unwrap();
    assert_eq!(block_on(store.snapshot("long")).unwrap(), None);
    let mut driver = open(&store);
    let (_commands, receiver) = mpsc::unbounded::<tabloop::runtime::Command>();
    block_on(driver.feed(Input::UserMessage {
        text: "again".into(),
        budget: None,
    }))
    .unwrap();
    drop(receiver);
    let stored = block_on(store.load("long")).unwrap();
    let snapshot = block_on(store.snapshot("long")).unwrap().unwrap();
    assert!(snapshot.records >= SNAPSHOT_EVERY);
    assert!(snapshot.records <= stored.len() as u64);
    let from = (snapshot.records - 1) as usize;
    let resumed = Agent::from_snapshot(&snapshot.head, &snapshot.parts, &stored[from..]).unwrap();
    assert_eq!(resumed.state(), Agent::replay(&stored).unwrap().state());
}

/// The agent after the first `k` records of `log`.
fn folded(log: &[tabloop::core::Record], k: usize) -> Agent {
    Agent::replay(&log[..k]).unwrap()
}

#[test]
fn snapshots_write_each_transcript_message_once_however_long_the_session() {
    let log = session_log(8_000, "long");
    let mut stored_parts: Vec<String> = Vec::new();
    // Bytes each snapshot writes: its head and its new parts.
    let mut written = Vec::new();
    for k in (SNAPSHOT_EVERY as usize..log.len()).step_by(SNAPSHOT_EVERY as usize) {
        let write = folded(&log, k)
            .snapshot(&log[k - 1], stored_parts.len() as u64)
            .unwrap();
        // Only the parts the store lacks are written, each after the ones before it.
        assert_eq!(write.first_part, stored_parts.len() as u64);
        written.push(write.head.len() + write.parts.iter().map(String::len).sum::<usize>());
        stored_parts.extend(write.parts);
        // Each snapshot opens as replay would, from its head and every part so far.
        let resumed = Agent::from_snapshot(&write.head, &stored_parts, &log[k - 1..]).unwrap();
        assert_eq!(resumed.state(), folded(&log, log.len()).state());
    }
    assert!(stored_parts.len() >= 8, "{} parts", stored_parts.len());
    // A snapshot writes what the log added since the last one, not the history again: the
    // later half of the snapshots writes no more than the earlier half (rewriting the whole
    // state each time, the later half wrote about three times as much).
    let (early, late) = written.split_at(written.len() / 2);
    let (early, late): (usize, usize) = (early.iter().sum(), late.iter().sum());
    assert!(
        late * 4 <= early * 5,
        "later snapshots wrote {late} bytes, earlier {early}: {written:?}"
    );
}

#[test]
fn a_snapshot_missing_or_with_a_damaged_part_is_refused() {
    let log = session_log(2_000, "long");
    let k = log.len() - 3;
    let write = folded(&log, k).snapshot(&log[k - 1], 0).unwrap();
    assert!(write.parts.len() >= 2);
    let tail = &log[k - 1..];
    assert!(Agent::from_snapshot(&write.head, &write.parts, tail).is_some());
    let missing = &write.parts[..write.parts.len() - 1];
    assert!(Agent::from_snapshot(&write.head, missing, tail).is_none());
    let mut short = write.parts.clone();
    short[0] = "[]".into();
    assert!(Agent::from_snapshot(&write.head, &short, tail).is_none());
    let mut garbage = write.parts.clone();
    garbage[1] = "[{\"U\":".into();
    assert!(Agent::from_snapshot(&write.head, &garbage, tail).is_none());
    // A part the store kept from earlier beyond the head's is ignored.
    let mut extra = write.parts.clone();
    extra.push("[]".into());
    assert!(Agent::from_snapshot(&write.head, &extra, tail).is_some());
}

#[test]
fn a_driver_opened_from_a_snapshot_adds_only_the_parts_after_it() {
    // A snapshot of the first half of a 2,000-record log; the driver opens it and, the log
    // being a whole snapshot interval longer, snapshots again.
    let log = session_log(2_000, "long");
    let store = Rc::new(MemoryStore::default());
    block_on(store.append("long", &log, Durability::Strict)).unwrap();
    let k = 1_000;
    let first = folded(&log, k).snapshot(&log[k - 1], 0).unwrap();
    assert_eq!(first.parts.len(), 1);
    // Make the stored part recognisable without changing what it reads as: if the driver
    // wrote it again, the leading space would be gone.
    let marked = format!(" {}", first.parts[0]);
    let kept = SnapshotWrite {
        parts: vec![marked.clone()],
        ..first
    };
    block_on(store.save_snapshot("long", kept)).unwrap();
    let mut driver = open(&store);
    block_on(driver.feed(Input::UserMessage {
        text: "again".into(),
        budget: None,
    }))
    .unwrap();
    let snapshot = block_on(store.snapshot("long")).unwrap().unwrap();
    assert!(snapshot.records > k as u64, "a fresh snapshot");
    assert!(snapshot.parts.len() >= 2, "{} parts", snapshot.parts.len());
    assert_eq!(snapshot.parts[0], marked);
    drop(driver);
}
