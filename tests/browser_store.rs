//! The store contract against IndexedDB in headless Chromium (one fresh database per test),
//! plus what only a browser has: durability modes, a corrupt row, lost connections, Web Locks.
//! (A full disk is tested with Chromium's real quota in `tests/e2e/api.test.mjs`.)
#![cfg(all(test, target_arch = "wasm32"))]
// Clippy's allow-*-in-tests settings do not recognise `#[wasm_bindgen_test]` functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod store_contract;

use std::cell::Cell;

use pretty_assertions::assert_eq;
use tabloop::core::{SessionDigest, SnapshotWrite, DIGEST_SCHEMA};
use tabloop::ports::{Durability, EventStore, StoreError};
use tabloop::web::idb_store::IdbStore;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

use store_contract::{message, messages};

wasm_bindgen_test_configure!(run_in_browser);

// Test-only JS that writes a raw row behind the store's back (its own connection).
#[wasm_bindgen(inline_js = r#"
// Runs `work(tx)` in one read-write transaction over `stores` on its own connection.
function writeRaw(name, stores, work) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction(stores, 'readwrite');
      work(tx);
      tx.oncomplete = () => { db.close(); resolve(); };
      tx.onabort = () => { db.close(); reject(tx.error); };
    };
  });
}
export function putRawRecord(name, session, seq, json) {
  return writeRaw(name, ['records', 'sessions'], (tx) => {
    tx.objectStore('records').put({ session, seq, at: 0, json });
    tx.objectStore('sessions').put({ session, records: seq + 1, updated_at: 0 });
  });
}
// A database as the store left it at schema version 2 (before snapshot parts), holding one
// record of `session` and a snapshot head.
export function createVersion2(name, session, json) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(name, 2);
    open.onupgradeneeded = () => {
      const db = open.result;
      db.createObjectStore('records', { keyPath: ['session', 'seq'] });
      db.createObjectStore('sessions', { keyPath: 'session' });
      db.createObjectStore('snapshots', { keyPath: 'session' });
    };
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction(['records', 'sessions', 'snapshots'], 'readwrite');
      tx.objectStore('records').put({ session, seq: 0, at: 0, json });
      tx.objectStore('sessions').put({ session, records: 1, updated_at: 0 });
      tx.objectStore('snapshots').put({ session, records: 1, json: '{"old":true}' });
      tx.oncomplete = () => { db.close(); resolve(); };
      tx.onabort = () => { db.close(); reject(tx.error); };
    };
  });
}
// What `ask(store)` asks of the object store `name` on its own connection.
function readRaw(name, store, ask) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const q = ask(db.transaction(store, 'readonly').objectStore(store));
      q.onsuccess = () => { db.close(); resolve(q.result); };
      q.onerror = () => { db.close(); reject(q.error); };
    };
  });
}
// The raw rows of `session`'s log: [{seq, records}] (records: how many the row holds).
export async function rawRows(name, session) {
  const rows = await readRaw(name, 'records', (s) => s.getAll(IDBKeyRange.bound([session, -Infinity], [session, Infinity])));
  return JSON.stringify(rows.map((row) => ({ seq: row.seq, records: Array.isArray(row.json) ? row.json.length : 1 })));
}
// A session's row in the sessions store (null if none).
export async function sessionRow(name, session) {
  return (await readRaw(name, 'sessions', (s) => s.get(session))) ?? null;
}
export function putRawDigest(name, session, digest, schema) {
  return writeRaw(name, ['sessions'], (tx) => {
    const rows = tx.objectStore('sessions');
    const get = rows.get(session);
    get.onsuccess = () => rows.put({ ...get.result, digest, digest_schema: schema });
  });
}
"#)]
extern "C" {
    #[wasm_bindgen(catch, js_name = putRawRecord)]
    async fn put_raw_record(
        name: &str,
        session: &str,
        seq: u32,
        json: &str,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = createVersion2)]
    async fn create_version_2(name: &str, session: &str, json: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = rawRows)]
    async fn raw_rows(name: &str, session: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = sessionRow)]
    async fn session_row(name: &str, session: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = putRawDigest)]
    async fn put_raw_digest(
        name: &str,
        session: &str,
        digest: &str,
        schema: u32,
    ) -> Result<JsValue, JsValue>;
}

/// Field `field` of `session`'s row in the sessions store, read behind the store's back
/// (`undefined` when the row or the field is missing).
async fn session_row_field(store: &IdbStore, session: &str, field: &str) -> JsValue {
    let row = session_row(store.db_name(), session).await.unwrap();
    if row.is_null() {
        return JsValue::UNDEFINED;
    }
    js_sys::Reflect::get(&row, &JsValue::from_str(field)).unwrap()
}

thread_local! {
    static NEXT_DB: Cell<u32> = const { Cell::new(0) };
}

