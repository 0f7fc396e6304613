//! The driver tests' rig: a scripted model, fake tools, a manual clock, and a driver started
//! over any store on a local executor.
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::wildcard_enum_match_arm)]

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use futures::channel::mpsc;
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use pretty_assertions::assert_eq;
use serde_json::json;
use tabloop::core::{
    AgentConfig, Event, Input, Permission, StopReason, ToolDecl, ToolInvocation, ToolKind,
};
use tabloop::ports::{
    Clock, Durability, EventStore, MemoryStore, ModelClient, ToolHost, ToolOutput,
};
use tabloop::protocol::{
    FinishReason, ModelError, ModelReply, ModelRequest, StreamDelta, ToolCall, ToolSpec, Usage,
};

use tabloop::runtime::{Command, Driver, Notice};

mod queued_store;
#[allow(unused_imports)]
pub use queued_store::{announced, started_at, QueuedStore};

mod task_clock;
#[allow(unused_imports)]
pub use task_clock::TaskClock;

pub enum Scripted {
    Reply(ModelReply),
    /// Streams these deltas, then never replies (a model still writing).
    Writing(Vec<StreamDelta>),
    /// Fails with this error (a provider that cannot be reached, say).
    Fail(ModelError),
}

#[derive(Default)]
pub struct ScriptedModel {
    pub script: RefCell<VecDeque<Scripted>>,
    pub calls: Cell<u32>,
    /// The keys the driver handed over (`set_api_key`), in order.
    pub keys: RefCell<Vec<String>>,
    /// Set once a call that never replies (still writing) was dropped, as an abort drops it.
    pub dropped: Rc<Cell<bool>>,
}

impl ScriptedModel {
    pub fn new(script: Vec<Scripted>) -> Rc<Self> {
        Rc::new(Self {
            script: RefCell::new(script.into()),
            calls: Cell::new(0),
            keys: RefCell::default(),
            dropped: Rc::default(),
        })
    }
}

impl ModelClient for ScriptedModel {
    async fn complete(
        &self,
        _request: &ModelRequest,
        on_delta: &mut dyn FnMut(StreamDelta),
    ) -> Result<ModelReply, ModelError> {
        self.calls.set(self.calls.get() + 1);
        let next = self.script.borrow_mut().pop_front();
        match next {
            Some(Scripted::Reply(reply)) => {
                on_delta(StreamDelta::Text(reply.text.clone()));
                Ok(reply)
            }
            Some(Scripted::Fail(error)) => Err(error),
            Some(Scripted::Writing(deltas)) => {
                deltas.into_iter().for_each(&mut *on_delta);
                let _flag = DropFlag(self.dropped.clone());
                futures::future::pending().await
            }
            None => {
                let _flag = DropFlag(self.dropped.clone());
                futures::future::pending().await
            }
        }
    }

    fn set_api_key(&self, key: &str) {
        self.keys.borrow_mut().push(key.to_string());
    }
}

/// Sets its flag when dropped: shows that an aborted call's future was dropped.
pub struct DropFlag(Rc<Cell<bool>>);
impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.set(true);
    }
}

/// For a tool host that sees the store's appends under way: given the seq of an append's last
/// record, whether it is under way, as a receiver of whether it was stored.
pub type AppendWatch = Rc<dyn Fn(u64) -> Option<futures::channel::oneshot::Receiver<bool>>>;

#[derive(Default)]
pub struct FakeTools {
    /// The calls whose tool ran, in order.
    pub calls: RefCell<Vec<String>>,
    pub hang: Cell<bool>,
    pub dropped: Rc<Cell<bool>>,
    /// Set: the host sees the store's appends (`sees_append`), as the browser's does.
    pub appends: RefCell<Option<AppendWatch>>,
    /// The calls started while their start record was still being written, in order.
    pub started_early: RefCell<Vec<String>>,
    /// How many of the next calls find the network gone (refused before they are sent).
    pub offline: Cell<u32>,
}

