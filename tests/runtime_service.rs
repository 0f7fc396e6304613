//! The session service over in-memory ports: create and run, list with titles and status,
//! export/import, fork, delete, provider merging on resume, approvals, cancel, and extending a
//! budget over the run's current limits (a cost cap survives).
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::wildcard_enum_match_arm
)]

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use futures::executor::{LocalPool, LocalSpawner};
use futures::future::LocalBoxFuture;
use futures::task::LocalSpawnExt;
use pretty_assertions::assert_eq;
use serde_json::json;
use tabloop::core::{
    BudgetKind, BudgetLimits, Event, Permission, Record, RunPhase, StopReason, ToolInvocation,
};
use tabloop::ports::{Clock, EventStore, MemoryStore, ModelClient, ToolHost, ToolOutput};
use tabloop::ports::{HostToolSpec, PlatformError};
use tabloop::protocol::{
    FinishReason, ModelError, ModelReply, ModelRequest, StreamDelta, ToolCall, Usage,
};
use tabloop::runtime::options::{AgentOptions, BudgetOptions, ProviderKind, ProviderOptions};
use tabloop::runtime::{
    drive, merge_provider, Launch, LiveSession, Notice, Platform, ServiceError, SessionEvent,
    SessionService,
};

#[derive(Default)]
struct ScriptedModel(RefCell<VecDeque<ModelReply>>);

impl ModelClient for ScriptedModel {
    async fn complete(
        &self,
        _request: &ModelRequest,
        _on_delta: &mut dyn FnMut(StreamDelta),
    ) -> Result<ModelReply, ModelError> {
        let next = self.0.borrow_mut().pop_front();
        match next {
            Some(reply) => Ok(reply),
            None => futures::future::pending().await,
        }
    }
}

struct EchoTools;
impl ToolHost for EchoTools {
    async fn call(&self, invocation: &ToolInvocation) -> ToolOutput {
        ToolOutput::result(format!("ran {}", invocation.args), false)
    }
}

#[derive(Default)]
struct StepClock(Cell<u64>);
impl Clock for StepClock {
    fn now(&self) -> u64 {
        self.0.set(self.0.get() + 1);
        self.0.get()
    }
    async fn sleep(&self, _ms: u64) {
        futures::future::pending::<()>().await
    }
}

/// Runs live sessions on a local executor, each as the writer, over one store and one model.
struct TestPlatform {
    store: Rc<MemoryStore>,
    model: Rc<ScriptedModel>,
    spawner: LocalSpawner,
    ids: Cell<u32>,
    launched: RefCell<Vec<ProviderOptions>>,
}

impl Platform<Launch> for TestPlatform {
    fn new_session_id(&self) -> String {
        self.ids.set(self.ids.get() + 1);
        format!("new-{}", self.ids.get())
    }

    fn registered_tools(&self) -> LocalBoxFuture<'_, Result<Vec<HostToolSpec>, PlatformError>> {
        Box::pin(async {
            Ok(vec![HostToolSpec {
                name: "write".into(),
                description: "writes".into(),
                parameters: json!({"type": "object"}),
                local_parameters: None,
                permission: Permission::Ask,
                idempotent: false,
                parallel_safe: false,
                approval_scope: None,
            }])
        })
    }

    fn launch(&self, launch: Launch) -> LocalBoxFuture<'_, Result<(), PlatformError>> {
        self.launched.borrow_mut().push(launch.provider.clone());
        let (model, store) = (self.model.clone(), self.store.clone());
        let live = launch.live.clone();
        // This page holds the session (no other tab here): its inputs are a writer's.
        live.holds_lock();
        self.spawner
            .spawn_local(async move {
                live.became_writer();
                drive(
                    launch,
                    model,
                    store,
                    Rc::new(EchoTools),
                    Rc::new(StepClock::default()),
                )
                .await;
            })
            .unwrap();
        Box::pin(async { Ok(()) })
    }
}

struct Rig {
    pool: LocalPool,
    store: Rc<MemoryStore>,
    model: Rc<ScriptedModel>,
    platform: Rc<TestPlatform>,
    service: SessionService,
}

fn rig() -> Rig {
    let pool = LocalPool::new();
    let store = Rc::new(MemoryStore::default());
    let model = Rc::new(ScriptedModel::default());
    let platform = Rc::new(TestPlatform {
        store: store.clone(),
        model: model.clone(),
        spawner: pool.spawner(),
        ids: Cell::new(0),
        launched: RefCell::default(),
    });
    let service = SessionService::new(store.clone(), platform.clone());
    Rig {
        pool,
        store,
        model,
        platform,
        service,
    }
}

fn usage() -> Usage {
    Usage {
        input_tokens: 100,
        output_tokens: 10,
        ..Usage::default()
    }
}

fn text(t: &str) -> ModelReply {
    ModelReply {
        text: t.into(),
        tool_calls: vec![],
        finish: FinishReason::EndTurn,
        usage: usage(),
        model: "m".into(),
        reasoning: String::new(),
    }
}

