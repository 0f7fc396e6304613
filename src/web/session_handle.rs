//! A session opened in this tab: its driver task (started once this tab holds the session's
//! lock), and the listeners, run waiters and pending approvals the page and the UI share.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use futures::channel::mpsc::{unbounded, UnboundedSender};
use futures::channel::oneshot;

use super::any_model::AnyModel;
use super::idb_store::IdbStore;
use super::locks::SessionLock;
use super::log_channel;
use super::timer::BrowserClock;
use super::tool_host::{registered_tools, JsToolHost};
use super::visibility::VisibilityWatch;
use crate::core::{BudgetLimits, Event, Input, RunOutcome};
use crate::ports::EventStore;
use crate::runtime::options::{AgentOptions, ProviderOptions};
use crate::runtime::{Command, Driver, Notice};

/// What a session tells its listeners.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionEvent {
    /// From the driver.
    Notice(Box<Notice>),
    /// This tab now writes the session (another tab may have held it until now).
    Writer,
    /// Another tab writes this session; this one waits to take over.
    Follower,
    /// The session could not be opened or its driver stopped with an error.
    Failed(String),
}

type Listener = Rc<dyn Fn(&SessionEvent)>;
/// Resolves a `run` call with the outcome of the run it joined.
type Waiter = oneshot::Sender<Result<RunOutcome, String>>;

/// A session of this tab.
pub struct SessionHandle {
    /// Session id.
    pub session: String,
    commands: UnboundedSender<Command>,
    listeners: Rc<RefCell<Vec<Listener>>>,
    waiters: Rc<RefCell<Vec<Waiter>>>,
    approvals: Rc<RefCell<BTreeMap<String, String>>>,
    writer: Rc<Cell<bool>>,
    /// Suspends and resumes the run with the tab's visibility (removed when dropped).
    _visibility: Option<VisibilityWatch>,
}

thread_local! {
    static STORE: Rc<IdbStore> = Rc::new(IdbStore::new("tabloop"));
}

/// The page's event store.
pub fn shared_store() -> Rc<IdbStore> {
    STORE.with(Rc::clone)
}

/// The provider a stored session was created with, if the session exists.
async fn stored_provider(session: &str) -> Option<ProviderOptions> {
    let records = shared_store().load(session).await.ok()?;
    if let Event::SessionStarted { config, .. } = &records.first()?.event {
        ProviderOptions::from_description(&config.provider)
    } else {
        None
    }
}

/// Records in a stored session's log (0 when unknown).
async fn log_length(session: &str) -> u64 {
    shared_store()
        .load(session)
        .await
        .map_or(0, |r| r.len() as u64)
}

/// A fresh session id.
pub fn new_session_id() -> String {
    let random = (js_sys::Math::random() * 1e9) as u64;
    format!("s-{}-{random:09}", js_sys::Date::now() as u64)
}

