//! The model list's state and what its controls do: what browser storage holds, downloads and
//! picked files under way (with their bytes, cancellable), errors per model, and the choice.
//! A model that must be downloaded is chosen only once it is stored, so a failed download (a
//! 404, a file that is not GGUF, a cut connection, a full disk) keeps the previous model.

use std::collections::BTreeMap;
use std::rc::Rc;

use futures::future::{abortable, AbortHandle};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::model_library::{save_model_choice, BrowserLibrary, ByteProgressFn, LibraryContext};
use crate::ports::LibraryError;
use crate::view::{model_rows, model_title, ModelRow, ModelSource, Settings, StoredModel};

/// Key of the picked-file job in [`ModelList::jobs`] (no model URL has it).
pub const FILE_JOB: &str = "file:";

/// Bytes of a job so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobBytes {
    /// Done so far.
    pub loaded: u64,
    /// All of them, when known.
    pub total: Option<u64>,
}

/// Where a job's failure is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ErrorAt {
    /// On the model's row.
    Row,
    /// Under the custom URL field.
    UrlField,
}

/// The model list's signals (`Copy`: shared by its components by value).
#[derive(Clone, Copy)]
pub struct ModelList {
    /// The settings whose model is chosen here.
    pub settings: RwSignal<Settings>,
    /// What browser storage holds.
    pub stored: RwSignal<Vec<StoredModel>>,
    /// Downloads and stores under way, by model URL ([`FILE_JOB`] for a picked file).
    pub jobs: RwSignal<BTreeMap<String, JobBytes>>,
    /// The last failure per model URL.
    pub errors: RwSignal<BTreeMap<String, String>>,
    /// A failure of the custom URL field.
    pub url_error: RwSignal<Option<String>>,
    /// A failure of the file picker.
    pub file_error: RwSignal<Option<String>>,
    /// Something the user should know about the choice (a file used from memory only…).
    pub notice: RwSignal<Option<String>>,
    /// Aborts of the jobs under way.
    aborts: StoredValue<BTreeMap<String, AbortHandle>, LocalStorage>,
    /// The storage behind it (none outside the app).
    library: StoredValue<Option<Rc<BrowserLibrary>>, LocalStorage>,
}

impl ModelList {
    /// Fresh state over `settings`, with the library from context.
    pub fn new(settings: RwSignal<Settings>) -> Self {
        Self {
            settings,
            stored: RwSignal::new(Vec::new()),
            jobs: RwSignal::new(BTreeMap::new()),
            errors: RwSignal::new(BTreeMap::new()),
            url_error: RwSignal::new(None),
            file_error: RwSignal::new(None),
            notice: RwSignal::new(None),
            aborts: StoredValue::new_local(BTreeMap::new()),
            library: StoredValue::new_local(
                use_context::<LibraryContext>().and_then(|l| l.try_get_value()),
            ),
        }
    }

    fn library(&self) -> Option<Rc<BrowserLibrary>> {
        self.library.try_get_value().flatten()
    }

    /// The rows to show now.
    pub fn rows(&self) -> Vec<ModelRow> {
        let chosen = self.chosen();
        let pending: Vec<String> = self
            .jobs
            .with(|j| j.keys().filter(|k| *k != FILE_JOB).cloned().collect());
        self.stored
            .with(|stored| model_rows(stored, &chosen, &pending))
    }

    /// The chosen model's URL (`""`: the bundled one).
    pub fn chosen(&self) -> String {
        self.settings.with(|s| s.gguf_url.clone())
    }

    /// Makes `url` the model of new sessions, and remembers it.
    fn set_choice(&self, url: &str) {
        self.settings.update(|s| s.gguf_url = url.to_string());
        save_model_choice(url);
    }

    /// Reads what browser storage holds again.
    pub fn refresh(&self) {
        let Some(library) = self.library() else {
            return;
        };
        let list = *self;
        spawn_local(async move {
            match library.stored().await {
                Ok(stored) => list.stored.set(stored),
                Err(e) => list
                    .notice
                    .set(Some(format!("Could not list the stored models: {e}"))),
            }
        });
    }

    /// Chooses a row's model; one that must be downloaded is chosen once it is stored.
    pub fn choose(&self, row: &ModelRow) {
        self.notice.set(None);
        if row.needs_download() {
            self.download(row.url.clone(), true, ErrorAt::Row);
        } else if row.source == ModelSource::PickedFile && row.stored.is_none() {
            self.errors.update(|e| {
                e.insert(row.url.clone(), row.status_text());
            });
        } else {
            self.set_choice(&row.url);
        }
    }

