//! A session open in this page: the control half the JS API and the UI share. It queues
//! commands for the session's driver (wherever and whenever the platform runs it), keeps the
//! approvals the driver asked for, the callers waiting for a run to end and whether the run is
//! paused for its provider, and tells every listener what the session reports.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use futures::channel::mpsc::UnboundedSender;
use futures::channel::oneshot;

use super::driver::Command;
use super::live_error::LiveError;
use super::notice::{Notice, Observer};
use super::options::BudgetOptions;
use crate::core::{BudgetLimits, Event, Input, PauseReason, RunOutcome};

/// What a live session tells its listeners.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionEvent {
    /// From the driver.
    Notice(Box<Notice>),
    /// This page now writes the session (another tab may have held it until now).
    Writer,
    /// Another tab writes this session; this one waits to take over.
    Follower,
    /// The session could not be opened or its driver stopped with an error.
    Failed(String),
}

/// A listener of a live session.
pub type Listener = Rc<dyn Fn(&SessionEvent)>;
/// Resolves a `run` call with the outcome of the run it joined.
type Waiter = oneshot::Sender<Result<RunOutcome, LiveError>>;

/// The control half of a session open in this page.
pub struct LiveSession {
    /// Session id.
    pub session: String,
    commands: UnboundedSender<Command>,
    listeners: RefCell<Vec<Listener>>,
    waiters: RefCell<Vec<Waiter>>,
    approvals: RefCell<BTreeMap<String, String>>,
    writer: Cell<bool>,
    /// The pause the run is in (its provider or a tool's server unreachable), as last stored.
    paused: RefCell<Option<Pause>>,
    /// Woken when `paused` changes (a pause, its end, or the run's end).
    pause_watchers: RefCell<Vec<oneshot::Sender<()>>>,
}

/// Why a run waits before it goes on, as the log says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pause {
    /// What it waits for.
    pub reason: PauseReason,
    /// What the person is told.
    pub message: String,
}

impl LiveSession {
    /// A live session whose driver reads `commands`.
    pub fn new(session: String, commands: UnboundedSender<Command>) -> Rc<Self> {
        Rc::new(Self {
            session,
            commands,
            listeners: RefCell::default(),
            waiters: RefCell::default(),
            approvals: RefCell::default(),
            writer: Cell::new(false),
            paused: RefCell::default(),
            pause_watchers: RefCell::default(),
        })
    }

    /// Listens to everything the session reports.
    pub fn subscribe(&self, listener: Listener) {
        self.listeners.borrow_mut().push(listener);
    }

    /// Whether this page writes the session.
    pub fn is_writer(&self) -> bool {
        self.writer.get()
    }

    /// Why the run waits for its provider or a tool's server, while this page has seen it
    /// paused and not yet resumed or ended (`None` otherwise).
    pub fn paused(&self) -> Option<Pause> {
        self.paused.borrow().clone()
    }

    /// Resolves at the next change of [`LiveSession::paused`]: the run pauses, goes on, or ends.
    pub fn pause_changed(&self) -> oneshot::Receiver<()> {
        let (sender, receiver) = oneshot::channel();
        self.pause_watchers.borrow_mut().push(sender);
        receiver
    }

    /// Records the pause state a stored event sets, waking the watchers when it changed.
    fn note_pause(&self, paused: Option<Pause>) {
        if *self.paused.borrow() == paused {
            return;
        }
        *self.paused.borrow_mut() = paused;
        for watcher in self.pause_watchers.borrow_mut().drain(..) {
            let _ = watcher.send(());
        }
    }

    /// Sends a task (or a message joining the current run); resolves when that run ends.
    pub fn run(
        &self,
        task: String,
        budget: Option<BudgetLimits>,
    ) -> oneshot::Receiver<Result<RunOutcome, LiveError>> {
        let (sender, receiver) = oneshot::channel();
        match self.send(Input::UserMessage { text: task, budget }) {
            Ok(()) => self.waiters.borrow_mut().push(sender),
            Err(refused) => {
                let _ = sender.send(Err(refused));
            }
        }
        receiver
    }

    /// Hands the session's model client another API key for its next calls (a follower's
    /// applies once it takes over). Never recorded.
    pub fn set_api_key(&self, key: String) {
        self.command(Command::SetApiKey(key));
    }

    /// Cancels the run in progress.
    pub fn cancel(&self) -> Result<(), LiveError> {
        self.send(Input::cancel())
    }

    /// Goes on after the run paused because its provider or a tool's server was unreachable:
    /// the paused model call or tool call is sent again.
    pub fn retry_paused(&self) -> Result<(), LiveError> {
        self.send(Input::RetryPaused)
    }

