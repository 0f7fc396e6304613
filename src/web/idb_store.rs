//! The IndexedDB [`EventStore`]: every session's append-only log in the browser, written
//! through `www/store/` (`idb_append.js` the append queue, `idb_store.js` the reads, both on
//! `idb_connection.js`; the JS owns the transactions, so none is ever held across a
//! Rust `.await`). Records are stored as their serde JSON, in rows of consecutive records: they
//! cross the boundary as that JSON text, not as objects, because the text is the stored format
//! (the one the golden fixtures of tests/log_format.rs pin and the hash chain covers), so an
//! object would be written to text on the JS side anyway. Each
//! append also hands over the session's digest folded over the new records, so the sessions
//! index is written in the records' own transaction (see `idb_index`).

use wasm_bindgen::prelude::*;

use super::commit_gates::CommitGates;
use super::digest_cache::{DigestCache, IndexArg};
use super::js_error::to_store_error;
use crate::core::{Record, SnapshotWrite};
use crate::ports::{
    Durability, EventStore, IndexedSession, SessionSummary, StoreError, StoredSnapshot,
};

#[wasm_bindgen(module = "/www/store/idb_append.js")]
extern "C" {
    /// Called in the append's turn, not awaited there: the JS store queues appends in call
    /// order.
    #[wasm_bindgen(catch, js_name = appendPacked)]
    #[allow(clippy::too_many_arguments)]
    fn js_append(
        db: &JsValue,
        session: &str,
        seqs_and_ats: &[f64],
        jsons: &str,
        strict: bool,
        index_base: f64,
        index_digest: Option<String>,
        index_schema: u32,
    ) -> Result<js_sys::Promise, JsValue>;
}

#[wasm_bindgen(module = "/www/store/idb_connection.js")]
extern "C" {
    #[wasm_bindgen(js_name = warm)]
    fn js_warm(db: &str);
}

#[wasm_bindgen(module = "/www/store/idb_store.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = load)]
    async fn js_load(db: &str, session: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = loadRange)]
    async fn js_load_range(
        db: &str,
        session: &str,
        from: f64,
        to: Option<f64>,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = index)]
    pub(super) async fn js_index(db: &str, embed: bool) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = indexRow)]
    pub(super) async fn js_index_row(db: &str, session: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = putDigest)]
    pub(super) async fn js_put_digest(
        db: &str,
        session: &str,
        records: f64,
        digest: &str,
        schema: u32,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = snapshot)]
    async fn js_snapshot(db: &str, session: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = saveSnapshot)]
    async fn js_save_snapshot(
        db: &str,
        session: &str,
        records: f64,
        head: &str,
        first_part: f64,
        parts: js_sys::Array,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = sessions)]
    async fn js_sessions(db: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = renameSession)]
    async fn js_rename_session(
        db: &str,
        session: &str,
        name: Option<String>,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = deleteSession)]
    async fn js_delete_session(db: &str, session: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = restSession)]
    async fn js_rest_session(db: &str, session: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = deleteDatabase)]
    async fn js_delete_database(db: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = __closeConnectionBehindOurBack)]
    async fn js_close_connection_behind_our_back(db: &str) -> Result<JsValue, JsValue>;
}

/// The database name used by the app.
pub const DEFAULT_DB_NAME: &str = "tabloop";

/// An [`EventStore`] over one IndexedDB database. The connection is opened on first use and
/// shared by every `IdbStore` with the same name.
#[derive(Debug, Clone)]
pub struct IdbStore {
    db_name: String,
    /// The name as a JS string, made once: each append hands it over.
    db_js: JsValue,
    /// The digests this page last wrote or read, per session (the base of the next append's).
    pub(super) digests: DigestCache,
    /// Its appends under way, for tool hosts that run a tool the moment one commits.
    gates: CommitGates,
}

impl Default for IdbStore {
    fn default() -> Self {
        Self::new(DEFAULT_DB_NAME)
    }
}

impl IdbStore {
    /// A store over the database `db_name` (created on first use).
    pub fn new(db_name: impl Into<String>) -> Self {
        let db_name = db_name.into();
        Self {
            db_js: JsValue::from_str(&db_name),
            db_name,
            digests: DigestCache::default(),
            gates: CommitGates::default(),
        }
    }