/// A store over a database no other test uses.
fn fresh_store() -> IdbStore {
    let n = NEXT_DB.with(|next| {
        let n = next.get();
        next.set(n + 1);
        n
    });
    let stamp = js_sys::Date::now() as u64;
    let salt = (js_sys::Math::random() * 1e9) as u64;
    IdbStore::new(format!("tabloop-test-{stamp}-{n}-{salt}"))
}

/// Resolves after `ms` milliseconds.
async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

/// One `#[wasm_bindgen_test]` per contract check, each on its own database, deleted after.
macro_rules! contract {
    ($($check:ident),* $(,)?) => {
        $(
            #[wasm_bindgen_test]
            async fn $check() {
                let store = fresh_store();
                store_contract::$check(&store).await;
                store.delete_database().await.unwrap();
            }
        )*
    };
}

contract!(
    append_then_load_returns_the_same_records_in_order,
    appends_in_several_batches_continue_the_log,
    loading_an_unknown_session_gives_an_empty_log,
    a_gap_is_refused_with_gap,
    a_batch_with_a_gap_writes_nothing,
    a_conflicting_reappend_is_refused_with_conflict,
    a_batch_with_a_conflict_writes_nothing,
    a_refused_append_to_a_new_session_creates_no_session,
    an_empty_append_changes_nothing,
    reappending_identical_records_is_accepted_without_duplicates,
    a_retry_overlapping_the_log_appends_only_new_records,
    sessions_are_isolated,
    sessions_reports_counts_and_last_time,
    delete_removes_only_that_session,
    a_deleted_session_starts_again_from_zero,
    a_record_round_trips_byte_identical_through_json,
    a_thousand_records_load_back_in_order,
    the_index_digest_matches_the_log_after_every_append,
    resting_changes_nothing_a_reader_sees,
    load_range_returns_the_asked_records,
    ranges_and_retries_inside_long_batches,
    a_session_name_survives_appends_and_goes_with_a_delete,
    a_snapshot_reads_back_until_replaced_or_deleted,
);

#[wasm_bindgen_test]
async fn a_database_of_the_previous_schema_opens_with_its_log_and_takes_snapshot_parts() {
    let store = fresh_store();
    let first = message(0, "kept");
    let json = serde_json::to_string(&first).unwrap();
    create_version_2(store.db_name(), "s", &json).await.unwrap();
    assert_eq!(store.load("s").await.unwrap(), vec![first]);
    // Its old snapshot head still reads (its parts: none), then a new one with parts.
    let old = store.snapshot("s").await.unwrap().unwrap();
    assert_eq!((old.head.as_str(), old.parts.len()), ("{\"old\":true}", 0));
    let write = SnapshotWrite {
        records: 1,
        head: "{}".into(),
        first_part: 0,
        parts: vec!["[]".into()],
    };
    store.save_snapshot("s", write).await.unwrap();
    assert_eq!(store.snapshot("s").await.unwrap().unwrap().parts, ["[]"]);
    store.delete_database().await.unwrap();
}