    /// Suspends (hidden tab) or resumes the run's clock; only the writer's count.
    pub fn set_visible(&self, visible: bool) {
        if self.writer.get() {
            self.command(Command::Input(if visible {
                Input::Resume
            } else {
                Input::Suspend
            }));
        }
    }

    /// Tells the driver whether a stop hook answers this session's completions.
    pub fn set_stop_hook(&self, registered: bool) {
        self.command(Command::SetStopHook(registered));
    }

    /// Raises the limits of a run stopped by its budget and continues it: the given limits are
    /// laid over the run's current ones (by the driver, which knows them).
    pub fn extend_budget(&self, budget: BudgetOptions) -> Result<(), LiveError> {
        self.refuse_follower()?;
        self.command(Command::ExtendBudget(budget));
        Ok(())
    }

    /// Approves or denies a pending call, quoting the arguments it was asked about.
    pub fn decide(
        &self,
        call: &str,
        approved: bool,
        reason: Option<String>,
    ) -> Result<(), LiveError> {
        self.refuse_follower()?;
        let args_hash = self.approvals.borrow_mut().remove(call).ok_or_else(|| {
            LiveError::NoPendingApproval {
                call: call.to_string(),
            }
        })?;
        self.send(Input::ApprovalDecided {
            call: call.to_string(),
            args_hash,
            approved,
            reason,
        })
    }

    /// Writes the records storage refused before.
    pub fn retry_storage(&self) -> Result<(), LiveError> {
        self.refuse_follower()?;
        self.command(Command::RetryStorage);
        Ok(())
    }

    /// Stops the driver; the session stays in the log and can be opened again.
    pub fn close(&self) {
        self.command(Command::Stop);
    }

    /// Feeds an input to the driver. A follower page refuses it: queued, it would be applied by
    /// a later takeover to a run this page never saw (a stale Cancel would cancel the resumed
    /// run).
    pub fn send(&self, input: Input) -> Result<(), LiveError> {
        self.refuse_follower()?;
        self.command(Command::Input(input));
        Ok(())
    }

    /// `Err` with a clear message while another tab writes the session.
    fn refuse_follower(&self) -> Result<(), LiveError> {
        if self.writer.get() {
            return Ok(());
        }
        Err(LiveError::Follower {
            session: self.session.clone(),
        })
    }

    /// Marks this page as holding the session's lock, before its driver starts: inputs sent
    /// right after opening are this page's, not a follower's.
    pub fn holds_lock(&self) {
        self.writer.set(true);
    }

    fn command(&self, command: Command) {
        // A closed channel means the driver stopped; its failure was already reported.
        let _ = self.commands.unbounded_send(command);
    }

    /// Marks this page as the session's writer (the platform holds its lock) and says so.
    pub fn became_writer(&self) {
        self.writer.set(true);
        self.emit(&SessionEvent::Writer);
    }

    /// Tells every listener `event`.
    pub fn emit(&self, event: &SessionEvent) {
        let listeners = self.listeners.borrow().clone();
        for listener in listeners {
            listener(event);
        }
    }

    /// Ends every waiting run call with `message` and reports the failure.
    pub fn fail(&self, message: String) {
        for waiter in self.waiters.borrow_mut().drain(..) {
            let _ = waiter.send(Err(LiveError::Failed(message.clone())));
        }
        self.emit(&SessionEvent::Failed(message));
    }

    /// The driver's observer: keeps approvals and run waiters current, then tells listeners.
    pub fn observer(self: &Rc<Self>) -> Observer {
        let live = self.clone();
        Box::new(move |notice: Notice| {
            match &notice {
                Notice::ApprovalNeeded {
                    call, args_hash, ..
                } => {
                    live.approvals
                        .borrow_mut()
                        .insert(call.clone(), args_hash.clone());
                }
                Notice::Finished(outcome) => {
                    live.approvals.borrow_mut().clear();
                    for waiter in live.waiters.borrow_mut().drain(..) {
                        let _ = waiter.send(Ok(outcome.clone()));
                    }
                    live.note_pause(None);
                }
                Notice::Persisted(record) => {
                    if let Event::RunPaused { reason, message } = &record.event {
                        live.note_pause(Some(Pause {
                            reason: *reason,
                            message: message.clone(),
                        }));
                    } else if matches!(record.event, Event::RunUnpaused | Event::RunFinished { .. })
                    {
                        live.note_pause(None);
                    }
                }
                Notice::Delta(_) | Notice::StorageFailed(_) | Notice::StorageRecovered => {}
            }
            live.emit(&SessionEvent::Notice(Box::new(notice)));
        })
    }
}
