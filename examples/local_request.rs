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
use tabloop::providers::{build_local_request, parse_local_output};
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
            other => json!({ "error": format!("unknown op {other:?}") }),
        };
        writeln!(out, "{reply}")?;
        out.flush()?;
    }
    Ok(())
}
