//! The playground's reactive state: the settings, the session list, the session on screen (its
//! timeline, summary and live output) and the sessions this tab has open. Signals are `Copy`
//! handles, so components and callbacks share one [`AppState`] by value.

use super::ui_error::UiError;
use std::collections::BTreeMap;
use std::rc::Rc;

use leptos::prelude::*;

use crate::core::Record;
use crate::runtime::{LiveSession, Notice, SessionEvent, SessionService};
use crate::view::{
    DownloadProgress, ErrorSource, LiveState, RunMeters, SessionSummary, Settings, Timeline,
};

/// Subscribes a listener to the in-tab model's download progress (handed in by the
/// composition root through context).
pub type ModelProgressFeed = Rc<dyn Fn(Rc<dyn Fn(DownloadProgress)>)>;

/// The context values the composition root provides (stored locally: they are not `Send`).
pub type ServiceContext = StoredValue<Rc<SessionService>, LocalStorage>;
/// See [`ServiceContext`].
pub type ProgressContext = StoredValue<ModelProgressFeed, LocalStorage>;

/// How this tab relates to the session on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Only its stored log is shown; it is not open in this tab.
    Viewing,
    /// This tab is opening it.
    Opening,
    /// This tab writes it.
    Writer,
    /// Another tab writes it; this one waits to take over.
    Follower,
}

impl Role {
    /// A short label for the status bar.
    pub fn label(self) -> &'static str {
        match self {
            Role::Viewing => "stored log, not running here",
            Role::Opening => "opening…",
            Role::Writer => "this tab runs it",
            Role::Follower => "another tab runs it",
        }
    }
}

/// One row of the session list.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    /// Session id.
    pub session: String,
    /// The summary of its stored log.
    pub summary: SessionSummary,
    /// Time of its last record.
    pub updated_at: u64,
    /// The name the user gave it, if any.
    pub name: Option<String>,
}

impl SessionRow {
    /// What the list shows: its name, else its first message, else "Untitled session".
    pub fn title(&self) -> String {
        match (&self.name, self.summary.title.as_str()) {
            (Some(name), _) => name.clone(),
            (None, "") => "Untitled session".to_string(),
            (None, title) => title.to_string(),
        }
    }
}

/// The session on screen.
#[derive(Debug, Clone, Copy)]
pub struct ShownSession {
    /// Its id; `None` before the first task of a new session.
    pub id: RwSignal<Option<String>>,
    /// What happened in it.
    pub timeline: RwSignal<Timeline>,
    /// Where its run stands.
    pub summary: RwSignal<SessionSummary>,
    /// Streamed output and storage trouble.
    pub live: RwSignal<LiveState>,
    /// Budgets and per-step spend of its current run.
    pub meters: RwSignal<RunMeters>,
    /// This tab's part in it.
    pub role: RwSignal<Role>,
    /// Records that arrived while its stored log was still loading.
    stash: StoredValue<Option<Vec<Record>>>,
}

impl ShownSession {
    fn new() -> Self {
        Self {
            id: RwSignal::new(None),
            timeline: RwSignal::new(Timeline::default()),
            summary: RwSignal::new(SessionSummary::default()),
            live: RwSignal::new(LiveState::default()),
            meters: RwSignal::new(RunMeters::default()),
            role: RwSignal::new(Role::Viewing),
            stash: StoredValue::new(None),
        }
    }

    /// Shows `id` (or a blank new session), empty until [`ShownSession::loaded`] brings its log;
    /// records that arrive live meanwhile are kept and applied after the log.
    pub fn reset(&self, id: Option<String>, role: Role) {
        self.stash.set_value(id.as_ref().map(|_| Vec::new()));
        self.id.set(id);
        self.timeline.set(Timeline::default());
        self.summary.set(SessionSummary::default());
        self.live.set(LiveState::default());
        self.meters.set(RunMeters::default());
        self.role.set(role);
    }

    /// The stored log of the shown session arrived.
    pub fn loaded(&self, records: &[Record]) {
        let stashed = self.stash.try_update_value(Option::take).flatten();
        let apply = |records: &[Record]| {
            self.timeline.update(|t| {
                for record in records {
                    t.push(record);
                }
            });
            self.summary
                .update(|s| records.iter().for_each(|r| s.push(r)));
            self.meters
                .update(|m| records.iter().for_each(|r| m.push(r)));
        };
        apply(records);
        apply(&stashed.unwrap_or_default());
    }

