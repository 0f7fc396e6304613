//! The driver: one per open session. Persists every record batch before performing the actions
//! that follow it, pauses (losing nothing) when storage fails, and resumes a session from its
//! log when opened again. The page hears of stored records off the step's path (see
//! `driver/persist.rs`).

use std::rc::Rc;

use futures::channel::mpsc::UnboundedReceiver;
use futures::future::LocalBoxFuture;
use futures::{pin_mut, FutureExt, StreamExt};

mod calls;
mod next_task;
mod persist;
mod streamed;

use self::next_task::NextTask;
use self::streamed::Streamed;
use super::commit::{settled, PendingCommit};
use super::driver_error::DriverError;
use super::notice::{Notice, Observer};
use super::options::BudgetOptions;
use super::resume::{open_agent, SnapshotMark};
use super::work::{InFlight, WorkKey};
use crate::core::{Agent, AgentConfig, Effect, Event, Input, InputError, Record};
use crate::ports::{Clock, Durability, EventStore, ModelClient, PortSet, StoreError};

/// How often the core hears the time while calls are in flight (wall-clock budget).
const TICK_MS: u64 = 1_000;

/// What the page asks of a running driver.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Feed this input to the core.
    Input(Input),
    /// Raise the limits of a run stopped by its budget: these options laid over the run's
    /// current limits (so a limit not mentioned, a cost cap say, is kept), and continue it.
    ExtendBudget(BudgetOptions),
    /// Try again to write the records that storage refused.
    RetryStorage,
    /// The page registered (or removed) a stop hook for this session's proposals.
    SetStopHook(bool),
    /// The person entered another API key for this session's provider (never recorded).
    SetApiKey(String),
    /// Stop the driver's task (the session stays in the log).
    Stop,
}

/// Runs one session's loop over the ports.
pub struct Driver<P: PortSet> {
    agent: Agent,
    session: String,
    model: Rc<P::Model>,
    store: Rc<P::Store>,
    tools: Rc<P::Tools>,
    clock: Rc<P::Clock>,
    observer: Rc<Observer>,
    unsaved: Vec<Record>,
    waiting: Vec<Effect>,
    storage_failed: bool,
    in_flight: InFlight,
    /// The relaxed append in flight that nothing waits for, if any.
    commit: Option<PendingCommit>,
    /// Stored records the observer has not heard of yet (see `announce_pending`).
    unannounced: Vec<Record>,
    /// What the stored fold snapshot holds.
    snapshot: SnapshotMark,
    /// The last record of a finished run whose snapshot is due once its outcome is out.
    snapshot_at_rest: Option<Record>,
    /// What the model call under way has written so far, kept if the run is cancelled.
    streamed: Streamed,
}

impl<P: PortSet> Driver<P> {
    /// Opens `session`: a new log with `config`, or the stored one replayed and resumed (the
    /// stored configuration wins). Work that was in flight is re-issued.
    #[allow(clippy::too_many_arguments)]
    pub async fn open(
        session: &str,
        config: AgentConfig,
        model: Rc<P::Model>,
        store: Rc<P::Store>,
        tools: Rc<P::Tools>,
        clock: Rc<P::Clock>,
        observer: Observer,
    ) -> Result<Self, DriverError> {
        let (agent, snapshot) = open_agent(&*store, session, config, clock.now()).await?;
        let mut driver = Self {
            agent,
            session: session.to_string(),
            model,
            store,
            tools,
            clock,
            observer: Rc::new(observer),
            unsaved: Vec::new(),
            waiting: Vec::new(),
            storage_failed: false,
            in_flight: InFlight::default(),
            commit: None,
            unannounced: Vec::new(),
            snapshot,
            snapshot_at_rest: None,
            streamed: Streamed::default(),
        };
        // If storage refuses these first records the driver opens paused, as after any failed
        // write; the observer has been told.
        driver.collect();
        driver.flush().await;
        driver.settle().await;
        driver.announce_pending();
        Ok(driver)
    }

    /// The agent (read-only).
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    /// Whether storage refused the last write and the run is paused.
    pub fn storage_failed(&self) -> bool {
        self.storage_failed
    }

    /// Feeds one input and performs what follows; returns once its records are stored (and
    /// the snapshot a finished run left due written).
    pub async fn feed(&mut self, input: Input) -> Result<(), InputError> {
        self.step(input).await?;
        self.settle().await;
        self.announce_pending();
        self.write_snapshot_at_rest().await;
        Ok(())
    }

    /// Feeds one input and performs what follows, leaving a relaxed append in flight when
    /// only reversible work follows it.
    async fn step(&mut self, mut input: Input) -> Result<(), InputError> {
        // A cancel, or a tick that ends the time budget, keeps what the model had written;
        // only the driver has seen it. A tick may stop nothing, so the text stays for later.
        if let Input::Cancel { partial_reply } = &mut input {
            if partial_reply.is_empty() {
                *partial_reply = self.streamed.take();
            }
        }
        if let Input::Tick { partial_reply } = &mut input {
            if partial_reply.is_empty() {
                *partial_reply = self.streamed.text();
            }
        }
        self.agent.handle(input, self.clock.now())?;
        self.collect();
        self.flush().await;
        Ok(())
    }

