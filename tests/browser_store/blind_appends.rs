//! Appends written blind (adding their rows without reading the sessions row first) and what
//! another tab of the origin can do meanwhile: read the log, take it over, rename or delete it.
//! The other tab is a second copy of the store's own modules, with its own connection and queue.

use pretty_assertions::assert_eq;
use tabloop::core::{Record, SessionDigest};
use tabloop::ports::{Durability, EventStore, StoreError};
use tabloop::web::idb_store::IdbStore;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

use super::store_contract::messages;
use super::{fresh_store, rows_of, session_row_field};

// Test-only JS for appends written blind (without reading the sessions row first): counts the
// reads of sessions rows, and loads a second copy of the store's own modules (its own
// connection, queue and knowledge of the rows), as another tab of the origin runs them.
#[wasm_bindgen(inline_js = r#"
const rowAccess = { reads: 0, writes: 0, scopes: 0 };
let countingRows = false;
// Reads and writes of sessions rows this page has made so far, and read-write transactions
// with the sessions store in their scope: [reads, writes, scopes].
export function countRowAccess() {
  if (!countingRows) {
    countingRows = true;
    const transaction = IDBDatabase.prototype.transaction;
    IDBDatabase.prototype.transaction = function (stores, mode, options) {
      if (mode === 'readwrite' && [stores].flat().includes('sessions')) rowAccess.scopes += 1;
      return transaction.call(this, stores, mode, options);
    };
    const get = IDBObjectStore.prototype.get;
    IDBObjectStore.prototype.get = function (key) {
      if (this.name === 'sessions') rowAccess.reads += 1;
      return get.call(this, key);
    };
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (value, key) {
      if (this.name === 'sessions') rowAccess.writes += 1;
      return key === undefined ? put.call(this, value) : put.call(this, value, key);
    };
  }
  return [rowAccess.reads, rowAccess.writes, rowAccess.scopes];
}
let otherTab = null;
async function storeOfAnotherTab() {
  if (otherTab !== null) return otherTab;
  const loaded = performance.getEntriesByType('resource').map((e) => e.name);
  const source = async (path) => (await fetch(loaded.find((name) => name.endsWith(`/www/${path}`)))).text();
  const module = (text) => URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
  const connection = module(await source('store/idb_connection.js'));
  const nextTask = module(await source('next_task.js'));
  const append = module(
    (await source('store/idb_append.js'))
      .replaceAll("'./idb_connection.js'", `'${connection}'`)
      .replaceAll("'../next_task.js'", `'${nextTask}'`),
  );
  const store = (await source('store/idb_store.js'))
    .replaceAll("'./idb_connection.js'", `'${connection}'`)
    .replaceAll("'./idb_append.js'", `'${append}'`);
  otherTab = { ...(await import(module(store))), ...(await import(append)) };
  return otherTab;
}
// The sessions row as the other tab reads it: [records, updated_at, digest or null].
export async function rowInAnotherTab(name, session) {
  const row = await (await storeOfAnotherTab()).indexRow(name, session);
  return JSON.stringify(row === null ? null : [row.records, row.updated_at, row.digest]);
}
// Appends `records` (JSON texts of records `from`, `from + 1`, …) from the other tab.
export async function appendInAnotherTab(name, session, from, records) {
  const packed = new Float64Array(records.length * 2);
  records.forEach((json, i) => { packed[2 * i] = from + i; packed[2 * i + 1] = 1000 + from + i; });
  await (await storeOfAnotherTab()).appendPacked(name, session, packed, records.join('\n'), true, 0, null, 0);
}
export async function renameInAnotherTab(name, session, newName) {
  await (await storeOfAnotherTab()).renameSession(name, session, newName);
}
export async function deleteInAnotherTab(name, session) {
  await (await storeOfAnotherTab()).deleteSession(name, session);
}
"#)]
extern "C" {
    /// Reads and writes of sessions rows this page has made so far, and read-write
    /// transactions over the sessions store (counting starts on the first call).
    #[wasm_bindgen(js_name = countRowAccess)]
    fn count_row_access() -> Vec<u32>;

    #[wasm_bindgen(catch, js_name = rowInAnotherTab)]
    async fn row_in_another_tab(name: &str, session: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = appendInAnotherTab)]
    async fn append_in_another_tab(
        name: &str,
        session: &str,
        from: u32,
        records: Vec<String>,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = renameInAnotherTab)]
    async fn rename_in_another_tab(
        name: &str,
        session: &str,
        new_name: &str,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = deleteInAnotherTab)]
    async fn delete_in_another_tab(name: &str, session: &str) -> Result<JsValue, JsValue>;
}