    /// Applies what the session `session` reported, if it is the one on screen.
    pub fn on_event(&self, session: &str, event: &SessionEvent) -> bool {
        if self.id.try_get_untracked().flatten().as_deref() != Some(session) {
            return false;
        }
        match event {
            SessionEvent::Notice(notice) => self.on_notice(notice),
            SessionEvent::Writer => self.role.set(Role::Writer),
            SessionEvent::Follower => self.role.set(Role::Follower),
            SessionEvent::Failed(message) => self.timeline.update(|t| {
                t.push_error(ErrorSource::Session, message.clone());
            }),
        }
        true
    }

    fn on_notice(&self, notice: &Notice) {
        match notice {
            Notice::Persisted(record) => {
                let stashed = self.stash.try_update_value(|stash| match stash {
                    Some(records) => {
                        records.push(record.clone());
                        true
                    }
                    None => false,
                });
                if stashed != Some(true) {
                    self.timeline.maybe_update(|t| t.push(record));
                    self.summary.update(|s| s.push(record));
                    self.meters.update(|m| m.push(record));
                }
            }
            Notice::StorageFailed(message) => self.timeline.update(|t| {
                t.push_error(ErrorSource::Storage, message.clone());
            }),
            Notice::Delta(_)
            | Notice::ApprovalNeeded { .. }
            | Notice::Finished(_)
            | Notice::StorageRecovered => {}
        }
        self.live.maybe_update(|live| live.apply(notice));
    }
}

/// Everything the playground shares.
#[derive(Debug, Clone, Copy)]
pub struct AppState {
    /// The settings form.
    pub settings: RwSignal<Settings>,
    /// Stored sessions, most recent first.
    pub sessions: RwSignal<Vec<SessionRow>>,
    /// The session on screen.
    pub shown: ShownSession,
    /// Loading progress of the in-tab model.
    pub progress: RwSignal<Option<DownloadProgress>>,
    /// The last error to show (`role="alert"`).
    pub error: RwSignal<Option<String>>,
    /// A long operation (open, import) is under way.
    pub busy: RwSignal<bool>,
    /// The settings panel is unfolded.
    pub settings_open: RwSignal<bool>,
    /// The composer's text (a task whose session could not be opened comes back to it).
    pub draft: RwSignal<String>,
    /// The session on screen waits for an API key before it can resume (why, for the banner).
    pub key_needed: RwSignal<Option<String>>,
    /// The session service the composition root provided (none outside the app).
    service: StoredValue<Option<Rc<SessionService>>, LocalStorage>,
    /// Sessions open in this tab.
    handles: StoredValue<BTreeMap<String, Rc<LiveSession>>, LocalStorage>,
}

impl AppState {
    /// Fresh state: default settings, nothing shown.
    pub fn new() -> Self {
        Self {
            settings: RwSignal::new(Settings {
                gguf_url: super::model_library::stored_model_choice(),
                ..Settings::default()
            }),
            sessions: RwSignal::new(Vec::new()),
            shown: ShownSession::new(),
            progress: RwSignal::new(None),
            error: RwSignal::new(None),
            busy: RwSignal::new(false),
            settings_open: RwSignal::new(true),
            draft: RwSignal::new(String::new()),
            key_needed: RwSignal::new(None),
            service: StoredValue::new_local(
                use_context::<ServiceContext>().and_then(|s| s.try_get_value()),
            ),
            handles: StoredValue::new_local(BTreeMap::new()),
        }
    }

    /// The session service.
    pub fn service(&self) -> Result<Rc<SessionService>, UiError> {
        self.service
            .try_get_value()
            .flatten()
            .ok_or(UiError::NoService)
    }

    /// The handle of `session` if this tab has it open.
    pub fn handle(&self, session: &str) -> Option<Rc<LiveSession>> {
        self.handles
            .try_with_value(|h| h.get(session).cloned())
            .flatten()
    }

    /// The handle of the session on screen, if this tab has it open.
    pub fn shown_handle(&self) -> Option<Rc<LiveSession>> {
        let id = self.shown.id.get_untracked()?;
        self.handle(&id)
    }

    /// Remembers an opened session.
    pub fn keep_handle(&self, handle: Rc<LiveSession>) {
        self.handles.update_value(|h| {
            h.insert(handle.session.clone(), handle);
        });
    }

    /// Forgets (and stops) a session of this tab.
    pub fn drop_handle(&self, session: &str) {
        if let Some(handle) = self
            .handles
            .try_update_value(|h| h.remove(session))
            .flatten()
        {
            handle.close();
        }
    }

    /// Shows an error to the user.
    pub fn fail(&self, message: impl Into<String>) {
        self.error.set(Some(message.into()));
    }
}

impl Default for AppState {
    fn default() -> Self {
        Self::new()
    }
}
