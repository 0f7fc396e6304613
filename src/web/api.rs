//! The public JavaScript API. The playground exposes it as `window.tabloop`; the ES module
//! exports the same names for other pages. See `www/tabloop.d.ts` for the documented types.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::custom_client;
use super::idb_index::warm_index_parsing;
use super::stop_hook::{StopHookSlot, DEFAULT_STOP_HOOK_TIMEOUT_MS};
use super::timer::{when_idle, BrowserClock};
use super::tool_host::register_tool as register_js_tool;
use crate::core::PauseReason;
use crate::protocol::StreamDelta;
use crate::runtime::options::{AgentOptions, BudgetOptions};

use crate::runtime::{
    settle_run, ListedSession, LiveSession, Notice, RunEnd, SessionEvent, SessionService,
};
use crate::view::public::outcome_json;

thread_local! {
    static SERVICE: RefCell<Option<Rc<SessionService>>> = const { RefCell::new(None) };
}

/// Hands the API the session service (the composition root calls this once at start).
pub fn install(service: Rc<SessionService>) {
    SERVICE.with(|s| *s.borrow_mut() = Some(service));
    when_idle(warm_up);
}

/// Runs the listing's code, then an open's (its options and tool list, then its log), once on
/// made-up input while the page is idle, so the first `listSessions` and the first
/// `createAgent` on a stored session do not pay for compiling them.
fn warm_up() {
    warm_listing();
    let _ = super::warm_open::warm_launch_reading();
    let _ = super::warm_open::warm_opening();
}

/// The listing's parsing and output code, run on a made-up session.
fn warm_listing() {
    if let Some(digest) = warm_index_parsing() {
        let made_up = ListedSession {
            session: String::new(),
            updated_at: 0,
            digest,
            name: None,
        };
        let _ = listing_json(&[made_up]);
    }
}

fn service() -> Result<Rc<SessionService>, JsValue> {
    SERVICE
        .with(|s| s.borrow().clone())
        .ok_or_else(|| error("tabloop is not initialised yet: await its default export first"))
}

use super::js_value::{record_to_js, to_js};

fn error(message: impl std::fmt::Display) -> JsValue {
    js_sys::Error::new(&message.to_string()).into()
}

/// Creates (or resumes) an agent session.
#[wasm_bindgen(js_name = createAgent)]
pub async fn create_agent(options: JsValue) -> Result<AgentHandle, JsValue> {
    let complete = custom_client::complete_function(&options);
    let options: AgentOptions = if options.is_undefined() || options.is_null() {
        AgentOptions::default()
    } else {
        super::js_value::from_js(&custom_client::without_complete(&options))
            .map_err(|e| error(format!("invalid options: {e}")))?
    };
    let service = service()?;
    let resolved = service.resolve(options).await.map_err(error)?;
    if let Some(complete) = complete {
        custom_client::offer(&resolved.session, complete);
    }
    let inner = service.launch(resolved).await.map_err(error)?;
    Ok(AgentHandle {
        inner,
        service,
        stop_hook: StopHookSlot::default(),
    })
}

/// Registers a tool the agent may call: `{ name, description, parameters, execute, permission,
/// idempotent, parallelSafe, timeoutMs }`. Pass `{ replace: true }` to replace one.
#[wasm_bindgen(js_name = registerTool)]
pub async fn register_tool(spec: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let replace = js_sys::Reflect::get(&options, &"replace".into())
        .ok()
        .is_some_and(|v| v.is_truthy());
    register_js_tool(&spec, replace).await.map_err(error)
}

/// Every stored session: `[{ session, records, updatedAt, title }]`, ordered by id.
#[wasm_bindgen(js_name = listSessions)]
pub async fn list_sessions() -> Result<JsValue, JsValue> {
    let listed = service()?.list().await.map_err(error)?;
    js_sys::JSON::parse(&listing_json(&listed))
}

/// `listSessions`' result as JSON text, the one bulk value that crosses as text: the rows of the
/// sessions index are read faster by one `JSON.parse` than built by serde-wasm-bindgen field by
/// field. Measured with `node benches/browser/run.mjs sessions` (101 sessions, second call,
/// medians of 7, headless Chromium on 2 shared cores): 9.5 ms as text, 12.3 ms as objects, over
/// six and seven runs. `events()` showed no such difference (10,053 records: 133 vs 130-142 ms),
/// so records go as objects.
fn listing_json(listed: &[ListedSession]) -> String {
    /// One row as the page sees it.
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Row<'a> {
        session: &'a str,
        records: u64,
        updated_at: u64,
        title: &'a str,
    }
    let rows: Vec<Row<'_>> = listed
        .iter()
        .map(|s| Row {
            session: &s.session,
            records: s.digest.records,
            updated_at: s.updated_at,
            title: &s.digest.title,
        })
        .collect();
    crate::protocol::json_text(&rows)
}