impl ToolHost for FakeTools {
    fn sees_append(&self, stored: u64) -> bool {
        self.appends
            .borrow()
            .as_ref()
            .is_some_and(|watch| watch(stored).is_some())
    }

    async fn call_when_stored(&self, invocation: &ToolInvocation, stored: u64) -> ToolOutput {
        self.started_early
            .borrow_mut()
            .push(invocation.call.clone());
        let landed = self
            .appends
            .borrow()
            .as_ref()
            .and_then(|watch| watch(stored));
        let stored = match landed {
            Some(landed) => landed.await == Ok(true),
            None => false,
        };
        if !stored {
            return ToolOutput::result("not started: its start record was not stored".into(), true);
        }
        self.call(invocation).await
    }

    async fn call(&self, invocation: &ToolInvocation) -> ToolOutput {
        self.calls.borrow_mut().push(invocation.call.clone());
        if self.offline.get() > 0 {
            self.offline.set(self.offline.get() - 1);
            return ToolOutput {
                content: "offline: the server cannot be reached".into(),
                is_error: true,
                unreachable: Some(tabloop::ports::Unreachable::NotSent),
            };
        }
        if self.hang.get() {
            let _flag = DropFlag(self.dropped.clone());
            futures::future::pending::<()>().await;
        }
        // Each call reads something new (a file's own text, not only its name echoed back),
        // as a real read would: the loop guard counts a result that only echoes its
        // arguments as nothing new.
        let calls = self.calls.borrow().len();
        ToolOutput::result(
            format!(
                "contents of {}: {} lines",
                invocation.args["path"],
                calls * 7 + 3
            ),
            false,
        )
    }
}

#[derive(Default)]
pub struct ManualClock(pub Cell<u64>);
impl Clock for ManualClock {
    fn now(&self) -> u64 {
        self.0.set(self.0.get() + 1);
        self.0.get()
    }
    async fn sleep(&self, _ms: u64) {
        futures::future::pending::<()>().await
    }
}

/// A clock the test moves on by hand (`pass`); a sleep ends at the next `pass`, whatever it
/// asked for (the driver's ticks).
pub struct PassingClock {
    now: Cell<u64>,
    passes: Cell<u64>,
    sleepers: RefCell<Vec<std::task::Waker>>,
}

impl PassingClock {
    pub fn starting_at(now: u64) -> Self {
        Self {
            now: Cell::new(now),
            passes: Cell::new(0),
            sleepers: RefCell::new(Vec::new()),
        }
    }

    /// Moves the time on by `ms` and ends every sleep under way.
    pub fn pass(&self, ms: u64) {
        self.now.set(self.now.get() + ms);
        self.passes.set(self.passes.get() + 1);
        let sleepers = std::mem::take(&mut *self.sleepers.borrow_mut());
        sleepers.into_iter().for_each(std::task::Waker::wake);
    }
}

impl Clock for PassingClock {
    fn now(&self) -> u64 {
        self.now.get()
    }
    async fn sleep(&self, _ms: u64) {
        let asleep_at = self.passes.get();
        futures::future::poll_fn(|cx| {
            if self.passes.get() > asleep_at {
                std::task::Poll::Ready(())
            } else {
                self.sleepers.borrow_mut().push(cx.waker().clone());
                std::task::Poll::Pending
            }
        })
        .await
    }
}

pub fn config() -> AgentConfig {
    let tool = |name: &str, permission, idempotent| ToolDecl {
        spec: ToolSpec {
            local_parameters: None,
            name: name.into(),
            description: name.into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        },
        permission,
        idempotent,
        parallel_safe: true,
        kind: ToolKind::Host,
        approval_scope: None,
    };
    AgentConfig {
        tools: vec![
            tool("read_file", Permission::Allow, true),
            tool("write_file", Permission::Ask, false),
            tool("append_log", Permission::Allow, false),
        ],
        ..AgentConfig::default()
    }
}

