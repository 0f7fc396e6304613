//! Appends that share one read-write transaction: a relaxed append waits for the end of the task
//! and whatever is issued behind it joins it, so they are written together or not at all.

use pretty_assertions::assert_eq;
use tabloop::core::SessionDigest;
use tabloop::ports::{Durability, EventStore, StoreError};
use tabloop::web::idb_store::IdbStore;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

use super::store_contract::{message, messages};
use super::{fresh_store, session_row_field};

// Test-only JS that counts the read-write transactions this page opens from now on.
#[wasm_bindgen(inline_js = r#"
let writes = 0;
let counting = false;
export function countWriteTransactions() {
  if (!counting) {
    counting = true;
    const open = IDBDatabase.prototype.transaction;
    IDBDatabase.prototype.transaction = function (stores, mode, options) {
      if (mode === 'readwrite') writes += 1;
      return open.call(this, stores, mode, options);
    };
  }
  return writes;
}
"#)]
extern "C" {
    /// Read-write transactions opened so far (counting starts on the first call).
    #[wasm_bindgen(js_name = countWriteTransactions)]
    fn count_write_transactions() -> u32;
}

#[wasm_bindgen_test]
async fn a_relaxed_append_and_a_strict_one_behind_it_share_one_transaction() {
    let store = fresh_store();
    let all = messages(7);
    store
        .append("s", &all[..2], Durability::Strict)
        .await
        .unwrap();
    let before = count_write_transactions();
    // Issued back to back, the strict one not waiting for the relaxed one.
    let (relaxed, strict) = futures::join!(
        store.append("s", &all[2..5], Durability::Relaxed),
        store.append("s", &all[5..], Durability::Strict)
    );
    assert_eq!((relaxed, strict), (Ok(()), Ok(())));
    assert_eq!(count_write_transactions() - before, 1, "one transaction");
    assert_eq!(store.load("s").await.unwrap(), all);
    // The digest folded through both went into the row (not cleared to be rebuilt).
    let stored = session_row_field(&store, "s", "digest").await;
    let stored: SessionDigest = serde_json::from_str(&stored.as_string().unwrap()).unwrap();
    assert_eq!(stored, SessionDigest::from_records(&all));
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn a_read_behind_a_waiting_relaxed_append_sees_its_records() {
    let store = fresh_store();
    let all = messages(4);
    store
        .append("s", &all[..1], Durability::Strict)
        .await
        .unwrap();
    // The relaxed append waits for the end of the task; the load behind it writes it first.
    let (appended, loaded) = futures::join!(
        store.append("s", &all[1..], Durability::Relaxed),
        store.load("s")
    );
    assert_eq!(appended, Ok(()));
    assert_eq!(loaded.unwrap(), all);
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn a_relaxed_append_alone_is_written_at_the_end_of_the_task() {
    let store = fresh_store();
    store
        .append("s", &messages(3), Durability::Relaxed)
        .await
        .unwrap();
    assert_eq!(
        IdbStore::new(store.db_name()).load("s").await.unwrap(),
        messages(3)
    );
    store.delete_database().await.unwrap();
}

#[wasm_bindgen_test]
async fn appends_sharing_a_transaction_fail_together_and_write_nothing() {
    let store = fresh_store();
    let all = messages(3);
    store
        .append("s", &all[..2], Durability::Strict)
        .await
        .unwrap();
    // The strict append rewrites record 0 with other content: both go down, neither is kept.
    let changed = [message(0, "changed")];
    let (relaxed, strict) = futures::join!(
        store.append("s", &all[2..], Durability::Relaxed),
        store.append("s", &changed, Durability::Strict)
    );
    assert_eq!(relaxed, Err(StoreError::Conflict { seq: 0 }));
    assert_eq!(strict, Err(StoreError::Conflict { seq: 0 }));
    assert_eq!(store.load("s").await.unwrap(), all[..2].to_vec());
    // The store goes on: the relaxed records are written when sent again.
    store
        .append("s", &all[2..], Durability::Relaxed)
        .await
        .unwrap();
    assert_eq!(store.load("s").await.unwrap(), all);
    let listed = IdbStore::new(store.db_name()).index().await.unwrap();
    assert_eq!(listed[0].digest, SessionDigest::from_records(&all));
    store.delete_database().await.unwrap();
}