/// Imports a session exported as JSON lines; resolves to its id. Refuses a log from a newer
/// build and a session id that already exists.
#[wasm_bindgen(js_name = importSession)]
pub async fn import_session(jsonl: String) -> Result<String, JsValue> {
    service()?.import(&jsonl).await.map_err(error)
}

/// Deletes a stored session.
#[wasm_bindgen(js_name = deleteSession)]
pub async fn delete_session(session: String) -> Result<(), JsValue> {
    service()?.delete(&session).await.map_err(error)
}

/// One agent session, as returned by `createAgent`.
#[wasm_bindgen]
pub struct AgentHandle {
    inner: Rc<LiveSession>,
    service: Rc<SessionService>,
    stop_hook: StopHookSlot,
}

#[wasm_bindgen]
impl AgentHandle {
    /// The session id.
    #[wasm_bindgen(getter)]
    pub fn session(&self) -> String {
        self.inner.session.clone()
    }

    /// Whether this tab writes the session (another tab may hold it).
    #[wasm_bindgen(getter, js_name = isWriter)]
    pub fn is_writer(&self) -> bool {
        self.inner.is_writer()
    }

    /// Calls `callback` with every persisted event as plain JSON `{ seq, at, type, ... }`.
    #[wasm_bindgen(js_name = onEvent)]
    pub fn on_event(&self, callback: js_sys::Function) {
        self.inner.subscribe(Rc::new(move |event: &SessionEvent| {
            if let SessionEvent::Notice(notice) = event {
                let Notice::Persisted(record) = notice.as_ref() else {
                    return;
                };
                let _ = callback.call1(&JsValue::NULL, &record_to_js(record));
            }
        }));
    }

    /// Calls `callback` with live status: `{ type: 'delta' | 'approval' | 'finished' |
    /// 'storage_failed' | 'storage_recovered' | 'writer' | 'follower' | 'failed', ... }`.
    #[wasm_bindgen(js_name = onStatus)]
    pub fn on_status(&self, callback: js_sys::Function) {
        // The pause a later `RunUnpaused` ends, to say what recovered.
        let pause = Cell::new(None);
        self.inner.subscribe(Rc::new(move |event: &SessionEvent| {
            if let Some(status) = status_json(event, &pause) {
                let _ = callback.call1(&JsValue::NULL, &to_js(&status));
            }
        }));
    }

    /// Runs a task; resolves to `{ stopReason, explanation, finalText, steps, usage, costUsd }`.
    /// Options `{ signal, pauseTimeoutMs }` bound the wait on a run paused for its provider:
    /// the call then resolves to `{ stopReason: 'paused', explanation }` and the run stays
    /// paused (an abort while the run works cancels it).
    pub async fn run(&self, task: String, options: JsValue) -> Result<JsValue, JsValue> {
        let finished = self.inner.run(task, None);
        let bound = super::run_bound::RunBound::from_options(&options);
        let end = settle_run(
            &self.inner,
            finished,
            bound.wait,
            &BrowserClock,
            bound.aborted(),
        )
        .await
        .map_err(error)?;
        Ok(match end {
            RunEnd::Finished(outcome) => to_js(&outcome_json(&outcome)),
            RunEnd::Paused(pause) => super::run_bound::paused_outcome(&pause),
        })
    }

    /// Cancels the run in progress.
    pub fn cancel(&self) -> Result<(), JsValue> {
        self.inner.cancel().map_err(error)
    }

    /// Another API key for the session's provider, used from its next model call (the one it
    /// was created with was refused, or rotated). Never stored.
    #[wasm_bindgen(js_name = setApiKey)]
    pub fn set_api_key(&self, key: String) {
        self.inner.set_api_key(key);
    }

    /// Goes on after the run paused because its provider or a tool's server was unreachable:
    /// the paused model call or tool call is sent again.
    pub fn retry(&self) -> Result<(), JsValue> {
        self.inner.retry_paused().map_err(error)
    }

    /// The first name of [`Self::retry`], kept for pages written against it.
    #[wasm_bindgen(js_name = retryProvider)]
    pub fn retry_provider(&self) -> Result<(), JsValue> {
        self.retry()
    }

    /// Registers the stop hook: `async (proposal) => ({ ok: true }) | ({ block: true, reason })`,
    /// asked before a run ends on an accepted completion; `null` removes it. Options:
    /// `{ timeoutMs }` (30 000 by default); a hook that throws or times out is reported.
    #[wasm_bindgen(js_name = onStop)]
    pub fn on_stop(&self, hook: Option<js_sys::Function>, options: JsValue) {
        let timeout_ms = js_sys::Reflect::get(&options, &"timeoutMs".into())
            .ok()
            .and_then(|v| v.as_f64())
            .filter(|ms| ms.is_finite() && *ms >= 1.0)
            .map_or(DEFAULT_STOP_HOOK_TIMEOUT_MS, |ms| {
                ms.min(f64::from(u32::MAX)) as u32
            });
        self.stop_hook.set(&self.inner, hook, timeout_ms);
    }