/// `(first seq, records)` of each raw row of `session`.
async fn rows_of(store: &IdbStore, session: &str) -> Vec<(u64, u64)> {
    let text = raw_rows(store.db_name(), session).await.unwrap();
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text.as_string().unwrap()).unwrap();
    rows.iter()
        .map(|row| {
            (
                row["seq"].as_u64().unwrap(),
                row["records"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// An append is written as rows of up to 256 records, one put each, not one row per record.
#[wasm_bindgen_test]
async fn an_append_is_stored_as_rows_of_up_to_256_records() {
    let store = fresh_store();
    store
        .append("s", &messages(600), Durability::Relaxed)
        .await
        .unwrap();
    store
        .append("s", &messages(603)[600..], Durability::Strict)
        .await
        .unwrap();
    assert_eq!(
        rows_of(&store, "s").await,
        vec![(0, 256), (256, 256), (512, 88), (600, 3)]
    );
    assert_eq!(store.load("s").await.unwrap(), messages(603));
    store.delete_database().await.unwrap();
}

/// A log written one row per record (as earlier builds did) reads on, takes appends in rows,
/// and answers ranges and retries across both kinds of row.
#[wasm_bindgen_test]
async fn a_log_of_single_record_rows_reads_on_beside_new_rows() {
    let store = fresh_store();
    let all = messages(8);
    // The store creates the database; the raw rows go in behind its back.
    assert_eq!(store.load("s").await.unwrap(), vec![]);
    for record in &all[..3] {
        let json = serde_json::to_string(record).unwrap();
        put_raw_record(store.db_name(), "s", record.seq as u32, &json)
            .await
            .unwrap();
    }
    store
        .append("s", &all[1..], Durability::Strict)
        .await
        .unwrap();
    assert_eq!(
        rows_of(&store, "s").await,
        vec![(0, 1), (1, 1), (2, 1), (3, 5)]
    );
    assert_eq!(store.load("s").await.unwrap(), all);
    assert_eq!(
        store.load_range("s", 2, Some(5)).await.unwrap(),
        all[2..5].to_vec()
    );
    let mut changed = all[2..4].to_vec();
    changed[0] = message(2, "rewritten");
    let refused = store.append("s", &changed, Durability::Strict).await;
    assert!(
        matches!(refused, Err(StoreError::Conflict { seq: 2 })),
        "{refused:?}"
    );
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn a_strict_append_is_stored_and_loads_back() {
    let store = fresh_store();
    store
        .append("s", &messages(5), Durability::Strict)
        .await
        .unwrap();
    assert_eq!(store.load("s").await.unwrap(), messages(5));
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn two_handles_on_one_database_share_the_log() {
    let store = fresh_store();
    let other = IdbStore::new(store.db_name());
    store
        .append("s", &messages(2), Durability::Relaxed)
        .await
        .unwrap();
    assert_eq!(other.load("s").await.unwrap(), messages(2));
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn a_deleted_database_is_reopened_empty_on_next_use() {
    let store = fresh_store();
    store
        .append("s", &messages(2), Durability::Relaxed)
        .await
        .unwrap();
    store.delete_database().await.unwrap();
    assert_eq!(store.load("s").await.unwrap(), vec![]);
    store
        .append("s", &messages(1), Durability::Relaxed)
        .await
        .unwrap();
    assert_eq!(store.load("s").await.unwrap(), messages(1));
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn a_connection_closed_behind_our_back_is_reopened_once() {
    let store = fresh_store();
    store
        .append("s", &messages(2), Durability::Relaxed)
        .await
        .unwrap();
    store.close_connection_for_tests().await.unwrap();
    let more = [message(2, "after")];
    store.append("s", &more, Durability::Relaxed).await.unwrap();
    assert_eq!(store.load("s").await.unwrap().len(), 3);
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn a_stored_row_that_is_not_a_record_is_reported_corrupt() {
    let store = fresh_store();
    store
        .append("s", &messages(1), Durability::Relaxed)
        .await
        .unwrap();
    put_raw_record(store.db_name(), "s", 1, "{not json")
        .await
        .unwrap();
    let loaded = store.load("s").await;
    assert!(matches!(loaded, Err(StoreError::Corrupt(_))), "{loaded:?}");
    store.delete_database().await.unwrap();
}

/// A stored digest that is not JSON, or of an older schema, costs only its own row a rebuild:
/// the listing still gives every session, each digest as folded from its log.
#[wasm_bindgen_test]
async fn a_broken_or_old_digest_is_rebuilt_and_the_rest_still_list() {
    let store = fresh_store();
    store
        .append("s", &messages(2), Durability::Relaxed)
        .await
        .unwrap();
    store
        .append("t", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    let expected = vec![
        ("s".to_string(), SessionDigest::from_records(&messages(2))),
        ("t".to_string(), SessionDigest::from_records(&messages(3))),
    ];
    let listed = |index: Vec<tabloop::ports::IndexedSession>| -> Vec<(String, SessionDigest)> {
        index.into_iter().map(|i| (i.session, i.digest)).collect()
    };
    put_raw_digest(store.db_name(), "s", "{not json", DIGEST_SCHEMA)
        .await
        .unwrap();
    let old = serde_json::to_string(&SessionDigest::default()).unwrap();
    put_raw_digest(store.db_name(), "t", &old, DIGEST_SCHEMA - 1)
        .await
        .unwrap();
    // A fresh store over the same database: nothing cached from the appends above.
    let reader = IdbStore::new(store.db_name().to_string());
    assert_eq!(listed(reader.index().await.unwrap()), expected);
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn append_latency_strict_and_relaxed_is_reported() {
    let store = fresh_store();
    let all = messages(1000);
    let mut lines = Vec::new();
    for (durability, name) in [
        (Durability::Relaxed, "relaxed"),
        (Durability::Strict, "strict"),
    ] {
        let single = format!("single-{name}");
        let start = js_sys::Date::now();
        for record in &all {
            store
                .append(&single, std::slice::from_ref(record), durability)
                .await
                .unwrap();
        }
        let singles = js_sys::Date::now() - start;
        let start = js_sys::Date::now();
        store
            .append(&format!("batch-{name}"), &all, durability)
            .await
            .unwrap();
        let batch = js_sys::Date::now() - start;
        let start = js_sys::Date::now();
        assert_eq!(store.load(&single).await.unwrap().len(), 1000);
        let load = js_sys::Date::now() - start;
        lines.push(format!(
            "info: {name}: 1000 one-record appends {singles:.0} ms ({:.2} ms each), \
             one 1000-record append {batch:.0} ms, load of 1000 {load:.0} ms",
            singles / 1000.0
        ));
    }
    for line in lines {
        console_log!("{line}");
    }
    store.delete_database().await.unwrap();
}

#[path = "browser_store/blind_appends.rs"]
mod blind_appends;

#[path = "browser_store/locks.rs"]
mod locks;

#[path = "browser_store/shared_transactions.rs"]
mod shared_transactions;

#[path = "browser_store/warm_up.rs"]
mod warm_up;
