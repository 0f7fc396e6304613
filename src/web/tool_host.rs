//! The [`ToolHost`] over the JavaScript tool registry (`www/tools/registry.js`, reached through
//! `www/host_bridge.js`). Dropping a call's future aborts its AbortSignal.

use serde::Deserialize;

use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::abort::AbortOnDrop;
use super::commit_gates::CommitGates;
use super::js_error::JsFailure;
use super::js_value::{from_js, to_js};
use super::sampler::Sampler;
use crate::core::ToolInvocation;
use crate::ports::HostToolSpec;
use crate::ports::{ToolHost, ToolOutput, Unreachable};

#[wasm_bindgen(module = "/www/host_bridge.js")]
extern "C" {
    #[wasm_bindgen(js_name = hostRegisterTool, catch)]
    fn host_register_tool(spec: &JsValue, replace: bool) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(js_name = hostListTools, catch)]
    fn host_list_tools() -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(js_name = hostPreloadTools)]
    fn host_preload_tools();
    #[wasm_bindgen(js_name = hostRunStopHook, catch)]
    fn host_run_stop_hook(
        hook: &js_sys::Function,
        proposal: &JsValue,
        timeout_ms: f64,
    ) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(js_name = hostCallTool, catch)]
    fn host_call_tool(
        name: &str,
        args: &JsValue,
        call_id: &str,
        session: &JsValue,
        approved: bool,
        idempotency_key: &str,
        allow_hosts: &JsValue,
        signal: &web_sys::AbortSignal,
        stored: Option<js_sys::Promise>,
        sample: &JsValue,
    ) -> Result<js_sys::Promise, JsValue>;
}

/// Registers a page's tool (a JS object with `execute`); returns its description.
pub async fn register_tool(spec: &JsValue, replace: bool) -> Result<JsValue, JsFailure> {
    let promise = host_register_tool(spec, replace).map_err(|e| JsFailure::from_js(&e))?;
    JsFuture::from(promise)
        .await
        .map_err(|e| JsFailure::from_js(&e))
}

/// Starts loading the JS tool registry in the background (call once when the module starts).
pub fn preload_tools() {
    host_preload_tools();
}

/// Every registered tool's spec.
pub async fn registered_tools() -> Result<Vec<HostToolSpec>, JsFailure> {
    let promise = host_list_tools().map_err(|e| JsFailure::from_js(&e))?;
    let specs = JsFuture::from(promise)
        .await
        .map_err(|e| JsFailure::from_js(&e))?;
    from_js(&specs).map_err(|e| JsFailure {
        name: "TypeError".into(),
        message: format!("tool list: {e}"),
    })
}

/// Puts a proposal to the page's stop hook; the verdict, a failure when anything went wrong.
pub async fn run_stop_hook(
    hook: &js_sys::Function,
    proposal: &crate::core::StopProposal,
    timeout_ms: u32,
) -> crate::core::StopVerdict {
    use crate::core::StopVerdict;
    let proposal = to_js(&crate::view::public::stop_proposal_json(proposal));
    let failed = |message: String| StopVerdict::Failed { message };
    let promise = match host_run_stop_hook(hook, &proposal, f64::from(timeout_ms)) {
        Ok(promise) => promise,
        Err(e) => return failed(JsFailure::from_js(&e).to_string()),
    };
    match JsFuture::from(promise).await {
        Ok(verdict) => from_js(&verdict)
            .unwrap_or_else(|e| failed(format!("unreadable stop hook answer: {e}"))),
        Err(e) => failed(JsFailure::from_js(&e).to_string()),
    }
}

/// Runs tools in the page's registry for one session.
pub struct JsToolHost {
    /// The session id, as the JS string every call is handed (made once, not per call).
    session: JsValue,
    /// The fetch allow-list (a JS array of strings), handed to every call as `ctx.allowHosts`.
    allow_hosts: JsValue,
    /// The session id, to look up its appends in `gates`.
    session_id: String,
    /// The session store's appends under way: a call may wait on one of them in JavaScript.
    gates: CommitGates,
    /// The session's model, for MCP servers that ask it something during a call.
    sampler: Option<Sampler>,
}

