//! The sessions index of the IndexedDB store: each session's row carries its digest (title,
//! status, spend), folded here over each append's records and written by the JS side in the
//! records' own transaction, but only when it was folded from exactly the records the row
//! counted. A missing, mismatched or older-schema digest is rebuilt from the log when listed.

use serde_json::value::RawValue;

use super::digest_cache::IndexArg;
use super::idb_store::{js_index, js_index_row, js_put_digest, IdbStore};
use super::js_error::to_store_error;
use crate::core::{
    BudgetLimits, Ledger, PhaseFold, Record, RunPhase, RunSpend, SessionDigest, StopReason,
    DIGEST_SCHEMA,
};
use crate::ports::{EventStore, IndexedSession, StoreError};

/// A sessions row as the JS `index` returns it (`indexRow` returns one as an object); `D` is
/// the form its digest arrives in: spliced in as JSON (its text borrowed as a `RawValue`, read
/// by the same reader as a digest stored as a string), or as a JSON string.
#[derive(Debug, serde::Deserialize)]
struct IndexRow<D> {
    session: String,
    records: u64,
    updated_at: u64,
    digest: Option<D>,
    digest_schema: Option<u32>,
    #[serde(default)]
    name: Option<String>,
}

/// A row's digest, whichever form it arrived in.
trait DigestForm {
    fn digest(&self) -> Option<SessionDigest>;
}

impl DigestForm for String {
    fn digest(&self) -> Option<SessionDigest> {
        serde_json::from_str(self).ok()
    }
}

impl DigestForm for &RawValue {
    fn digest(&self) -> Option<SessionDigest> {
        serde_json::from_str(self.get()).ok()
    }
}

impl<D: DigestForm> IndexRow<D> {
    /// The row's digest, if it is of this schema and counts the row's records.
    fn current(&self) -> Option<SessionDigest> {
        SessionDigest::stored(self.digest_schema, self.records, || {
            self.digest.as_ref()?.digest()
        })
    }

    /// The row as listed, with its digest if current.
    fn listed(self) -> ListedRow {
        ListedRow {
            digest: self.current(),
            session: self.session,
            updated_at: self.updated_at,
            name: self.name,
        }
    }
}

/// A row read, with its digest when it is current (else it is rebuilt).
struct ListedRow {
    session: String,
    updated_at: u64,
    digest: Option<SessionDigest>,
    name: Option<String>,
}

/// Parses a made-up sessions index the way a listing does and returns its one digest, so the
/// engine has compiled that code before the page's first listing: it compiles a wasm function
/// on its first call, which was about half of a first listing on a fresh page.
pub fn warm_index_parsing() -> Option<SessionDigest> {
    let digest = SessionDigest {
        phase: PhaseFold {
            phase: RunPhase::Finished {
                stop: StopReason::Completed,
            },
            open_approvals: 0,
        },
        spend: RunSpend {
            limits: Some(BudgetLimits::default()),
            step_start: Some(Ledger::default()),
            ..RunSpend::default()
        },
        paused: Some(String::new()),
        ..SessionDigest::default()
    };
    let text = crate::protocol::json_text(&digest);
    let index = format!(
        r#"[{{"session":"","records":0,"updated_at":0,"digest_schema":{DIGEST_SCHEMA},"name":null,"digest":{text}}}]"#
    );
    let rows: Vec<IndexRow<&RawValue>> = serde_json::from_str(&index).ok()?;
    rows.first()?.current()
}

impl IdbStore {
    /// The digest of `session` after `records` are appended, with the base it folds onto.
    /// `None` (no digest written: rebuilt when listed) when the base cannot be read.
    pub(super) async fn next_digest(&self, session: &str, records: &[Record]) -> Option<IndexArg> {
        let base = match self.digests.take(session) {
            Some(digest) => digest,
            None => self.base_digest(session).await?,
        };
        let base_records = base.records;
        let mut folded = base;
        for record in records {
            folded.push(record);
        }
        let digest = crate::protocol::json_text(&folded);
        Some(IndexArg {
            base: base_records,
            digest,
            schema: DIGEST_SCHEMA,
            folded,
        })
    }

    /// The stored digest of `session` (folded from its log when the row has none).
    async fn base_digest(&self, session: &str) -> Option<SessionDigest> {
        let row = js_index_row(self.db_name(), session).await.ok()?;
        if row.is_null() || row.is_undefined() {
            return Some(SessionDigest::default());
        }
        let row: IndexRow<String> = super::js_value::from_js(&row).ok()?;
        match row.current() {
            Some(digest) => Some(digest),
            None => Some(SessionDigest::from_records(&self.load(session).await.ok()?)),
        }
    }

    /// Every session with its digest; rebuilds (and stores) the digests that are not current.
    pub(super) async fn read_index(&self) -> Result<Vec<IndexedSession>, StoreError> {
        let spliced = self.index_text(true).await?;
        let rows = match serde_json::from_str::<Vec<IndexRow<&RawValue>>>(&spliced) {
            Ok(rows) => rows.into_iter().map(IndexRow::listed).collect(),
            // A stored digest that is not JSON (nothing this store writes): read each as a
            // string, so that row alone is rebuilt.
            Err(_) => {
                let quoted = self.index_text(false).await?;
                let rows: Vec<IndexRow<String>> = serde_json::from_str(&quoted)
                    .map_err(|e| StoreError::Corrupt(format!("sessions index: {e}")))?;
                rows.into_iter().map(IndexRow::listed).collect()
            }
        };
        self.indexed(rows).await
    }

    /// The JS `index` as text (`embed`: digests spliced in as JSON). It arrives as UTF-8 bytes
    /// (no UTF-16 string to convert) and is read as text: every JSON reader in the bundle reads
    /// text, and a second one for bytes cost 17 KB of code.
    async fn index_text(&self, embed: bool) -> Result<String, StoreError> {
        let bytes = js_index(self.db_name(), embed)
            .await
            .map_err(|e| to_store_error(&e))?;
        String::from_utf8(js_sys::Uint8Array::new(&bytes).to_vec())
            .map_err(|e| StoreError::Corrupt(format!("sessions index: {e}")))
    }

    /// The listed sessions of `rows`, with the digests that are not current rebuilt.
    async fn indexed(&self, rows: Vec<ListedRow>) -> Result<Vec<IndexedSession>, StoreError> {
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let digest = match row.digest {
                Some(digest) => digest,
                None => self.rebuild(&row.session).await?,
            };
            self.digests.remember(&row.session, digest.clone());
            out.push(IndexedSession {
                session: row.session,
                updated_at: row.updated_at,
                digest,
                name: row.name,
            });
        }
        Ok(out)
    }

    /// Folds the digest of `session` from its log and stores it if the log did not move on.
    async fn rebuild(&self, session: &str) -> Result<SessionDigest, StoreError> {
        let digest = SessionDigest::from_records(&self.load(session).await?);
        let json = crate::protocol::json_text(&digest);
        // Not stored when the log grew meanwhile: the next listing rebuilds it again.
        let _ = js_put_digest(
            self.db_name(),
            session,
            digest.records as f64,
            &json,
            DIGEST_SCHEMA,
        )
        .await;
        Ok(digest)
    }
}
