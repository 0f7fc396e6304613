//! A synthetic session for benchmarks: a loop whose model always asks for one new tool call and
//! whose tool always answers, so each step exercises the core's whole decision path (6 events)
//! with no model and no I/O. Used by the native criterion bench and the browser bench page; its
//! log (and one of plain replies) also feeds the playground's long-session and markdown tests.

use serde_json::json;

use crate::core::{
    Agent, AgentConfig, BudgetLimits, Effect, Input, Permission, Record, ToolDecl, ToolKind,
};
use crate::protocol::{FinishReason, ModelReply, ToolCall, ToolSpec, Usage};

/// A session driven by synthetic replies and results.
#[derive(Debug, Clone)]
pub struct SyntheticSession {
    agent: Agent,
    request: u64,
    step: u64,
    /// Every record persisted so far, kept only by [`session_log`].
    log: Option<Vec<Record>>,
}

impl SyntheticSession {
    /// A session whose log already holds at least `events` events.
    pub fn with_history(events: usize) -> Self {
        let mut session = Self {
            agent: Agent::new("bench", config(), 0),
            request: 0,
            step: 0,
            log: None,
        };
        // The agent refuses nothing here: the config has no limits and the inputs fit.
        let _ = session.agent.handle(
            Input::UserMessage {
                text: "task".into(),
                budget: None,
            },
            1,
        );
        session.drain();
        while (session.agent.state().next_seq as usize) < events {
            let before = session.agent.state().next_seq;
            session.step();
            assert!(
                session.agent.state().next_seq > before,
                "the synthetic run stopped after {before} events instead of growing its history"
            );
        }
        session
    }

    /// A new session `session` that keeps every record it persists (in `log`).
    fn logged(session: &str) -> Self {
        Self {
            agent: Agent::new(session, config(), 0),
            request: 0,
            step: 0,
            log: Some(Vec::new()),
        }
    }

    /// Events in the log so far.
    pub fn events(&self) -> u64 {
        self.agent.state().next_seq
    }

    /// One loop step (model reply with a tool call, then its result); returns the effects drained.
    pub fn step(&mut self) -> usize {
        self.step += 1;
        let n = self.step;
        let reply = ModelReply {
            text: String::new(),
            tool_calls: vec![ToolCall {
                id: format!("c{n}"),
                name: "read_file".into(),
                arguments: format!(r#"{{"path":"f{n}"}}"#),
            }],
            finish: FinishReason::ToolUse,
            usage: Usage {
                input_tokens: 10,
                output_tokens: 2,
                ..Usage::default()
            },
            model: "m".into(),
            reasoning: String::new(),
        };
        let _ = self.agent.handle(
            Input::ModelReplied {
                request: self.request,
                reply,
            },
            n * 10,
        );
        let mut drained = self.drain();
        let result = Input::ToolFinished {
            call: format!("c{n}"),
            content: format!("contents {n}"),
            is_error: false,
        };
        let _ = self.agent.handle(result, n * 10 + 5);
        drained += self.drain();
        drained
    }

    fn drain(&mut self) -> usize {
        let mut drained = 0;
        while let Some(effect) = self.agent.poll() {
            drained += 1;
            match effect {
                Effect::CallModel { request, .. } => self.request = request,
                Effect::Persist(record) => {
                    if let Some(log) = &mut self.log {
                        log.push(record);
                    }
                }
                Effect::CallTool(_)
                | Effect::AskApproval { .. }
                | Effect::AskStopHook(_)
                | Effect::Abort { .. }
                | Effect::Finished(_) => {}
            }
        }
        drained
    }
}

/// The log of a finished synthetic session `session` with at least `events` records: the
/// benchmark's stand-in for a long stored session (its run is cancelled at the end).
pub fn session_log(events: usize, session: &str) -> Vec<Record> {
    let mut synthetic = SyntheticSession::logged(session);
    synthetic.drain();
    let _ = synthetic.agent.handle(
        Input::UserMessage {
            text: format!("synthetic task of {session}"),
            budget: None,
        },
        1,
    );
    synthetic.drain();
    while (synthetic.agent.state().next_seq as usize) + 4 < events {
        let before = synthetic.agent.state().next_seq;
        synthetic.step();
        assert!(
            synthetic.agent.state().next_seq > before,
            "the synthetic run stopped after {before} events instead of growing its history"
        );
    }
    let end = synthetic.step * 10 + 9;
    let _ = synthetic.agent.handle(Input::cancel(), end);
    synthetic.drain();
    synthetic.log.unwrap_or_default()
}

/// The log of session `session` where each text is a task's whole answer: one completed run
/// per text, so every text is shown as one model message.
pub fn replies_log(session: &str, texts: &[String]) -> Vec<Record> {
    let mut synthetic = SyntheticSession::logged(session);
    for (n, text) in (1..).zip(texts) {
        let now = n * 10;
        let _ = synthetic.agent.handle(
            Input::UserMessage {
                text: format!("payload {n}"),
                budget: None,
            },
            now,
        );
        synthetic.drain();
        let reply = ModelReply {
            text: text.clone(),
            tool_calls: Vec::new(),
            finish: FinishReason::EndTurn,
            usage: Usage::default(),
            model: "m".into(),
            reasoning: String::new(),
        };
        let request = synthetic.request;
        let _ = synthetic
            .agent
            .handle(Input::ModelReplied { request, reply }, now + 5);
        synthetic.drain();
    }
    synthetic.log.unwrap_or_default()
}

fn config() -> AgentConfig {
    AgentConfig {
        tools: vec![ToolDecl {
            spec: ToolSpec {
                local_parameters: None,
                name: "read_file".into(),
                description: "read".into(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
            },
            permission: Permission::Allow,
            idempotent: true,
            parallel_safe: true,
            kind: ToolKind::Host,
            approval_scope: None,
        }],
        budget: BudgetLimits::NONE,
        // A window so large that no compaction happens: the history really is this long.
        context_window: u64::MAX / 4,
        ..AgentConfig::default()
    }
}