fn call(id: &str, name: &str) -> ModelReply {
    ModelReply {
        text: String::new(),
        tool_calls: vec![ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: json!({"path": id}).to_string(),
        }],
        finish: FinishReason::ToolUse,
        usage: usage(),
        model: "m".into(),
        reasoning: String::new(),
    }
}

fn openai(model: &str, key: Option<&str>) -> ProviderOptions {
    ProviderOptions {
        kind: ProviderKind::Openai,
        base_url: Some("http://127.0.0.1:1/v1".into()),
        api_key: key.map(str::to_string),
        model: Some(model.into()),
    }
}

fn options(session: Option<&str>) -> AgentOptions {
    AgentOptions {
        session: session.map(str::to_string),
        provider: Some(openai("m1", Some("sk-1"))),
        tools: Some(vec!["write".into()]),
        ..AgentOptions::default()
    }
}

/// Every notice of `live`, collected.
fn notices(live: &LiveSession) -> Rc<RefCell<Vec<SessionEvent>>> {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let sink = seen.clone();
    live.subscribe(Rc::new(move |e: &SessionEvent| {
        sink.borrow_mut().push(e.clone())
    }));
    seen
}

impl Rig {
    fn log(&self, session: &str) -> Vec<Record> {
        self.pool_run(self.store.load(session)).unwrap()
    }
    fn pool_run<F: std::future::Future>(&self, future: F) -> F::Output {
        futures::executor::block_on(future)
    }
}

#[test]
fn a_session_is_created_run_listed_exported_imported_forked_and_deleted() {
    let mut r = rig();
    r.model.0.borrow_mut().push_back(text("done"));
    let live = r.pool.run_until(r.service.open(options(None))).unwrap();
    assert_eq!(live.session, "new-1");
    let outcome = r.pool.run_until(live.run("write the notes".into(), None));
    assert_eq!(outcome.unwrap().unwrap().stop, StopReason::Completed);
    assert!(live.is_writer());

    let listed = r.pool.run_until(r.service.list()).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].session, "new-1");
    assert_eq!(listed[0].digest.title, "write the notes");
    assert!(!listed[0].digest.in_flight());
    assert_eq!(
        *listed[0].digest.phase(),
        RunPhase::Finished {
            stop: StopReason::Completed
        }
    );
    assert_eq!(listed[0].digest.records, r.log("new-1").len() as u64);

    let jsonl = r.pool.run_until(r.service.export("new-1")).unwrap();
    assert!(!jsonl.contains("sk-1"), "no key in an export");
    let refused = r.pool.run_until(r.service.import(&jsonl));
    assert_eq!(refused, Err(ServiceError::Exists("new-1".into())));
    r.pool.run_until(r.service.delete("new-1")).unwrap();
    assert_eq!(r.log("new-1"), Vec::new());
    let imported = r.pool.run_until(r.service.import(&jsonl)).unwrap();
    assert_eq!(imported, "new-1");
    assert_eq!(tabloop::core::to_jsonl(&r.log("new-1")), jsonl);

    let forked = r.pool.run_until(r.service.fork("new-1", None, 1)).unwrap();
    assert_eq!(forked, "new-2");
    let copy = r.log("new-2");
    assert!(matches!(&copy[0].event, Event::SessionStarted { session, .. } if session == "new-2"));
    assert!(copy
        .iter()
        .any(|rec| matches!(rec.event, Event::StepFinished { step: 1, .. })));
    assert_eq!(r.pool.run_until(r.service.list()).unwrap().len(), 2);
}

#[test]
fn a_resumed_session_keeps_its_provider_and_borrows_only_a_key() {
    let mut r = rig();
    r.model.0.borrow_mut().push_back(text("one"));
    let live = r
        .pool
        .run_until(r.service.open(options(Some("s1"))))
        .unwrap();
    r.pool
        .run_until(live.run("first".into(), None))
        .unwrap()
        .unwrap();
    live.close();
    r.pool.run_until_stalled();

    // Only a key of the same kind: completed from the stored provider.
    let key_only = AgentOptions {
        session: Some("s1".into()),
        provider: Some(ProviderOptions {
            kind: ProviderKind::Openai,
            base_url: None,
            api_key: Some("sk-2".into()),
            model: None,
        }),
        ..AgentOptions::default()
    };
    let resolved = r.pool.run_until(r.service.resolve(key_only)).unwrap();
    let mut stored = openai("m1", None);
    assert_eq!(
        resolved.options.provider,
        Some(ProviderOptions {
            api_key: Some("sk-2".into()),
            ..stored.clone()
        })
    );
    // A key for another kind is not lent; the session keeps its model.
    let other_kind = Some(ProviderOptions {
        kind: ProviderKind::Anthropic,
        api_key: Some("sk-ant".into()),
        ..ProviderOptions::default()
    });
    assert_eq!(
        merge_provider(other_kind, Some(stored.clone())),
        Some(stored.clone())
    );
    // Nothing given: the stored provider, without a key.
    assert_eq!(
        merge_provider(None, Some(stored.clone())),
        Some(stored.clone())
    );
    // A full provider for a new session is taken as is.
    stored.api_key = Some("k".into());
    assert_eq!(merge_provider(Some(stored.clone()), None), Some(stored));
}