    /// Its appends under way, for a tool host that waits on their commits itself.
    pub fn commit_gates(&self) -> CommitGates {
        self.gates.clone()
    }

    /// Starts opening the database connection so the first operation does not wait for it.
    pub fn warm(&self) {
        js_warm(&self.db_name);
    }

    /// The database name.
    pub fn db_name(&self) -> &str {
        &self.db_name
    }

    /// Closes this page's connection and deletes the whole database: every session is lost.
    /// The reset path for a database the browser can no longer open, and test cleanup.
    pub async fn delete_database(&self) -> Result<(), StoreError> {
        js_delete_database(&self.db_name)
            .await
            .map(drop)
            .map_err(|e| to_store_error(&e))
    }

    /// Test-only: closes the cached connection without the store noticing, as when WebKit
    /// loses its IndexedDB server; the next operation must reopen. Never call it in the app.
    #[doc(hidden)]
    pub async fn close_connection_for_tests(&self) -> Result<(), StoreError> {
        js_close_connection_behind_our_back(&self.db_name)
            .await
            .map(drop)
            .map_err(|e| to_store_error(&e))
    }
}

impl EventStore for IdbStore {
    async fn append(
        &self,
        session: &str,
        records: &[Record],
        durability: Durability,
    ) -> Result<(), StoreError> {
        // Packed for the JS side: one string and one array, not an object per record.
        let mut seqs_and_ats = Vec::with_capacity(records.len() * 2);
        for record in records {
            seqs_and_ats.extend([record.seq as f64, record.at as f64]);
        }
        let jsons = crate::core::records_as_lines(records);
        let strict = durability == Durability::Strict;
        // In this append's turn: its digest folds over the one before it, even if that append
        // is still in flight (remembered as it is issued, forgotten if it fails).
        let turn = self.digests.turn().await;
        let index: Option<IndexArg> = self.next_digest(session, records).await;
        // The cache takes the folded digest and the JS side its text; what is left to check
        // once the append settles is how many records each side of the fold had seen.
        let (index_base, index_digest, index_schema, folds) = match index {
            Some(IndexArg {
                base,
                digest,
                schema,
                folded,
            }) => {
                let folds = (base, folded.records);
                self.digests.remember(session, folded);
                (base as f64, Some(digest), schema, Some(folds))
            }
            None => (0.0, None, 0, None),
        };
        let issued = js_append(
            &self.db_js,
            session,
            &seqs_and_ats,
            &jsons,
            strict,
            index_base,
            index_digest,
            index_schema,
        );
        drop(turn);
        let appended = match issued {
            Ok(promise) => {
                let _under_way = records
                    .last()
                    .map(|last| self.gates.under_way(session, last.seq, &promise));
                wasm_bindgen_futures::JsFuture::from(promise).await
            }
            Err(error) => Err(error),
        };
        let appended = match appended {
            Ok(appended) => appended,
            Err(error) => {
                self.digests.forget(session);
                return Err(to_store_error(&error));
            }
        };
        // The digest was stored, or the append stored no row (an idempotent retry) and its
        // fold added nothing: the cache holds what the row holds. Otherwise the row's digest
        // was cleared (it is rebuilt when listed) and the next append reads its base again.
        match (appended.as_bool(), folds) {
            (Some(true), Some(_)) => {}
            (Some(false), Some((base, folded))) if folded == base => {}
            (Some(_) | None, _) => self.digests.forget(session),
        }
        Ok(())
    }

    async fn rest(&self, session: &str) -> Result<(), StoreError> {
        js_rest_session(&self.db_name, session)
            .await
            .map(drop)
            .map_err(|e| to_store_error(&e))
    }

    async fn load(&self, session: &str) -> Result<Vec<Record>, StoreError> {
        let rows = js_load(&self.db_name, session)
            .await
            .map_err(|e| to_store_error(&e))?;
        parse_rows(session, rows, 0)
    }

