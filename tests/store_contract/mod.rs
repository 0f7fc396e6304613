//! The store contract: what every [`EventStore`] must do, written once and run against
//! `MemoryStore` natively (`tests/store_memory.rs`) and IndexedDB in headless Chromium
//! (`tests/browser_store.rs`). Each check takes a fresh, empty store and panics on a breach.
//! No `allow(dead_code)`: a check that one of the two runners forgets is a warning.
#![cfg(test)]

use pretty_assertions::assert_eq;
use tabloop::core::{
    Agent, AgentConfig, Effect, Event, Input, Record, SessionDigest, SnapshotWrite,
};
use tabloop::ports::{
    Durability, EventStore, IndexedSession, SessionSummary, StoreError, StoredSnapshot,
};

/// Records 0..n of a session, each a user message whose text names its seq.
pub fn messages(n: u64) -> Vec<Record> {
    (0..n).map(|seq| message(seq, "hello")).collect()
}

/// One user-message record at `seq`, written at `1000 + seq`.
pub fn message(seq: u64, text: &str) -> Record {
    Record {
        seq,
        at: 1000 + seq,
        event: Event::UserMessage {
            text: format!("{text} #{seq}"),
        },
    }
}

/// A real log from the loop core: session start, a user message with awkward text, the run and
/// step it starts, a model call, suspend and resume, and a cancel that ends the run.
pub fn agent_log() -> Vec<Record> {
    let mut agent = Agent::new("s", AgentConfig::default(), 1000);
    let mut records = Vec::new();
    let mut drain = |agent: &mut Agent| {
        while let Some(effect) = agent.poll() {
            match effect {
                Effect::Persist(record) => records.push(record),
                Effect::CallModel { .. }
                | Effect::CallTool(_)
                | Effect::AskApproval { .. }
                | Effect::AskStopHook(_)
                | Effect::Abort { .. }
                | Effect::Finished(_) => {}
            }
        }
    };
    drain(&mut agent);
    let text = "quotes \" \\ tabs \t newlines \n nul \u{0} é 日本 🦀 \u{2028}".to_string();
    let inputs = [
        Input::UserMessage { text, budget: None },
        Input::Suspend,
        Input::Resume,
        Input::cancel(),
    ];
    for (i, input) in inputs.into_iter().enumerate() {
        agent.handle(input, 1001 + i as u64).unwrap();
        drain(&mut agent);
    }
    records
}

fn json(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .map(|r| serde_json::to_string(r).unwrap())
        .collect()
}

