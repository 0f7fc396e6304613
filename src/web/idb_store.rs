//! The IndexedDB [`EventStore`]: every session's append-only log in the browser, written
//! through `www/store/idb_store.js` (which owns the transactions, so none is ever held across a
//! Rust `.await`). Records are stored as their serde JSON, one IndexedDB row each.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::js_error::to_store_error;
use crate::core::Record;
use crate::ports::{Durability, EventStore, SessionSummary, StoreError};

#[wasm_bindgen(module = "/www/store/idb_store.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = append)]
    async fn js_append(
        db: &str,
        session: &str,
        records: JsValue,
        durability: &str,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = load)]
    async fn js_load(db: &str, session: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = sessions)]
    async fn js_sessions(db: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = deleteSession)]
    async fn js_delete_session(db: &str, session: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = deleteDatabase)]
    async fn js_delete_database(db: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = __closeConnectionBehindOurBack)]
    async fn js_close_connection_behind_our_back(db: &str) -> Result<JsValue, JsValue>;
}

/// The database name used by the app.
pub const DEFAULT_DB_NAME: &str = "tabloop";

/// One row handed to the JS `append`.
#[derive(Serialize)]
struct AppendRow {
    seq: u64,
    at: u64,
    json: String,
}

/// An [`EventStore`] over one IndexedDB database. The connection is opened on first use and
/// shared by every `IdbStore` with the same name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdbStore {
    db_name: String,
}

impl Default for IdbStore {
    fn default() -> Self {
        Self::new(DEFAULT_DB_NAME)
    }
}

impl IdbStore {
    /// A store over the database `db_name` (created on first use).
    pub fn new(db_name: impl Into<String>) -> Self {
        Self {
            db_name: db_name.into(),
        }
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
        let rows = records
            .iter()
            .map(|record| {
                let json = serde_json::to_string(record)
                    .map_err(|e| StoreError::Corrupt(format!("record {}: {e}", record.seq)))?;
                Ok(AppendRow {
                    seq: record.seq,
                    at: record.at,
                    json,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let rows = serde_wasm_bindgen::to_value(&rows)
            .map_err(|e| StoreError::Unavailable(format!("cannot hand records to JS: {e}")))?;
        let durability = match durability {
            Durability::Strict => "strict",
            Durability::Relaxed => "relaxed",
        };
        js_append(&self.db_name, session, rows, durability)
            .await
            .map(drop)
            .map_err(|e| to_store_error(&e))
    }

    async fn load(&self, session: &str) -> Result<Vec<Record>, StoreError> {
        let rows = js_load(&self.db_name, session)
            .await
            .map_err(|e| to_store_error(&e))?;
        let rows: Vec<String> = serde_wasm_bindgen::from_value(rows)
            .map_err(|e| StoreError::Corrupt(format!("log of {session}: {e}")))?;
        let mut records = Vec::with_capacity(rows.len());
        for (index, json) in rows.iter().enumerate() {
            let record: Record = serde_json::from_str(json)
                .map_err(|e| StoreError::Corrupt(format!("record {index} of {session}: {e}")))?;
            if record.seq != index as u64 {
                return Err(StoreError::Corrupt(format!(
                    "record {index} of {session} says it is record {}",
                    record.seq
                )));
            }
            records.push(record);
        }
        Ok(records)
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

    async fn delete(&self, session: &str) -> Result<(), StoreError> {
        js_delete_session(&self.db_name, session)
            .await
            .map(drop)
            .map_err(|e| to_store_error(&e))
    }
}
