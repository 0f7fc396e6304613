//! Test harness for the loop core: a scripted driver with a manual clock that records the log
//! and the actions the core asked for.
#![allow(dead_code)]
#![allow(
    clippy::wildcard_enum_match_arm,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use serde_json::{json, Value};

/// Helpers of the reflective-rules scenarios.
pub mod reflective;

/// What every loop-scenario test file imports: this harness, `json!`, and the core and protocol
/// types the scenarios name. (`pretty_assertions::assert_eq` is imported by name in each file: a
/// glob cannot shadow the prelude's macro.)
pub mod prelude {
    #![allow(unused_imports)]
    pub use super::*;
    pub use serde_json::json;
    pub use tabloop::core::{Effect, Event, Input, InputError, StopReason};
    pub use tabloop::protocol::{Message, ToolCall};
}
use tabloop::core::{
    Agent, AgentConfig, BudgetLimits, Effect, Event, Input, InputError, Permission, Record,
    ToolDecl, ToolInvocation, ToolKind,
};
use tabloop::protocol::{FinishReason, ModelReply, ModelRequest, ToolCall, ToolSpec, Usage};

/// A host tool declaration with an object schema of string properties.
pub fn host_tool(
    name: &str,
    props: &[&str],
    permission: Permission,
    parallel_safe: bool,
    idempotent: bool,
) -> ToolDecl {
    let properties: serde_json::Map<String, Value> = props
        .iter()
        .map(|p| (p.to_string(), json!({"type": "string"})))
        .collect();
    ToolDecl {
        spec: ToolSpec {
            local_parameters: None,
            name: name.into(),
            description: format!("{name} tool"),
            parameters: json!({"type": "object", "properties": properties, "required": props, "additionalProperties": false}),
        },
        permission,
        idempotent,
        parallel_safe,
        kind: ToolKind::Host,
        approval_scope: None,
    }
}

/// A config with `read_file(path)` and `grep(pattern, path)` (allowed, parallel-safe),
/// `write_file(path, text)` (ask, sequential) and the core's `todo` and `finish` tools, under
/// the first guard rules (exact repeats, no forced reflection), which the scenarios here were
/// written for and which sessions recorded before the reflective rules keep.
pub fn config() -> AgentConfig {
    let mut config = reflective_config();
    config.guard.reflective = None;
    // The first rules' thresholds as they were.
    config.guard.stagnation_diagnose = 5;
    config.guard.stagnation_stop = 8;
    config.tools.retain(|t| t.spec.name != "give_up");
    config
}

/// [`config`] under the reflective rules (the default of new sessions), with `give_up`.
pub fn reflective_config() -> AgentConfig {
    AgentConfig {
        system: Some("You are a test agent.".into()),
        tools: vec![
            host_tool("read_file", &["path"], Permission::Allow, true, true),
            host_tool("grep", &["pattern", "path"], Permission::Allow, true, true),
            host_tool(
                "write_file",
                &["path", "text"],
                Permission::Ask,
                false,
                false,
            ),
            host_tool("delete_all", &[], Permission::Deny, false, false),
            tabloop::core::todo_tool(),
            tabloop::core::finish_tool(),
            tabloop::core::give_up_tool(),
        ],
        finish_verifier: true,
        budget: BudgetLimits {
            max_steps: Some(50),
            max_tool_calls: Some(200),
            max_wall_ms: None,
            ..BudgetLimits::default()
        },
        ..AgentConfig::default()
    }
}

pub fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        cached_input_tokens: 0,
        cache_write_tokens: 0,
    }
}

pub fn text(t: &str) -> ModelReply {
    ModelReply {
        text: t.into(),
        tool_calls: vec![],
        finish: FinishReason::EndTurn,
        usage: usage(100, 10),
        model: "m".into(),
        reasoning: String::new(),
    }
}

pub fn cut_text(t: &str) -> ModelReply {
    ModelReply {
        finish: FinishReason::MaxTokens,
        ..text(t)
    }
}

pub fn call(id: &str, name: &str, args: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.to_string(),
    }
}

pub fn calls(list: Vec<ToolCall>) -> ModelReply {
    ModelReply {
        text: String::new(),
        tool_calls: list,
        finish: FinishReason::ToolUse,
        usage: usage(100, 10),
        model: "m".into(),
        reasoning: String::new(),
    }
}

/// A driver stand-in: feeds inputs, keeps the persisted log, returns the actions.
pub struct Harness {
    pub agent: Agent,
    pub log: Vec<Record>,
    pub now: u64,
    /// The request the last `CallModel` effect carried.
    pub last_request: Option<ModelRequest>,
}

impl Harness {
    pub fn new(config: AgentConfig) -> Self {
        let mut h = Self {
            agent: Agent::new("s1", config, 1_000),
            log: Vec::new(),
            now: 1_000,
            last_request: None,
        };
        h.drain();
        h
    }

    /// Advances the manual clock.
    pub fn tick(&mut self, ms: u64) {
        self.now += ms;
    }

    /// Feeds an input 10 ms after the last one; returns the non-persist effects.
    pub fn send(&mut self, input: Input) -> Result<Vec<Effect>, InputError> {
        self.now += 10;
        self.agent.handle(input, self.now)?;
        Ok(self.drain())
    }