#[test]
fn approvals_are_decided_through_the_live_session_and_a_stale_one_is_refused() {
    let mut r = rig();
    r.model
        .0
        .borrow_mut()
        .extend([call("c1", "write"), call("c2", "write"), text("done")]);
    let live = r.pool.run_until(r.service.open(options(None))).unwrap();
    let seen = notices(&live);
    let outcome = live.run("write twice".into(), None);
    r.pool.run_until_stalled();
    let asked = |seen: &[SessionEvent]| {
        seen.iter()
            .filter_map(|e| match e {
                SessionEvent::Notice(n) => match n.as_ref() {
                    Notice::ApprovalNeeded { call, .. } => Some(call.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(asked(&seen.borrow()), vec!["c1".to_string()]);
    assert!(
        live.decide("nope", true, None).is_err(),
        "no approval pending for it"
    );
    live.decide("c1", true, None).unwrap();
    r.pool.run_until_stalled();
    assert_eq!(
        asked(&seen.borrow()),
        vec!["c1".to_string(), "c2".to_string()]
    );
    live.decide("c2", false, Some("not now".into())).unwrap();
    let outcome = r.pool.run_until(outcome).unwrap().unwrap();
    assert_eq!(outcome.stop, StopReason::Completed);
    let log = r.log(&live.session);
    let decided: Vec<(String, bool)> = log
        .iter()
        .filter_map(|rec| match &rec.event {
            Event::ApprovalDecided { call, approved, .. } => Some((call.clone(), *approved)),
            _ => None,
        })
        .collect();
    assert_eq!(decided, vec![("c1".into(), true), ("c2".into(), false)]);
}

#[test]
fn cancel_ends_the_run_in_flight() {
    let mut r = rig();
    let live = r.pool.run_until(r.service.open(options(None))).unwrap();
    let outcome = live.run("wait forever".into(), None);
    r.pool.run_until_stalled();
    live.cancel().unwrap();
    let outcome = r.pool.run_until(outcome).unwrap().unwrap();
    assert_eq!(outcome.stop, StopReason::Cancelled);
}

#[test]
fn extending_a_budget_keeps_the_limits_it_does_not_mention_such_as_a_cost_cap() {
    let mut r = rig();
    r.model
        .0
        .borrow_mut()
        .extend([call("c1", "write"), text("done")]);
    let mut opts = options(None);
    opts.tools = Some(vec![]);
    opts.budget = BudgetOptions {
        given: BudgetLimits {
            max_steps: Some(1),
            max_cost_usd: Some(5.0),
            ..BudgetLimits::NONE
        },
    };
    let live = r.pool.run_until(r.service.open(opts)).unwrap();
    let first = r
        .pool
        .run_until(live.run("two steps".into(), None))
        .unwrap()
        .unwrap();
    assert_eq!(
        first.stop,
        StopReason::BudgetExhausted {
            budget: BudgetKind::Steps
        }
    );
    live.extend_budget(BudgetOptions {
        given: BudgetLimits {
            max_steps: Some(3),
            ..BudgetLimits::NONE
        },
    })
    .unwrap();
    r.pool.run_until_stalled();
    let log = r.log(&live.session);
    let extended: Vec<BudgetLimits> = log
        .iter()
        .filter_map(|rec| match &rec.event {
            Event::BudgetExtended { budget } => Some(*budget),
            _ => None,
        })
        .collect();
    let started: BudgetLimits = log
        .iter()
        .find_map(|rec| match &rec.event {
            Event::RunStarted { budget, .. } => Some(*budget),
            _ => None,
        })
        .unwrap();
    assert_eq!(started.max_cost_usd, Some(5.0));
    assert_eq!(
        extended,
        vec![BudgetLimits {
            max_steps: Some(3),
            ..started
        }],
        "the cost cap (and every other limit) survives the extension"
    );
    assert!(matches!(
        &log.last().unwrap().event,
        Event::RunFinished { outcome } if outcome.stop == StopReason::Completed
    ));
    assert_eq!(r.platform.launched.borrow().len(), 1);
}

#[test]
fn a_follower_page_refuses_inputs_instead_of_queueing_them() {
    let (sender, mut receiver) = futures::channel::mpsc::unbounded();
    let live = tabloop::runtime::LiveSession::new("s".into(), sender);
    let refused = live.cancel().unwrap_err();
    let follower = tabloop::runtime::LiveError::Follower {
        session: "s".into(),
    };
    assert_eq!(refused, follower);
    assert!(
        refused
            .to_string()
            .starts_with("another tab writes this session (s); this tab follows it read-only"),
        "{refused}"
    );
    assert!(live.retry_paused().is_err());
    assert!(live.retry_storage().is_err());
    assert!(live
        .extend_budget(tabloop::runtime::options::BudgetOptions::default())
        .is_err());
    let outcome = futures::executor::block_on(live.run("task".into(), None)).unwrap();
    assert_eq!(outcome.unwrap_err(), follower);
    assert!(
        receiver.try_recv().is_err(),
        "nothing was queued for a takeover"
    );
    live.holds_lock();
    live.cancel().unwrap();
    assert!(receiver.try_recv().is_ok());
}
