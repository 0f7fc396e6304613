//! The conversation as a model sees it: messages, tool calls and tool specs.
//!
//! Provider adapters translate these to and from each provider's wire format.

use serde::{Deserialize, Serialize};

/// One message of the transcript sent to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Instructions from the user of the runtime (or the runtime itself).
    User {
        /// The message text.
        text: String,
    },
    /// What the model said, with the tool calls it asked for (possibly none).
    Assistant {
        /// Visible text, already cleaned of leaked control tokens.
        text: String,
        /// Tool calls in the order the model made them.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        #[serde(default)]
        tool_calls: Vec<ToolCall>,
    },
    /// The observed result of one tool call, answering the call with the same id.
    Tool {
        /// The id of the call this answers.
        call_id: String,
        /// The tool's name (some providers need it beside the id).
        name: String,
        /// The result as text (JSON results are serialised).
        content: String,
        /// True when the call failed; the model sees the failure as an observation.
        is_error: bool,
    },
}

impl Message {
    /// A user message saying `text`.
    pub fn user(text: impl Into<String>) -> Self {
        Message::User { text: text.into() }
    }

    /// Approximate size in tokens (4 characters a token), used for context accounting when the
    /// provider has not reported exact counts.
    pub fn estimated_tokens(&self) -> u64 {
        let chars = match self {
            Message::User { text } => text.len(),
            Message::Assistant { text, tool_calls } => {
                text.len()
                    + tool_calls
                        .iter()
                        .map(|c| c.name.len() + c.arguments.len() + 8)
                        .sum::<usize>()
            }
            Message::Tool { content, name, .. } => content.len() + name.len(),
        };
        (chars as u64).div_ceil(4) + 4
    }
}

/// A tool call as the model produced it. `arguments` is the raw text the model emitted, which
/// may be invalid JSON; the core validates it before anything runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Provider-assigned call id (unique within a reply).
    pub id: String,
    /// Name of the tool the model wants.
    pub name: String,
    /// Raw argument text as emitted by the model.
    pub arguments: String,
}

/// What a model is told about a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Unique tool name.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
    /// A narrower schema for grammar-constrained small local models, when the tool has one:
    /// e.g. a `oneOf` by operation with each operation's required arguments, which `parameters`
    /// cannot say in a shape every remote provider accepts. Whatever it admits must also satisfy
    /// `parameters` (the core checks calls against that). Remote providers never see it.
    /// Read as `localParameters` too, as pages register tools.
    #[serde(
        default,
        alias = "localParameters",
        skip_serializing_if = "Option::is_none"
    )]
    pub local_parameters: Option<serde_json::Value>,
}