    /// Extends the budget of the current run: `options` over its current limits (the
    /// session's default limits before any run).
    pub async fn extend_budget(&mut self, options: &BudgetOptions) -> Result<(), InputError> {
        let state = self.agent.state();
        let current = state
            .run
            .as_ref()
            .map_or(state.config.budget, |run| run.limits);
        self.feed(Input::ExtendBudget {
            budget: options.over(current),
        })
        .await
    }

    /// Runs until `Command::Stop` or until the command channel closes.
    pub async fn run(mut self, mut commands: UnboundedReceiver<Command>) -> Self {
        enum Wake {
            Command(Option<Command>),
            Work(Option<Input>),
            Committed(Result<(), StoreError>),
            Tick,
            Soon,
        }
        // One timer for the ticks while work is in flight, kept across wakes until it fires
        // (a new timer on every wake cost a setTimeout and a clearTimeout each).
        let mut tick: Option<LocalBoxFuture<'static, ()>> = None;
        // The page hears of stored records in a later task (or while the next commit is under
        // way, see `append_behind_pending`), never ahead of the step's own work; a run that
        // never waits on anything outside lets the page have a task after each slice.
        let mut next_task = NextTask::new(self.clock.clone());
        loop {
            let something_due = !self.unannounced.is_empty()
                || self.writes_soon()
                || self.snapshot_at_rest.is_some();
            // Wakes are taken in a fixed order, the same way every time (a random pick made the
            // driver's choices differ from run to run): the page's commands, storage, the next
            // task, then the work in flight.
            let wake = if next_task.before_waiting(something_due).await {
                next_task.wait().await;
                Wake::Soon
            } else {
                let command = commands.next().fuse();
                let commit = settled(&mut self.commit).fuse();
                let due = next_task.came().fuse();
                pin_mut!(command, commit, due);
                if self.in_flight.is_empty() {
                    tick = None;
                    futures::select_biased! {
                        c = command => Wake::Command(c),
                        r = commit => Wake::Committed(r),
                        _ = due => Wake::Soon,
                    }
                } else {
                    let timer = tick.get_or_insert_with(|| {
                        let clock = self.clock.clone();
                        Box::pin(async move { clock.sleep(TICK_MS).await })
                    });
                    let ticked = timer.fuse();
                    let work = self.in_flight.next().fuse();
                    pin_mut!(ticked, work);
                    futures::select_biased! {
                        c = command => Wake::Command(c),
                        r = commit => Wake::Committed(r),
                        _ = due => Wake::Soon,
                        w = work => Wake::Work(w),
                        _ = ticked => Wake::Tick,
                    }
                }
            };
            match wake {
                Wake::Command(None) | Wake::Command(Some(Command::Stop)) => {
                    if self.settle().await && self.unsaved.is_empty() {
                        self.rest().await;
                    }
                    self.announce_pending();
                    self.write_snapshot_at_rest().await;
                    return self;
                }
                Wake::Command(Some(Command::Input(input))) | Wake::Work(Some(input)) => {
                    // A refused input (a late result, a stale approval) changes nothing.
                    let _ = self.step(input).await;
                }
                Wake::Command(Some(Command::ExtendBudget(options))) => {
                    let _ = self.extend_budget(&options).await;
                }
                Wake::Command(Some(Command::RetryStorage)) => self.flush().await,
                Wake::Command(Some(Command::SetStopHook(on))) => self.agent.set_stop_hook(on),
                Wake::Command(Some(Command::SetApiKey(key))) => self.model.set_api_key(&key),
                Wake::Committed(result) => {
                    let records = self.commit.take().map(|p| p.records).unwrap_or_default();
                    // What gathered meanwhile goes out as the next batch (group commit).
                    if self.committed(records, result).await {
                        self.flush().await;
                    }
                }
                Wake::Work(None) => {}
                Wake::Tick => {
                    tick = None;
                    let _ = self.step(Input::tick()).await;
                }
                Wake::Soon => {
                    next_task.seen();
                    self.announce_pending();
                    self.write_soon();
                    self.write_snapshot_at_rest().await;
                }
            }
        }
    }

    /// Moves the core's effects into the unsaved batch and the actions waiting on it. Aborts are
    /// performed at once: stopping work needs no record first.
    fn collect(&mut self) {
        while let Some(effect) = self.agent.poll() {
            match effect {
                Effect::Persist(record) => self.unsaved.push(record),
                Effect::Abort { request, calls } => {
                    if let Some(request) = request {
                        self.in_flight.abort(&WorkKey::Model(request));
                    }
                    for call in calls {
                        self.in_flight.abort(&WorkKey::Tool(call));
                    }
                }
                other @ (Effect::CallModel { .. }
                | Effect::CallTool(_)
                | Effect::AskApproval { .. }
                | Effect::AskStopHook(_)
                | Effect::Finished(_)) => self.waiting.push(other),
            }
        }
    }