impl SessionHandle {
    /// Opens (or resumes) the session the options name, or a new one.
    pub async fn open(mut options: AgentOptions) -> Result<Rc<Self>, String> {
        let session = options
            .session
            .clone()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(new_session_id);
        // A resumed session keeps its model: options may give only a key, or nothing.
        if let Some(stored) = stored_provider(&session).await {
            options.provider = Some(match options.provider.take() {
                Some(given) => given.completed_from(&stored),
                None => stored,
            });
        }
        let registered = registered_tools().await.map_err(|e| e.to_string())?;
        let config = options.to_config(&registered).map_err(|e| e.to_string())?;
        let (commands, receiver) = unbounded();
        let first_lock = SessionLock::try_acquire(&session).await.map_err(|e| e.0)?;
        // Known now, so an input sent right after `open` is not refused as a follower's.
        let writer = Rc::new(Cell::new(first_lock.is_some()));
        let handle = Rc::new(Self {
            session: session.clone(),
            _visibility: VisibilityWatch::start(commands.clone(), writer.clone()),
            commands,
            listeners: Rc::default(),
            waiters: Rc::default(),
            approvals: Rc::default(),
            writer,
        });
        let model = Rc::new(AnyModel::from_options(
            &options.provider.clone().unwrap_or_default(),
        ));
        let task_handle = handle.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let lock = match first_lock {
                Some(lock) => lock,
                None => {
                    task_handle.emit(&SessionEvent::Follower);
                    let seen = Rc::new(Cell::new(log_length(&session).await));
                    task_handle.follow(seen.clone());
                    let lock = match SessionLock::acquire_when_free(&session).await {
                        Ok(lock) => lock,
                        Err(e) => return task_handle.fail(e.0),
                    };
                    // Whatever the old writer wrote last is announced before this tab writes.
                    task_handle.catch_up(&seen).await;
                    lock
                }
            };
            task_handle.writer.set(true);
            task_handle.emit(&SessionEvent::Writer);
            let observer = task_handle.observer();
            let tools = Rc::new(JsToolHost::new(&session));
            let opened = Driver::open(
                &session,
                config,
                model,
                shared_store(),
                tools,
                Rc::new(BrowserClock),
                observer,
            )
            .await;
            match opened {
                Ok(driver) => {
                    driver.run(receiver).await;
                }
                Err(e) => task_handle.fail(e.to_string()),
            }
            lock.release().await;
        });
        Ok(handle)
    }

    /// Listens to everything the session reports.
    pub fn subscribe(&self, listener: Listener) {
        self.listeners.borrow_mut().push(listener);
    }

    /// Whether this tab writes the session.
    pub fn is_writer(&self) -> bool {
        self.writer.get()
    }

    /// Sends a task (or a message joining the current run); resolves when that run ends. A
    /// follower tab's task is refused at once.
    pub fn run(
        &self,
        task: String,
        budget: Option<BudgetLimits>,
    ) -> oneshot::Receiver<Result<RunOutcome, String>> {
        let (sender, receiver) = oneshot::channel();
        match self.send(Input::UserMessage { text: task, budget }) {
            Ok(()) => self.waiters.borrow_mut().push(sender),
            Err(refused) => {
                let _ = sender.send(Err(refused));
            }
        }
        receiver
    }

    /// Feeds an input to the driver. A follower tab refuses it: queued, it would be applied by
    /// a later takeover to a run this tab never saw (a stale Cancel would cancel the resumed run).
    pub fn send(&self, input: Input) -> Result<(), String> {
        self.refuse_follower()?;
        // A closed channel means the driver stopped; its failure was already reported.
        let _ = self.commands.unbounded_send(Command::Input(input));
        Ok(())
    }

    /// `Err` with a clear message while another tab writes the session.
    fn refuse_follower(&self) -> Result<(), String> {
        if self.writer.get() {
            return Ok(());
        }
        Err(format!(
            "another tab writes this session ({}); this tab follows it read-only, so the input was \
             refused (it takes over when that tab closes)",
            self.session
        ))
    }

    /// Approves or denies a pending call, quoting the arguments it was asked about.
    pub fn decide(&self, call: &str, approved: bool, reason: Option<String>) -> Result<(), String> {
        self.refuse_follower()?;
        let args_hash = self
            .approvals
            .borrow_mut()
            .remove(call)
            .ok_or_else(|| format!("no approval is pending for call {call}"))?;
        self.send(Input::ApprovalDecided {
            call: call.to_string(),
            args_hash,
            approved,
            reason,
        })
    }

    /// Calls waiting for a decision: (call id, args hash).
    pub fn pending_approvals(&self) -> Vec<String> {
        self.approvals.borrow().keys().cloned().collect()
    }

    /// Tells the driver whether a stop hook answers this session's completions.
    pub fn set_stop_hook(&self, registered: bool) {
        let _ = self
            .commands
            .unbounded_send(Command::SetStopHook(registered));
    }

    /// Writes the records storage refused before.
    pub fn retry_storage(&self) -> Result<(), String> {
        self.refuse_follower()?;
        let _ = self.commands.unbounded_send(Command::RetryStorage);
        Ok(())
    }

    /// Stops this tab's driver; the session stays in the log and can be opened again.
    pub fn close(&self) {
        let _ = self.commands.unbounded_send(Command::Stop);
    }

    /// While another tab writes: on each "log advanced" hint, read the new records from the
    /// store and announce them, so a follower tab shows the run as it goes.
    fn follow(self: &Rc<Self>, seen: Rc<Cell<u64>>) {
        let handle = self.clone();
        log_channel::listen(Rc::new(move |hint| {
            if hint.session != handle.session || handle.writer.get() || hint.seq < seen.get() {
                return;
            }
            let (handle, seen) = (handle.clone(), seen.clone());
            wasm_bindgen_futures::spawn_local(async move { handle.catch_up(&seen).await });
        }));
    }

    /// Announces the stored records from `seen` on (each exactly once).
    async fn catch_up(&self, seen: &Cell<u64>) {
        let Ok(records) = shared_store().load(&self.session).await else {
            return;
        };
        for record in records.into_iter().filter(|r| r.seq >= seen.get()) {
            seen.set(record.seq + 1);
            self.emit(&SessionEvent::Notice(Box::new(Notice::Persisted(record))));
        }
    }

    fn emit(&self, event: &SessionEvent) {
        let listeners = self.listeners.borrow().clone();
        for listener in listeners {
            listener(event);
        }
    }

    fn fail(&self, message: String) {
        for waiter in self.waiters.borrow_mut().drain(..) {
            let _ = waiter.send(Err(message.clone()));
        }
        self.emit(&SessionEvent::Failed(message));
    }

    /// The driver's observer: keeps approvals and run waiters current, then tells listeners.
    fn observer(self: &Rc<Self>) -> crate::runtime::Observer {
        let handle = self.clone();
        Box::new(move |notice: &Notice| {
            match notice {
                Notice::ApprovalNeeded {
                    call, args_hash, ..
                } => {
                    handle
                        .approvals
                        .borrow_mut()
                        .insert(call.clone(), args_hash.clone());
                }
                Notice::Finished(outcome) => {
                    handle.approvals.borrow_mut().clear();
                    for waiter in handle.waiters.borrow_mut().drain(..) {
                        let _ = waiter.send(Ok(outcome.clone()));
                    }
                }
                Notice::Persisted(record) => log_channel::announce(&handle.session, record.seq),
                Notice::Delta(_) | Notice::StorageFailed(_) | Notice::StorageRecovered => {}
            }
            handle.emit(&SessionEvent::Notice(Box::new(notice.clone())));
        })
    }
}
