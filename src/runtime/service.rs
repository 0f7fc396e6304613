//! The session service: the one place sessions are created, opened (with the provider merged
//! once), listed, imported, exported, forked and deleted. The JS API and the playground both
//! call it; the platform (the composition root) supplies the store and runs live sessions.

use std::rc::Rc;

use futures::channel::mpsc::{unbounded, UnboundedReceiver};

use super::driver::Command;
use super::live::LiveSession;
use super::options::{stored_provider, AgentOptions, OptionsError, ProviderOptions};
use crate::core::{parse_jsonl, to_jsonl, Agent, AgentConfig, Record, ReplayError, SNAPSHOT_EVERY};
use crate::ports::{
    Durability, DynFiles, DynStore, EventStore, FileEntry, FilesError, IndexedSession, Platform,
    PlatformError, StoreError, Volume,
};

/// Why a session operation failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ServiceError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A log cannot be read or replayed.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The options are invalid.
    #[error(transparent)]
    Options(#[from] OptionsError),
    /// An imported session's id is taken.
    #[error("a session named {0} already exists")]
    Exists(String),
    /// The platform could not run the session (its tools, its lock, its provider).
    #[error(transparent)]
    Platform(#[from] PlatformError),
    /// A file operation failed.
    #[error(transparent)]
    Files(#[from] FilesError),
}

/// A session about to be opened by this page: its id, the options with the provider merged
/// from the stored one, and the configuration a new log would start with.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// Session id.
    pub session: String,
    /// The options, provider merged.
    pub options: AgentOptions,
    /// The configuration of a new log (a stored log keeps its own).
    pub config: AgentConfig,
}

/// What the platform needs to run a live session: the control half, the configuration of a new
/// log, the provider to build the model client from, and the commands its driver reads.
pub struct Launch {
    /// The control half the callers hold.
    pub live: Rc<LiveSession>,
    /// The configuration of a new log.
    pub config: AgentConfig,
    /// The provider (with its key) the model client is built from.
    pub provider: ProviderOptions,
    /// The driver's commands.
    pub commands: UnboundedReceiver<Command>,
    /// Hosts the fetch tool may reach without approval (not in the log; see `AgentOptions`).
    pub allow_hosts: Vec<String>,
}

/// The longest session name kept, in characters.
pub const MAX_NAME_CHARS: usize = 120;

/// One session in a list: the sessions index entry.
pub type ListedSession = IndexedSession;

/// The provider a resumed session uses: the given one completed from the stored one when both
/// are of the same kind; the stored one when only a key for another kind was given (a session
/// keeps its model); otherwise whatever is there.
pub fn merge_provider(
    given: Option<ProviderOptions>,
    stored: Option<ProviderOptions>,
) -> Option<ProviderOptions> {
    match (given, stored) {
        (None, stored) => stored,
        (Some(given), None) => Some(given),
        (Some(given), Some(stored)) if given.kind == stored.kind => {
            Some(given.completed_from(&stored))
        }
        (Some(given), Some(stored)) if given.base_url.is_none() && given.model.is_none() => {
            Some(stored)
        }
        (Some(given), Some(_)) => Some(given),
    }
}

/// The sessions of one store.
pub struct SessionService {
    store: Rc<dyn DynStore>,
    platform: Rc<dyn Platform<Launch>>,
    files: Option<Rc<dyn DynFiles>>,
}

impl SessionService {
    /// The service over `store`, running live sessions through `platform`.
    pub fn new(store: Rc<dyn DynStore>, platform: Rc<dyn Platform<Launch>>) -> Self {
        Self {
            store,
            platform,
            files: None,
        }
    }

    /// The service with the file volumes the tools use, for browsing them.
    pub fn with_files(mut self, files: Rc<dyn DynFiles>) -> Self {
        self.files = Some(files);
        self
    }

    /// Picks the session id and merges the provider with the stored one (read once).
    pub async fn resolve(&self, mut options: AgentOptions) -> Result<Resolved, ServiceError> {
        let session = options
            .session
            .clone()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| self.platform.new_session_id());
        let stored = self.stored_provider(&session).await?;
        options.provider = merge_provider(options.provider.take(), stored);
        options.session = Some(session.clone());
        let registered = self
            .platform
            .registered_tools()
            .await
            .map_err(ServiceError::Platform)?;
        let config = options.to_config(&registered)?;
        Ok(Resolved {
            session,
            options,
            config,
        })
    }

    /// Opens a resolved session in this page.
    pub async fn launch(&self, resolved: Resolved) -> Result<Rc<LiveSession>, ServiceError> {
        let (sender, commands) = unbounded();
        let live = LiveSession::new(resolved.session, sender);
        let launch = Launch {
            live: live.clone(),
            config: resolved.config,
            provider: resolved.options.provider.unwrap_or_default(),
            commands,
            allow_hosts: resolved.options.allow_hosts,
        };
        self.platform
            .launch(launch)
            .await
            .map_err(ServiceError::Platform)?;
        Ok(live)
    }

    /// Opens (or resumes) the session the options name, or a new one.
    pub async fn open(&self, options: AgentOptions) -> Result<Rc<LiveSession>, ServiceError> {
        let resolved = self.resolve(options).await?;
        self.launch(resolved).await
    }

    /// Every stored session, in the store's order (by id), from the sessions index: the logs
    /// are not read.
    pub async fn list(&self) -> Result<Vec<ListedSession>, ServiceError> {
        Ok(self.store.index().await?)
    }

    /// The whole log of a session.
    pub async fn records(&self, session: &str) -> Result<Vec<Record>, ServiceError> {
        Ok(self.store.load(session).await?)
    }

    /// A session as JSON lines (no API key is ever in the log).
    pub async fn export(&self, session: &str) -> Result<String, ServiceError> {
        Ok(to_jsonl(&self.records(session).await?))
    }

    /// Stores a session exported as JSON lines; returns its id. Refuses a log from a newer
    /// build, a log that does not replay and an id that is taken.
    pub async fn import(&self, jsonl: &str) -> Result<String, ServiceError> {
        let records = parse_jsonl(jsonl)?;
        let agent = Agent::replay(&records)?;
        let session = agent.state().session.clone();
        if !self
            .store
            .load_range(&session, 0, Some(1))
            .await?
            .is_empty()
        {
            return Err(ServiceError::Exists(session));
        }
        self.store
            .append(&session, &records, Durability::Strict)
            .await?;
        self.snapshot(&session, &agent, &records).await;
        Ok(session)
    }

    /// Stores a snapshot of a long log just written, so its first open does not replay it all.
    async fn snapshot(&self, session: &str, agent: &Agent, records: &[Record]) {
        let Some(last) = records.last() else {
            return;
        };
        if (records.len() as u64) < SNAPSHOT_EVERY {
            return;
        }
        // A new session: the store holds none of its parts yet.
        if let Some(write) = agent.snapshot(last, 0) {
            // Derived data: without it the first open replays the whole log.
            let _ = self.store.save_snapshot(session, write).await;
        }
    }

    /// Copies `session` up to the end of `step` of run `run` (the last run that has the step
    /// when `None`) into a new session; returns its id.
    pub async fn fork(
        &self,
        session: &str,
        run: Option<u32>,
        step: u32,
    ) -> Result<String, ServiceError> {
        let records = self.store.load(session).await?;
        let forked_id = self.platform.new_session_id();
        let forked = match run {
            Some(run) => Agent::fork_run(&records, run, step, &forked_id)?,
            None => Agent::fork(&records, step, &forked_id)?,
        };
        self.store
            .append(&forked_id, &forked, Durability::Strict)
            .await?;
        let agent = Agent::replay(&forked)?;
        self.snapshot(&forked_id, &agent, &forked).await;
        Ok(forked_id)
    }

    /// Names a stored session; an empty name gives it back its first message as title. The
    /// name is cut to [`MAX_NAME_CHARS`] characters and kept in the sessions index.
    pub async fn rename(&self, session: &str, name: &str) -> Result<(), ServiceError> {
        let name: String = name.trim().chars().take(MAX_NAME_CHARS).collect();
        let name = Some(name).filter(|n| !n.is_empty());
        Ok(self.store.rename(session, name).await?)
    }

    /// Removes a stored session.
    pub async fn delete(&self, session: &str) -> Result<(), ServiceError> {
        Ok(self.store.delete(session).await?)
    }

    /// Every file of a volume, in path order.
    pub async fn list_files(&self, volume: &Volume) -> Result<Vec<FileEntry>, ServiceError> {
        Ok(self.files()?.list(volume).await?)
    }

    /// The text of one file.
    pub async fn read_file(&self, volume: &Volume, path: &str) -> Result<String, ServiceError> {
        Ok(self.files()?.read(volume, path).await?)
    }

    /// Creates or replaces one file (an upload).
    pub async fn write_file(
        &self,
        volume: &Volume,
        path: &str,
        content: &str,
    ) -> Result<(), ServiceError> {
        Ok(self.files()?.write(volume, path, content).await?)
    }

    /// Deletes a file, or a directory with everything in it; returns how many files went.
    pub async fn delete_file(&self, volume: &Volume, path: &str) -> Result<u64, ServiceError> {
        Ok(self.files()?.delete(volume, path).await?)
    }

    fn files(&self) -> Result<&Rc<dyn DynFiles>, FilesError> {
        self.files
            .as_ref()
            .ok_or_else(|| FilesError::Unavailable("this page has no file volumes".to_string()))
    }

    /// The provider a stored session was created with, if it exists.
    async fn stored_provider(
        &self,
        session: &str,
    ) -> Result<Option<ProviderOptions>, ServiceError> {
        Ok(stored_provider(
            &self.store.load_range(session, 0, Some(1)).await?,
        ))
    }
}

/// Runs a launched session's driver over the given adapters until it stops (the platform calls
/// this once it holds the session's lock).
pub async fn drive<M, S, T, C>(
    launch: Launch,
    model: Rc<M>,
    store: Rc<S>,
    tools: Rc<T>,
    clock: Rc<C>,
) where
    M: crate::ports::ModelClient + 'static,
    S: EventStore + 'static,
    T: crate::ports::ToolHost + 'static,
    C: crate::ports::Clock + 'static,
{
    let Launch {
        live,
        config,
        commands,
        ..
    } = launch;
    let session = live.session.clone();
    let observer = live.observer();
    let opened =
        super::Driver::<(M, S, T, C)>::open(&session, config, model, store, tools, clock, observer);
    match opened.await {
        Ok(driver) => {
            driver.run(commands).await;
        }
        Err(e) => live.fail(e.to_string()),
    }
}