/// Appends `records` to session `s` with strict durability.
async fn append(store: &IdbStore, records: &[Record]) {
    store
        .append("s", records, Durability::Strict)
        .await
        .unwrap();
}

/// Whether session `s`'s row is marked as not counting the rows written after it.
async fn is_tail(store: &IdbStore) -> bool {
    session_row_field(store, "s", "tail").await == JsValue::TRUE
}

/// Sessions rows read and written, and read-write transactions over the sessions store, since
/// `before` (a `count_row_access()`).
fn row_access_since(before: &[u32]) -> (u32, u32, u32) {
    let now = count_row_access();
    (now[0] - before[0], now[1] - before[1], now[2] - before[2])
}

#[wasm_bindgen_test]
async fn an_append_continuing_our_own_neither_reads_nor_writes_its_row() {
    let store = fresh_store();
    let all = messages(10);
    append(&store, &all[..2]).await;
    let before = count_row_access();
    // The first marks the row as not counting what follows; the next touch no row at all.
    append(&store, &all[2..4]).await;
    assert_eq!(row_access_since(&before), (0, 1, 1));
    store
        .append("s", &all[4..6], Durability::Relaxed)
        .await
        .unwrap();
    append(&store, &all[6..8]).await;
    // Nor do their transactions take the sessions store into their scope.
    assert_eq!(
        row_access_since(&before),
        (0, 1, 1),
        "no row read or written"
    );
    assert!(is_tail(&store).await);
    // Readers see the log's end and its digest all the same.
    let listed = store.index().await.unwrap();
    assert_eq!(listed[0].digest, SessionDigest::from_records(&all[..8]));
    assert_eq!(store.sessions().await.unwrap()[0].records, 8);
    // Once the log rests the row counts it again.
    store.rest("s").await.unwrap();
    assert!(!is_tail(&store).await);
    assert_eq!(
        store.index().await.unwrap()[0].digest,
        SessionDigest::from_records(&all[..8])
    );
    // A tab that reads a log writes it next from what it read: that append reads the row.
    assert_eq!(store.load("s").await.unwrap(), all[..8].to_vec());
    let before = count_row_access();
    append(&store, &all[8..]).await;
    assert_eq!(row_access_since(&before), (1, 1, 1), "read after the load");
    assert_eq!(store.load("s").await.unwrap(), all);
    store.delete_database().await.unwrap();
}

/// Appends `all[..n]`, the last of them blind past a row marked as not counting them.
async fn written_blind(store: &IdbStore, all: &[Record], n: usize) {
    for (from, to) in [(0, 2), (2, 4), (4, n)] {
        append(store, &all[from..to]).await;
    }
    assert!(is_tail(store).await);
}