pub fn reply_calls(calls: Vec<(&str, &str, &str)>) -> Scripted {
    Scripted::Reply(ModelReply {
        text: String::new(),
        tool_calls: calls
            .into_iter()
            .map(|(id, name, path)| ToolCall {
                id: id.into(),
                name: name.into(),
                arguments: json!({"path": path}).to_string(),
            })
            .collect(),
        finish: FinishReason::ToolUse,
        usage: Usage {
            input_tokens: 10,
            output_tokens: 2,
            ..Usage::default()
        },
        model: "m".into(),
        reasoning: String::new(),
    })
}

pub fn reply_text(t: &str) -> Scripted {
    Scripted::Reply(ModelReply {
        text: t.into(),
        tool_calls: vec![],
        finish: FinishReason::EndTurn,
        usage: Usage {
            input_tokens: 10,
            output_tokens: 2,
            ..Usage::default()
        },
        model: "m".into(),
        reasoning: String::new(),
    })
}

pub struct Rig {
    pub pool: LocalPool,
    pub notices: Rc<RefCell<Vec<Notice>>>,
    pub commands: mpsc::UnboundedSender<Command>,
}

pub fn start<S: EventStore + 'static>(
    store: Rc<S>,
    model: Rc<ScriptedModel>,
    tools: Rc<FakeTools>,
) -> Rig {
    start_with_clock(store, model, tools, Rc::new(ManualClock::default()))
}

/// `start` with the given clock.
pub fn start_with_clock<S: EventStore + 'static, C: Clock + 'static>(
    store: Rc<S>,
    model: Rc<ScriptedModel>,
    tools: Rc<FakeTools>,
    clock: Rc<C>,
) -> Rig {
    start_observed(store, model, tools, clock, |_| {})
}

/// `start_with_clock`, also showing each notice to `observe` as the driver announces it.
pub fn start_observed<S: EventStore + 'static, C: Clock + 'static>(
    store: Rc<S>,
    model: Rc<ScriptedModel>,
    tools: Rc<FakeTools>,
    clock: Rc<C>,
    observe: impl Fn(&Notice) + 'static,
) -> Rig {
    let mut pool = LocalPool::new();
    let notices = Rc::new(RefCell::new(Vec::new()));
    let sink = notices.clone();
    let observer = Box::new(move |n: Notice| {
        observe(&n);
        sink.borrow_mut().push(n);
    });
    let driver = pool
        .run_until(Driver::<(ScriptedModel, S, FakeTools, C)>::open(
            "s",
            config(),
            model,
            store,
            tools,
            clock,
            observer,
        ))
        .unwrap();
    let (commands, rx) = mpsc::unbounded();
    pool.spawner()
        .spawn_local(async move {
            driver.run(rx).await;
        })
        .unwrap();
    Rig {
        pool,
        notices,
        commands,
    }
}

impl Rig {
    pub fn send(&mut self, input: Input) {
        self.commands.unbounded_send(Command::Input(input)).unwrap();
        self.pool.run_until_stalled();
    }
    pub fn outcome(&self) -> Option<StopReason> {
        self.notices.borrow().iter().find_map(|n| match n {
            Notice::Finished(o) => Some(o.stop.clone()),
            _ => None,
        })
    }
}

pub fn log(store: &MemoryStore) -> Vec<tabloop::core::Record> {
    futures::executor::block_on(store.load("s")).unwrap()
}

/// The seq of the first record whose event matches.
pub fn position(store: &MemoryStore, event: impl Fn(&Event) -> bool) -> usize {
    log(store).iter().position(|r| event(&r.event)).unwrap()
}

/// Asserts that exactly the appends holding one of `records` (by seq) were strict.
pub fn assert_strict_exactly(store: &MemoryStore, records: &[usize]) {
    let mut end = 0;
    for (len, durability) in store.appends() {
        let start = end;
        end += len;
        let holds = records.iter().any(|seq| (start..end).contains(seq));
        assert_eq!(
            durability == Durability::Strict,
            holds,
            "batch {start}..{end}"
        );
    }
}