    /// Writes the unsaved records, then performs the actions that waited on them. When only
    /// reversible work follows (model calls, idempotent tools) the work starts at once and the
    /// records are written relaxed in the next task (`write_soon`), nothing waiting for them;
    /// records gathered meanwhile go with the next append. Anything irreversible (a tool not
    /// safe to run twice, a human decision, the run's end) waits until every earlier record is
    /// stored; a tool host that sees the store's append waits for it itself, so the tool runs
    /// as the commit lands (`start_calls_when_stored`). On failure nothing more runs; the
    /// records stay queued for `RetryStorage`.
    async fn flush(&mut self) {
        let config = &self.agent.state().config;
        let decision = self.unsaved.iter().any(|r| is_decision(&r.event));
        let side_effect = self.waiting.iter().any(|effect| match effect {
            Effect::CallTool(invocation) => config
                .tool(&invocation.tool)
                .is_none_or(|decl| !decl.idempotent),
            Effect::CallModel { .. }
            | Effect::AskApproval { .. }
            | Effect::AskStopHook(_)
            | Effect::Finished(_)
            | Effect::Persist(_)
            | Effect::Abort { .. } => false,
        });
        let settles = self.waiting.iter().any(|effect| match effect {
            Effect::AskApproval { .. } | Effect::AskStopHook(_) | Effect::Finished(_) => true,
            Effect::CallModel { .. }
            | Effect::CallTool(_)
            | Effect::Persist(_)
            | Effect::Abort { .. } => false,
        });
        if !(decision || side_effect || settles || self.storage_failed) {
            // The records go out in the next task (`write_soon`), or sooner with a strict
            // batch that needs them first: one write for both.
        } else if !self.unsaved.is_empty() {
            // Strict (on disk before anything follows) where something irreversible
            // follows: a human decision, or a tool that is not safe to run twice.
            let durability = if decision || side_effect {
                Durability::Strict
            } else {
                Durability::Relaxed
            };
            if !self.append_behind_pending(durability).await {
                return;
            }
        } else if !self.settle().await {
            return;
        }
        // Nothing follows until an input: the store may bring its index up to date (before the
        // page hears of it, and before the driver goes back to dropping aborted work).
        if settles {
            self.rest().await;
            // A stop hook hears its question from the stored record.
            self.announce_pending();
        }
        for action in std::mem::take(&mut self.waiting) {
            self.perform(action);
        }
    }

    /// Tells the store the log rests (every record is stored). A store that cannot is left as
    /// it is: its index still reads right, only slower.
    async fn rest(&self) {
        let _ = self.store.rest(&self.session).await;
    }

    fn perform(&mut self, effect: Effect) {
        match effect {
            Effect::CallModel {
                request,
                delay_ms,
                body,
                ..
            } => {
                let model = self.model.clone();
                let observer = self.observer.clone();
                let clock = self.clock.clone();
                let streamed = self.streamed.clone();
                streamed.start(request);
                let future = async move {
                    // A resend after a cut stream waits as the core decided.
                    if delay_ms > 0 {
                        clock.sleep(delay_ms).await;
                    }
                    let mut on_delta = |delta| {
                        streamed.add(request, &delta);
                        observer(Notice::Delta(delta));
                    };
                    match model.complete(&body, &mut on_delta).await {
                        Ok(reply) => Input::ModelReplied { request, reply },
                        Err(error) => Input::ModelFailed { request, error },
                    }
                };
                self.in_flight
                    .spawn(WorkKey::Model(request), Box::pin(future));
            }
            Effect::CallTool(invocation) => {
                let key = WorkKey::Tool(invocation.call.clone());
                let work = self.tool_work(invocation, None);
                self.in_flight.spawn(key, work);
            }
            Effect::AskApproval {
                call,
                tool,
                args,
                args_hash,
                after_interrupt,
            } => {
                self.announce_pending();
                (self.observer)(Notice::ApprovalNeeded {
                    call,
                    tool,
                    args,
                    args_hash,
                    after_interrupt,
                });
            }
            Effect::Finished(outcome) => {
                self.announce_pending();
                (self.observer)(Notice::Finished(outcome));
            }
            // The page hears the question from the persisted `StopHookAsked` record.
            Effect::AskStopHook(_) => {}
            Effect::Persist(_) | Effect::Abort { .. } => {}
        }
    }
}

/// Records of a human's input (a task given, an approval asked or decided) are written with
/// strict durability before anything follows: a tab killed once the model was called must not
/// take the person's task with it (a model call is re-sent on resume; a task cannot be).
fn is_decision(event: &Event) -> bool {
    matches!(
        event,
        Event::UserMessage { .. } | Event::ApprovalRequested { .. } | Event::ApprovalDecided { .. }
    )
}