impl JsToolHost {
    /// A host for `session` (the VFS keeps a volume per session) whose fetch tool may reach
    /// `allow_hosts` without approval, and whose calls may wait on the appends in `gates`.
    pub fn new(session: &str, allow_hosts: Vec<String>, gates: CommitGates) -> Self {
        let hosts: js_sys::Array = allow_hosts.iter().map(|h| JsValue::from_str(h)).collect();
        Self {
            session: JsValue::from_str(session),
            allow_hosts: hosts.into(),
            session_id: session.to_string(),
            gates,
            sampler: None,
        }
    }

    /// Lets each call's MCP servers sample the session's model (as `ctx.sample`).
    pub fn with_sampler(mut self, sampler: Sampler) -> Self {
        self.sampler = Some(sampler);
        self
    }

    /// Runs a call, in the registry once `stored` (a commit's promise) resolves if given, and
    /// not at all if it rejects.
    async fn call_after(
        &self,
        invocation: &ToolInvocation,
        stored: Option<js_sys::Promise>,
    ) -> ToolOutput {
        let abort = match AbortOnDrop::new() {
            Ok(abort) => abort,
            Err(failure) => return error_output(format!("could not start the call: {failure}")),
        };
        let args = to_js(&invocation.args);
        // Lives until the call ends: the function is dead once it is dropped.
        let sample = self.sampler.as_ref().map(Sampler::function);
        let sample_fn = sample
            .as_ref()
            .map_or(JsValue::UNDEFINED, |f| f.as_ref().clone());
        let promise = match host_call_tool(
            &invocation.tool,
            &args,
            &invocation.call,
            &self.session,
            invocation.approved,
            &invocation.idempotency_key,
            &self.allow_hosts,
            &abort.signal(),
            stored,
            &sample_fn,
        ) {
            Ok(promise) => promise,
            Err(e) => return error_output(JsFailure::from_js(&e).to_string()),
        };
        let outcome = match JsFuture::from(promise).await {
            Ok(outcome) => outcome,
            Err(e) => return error_output(JsFailure::from_js(&e).to_string()),
        };
        abort.disarm();
        match from_js::<Outcome>(&outcome) {
            Ok(Outcome {
                ok: true, value, ..
            }) => ToolOutput::result(render(&value), false),
            Ok(Outcome {
                error,
                offline: Some(offline),
                ..
            }) => ToolOutput {
                content: error.unwrap_or_else(|| "the tool's server cannot be reached".into()),
                is_error: true,
                unreachable: Some(match offline {
                    Offline::NotSent => Unreachable::NotSent,
                    Offline::MaybeSent => Unreachable::MaybeSent,
                }),
            },
            Ok(Outcome {
                error,
                needs_approval,
                ..
            }) => {
                let mut message = error.unwrap_or_else(|| "the tool failed".into());
                if needs_approval {
                    message.push_str(" (this needs the user's approval: ask them to allow it)");
                }
                error_output(message)
            }
            Err(e) => error_output(format!("the tool returned something unreadable: {e}")),
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Outcome {
    ok: bool,
    #[serde(default)]
    value: Value,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    needs_approval: bool,
    /// The tool could not reach its server because the network is gone (the registry's
    /// `offline`): the run pauses instead of the model seeing an error.
    #[serde(default)]
    offline: Option<Offline>,
}

/// The registry's `offline: 'not_sent' | 'maybe_sent'`.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Offline {
    NotSent,
    MaybeSent,
}

impl ToolHost for JsToolHost {
    async fn call(&self, invocation: &ToolInvocation) -> ToolOutput {
        self.call_after(invocation, None).await
    }

    fn sees_append(&self, stored: u64) -> bool {
        self.gates.commit_of(&self.session_id, stored).is_some()
    }

    async fn call_when_stored(&self, invocation: &ToolInvocation, stored: u64) -> ToolOutput {
        let commit = self.gates.commit_of(&self.session_id, stored);
        if commit.is_none() {
            // Only called after `sees_append`, in the same turn: the append cannot have gone.
            return error_output(
                "the tool was not started: its start record's append is not under way".into(),
            );
        }
        self.call_after(invocation, commit).await
    }
}

fn error_output(content: String) -> ToolOutput {
    ToolOutput::result(content, true)
}

/// A string result is shown as is; anything else as compact JSON.
fn render(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_) => {
            crate::protocol::json_text(value)
        }
    }
}
