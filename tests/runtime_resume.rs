//! Fast resume over in-memory ports: a long session opens from its fold snapshot plus the tail,
//! a snapshot that does not match the log is discarded (the log is replayed in full), and the
//! driver writes a fresh snapshot as the log grows.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::rc::Rc;

use futures::channel::mpsc;
use futures::executor::block_on;
use pretty_assertions::assert_eq;
use tabloop::core::{Agent, AgentConfig, Input, ToolInvocation, SNAPSHOT_EVERY};
use tabloop::ports::{
    Clock, Durability, EventStore, MemoryStore, ModelClient, StoredSnapshot, ToolHost, ToolOutput,
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
        })
    }
}

struct NoTools;
impl ToolHost for NoTools {
    async fn call(&self, _invocation: &ToolInvocation) -> ToolOutput {
        ToolOutput {
            content: String::new(),
            is_error: true,
        }
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

fn open(store: &Rc<MemoryStore>) -> Driver<Done, MemoryStore, NoTools, Fixed> {
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
fn long_session(tail: usize) -> (Rc<MemoryStore>, Vec<tabloop::core::Record>, String) {
    let log = session_log(1_200, "long");
    let store = Rc::new(MemoryStore::default());
    block_on(store.append("long", &log, Durability::Strict)).unwrap();
    let k = log.len() - tail;
    let json = Agent::replay(&log[..k])
        .unwrap()
        .snapshot_json(&log[k - 1])
        .unwrap();
    let snapshot = StoredSnapshot {
        records: k as u64,
        json: json.clone(),
    };
    block_on(store.save_snapshot("long", snapshot)).unwrap();
    (store, log, json)
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
    let (store, log, json) = long_session(10);
    let k = (log.len() - 10) as u64;
    let marked = json.replace("synthetic task of long", "marked");
    assert_ne!(marked, json);
    let snapshot = StoredSnapshot {
        records: k,
        json: marked,
    };
    block_on(store.save_snapshot("long", snapshot)).unwrap();
    assert_eq!(open(&store).agent().state().last_user_text, "marked");

    // One that ends with a record the log does not hold there is discarded.
    let shifted = StoredSnapshot {
        records: k + 1,
        json: json.clone(),
    };
    block_on(store.save_snapshot("long", shifted)).unwrap();
    let driver = open(&store);
    assert_eq!(driver.agent().state(), Agent::replay(&log).unwrap().state());
    // Garbage is discarded too.
    let garbage = StoredSnapshot {
        records: k,
        json: "{\"version\":1".into(),
    };
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
    let resumed = Agent::from_snapshot(&snapshot.json, &stored[from..]).unwrap();
    assert_eq!(resumed.state(), Agent::replay(&stored).unwrap().state());
}