    pub fn drain(&mut self) -> Vec<Effect> {
        let mut actions = Vec::new();
        while let Some(effect) = self.agent.poll() {
            match effect {
                Effect::Persist(record) => {
                    assert_eq!(record.seq, self.log.len() as u64, "records are contiguous");
                    self.log.push(record);
                }
                other => {
                    if let Effect::CallModel { body, .. } = &other {
                        self.last_request = Some(body.clone());
                    }
                    actions.push(other)
                }
            }
        }
        actions
    }

    /// The request of the last model call the core asked for.
    pub fn request(&self) -> ModelRequest {
        self.last_request
            .clone()
            .unwrap_or_else(|| panic!("no model call was asked for"))
    }

    pub fn user(&mut self, t: &str) -> Vec<Effect> {
        self.send(Input::UserMessage {
            text: t.into(),
            budget: None,
        })
        .unwrap()
    }

    /// The request id of the model call the effects ask for.
    pub fn model_call(effects: &[Effect]) -> u64 {
        effects
            .iter()
            .find_map(|e| match e {
                Effect::CallModel { request, .. } => Some(*request),
                _ => None,
            })
            .unwrap_or_else(|| panic!("expected a model call in {effects:#?}"))
    }

    pub fn tool_calls(effects: &[Effect]) -> Vec<ToolInvocation> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::CallTool(inv) => Some(inv.clone()),
                _ => None,
            })
            .collect()
    }

    /// Answers the pending model call with `reply`.
    pub fn reply(&mut self, effects: &[Effect], reply: ModelReply) -> Vec<Effect> {
        let request = Self::model_call(effects);
        self.send(Input::ModelReplied { request, reply }).unwrap()
    }

    /// Fails the pending model call with `error`.
    pub fn fail(
        &mut self,
        effects: &[Effect],
        error: tabloop::protocol::ModelError,
    ) -> Vec<Effect> {
        let request = Self::model_call(effects);
        self.send(Input::ModelFailed { request, error }).unwrap()
    }

    /// How long the model call the effects ask for waits before it is sent.
    pub fn delay_of(effects: &[Effect]) -> u64 {
        effects
            .iter()
            .find_map(|e| match e {
                Effect::CallModel { delay_ms, .. } => Some(*delay_ms),
                _ => None,
            })
            .expect("a model call")
    }

    /// Answers the pending stop-hook question.
    pub fn answer_stop_hook(&mut self, verdict: tabloop::core::StopVerdict) -> Vec<Effect> {
        self.send(Input::StopHookAnswered { verdict }).unwrap()
    }

    pub fn tool_result(&mut self, call: &str, content: &str, is_error: bool) -> Vec<Effect> {
        self.send(Input::ToolFinished {
            call: call.into(),
            content: content.into(),
            is_error,
        })
        .unwrap()
    }

    /// Starts a run with `task`; then the model reads a new file each step (`path(i)`) and the
    /// tool answers `result(i)`, until the run ends or `rounds` steps passed. The outcome, if any.
    pub fn read_until_finished(
        &mut self,
        task: &str,
        rounds: usize,
        path: impl Fn(usize) -> String,
        result: impl Fn(usize) -> String,
    ) -> Option<tabloop::core::RunOutcome> {
        let mut effects = self.user(task);
        for i in 0..rounds {
            let id = format!("c{i}");
            effects = self.reply(
                &effects,
                calls(vec![call(&id, "read_file", json!({"path": path(i)}))]),
            );
            if let Some(outcome) = Self::finished(&effects) {
                return Some(outcome);
            }
            effects = self.tool_result(&id, &result(i), false);
            if let Some(outcome) = Self::finished(&effects) {
                return Some(outcome);
            }
        }
        None
    }

    /// The log's event type names from `from` on, for whole-sequence comparisons.
    pub fn kinds(&self, from: usize) -> Vec<String> {
        self.log[from..].iter().map(|r| kind(&r.event)).collect()
    }

    pub fn finished(effects: &[Effect]) -> Option<tabloop::core::RunOutcome> {
        effects.iter().find_map(|e| match e {
            Effect::Finished(o) => Some(o.clone()),
            _ => None,
        })
    }

    pub fn events(&self) -> impl Iterator<Item = &Event> {
        self.log.iter().map(|r| &r.event)
    }
}

/// The serde tag of an event, e.g. `step_started`, with the reason or outcome for steps and ends.
pub fn kind(event: &Event) -> String {
    let value = serde_json::to_value(event).unwrap();
    let tag = value["type"].as_str().unwrap().to_string();
    match event {
        Event::StepStarted { reason, .. } => {
            format!(
                "{tag}:{}",
                serde_json::to_value(reason).unwrap()["kind"]
                    .as_str()
                    .unwrap()
            )
        }
        Event::RunFinished { outcome } => format!("{tag}:{}", outcome.stop.code()),
        Event::ModelCallStarted { purpose, .. } => {
            format!(
                "{tag}:{}",
                serde_json::to_value(purpose).unwrap().as_str().unwrap()
            )
        }
        Event::GuardTriggered { detector, stop, .. } => format!(
            "{tag}:{}:{}",
            serde_json::to_value(detector).unwrap().as_str().unwrap(),
            if *stop { "stop" } else { "diagnose" }
        ),
        Event::ToolCallRejected { rejection, .. } => {
            format!(
                "{tag}:{}",
                serde_json::to_value(rejection).unwrap().as_str().unwrap()
            )
        }
        _ => tag,
    }
}