/// Append then load returns the same records in order.
pub async fn append_then_load_returns_the_same_records_in_order<S: EventStore>(store: &S) {
    store
        .append("s", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    assert_eq!(store.load("s").await.unwrap(), messages(3));
}

/// Appends in several batches continue one log.
pub async fn appends_in_several_batches_continue_the_log<S: EventStore>(store: &S) {
    let all = messages(6);
    store
        .append("s", &all[..1], Durability::Strict)
        .await
        .unwrap();
    store
        .append("s", &all[1..4], Durability::Relaxed)
        .await
        .unwrap();
    store
        .append("s", &all[4..], Durability::Relaxed)
        .await
        .unwrap();
    assert_eq!(store.load("s").await.unwrap(), all);
}

/// Loading a session that was never written gives an empty log.
pub async fn loading_an_unknown_session_gives_an_empty_log<S: EventStore>(store: &S) {
    assert_eq!(store.load("nobody").await.unwrap(), Vec::<Record>::new());
    assert_eq!(
        store.sessions().await.unwrap(),
        Vec::<SessionSummary>::new()
    );
}

/// A gap is refused with `Gap`, both for a new session and after existing records.
pub async fn a_gap_is_refused_with_gap<S: EventStore>(store: &S) {
    let refused = store
        .append("s", &[message(1, "late")], Durability::Relaxed)
        .await;
    assert_eq!(
        refused,
        Err(StoreError::Gap {
            expected: 0,
            found: 1
        })
    );
    store
        .append("s", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    let refused = store
        .append("s", &[message(5, "late")], Durability::Relaxed)
        .await;
    assert_eq!(
        refused,
        Err(StoreError::Gap {
            expected: 3,
            found: 5
        })
    );
}

/// A batch with a gap in its middle writes nothing, not even its valid prefix.
pub async fn a_batch_with_a_gap_writes_nothing<S: EventStore>(store: &S) {
    store
        .append("s", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    let batch = [message(3, "a"), message(4, "b"), message(6, "c")];
    let refused = store.append("s", &batch, Durability::Relaxed).await;
    assert_eq!(
        refused,
        Err(StoreError::Gap {
            expected: 5,
            found: 6
        })
    );
    assert_eq!(store.load("s").await.unwrap(), messages(3));
    assert_eq!(store.sessions().await.unwrap(), vec![summary("s", 3, 1002)]);
}

/// A conflicting re-append is refused with `Conflict` naming the first differing seq.
pub async fn a_conflicting_reappend_is_refused_with_conflict<S: EventStore>(store: &S) {
    store
        .append("s", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    let refused = store
        .append("s", &[message(1, "other")], Durability::Relaxed)
        .await;
    assert_eq!(refused, Err(StoreError::Conflict { seq: 1 }));
}

/// A batch with a conflict writes nothing, not even the new records after it.
pub async fn a_batch_with_a_conflict_writes_nothing<S: EventStore>(store: &S) {
    store
        .append("s", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    let batch = [
        message(1, "hello"),
        message(2, "other"),
        message(3, "new"),
        message(4, "new"),
    ];
    let refused = store.append("s", &batch, Durability::Relaxed).await;
    assert_eq!(refused, Err(StoreError::Conflict { seq: 2 }));
    assert_eq!(store.load("s").await.unwrap(), messages(3));
    assert_eq!(store.sessions().await.unwrap(), vec![summary("s", 3, 1002)]);
}

/// A refused append to a new session leaves no session behind.
pub async fn a_refused_append_to_a_new_session_creates_no_session<S: EventStore>(store: &S) {
    let batch = [message(0, "a"), message(2, "b")];
    let refused = store.append("s", &batch, Durability::Relaxed).await;
    assert_eq!(
        refused,
        Err(StoreError::Gap {
            expected: 1,
            found: 2
        })
    );
    assert_eq!(
        store.sessions().await.unwrap(),
        Vec::<SessionSummary>::new()
    );
    assert_eq!(store.load("s").await.unwrap(), Vec::<Record>::new());
}

/// An empty append succeeds and changes nothing.
pub async fn an_empty_append_changes_nothing<S: EventStore>(store: &S) {
    store.append("s", &[], Durability::Relaxed).await.unwrap();
    assert_eq!(
        store.sessions().await.unwrap(),
        Vec::<SessionSummary>::new()
    );
}

/// Re-appending identical records (a retry after commit-then-error) is accepted and writes no
/// duplicates.
pub async fn reappending_identical_records_is_accepted_without_duplicates<S: EventStore>(
    store: &S,
) {
    store
        .append("s", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    store
        .append("s", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    assert_eq!(store.load("s").await.unwrap(), messages(3));
    assert_eq!(store.sessions().await.unwrap(), vec![summary("s", 3, 1002)]);
}

/// A retry that overlaps the stored tail appends only the records that are new.
pub async fn a_retry_overlapping_the_log_appends_only_new_records<S: EventStore>(store: &S) {
    let all = messages(5);
    store
        .append("s", &all[..3], Durability::Relaxed)
        .await
        .unwrap();
    store
        .append("s", &all[1..], Durability::Relaxed)
        .await
        .unwrap();
    assert_eq!(store.load("s").await.unwrap(), all);
    assert_eq!(store.sessions().await.unwrap(), vec![summary("s", 5, 1004)]);
}

/// Sessions are isolated: the same seqs in two sessions never meet.
pub async fn sessions_are_isolated<S: EventStore>(store: &S) {
    let other: Vec<Record> = (0..2).map(|seq| message(seq, "other")).collect();
    store
        .append("a", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    store
        .append("b", &other, Durability::Relaxed)
        .await
        .unwrap();
    // A prefix of one session's name is another session.
    store
        .append("a:1", &messages(1), Durability::Relaxed)
        .await
        .unwrap();
    assert_eq!(store.load("a").await.unwrap(), messages(3));
    assert_eq!(store.load("b").await.unwrap(), other);
    assert_eq!(store.load("a:1").await.unwrap(), messages(1));
}

/// `sessions()` reports every session with its record count and last record time.
pub async fn sessions_reports_counts_and_last_time<S: EventStore>(store: &S) {
    store
        .append("b", &messages(2), Durability::Relaxed)
        .await
        .unwrap();
    store
        .append("a", &messages(4), Durability::Relaxed)
        .await
        .unwrap();
    let mut sessions = store.sessions().await.unwrap();
    sessions.sort_by(|x, y| x.session.cmp(&y.session));
    assert_eq!(sessions, vec![summary("a", 4, 1003), summary("b", 2, 1001)]);
}

/// Delete removes that session only; deleting an unknown session is not an error.
pub async fn delete_removes_only_that_session<S: EventStore>(store: &S) {
    store
        .append("a", &messages(2), Durability::Relaxed)
        .await
        .unwrap();
    store
        .append("b", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    store.delete("a").await.unwrap();
    store.delete("never-written").await.unwrap();
    assert_eq!(store.load("a").await.unwrap(), Vec::<Record>::new());
    assert_eq!(store.load("b").await.unwrap(), messages(3));
    assert_eq!(store.sessions().await.unwrap(), vec![summary("b", 3, 1002)]);
}

/// A deleted session can be started again from seq 0.
pub async fn a_deleted_session_starts_again_from_zero<S: EventStore>(store: &S) {
    store
        .append("s", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    store.delete("s").await.unwrap();
    let fresh = [message(0, "again")];
    store
        .append("s", &fresh, Durability::Relaxed)
        .await
        .unwrap();
    assert_eq!(store.load("s").await.unwrap(), fresh.to_vec());
}

/// Real loop records (several `Event` variants, awkward text) round-trip byte-identical
/// through JSON.
pub async fn a_record_round_trips_byte_identical_through_json<S: EventStore>(store: &S) {
    let log = agent_log();
    let kinds: std::collections::BTreeSet<String> = json(&log)
        .iter()
        .map(|j| serde_json::from_str::<serde_json::Value>(j).unwrap()["event"]["type"].to_string())
        .collect();
    assert!(kinds.len() >= 5, "too few event kinds: {kinds:?}");
    store.append("s", &log, Durability::Strict).await.unwrap();
    let loaded = store.load("s").await.unwrap();
    assert_eq!(json(&loaded), json(&log));
    assert_eq!(loaded, log);
}

/// 1,000 records appended one by one and as one batch load back in order.
pub async fn a_thousand_records_load_back_in_order<S: EventStore>(store: &S) {
    let all = messages(1000);
    store
        .append("batch", &all, Durability::Relaxed)
        .await
        .unwrap();
    for record in &all {
        store
            .append("single", std::slice::from_ref(record), Durability::Relaxed)
            .await
            .unwrap();
    }
    assert_eq!(store.load("batch").await.unwrap(), all);
    assert_eq!(store.load("single").await.unwrap(), all);
}

/// The summary a session of `records` records last written at `updated_at` should have.
pub fn summary(session: &str, records: u64, updated_at: u64) -> SessionSummary {
    SessionSummary {
        session: session.into(),
        records,
        updated_at,
    }
}

/// The sessions index gives every session's digest as folded from its whole log, after each
/// append (one batch or several, retries included), and forgets a deleted session.
pub async fn the_index_digest_matches_the_log_after_every_append<S: EventStore>(store: &S) {
    let log = agent_log();
    let expect = |session: &str, upto: usize| IndexedSession {
        session: session.into(),
        updated_at: log[upto - 1].at,
        digest: SessionDigest::from_records(&log[..upto]),
        name: None,
    };
    store
        .append("s", &log[..2], Durability::Strict)
        .await
        .unwrap();
    assert_eq!(store.index().await.unwrap(), vec![expect("s", 2)]);
    for end in 3..=log.len() {
        // Each batch re-sends the previous record, as a retry would.
        store
            .append("s", &log[end - 2..end], Durability::Relaxed)
            .await
            .unwrap();
        assert_eq!(store.index().await.unwrap(), vec![expect("s", end)]);
    }
    let digest = &store.index().await.unwrap()[0].digest;
    assert!(digest.title.starts_with("quotes"), "{}", digest.title);
    assert!(!digest.in_flight(), "the cancel ended the run");
    store
        .append("t", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    let index = store.index().await.unwrap();
    assert_eq!(index.len(), 2);
    assert_eq!(index[1].digest, SessionDigest::from_records(&messages(3)));
    store.delete("s").await.unwrap();
    assert_eq!(
        store
            .index()
            .await
            .unwrap()
            .iter()
            .map(|i| i.session.as_str())
            .collect::<Vec<_>>(),
        vec!["t"]
    );
}

/// Appends that continue one another, then the writer rests: the log, the sessions and the
/// index read the same before and after, the index matches the log, and appends go on after.
pub async fn resting_changes_nothing_a_reader_sees<S: EventStore>(store: &S) {
    let log = agent_log();
    let half = log.len() / 2;
    let read = || async {
        (
            store.load("s").await.unwrap(),
            store.sessions().await.unwrap(),
            store.index().await.unwrap(),
        )
    };
    for seq in 0..half {
        store
            .append("s", &log[seq..seq + 1], Durability::Strict)
            .await
            .unwrap();
    }
    let before = read().await;
    assert_eq!(before.0, log[..half].to_vec());
    assert_eq!(before.1, vec![summary("s", half as u64, log[half - 1].at)]);
    assert_eq!(
        before.2[0].digest,
        SessionDigest::from_records(&log[..half])
    );
    store.rest("s").await.unwrap();
    assert_eq!(read().await, before);
    store
        .append("s", &log[half..], Durability::Relaxed)
        .await
        .unwrap();
    store.rest("s").await.unwrap();
    store.rest("never-written").await.unwrap();
    let (records, sessions, index) = read().await;
    assert_eq!(records, log);
    assert_eq!(
        sessions,
        vec![summary("s", log.len() as u64, log[log.len() - 1].at)]
    );
    assert_eq!(index[0].digest, SessionDigest::from_records(&log));
}

/// A session's name is in the index, survives later appends, can be removed again, goes with
/// a delete, and cannot be given to a session that has no records.
pub async fn a_session_name_survives_appends_and_goes_with_a_delete<S: EventStore>(store: &S) {
    let names = |index: Vec<IndexedSession>| -> Vec<(String, Option<String>)> {
        index.into_iter().map(|i| (i.session, i.name)).collect()
    };
    store
        .append("s", &messages(2), Durability::Relaxed)
        .await
        .unwrap();
    store
        .append("t", &messages(1), Durability::Relaxed)
        .await
        .unwrap();
    store.rename("s", Some("My plan".into())).await.unwrap();
    store
        .append("s", &messages(4)[2..], Durability::Relaxed)
        .await
        .unwrap();
    let index = store.index().await.unwrap();
    assert_eq!(index[0].digest, SessionDigest::from_records(&messages(4)));
    assert_eq!(
        names(index),
        vec![("s".into(), Some("My plan".into())), ("t".into(), None)]
    );
    store.rename("s", None).await.unwrap();
    assert_eq!(names(store.index().await.unwrap())[0], ("s".into(), None));
    store.rename("t", Some("Other".into())).await.unwrap();
    store.delete("t").await.unwrap();
    store
        .append("t", &messages(1), Durability::Relaxed)
        .await
        .unwrap();
    assert_eq!(names(store.index().await.unwrap())[1], ("t".into(), None));
    assert!(store.rename("nobody", Some("x".into())).await.is_err());
    assert_eq!(
        store.index().await.unwrap().len(),
        2,
        "a failed rename creates nothing"
    );
}

/// `load_range` returns exactly the asked records, in order.
pub async fn load_range_returns_the_asked_records<S: EventStore>(store: &S) {
    store
        .append("s", &messages(10), Durability::Relaxed)
        .await
        .unwrap();
    assert_eq!(
        store.load_range("s", 3, Some(6)).await.unwrap(),
        messages(10)[3..6].to_vec()
    );
    assert_eq!(
        store.load_range("s", 7, None).await.unwrap(),
        messages(10)[7..].to_vec()
    );
    assert_eq!(
        store.load_range("s", 0, Some(1)).await.unwrap(),
        messages(1)
    );
    assert_eq!(store.load_range("s", 10, None).await.unwrap(), Vec::new());
    assert_eq!(
        store.load_range("other", 0, None).await.unwrap(),
        Vec::new()
    );
}

/// Long batches and the records inside them: ranges starting and ending anywhere, and retries
/// overlapping the middle of a batch (a store may keep a batch in rows of its own size).
pub async fn ranges_and_retries_inside_long_batches<S: EventStore>(store: &S) {
    let all = messages(605);
    store
        .append("s", &all[..600], Durability::Relaxed)
        .await
        .unwrap();
    for record in &all[600..] {
        store
            .append("s", std::slice::from_ref(record), Durability::Relaxed)
            .await
            .unwrap();
    }
    assert_eq!(store.load("s").await.unwrap(), all);
    for (from, to) in [
        (0, 600),
        (255, 258),
        (256, 257),
        (511, 515),
        (590, 603),
        (599, 605),
    ] {
        assert_eq!(
            store.load_range("s", from, Some(to)).await.unwrap(),
            all[from as usize..to as usize].to_vec(),
            "{from}..{to}"
        );
    }
    assert_eq!(
        store.load_range("s", 300, None).await.unwrap(),
        all[300..].to_vec()
    );
    // Identical records from inside the log, then new ones: only the new ones are added.
    let more = messages(610);
    store
        .append("s", &more[250..610], Durability::Strict)
        .await
        .unwrap();
    assert_eq!(store.load("s").await.unwrap(), more);
    // One of them different: refused, nothing written.
    let mut changed = messages(612)[500..].to_vec();
    changed[1] = message(501, "rewritten");
    let refused = store.append("s", &changed, Durability::Strict).await;
    assert!(
        matches!(refused, Err(StoreError::Conflict { seq: 501 })),
        "{refused:?}"
    );
    assert_eq!(store.load("s").await.unwrap(), more);
}

/// A saved snapshot reads back until its head is replaced, its parts accumulate (read back
/// from the first up to a gap), and both go with their deleted session. (A store may keep no
/// snapshots at all: then it reads back nothing.)
pub async fn a_snapshot_reads_back_until_replaced_or_deleted<S: EventStore>(store: &S) {
    store
        .append("s", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    assert_eq!(store.snapshot("s").await.unwrap(), None);
    let write = |records: u64, head: &str, first_part: u64, parts: &[&str]| SnapshotWrite {
        records,
        head: head.into(),
        first_part,
        parts: parts.iter().map(|part| part.to_string()).collect(),
    };
    let stored = |records: u64, head: &str, parts: &[&str]| {
        Some(StoredSnapshot {
            records,
            head: head.into(),
            parts: parts.iter().map(|part| part.to_string()).collect(),
        })
    };
    store
        .save_snapshot("s", write(2, "{\"a\":1}", 0, &["[0]", "[1]"]))
        .await
        .unwrap();
    assert_eq!(
        store.snapshot("s").await.unwrap(),
        stored(2, "{\"a\":1}", &["[0]", "[1]"])
    );
    store
        .save_snapshot("s", write(3, "{\"b\":2}", 2, &["[2]"]))
        .await
        .unwrap();
    assert_eq!(
        store.snapshot("s").await.unwrap(),
        stored(3, "{\"b\":2}", &["[0]", "[1]", "[2]"])
    );
    // A part written past a gap is not read back; a part written again is replaced.
    store
        .save_snapshot("s", write(3, "{\"c\":3}", 4, &["[4]"]))
        .await
        .unwrap();
    store
        .save_snapshot("s", write(3, "{\"d\":4}", 1, &["[1']"]))
        .await
        .unwrap();
    assert_eq!(
        store.snapshot("s").await.unwrap(),
        stored(3, "{\"d\":4}", &["[0]", "[1']", "[2]"])
    );
    assert_eq!(store.snapshot("t").await.unwrap(), None);
    store.delete("s").await.unwrap();
    assert_eq!(store.snapshot("s").await.unwrap(), None);
    // A session of the same name later starts with no parts.
    store
        .append("s", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    store
        .save_snapshot("s", write(3, "{\"e\":5}", 0, &[]))
        .await
        .unwrap();
    assert_eq!(
        store.snapshot("s").await.unwrap(),
        stored(3, "{\"e\":5}", &[])
    );
}