    /// Downloads a row's model into storage without choosing it.
    pub fn prefetch(&self, url: String) {
        self.download(url, false, ErrorAt::Row);
    }

    /// Downloads a typed URL and chooses it once stored.
    pub fn add_url(&self, url: String) {
        self.url_error.set(None);
        self.notice.set(None);
        self.download(url, true, ErrorAt::UrlField);
    }

    fn progress_of(&self, key: &str) -> ByteProgressFn {
        let jobs = self.jobs;
        let key = key.to_string();
        Rc::new(move |loaded, total| {
            // A report that comes after the job ended (cancelled) is dropped.
            jobs.update(|j| {
                if let Some(bytes) = j.get_mut(&key) {
                    *bytes = JobBytes { loaded, total };
                }
            });
        })
    }

    /// Starts a job under `key`; `done` gets its result unless it was cancelled.
    fn run_job<T: 'static>(
        &self,
        key: String,
        work: futures::future::LocalBoxFuture<'static, Result<T, LibraryError>>,
        done: impl FnOnce(Result<T, LibraryError>) + 'static,
    ) {
        if self.jobs.with_untracked(|j| j.contains_key(&key)) {
            return;
        }
        let (work, handle) = abortable(work);
        self.jobs.update(|j| {
            j.insert(
                key.clone(),
                JobBytes {
                    loaded: 0,
                    total: None,
                },
            );
        });
        self.aborts.update_value(|a| {
            a.insert(key.clone(), handle);
        });
        let list = *self;
        spawn_local(async move {
            let result = work.await;
            list.jobs.update(|j| {
                j.remove(&key);
            });
            list.aborts.update_value(|a| {
                a.remove(&key);
            });
            match result {
                Ok(Err(LibraryError::Stopped)) => {}
                Ok(result) => done(result),
                Err(_aborted) => {}
            }
            list.refresh();
        });
    }

    fn download(&self, url: String, then_choose: bool, error_at: ErrorAt) {
        let Some(library) = self.library() else {
            return;
        };
        self.errors.update(|e| {
            e.remove(&url);
        });
        let work = library.download(url.clone(), self.progress_of(&url));
        let list = *self;
        let key = url.clone();
        self.run_job(key, work, move |result| match result {
            Ok(_) if then_choose => list.set_choice(&url),
            Ok(_) => {}
            Err(e) => {
                let message = format!("{} was not downloaded: {e}", model_title(&url));
                match error_at {
                    ErrorAt::Row => list.errors.update(|errors| {
                        errors.insert(url.clone(), message);
                    }),
                    ErrorAt::UrlField => list.url_error.set(Some(message)),
                }
            }
        });
    }

    /// Checks and stores a picked file, then chooses it.
    pub fn pick_file(&self, file: web_sys::File) {
        let Some(library) = self.library() else {
            return;
        };
        self.file_error.set(None);
        self.notice.set(None);
        let work = library.store_file(file, self.progress_of(FILE_JOB));
        let list = *self;
        self.run_job(FILE_JOB.to_string(), work, move |result| match result {
            Ok(picked) => {
                // Known now: the row must not read "no longer stored" until a refresh lands.
                list.stored.update(|stored| {
                    stored.retain(|m| m.url != picked.url);
                    stored.push(StoredModel {
                        url: picked.url.clone(),
                        store: picked.store,
                        bytes: picked.bytes,
                    });
                });
                list.set_choice(&picked.url);
                if let Some(note) = picked.note {
                    list.notice.set(Some(format!("{}: {note}", picked.name)));
                }
            }
            Err(e) => list.file_error.set(Some(e.to_string())),
        });
    }

    /// Stops the job under `key` (nothing of it is kept).
    pub fn cancel(&self, key: &str) {
        if let Some(handle) = self.aborts.try_update_value(|a| a.remove(key)).flatten() {
            handle.abort();
        }
    }

    /// Removes a row's model from browser storage. A removed picked file cannot come back, so
    /// when it was chosen the bundled model is chosen again.
    pub fn remove(&self, row: &ModelRow) {
        let Some(library) = self.library() else {
            return;
        };
        let list = *self;
        let row = row.clone();
        spawn_local(async move {
            match library.remove(row.url.clone()).await {
                Ok(()) => {
                    if row.source == ModelSource::PickedFile && list.chosen() == row.url {
                        list.set_choice("");
                        list.notice.set(Some(format!(
                            "{} was removed; the bundled model is chosen again.",
                            row.title
                        )));
                    }
                }
                Err(e) => list.errors.update(|errors| {
                    errors.insert(row.url.clone(), format!("Could not remove it: {e}"));
                }),
            }
            list.refresh();
        });
    }
}