#[wasm_bindgen_test]
async fn a_log_written_blind_reads_whole_in_another_tab_which_can_take_it_over() {
    let store = fresh_store();
    let all = messages(9);
    written_blind(&store, &all, 6).await;
    // The writer stopped without resting (a closed or crashed tab): another tab reads the
    // log's end, time and digest from the rows after the row's count.
    let row: serde_json::Value = serde_json::from_str(
        &row_in_another_tab(store.db_name(), "s")
            .await
            .unwrap()
            .as_string()
            .unwrap(),
    )
    .unwrap();
    assert_eq!((row[0].as_u64(), row[1].as_u64()), (Some(6), Some(1005)));
    let digest: SessionDigest = serde_json::from_str(row[2].as_str().unwrap()).unwrap();
    assert_eq!(digest, SessionDigest::from_records(&all[..6]));
    // It takes the log over where it ends, and this tab then continues after it.
    let json = |r: &Record| serde_json::to_string(r).unwrap();
    append_in_another_tab(
        store.db_name(),
        "s",
        6,
        all[6..8].iter().map(json).collect(),
    )
    .await
    .unwrap();
    append(&store, &all[8..]).await;
    assert_eq!(store.load("s").await.unwrap(), all);
    assert_eq!(store.sessions().await.unwrap()[0].records, 9);
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn a_rename_in_another_tab_fences_where_a_log_written_blind_ends() {
    let store = fresh_store();
    let all = messages(8);
    written_blind(&store, &all, 6).await;
    rename_in_another_tab(store.db_name(), "s", "Named elsewhere")
        .await
        .unwrap();
    // The fence is at 6, past the rows the row does not count: none is lost.
    assert_eq!(store.load("s").await.unwrap(), all[..6].to_vec());
    append(&store, &all[6..]).await;
    store.rest("s").await.unwrap();
    let listed = store.index().await.unwrap();
    assert_eq!(listed[0].name.as_deref(), Some("Named elsewhere"));
    assert_eq!(listed[0].digest, SessionDigest::from_records(&all));
    assert_eq!(store.load("s").await.unwrap(), all);
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn a_delete_in_another_tab_stops_a_log_written_blind() {
    let store = fresh_store();
    let all = messages(8);
    written_blind(&store, &all, 6).await;
    delete_in_another_tab(store.db_name(), "s").await.unwrap();
    assert_eq!(
        store.append("s", &all[6..], Durability::Strict).await,
        Err(StoreError::Gap {
            expected: 0,
            found: 6
        })
    );
    assert_eq!(store.index().await.unwrap(), vec![]);
    assert_eq!(store.load("s").await.unwrap(), vec![]);
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn a_rename_in_another_tab_is_kept_by_the_appends_that_follow() {
    let store = fresh_store();
    let all = messages(6);
    append(&store, &all[..2]).await;
    rename_in_another_tab(store.db_name(), "s", "Named elsewhere")
        .await
        .unwrap();
    // The first fails on the fence and is written again reading the row; the second, issued
    // while the first was in flight, goes out after it (not before, finding a gap).
    let (first, second) = futures::join!(
        store.append("s", &all[2..4], Durability::Strict),
        store.append("s", &all[4..], Durability::Strict)
    );
    assert_eq!((first, second), (Ok(()), Ok(())));
    assert_eq!(store.load("s").await.unwrap(), all);
    append(&store, &messages(7)[6..]).await;
    let listed = store.index().await.unwrap();
    assert_eq!(listed[0].name.as_deref(), Some("Named elsewhere"));
    assert_eq!(listed[0].digest, SessionDigest::from_records(&messages(7)));
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn a_read_behind_an_append_written_again_sees_its_records() {
    let store = fresh_store();
    let all = messages(4);
    append(&store, &all[..2]).await;
    rename_in_another_tab(store.db_name(), "s", "Named elsewhere")
        .await
        .unwrap();
    // The listing is asked for while the append is in flight, before it fails on the fence.
    let (appended, listed) = futures::join!(
        store.append("s", &all[2..], Durability::Strict),
        store.index()
    );
    assert_eq!(appended, Ok(()));
    assert_eq!(listed.unwrap()[0].digest.records, 4);
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn a_delete_in_another_tab_is_not_undone_by_the_appends_that_follow() {
    let store = fresh_store();
    let all = messages(4);
    append(&store, &all[..2]).await;
    delete_in_another_tab(store.db_name(), "s").await.unwrap();
    assert_eq!(
        store.append("s", &all[2..], Durability::Strict).await,
        Err(StoreError::Gap {
            expected: 0,
            found: 2
        })
    );
    assert_eq!(store.index().await.unwrap(), vec![]);
    assert_eq!(store.load("s").await.unwrap(), vec![]);
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn a_fence_left_inside_a_log_reads_as_no_records() {
    let store = fresh_store();
    append(&store, &messages(3)).await;
    // The delete fences seq 3; the session starts again and its first row passes over it.
    store.delete("s").await.unwrap();
    let all = messages(8);
    append(&store, &all[..6]).await;
    assert_eq!(rows_of(&store, "s").await, vec![(0, 6), (3, 0)]);
    assert_eq!(store.load("s").await.unwrap(), all[..6].to_vec());
    assert_eq!(
        store.load_range("s", 2, Some(5)).await.unwrap(),
        all[2..5].to_vec()
    );
    // A retry across it compares, and the log goes on after it.
    append(&store, &all[2..7]).await;
    append(&store, &all[7..]).await;
    assert_eq!(store.load("s").await.unwrap(), all);
    assert_eq!(store.index().await.unwrap()[0].digest.records, 8);
    store.delete_database().await.unwrap();
}