    async fn load_range(
        &self,
        session: &str,
        from: u64,
        to: Option<u64>,
    ) -> Result<Vec<Record>, StoreError> {
        let rows = js_load_range(&self.db_name, session, from as f64, to.map(|t| t as f64))
            .await
            .map_err(|e| to_store_error(&e))?;
        parse_rows(session, rows, from)
    }

    async fn index(&self) -> Result<Vec<IndexedSession>, StoreError> {
        self.read_index().await
    }

    async fn snapshot(&self, session: &str) -> Result<Option<StoredSnapshot>, StoreError> {
        let row = js_snapshot(&self.db_name, session)
            .await
            .map_err(|e| to_store_error(&e))?;
        if row.is_null() || row.is_undefined() {
            return Ok(None);
        }
        let records = js_sys::Reflect::get(&row, &"records".into())
            .ok()
            .and_then(|v| v.as_f64());
        let head = js_sys::Reflect::get(&row, &"json".into())
            .ok()
            .and_then(|v| v.as_string());
        // The parts from the first, up to the first that is not text (none is, unless damaged).
        let parts = js_sys::Reflect::get(&row, &"parts".into())
            .ok()
            .and_then(|parts| parts.dyn_into::<js_sys::Array>().ok())
            .map(|parts| parts.iter().map_while(|part| part.as_string()).collect())
            .unwrap_or_default();
        Ok(match (records, head) {
            (Some(records), Some(head)) => Some(StoredSnapshot {
                records: records as u64,
                head,
                parts,
            }),
            // A row of another shape is as good as none: the log is replayed in full.
            (Some(_), None) | (None, _) => None,
        })
    }

    async fn save_snapshot(
        &self,
        session: &str,
        snapshot: SnapshotWrite,
    ) -> Result<(), StoreError> {
        let parts: js_sys::Array = snapshot.parts.iter().map(JsValue::from).collect();
        js_save_snapshot(
            &self.db_name,
            session,
            snapshot.records as f64,
            &snapshot.head,
            snapshot.first_part as f64,
            parts,
        )
        .await
        .map(drop)
        .map_err(|e| to_store_error(&e))
    }

    async fn sessions(&self) -> Result<Vec<SessionSummary>, StoreError> {
        let json = js_sessions(&self.db_name)
            .await
            .map_err(|e| to_store_error(&e))?;
        let json = json
            .as_string()
            .ok_or_else(|| StoreError::Corrupt("sessions did not come back as text".into()))?;
        serde_json::from_str(&json).map_err(|e| StoreError::Corrupt(format!("sessions: {e}")))
    }

    async fn rename(&self, session: &str, name: Option<String>) -> Result<(), StoreError> {
        js_rename_session(&self.db_name, session, name)
            .await
            .map(drop)
            .map_err(|e| to_store_error(&e))
    }

    async fn delete(&self, session: &str) -> Result<(), StoreError> {
        js_delete_session(&self.db_name, session)
            .await
            .map(drop)
            .map_err(|e| to_store_error(&e))
    }
}

/// Records from the JS rows (json joined by newlines), which must continue from `from`
/// without a gap.
fn parse_rows(session: &str, rows: JsValue, from: u64) -> Result<Vec<Record>, StoreError> {
    let Some(text) = rows.as_string() else {
        return Err(StoreError::Corrupt(format!("log of {session}: not text")));
    };
    parse_lines(session, &text, from)
}

/// The records of `text`, one JSON line each, the first of them record `from` of `session`.
pub(super) fn parse_lines(session: &str, text: &str, from: u64) -> Result<Vec<Record>, StoreError> {
    let rows: Vec<&str> = if text.is_empty() {
        Vec::new()
    } else {
        text.split('\n').collect()
    };
    let mut records = Vec::with_capacity(rows.len());
    for (offset, json) in rows.iter().enumerate() {
        let index = from + offset as u64;
        let record: Record = serde_json::from_str(json)
            .map_err(|e| StoreError::Corrupt(format!("record {index} of {session}: {e}")))?;
        if record.seq != index {
            return Err(StoreError::Corrupt(format!(
                "record {index} of {session} says it is record {}",
                record.seq
            )));
        }
        records.push(record);
    }
    Ok(records)
}