    /// Approves a pending call (bound to the exact arguments it was asked about).
    pub fn approve(&self, call_id: String) -> Result<(), JsValue> {
        self.inner.decide(&call_id, true, None).map_err(error)
    }

    /// Denies a pending call; the model is told the reason.
    pub fn deny(&self, call_id: String, reason: Option<String>) -> Result<(), JsValue> {
        self.inner.decide(&call_id, false, reason).map_err(error)
    }

    /// Raises the limits of a run that ran out of budget and continues it; limits not given
    /// keep the run's current values.
    #[wasm_bindgen(js_name = extendBudget)]
    pub fn extend_budget(&self, budget: JsValue) -> Result<(), JsValue> {
        let options: BudgetOptions = super::js_value::from_js(&budget).map_err(error)?;
        self.inner.extend_budget(options).map_err(error)
    }

    /// Writes the events storage refused (after space was freed).
    #[wasm_bindgen(js_name = retryStorage)]
    pub fn retry_storage(&self) -> Result<(), JsValue> {
        self.inner.retry_storage().map_err(error)
    }

    /// Every persisted event of the session.
    pub async fn events(&self) -> Result<JsValue, JsValue> {
        let records = self
            .service
            .records(&self.inner.session)
            .await
            .map_err(error)?;
        // Record by record: one whose numbers need the JSON route leaves the others alone.
        let shown: js_sys::Array = records.iter().map(record_to_js).collect();
        Ok(shown.into())
    }

    /// The session as JSON lines (no API keys are ever in the log).
    #[wasm_bindgen(js_name = exportJsonl)]
    pub async fn export_jsonl(&self) -> Result<String, JsValue> {
        self.service
            .export(&self.inner.session)
            .await
            .map_err(error)
    }

    /// Copies the session up to the end of `step` into a new session; resolves to its id.
    pub async fn fork(&self, step: u32, run: Option<u32>) -> Result<String, JsValue> {
        self.service
            .fork(&self.inner.session, run, step)
            .await
            .map_err(error)
    }

    /// Stops this tab's driver for the session.
    pub fn close(&self) {
        self.inner.close();
    }
}

fn status_json(event: &SessionEvent, pause: &Cell<Option<PauseReason>>) -> Option<Value> {
    use serde_json::json;
    let notice = match event {
        SessionEvent::Writer => return Some(json!({"type": "writer"})),
        SessionEvent::Follower => return Some(json!({"type": "follower"})),
        SessionEvent::Failed(message) => {
            return Some(json!({"type": "failed", "message": message}))
        }
        SessionEvent::Notice(notice) => notice.as_ref(),
    };
    Some(match notice {
        Notice::Persisted(record) => return pause_status(&record.event, pause),
        Notice::Delta(StreamDelta::Text(text)) => json!({"type": "delta", "text": text}),
        Notice::Delta(StreamDelta::Thinking(text)) => json!({"type": "thinking", "text": text}),
        Notice::Delta(StreamDelta::ToolCallStarted { id, name, .. }) => {
            json!({"type": "tool_call", "id": id, "name": name})
        }
        Notice::ApprovalNeeded {
            call,
            tool,
            args,
            after_interrupt,
            ..
        } => json!({
            "type": "approval", "callId": call, "tool": tool, "args": args, "afterInterrupt": after_interrupt
        }),
        Notice::Finished(outcome) => json!({"type": "finished", "outcome": outcome_json(outcome)}),
        Notice::StorageFailed(message) => json!({"type": "storage_failed", "message": message}),
        Notice::StorageRecovered => json!({"type": "storage_recovered"}),
    })
}

/// The status a persisted pause or its end gives the page, mirroring the storage ones:
/// `provider_unreachable` / `provider_recovered`, or `tool_unreachable` / `tool_recovered`.
fn pause_status(event: &crate::core::Event, pause: &Cell<Option<PauseReason>>) -> Option<Value> {
    use crate::core::Event;
    if let Event::RunPaused { reason, message } = event {
        pause.set(Some(*reason));
        let kind = super::run_bound::pause_kind(*reason);
        return Some(serde_json::json!({"type": kind, "message": message}));
    }
    matches!(event, Event::RunUnpaused).then(|| {
        let recovered = match pause.take() {
            Some(PauseReason::ToolUnreachable) => "tool_recovered",
            Some(PauseReason::ProviderUnreachable { .. }) | None => "provider_recovered",
        };
        serde_json::json!({"type": recovered})
    })
}
