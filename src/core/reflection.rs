//! What a forced reflection asks and what it answers: the `reflect` and `give_up` tools, the
//! prompt for each trigger, and the [`Reflection`] read from a reply or a give-up call. The
//! decisions that use them are the agent's, in `reflect.rs`.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::protocol::{ModelReply, ToolSpec};

use super::log::{Detector, Permission, ToolDecl, ToolKind};

/// The tool a reflection request offers.
pub const REFLECT_TOOL: &str = "reflect";

/// The tool that ends a run as `gave_up`.
pub const GIVE_UP_TOOL: &str = "give_up";

/// What a reflection said.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reflection {
    /// Where the task stands.
    pub status: String,
    /// Approaches tried so far.
    pub tried: Vec<String>,
    /// What blocks progress.
    pub stuck_on: Vec<String>,
    /// What the model will do differently.
    pub next: String,
    /// The model concedes.
    pub give_up: bool,
}

impl Reflection {
    /// Reads a reflection reply: the `reflect` call's arguments, else the text as the status.
    pub fn from_reply(reply: &ModelReply) -> Reflection {
        let call = reply.tool_calls.iter().find(|c| c.name == REFLECT_TOOL);
        let args: Value = call
            .and_then(|c| serde_json::from_str(&c.arguments).ok())
            .unwrap_or(Value::Null);
        let text = |key: &str| {
            args.get(key)
                .and_then(Value::as_str)
                .map(|s| s.trim().to_string())
                .unwrap_or_default()
        };
        let list = |key: &str| match args.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .take(8)
                .collect(),
            Some(Value::String(s)) if !s.trim().is_empty() => vec![s.trim().to_string()],
            Some(_) | None => Vec::new(),
        };
        let mut status = text("status");
        if status.is_empty() {
            status = super::hygiene::strip_control_tokens(&reply.text)
                .trim()
                .to_string();
        }
        Reflection {
            status,
            tried: list("tried"),
            stuck_on: list("stuck_on"),
            next: text("next"),
            give_up: args.get("give_up").and_then(Value::as_bool) == Some(true),
        }
    }

    /// The reflection as the model's message in the conversation.
    pub fn to_text(&self) -> String {
        let mut out = format!("Status: {}", self.status);
        if !self.tried.is_empty() {
            out.push_str(&format!("\nTried: {}", self.tried.join("; ")));
        }
        if !self.stuck_on.is_empty() {
            out.push_str(&format!("\nStuck on: {}", self.stuck_on.join("; ")));
        }
        if self.give_up {
            out.push_str("\nI give up.");
        } else if !self.next.is_empty() {
            out.push_str(&format!("\nNext: {}", self.next));
        }
        out
    }
}

/// What the model is asked in a reflection step.
pub fn reflection_prompt(trigger: Detector) -> String {
    let why = match trigger {
        Detector::BudgetEndgame => {
            "Most of this run's budget is spent and the last steps found nothing new. Decide now: \
             finish with what you have, or give up and say where you are stuck."
        }
        Detector::OverdueMilestone => {
            "An open item of your todo list has made no progress for many steps."
        }
        Detector::Repetition
        | Detector::Thrashing
        | Detector::Stagnation
        | Detector::RepeatedError
        | Detector::RepeatedSuccess
        | Detector::ConsecutiveErrors => "Your recent calls are not producing anything new.",
    };
    format!(
        "Stop and reflect before any other call. {why} Call the reflect tool with: status (what \
         you know for certain), tried (the approaches so far), stuck_on (what blocks you), next \
         (a different approach, not one you tried), and give_up: true if the task cannot be \
         done with the tools you have."
    )
}

/// The `reflect` tool a reflection request offers.
pub fn reflect_spec() -> ToolSpec {
    ToolSpec {
        local_parameters: None,
        name: REFLECT_TOOL.into(),
        description: "Report where the task stands and how you will go on (or give up).".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "status": {"type": "string"},
                "tried": {"type": "array", "items": {"type": "string"}},
                "stuck_on": {"type": "array", "items": {"type": "string"}},
                "next": {"type": "string"},
                "give_up": {"type": "boolean"}
            },
            "required": ["status", "stuck_on", "give_up"],
            "additionalProperties": false
        }),
    }
}

/// The `give_up` tool, offered in every session under the reflective rules.
pub fn give_up_tool() -> ToolDecl {
    ToolDecl {
        spec: ToolSpec {
            local_parameters: None,
            name: GIVE_UP_TOOL.into(),
            description: "Call when the task cannot be done with the tools you have, instead of \
                          trying the same things again: say why, where you are stuck and what \
                          you tried."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "reason": {"type": "string", "minLength": 1},
                    "stuck_on": {"type": "array", "items": {"type": "string"}},
                    "tried": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["reason", "stuck_on"],
                "additionalProperties": false
            }),
        },
        permission: Permission::Allow,
        idempotent: true,
        parallel_safe: false,
        kind: ToolKind::GiveUp,
        approval_scope: None,
    }
}

/// A `give_up` call's arguments as a reflection (the handoff reads both alike).
pub fn give_up_reflection(args: &Value) -> Reflection {
    let list = |key: &str| -> Vec<String> {
        args.get(key)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .take(8)
                    .collect()
            })
            .unwrap_or_default()
    };
    Reflection {
        status: args
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        tried: list("tried"),
        stuck_on: list("stuck_on"),
        next: String::new(),
        give_up: true,
    }
}
