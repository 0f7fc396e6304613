//! The exact request the local provider sends for a conversation on the default tools, and how
//! it reads the model's reply: the same code path as the tab (`build_local_request`,
//! `parse_local_output`, and the core's ending on a repeated success), for trying prompts on a
//! native llama.cpp.
//!
//! Reads one JSON object per line on stdin and writes one per line on stdout:
//! - `{"op":"tools"}` → `{"system": <default system text>, "tools": [<the five default tools>]}`
//! - `{"op":"build","request":<ModelRequest>}` → the `LocalRequest` (messages, grammar, …)
//! - `{"op":"parse","request":<ModelRequest>,"generated":".."}` → the `ModelReply` the loop
//!   gets for what the model generated (after the turn's start the request wrote for it); or,
//!   when that chose to answer, `{"write": <LocalRequest>}`: the plain-text completion to run
//!   next (`local_prose`), whose text is then given back as `"written":"..", "cut": bool` in
//!   the same `parse` for the reply
//! - `{"op":"qwen","request":<ModelRequest>}` → `{"prompt", "messages", "grammar", "max_tokens"}`
//!   for the engine's `complete` example (`messages` for a page's local model): the request in Qwen3's own format (Hermes-style tools in the
//!   system message, ChatML turns, thinking off, as the tab renders them) and the call branch of
//!   its grammar (a synthetic file's random weights would choose text); with `"one_call": true`
//!   a single call (a small real model, once started, writes call after call). The
//!   jump-forward benchmark's requests (BENCHMARKS.md)
//!
//! ```text
//! echo '{"op":"tools"}' | cargo run -q --example local_request
//! ```

use std::io::{BufRead, Write};

use serde_json::{json, Value};
use tabloop::core::repeat_success::repeated_success;
use tabloop::ports::HostToolSpec;
use tabloop::protocol::{FinishReason, Message, ModelRequest, Usage};
use tabloop::providers::local_prose::{plain_request, prose_of, prose_reply};
use tabloop::providers::{
    build_local_request, build_native_request, parse_local_output, ToolDialect,
};
use tabloop::runtime::options::AgentOptions;

/// The host tools as the JS registry describes them (vfs, eval, http_fetch).
const HOST_TOOLS: &str = include_str!("../tests/fixtures/default_host_tools.json");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let host: Vec<HostToolSpec> = serde_json::from_str(HOST_TOOLS)?;
    let config = AgentOptions::default().to_config(&host)?;
    let tools: Vec<_> = config.tools.iter().map(|d| d.spec.clone()).collect();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let input: Value = serde_json::from_str(&line)?;
        let reply = match input["op"].as_str() {
            Some("tools") => json!({ "system": config.system, "tools": tools }),
            Some("build") => {
                let request: ModelRequest = serde_json::from_value(input["request"].clone())?;
                serde_json::to_value(build_local_request(&request))?
            }
            Some("parse") => {
                let request: ModelRequest = serde_json::from_value(input["request"].clone())?;
                let generated = input["generated"].as_str().unwrap_or_default();
                let local = build_local_request(&request);
                let text = local.reply_text(generated);
                let mut reply = match (prose_of(&text, &request.tools), input["written"].as_str()) {
                    (Some(_), None) => {
                        let plain = plain_request(&local, request.max_output_tokens);
                        writeln!(out, "{}", json!({ "write": plain }))?;
                        out.flush()?;
                        continue;
                    }
                    (Some(prose), Some(written)) => {
                        let cut = input["cut"].as_bool().unwrap_or(false);
                        prose_reply(&prose, written, cut, Usage::default(), "c".into())
                    }
                    (None, _) => {
                        parse_local_output(&text, &request.tools, Usage::default(), "c".into())
                    }
                };
                // What the run does with it: a repeat of the call that just succeeded ends it
                // with that call's result as the answer (as the core does for the local model).
                let mut conversation = request.messages.to_vec();
                conversation.push(Message::Assistant {
                    text: reply.text.clone(),
                    tool_calls: reply.tool_calls.clone(),
                });
                if let Some((_, answer)) = repeated_success(&conversation) {
                    reply.text = answer;
                    reply.tool_calls.clear();
                    reply.finish = FinishReason::EndTurn;
                }
                serde_json::to_value(reply)?
            }
            Some("qwen") => {
                let request: ModelRequest = serde_json::from_value(input["request"].clone())?;
                qwen_completion(&request, input["one_call"].as_bool().unwrap_or(false))
            }
            other => json!({ "error": format!("unknown op {other:?}") }),
        };
        writeln!(out, "{reply}")?;
        out.flush()?;
    }
    Ok(())
}

/// The request in Qwen3's format as the engine reads it: the prompt rendered in ChatML with
/// thinking off (www/local/engine/chat_template.js writes it the same), the grammar's call
/// branch alone (one call only when `one_call`).
fn qwen_completion(request: &ModelRequest, one_call: bool) -> Value {
    let dialect = ToolDialect::Hermes {
        default_system: None,
    };
    let local = build_native_request(request, &dialect);
    let mut prompt = String::new();
    for message in &local.messages {
        let role = message["role"].as_str().unwrap_or_default();
        let content = message["content"].as_str().unwrap_or_default();
        prompt += &format!("<|im_start|>{role}\n{content}<|im_end|>\n");
    }
    prompt += "<|im_start|>assistant\n<think>\n\n</think>\n\n";
    let root = if one_call {
        "root ::= call"
    } else {
        "root ::= calls"
    };
    let grammar = local
        .grammar
        .map(|g| g.replacen("root ::= think? (calls | text calls?)", root, 1));
    json!({
        "prompt": prompt,
        "messages": local.messages,
        "grammar": grammar,
        "max_tokens": local.max_tokens,
    })
}
