//! One Chat Completions stream chunk as serde reads it, only the members the assembler uses,
//! strings borrowed from the event's text when they hold no escapes. A chunk in any other shape
//! (a member of an unexpected type, a member written twice, an `error` member, invalid JSON)
//! is refused here and read as a JSON tree instead, which gives the same answer for every
//! chunk this reading accepts.

use std::borrow::Cow;

use serde::Deserialize;

use crate::protocol::model::Usage;

/// One `chat.completion.chunk`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Chunk<'a> {
    /// The model that answered.
    #[serde(borrow, default)]
    pub(crate) model: Option<Cow<'a, str>>,
    /// Token usage (the last chunk, with `stream_options.include_usage`).
    #[serde(default)]
    pub(crate) usage: Option<ChunkUsage>,
    /// The choices; the assembler reads every one.
    #[serde(borrow, default)]
    pub(crate) choices: Option<Vec<Choice<'a>>>,
}

/// One choice of a chunk.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Choice<'a> {
    /// What this chunk adds.
    #[serde(borrow, default)]
    pub(crate) delta: Option<Delta<'a>>,
    /// Why the reply ended, on its last chunk.
    #[serde(borrow, default)]
    pub(crate) finish_reason: Option<Cow<'a, str>>,
}

/// The increment of a choice.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Delta<'a> {
    /// Answer text.
    #[serde(borrow, default)]
    pub(crate) content: Option<Cow<'a, str>>,
    /// A refusal, kept as text.
    #[serde(borrow, default)]
    pub(crate) refusal: Option<Cow<'a, str>>,
    /// Reasoning text (one server's name).
    #[serde(borrow, default)]
    pub(crate) reasoning_content: Option<Cow<'a, str>>,
    /// Reasoning text (another's).
    #[serde(borrow, default)]
    pub(crate) reasoning: Option<Cow<'a, str>>,
    /// Tool-call fragments.
    #[serde(borrow, default)]
    pub(crate) tool_calls: Option<Vec<CallDelta<'a>>>,
}

/// A fragment of one tool call.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct CallDelta<'a> {
    /// Which call it continues.
    #[serde(default)]
    pub(crate) index: Option<u64>,
    /// The call's id (its first fragment).
    #[serde(borrow, default)]
    pub(crate) id: Option<Cow<'a, str>>,
    /// The tool's name and a piece of its argument text.
    #[serde(borrow, default)]
    pub(crate) function: Option<FunctionDelta<'a>>,
}

/// The `function` member of a tool-call fragment.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct FunctionDelta<'a> {
    /// The tool's name (its first fragment).
    #[serde(borrow, default)]
    pub(crate) name: Option<Cow<'a, str>>,
    /// A piece of the JSON argument text.
    #[serde(borrow, default)]
    pub(crate) arguments: Option<Cow<'a, str>>,
}

/// The `usage` member: cached prompt tokens are split out of `prompt_tokens`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ChunkUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
}

/// `usage.prompt_tokens_details`.
#[derive(Debug, Default, Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl ChunkUsage {
    /// The usage the log records.
    pub(crate) fn usage(&self) -> Usage {
        let prompt = self.prompt_tokens.unwrap_or(0);
        let cached = self
            .prompt_tokens_details
            .as_ref()
            .and_then(|d| d.cached_tokens)
            .unwrap_or(0);
        Usage {
            input_tokens: prompt.saturating_sub(cached),
            output_tokens: self.completion_tokens.unwrap_or(0),
            cached_input_tokens: cached,
            cache_write_tokens: 0,
        }
    }
}

/// The chunk in `data`, or `None` when only the tree reading can answer for it (an `error`
/// member anywhere, or a shape this reading refuses).
pub(crate) fn fast_chunk(data: &str) -> Option<Chunk<'_>> {
    if data.contains("\"error\"") {
        return None;
    }
    serde_json::from_str(data).ok()
}
