//! A synthetic Chat Completions event stream for the parsing benchmarks: the bytes a provider
//! sends for a reply of text deltas followed by one tool call whose arguments arrive in
//! fragments, with the metadata real providers repeat in every chunk. Parsed the way the fetch
//! client parses a response: [`SseParser`] over network-sized pieces, then [`OpenAiStream`].

use serde_json::json;

use crate::protocol::{ModelError, ModelReply};
use crate::providers::{OpenAiStream, SseParser};

/// The SSE bytes of one reply: `text_chunks` content deltas, then a tool call whose arguments
/// come in `text_chunks / 4` fragments, the finish reason, usage and `[DONE]`.
pub fn chat_completion_sse(text_chunks: usize) -> Vec<u8> {
    let mut out = String::new();
    let mut push = |chunk: serde_json::Value| {
        out.push_str("data: ");
        out.push_str(&chunk.to_string());
        out.push_str("\n\n");
    };
    let head = |delta: serde_json::Value, finish: serde_json::Value| {
        json!({
            "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
            "object": "chat.completion.chunk",
            "created": 1_741_570_283,
            "model": "gpt-4o-2024-08-06",
            "system_fingerprint": "fp_eb9dce56a8",
            "service_tier": "default",
            "choices": [{ "index": 0, "delta": delta, "logprobs": null, "finish_reason": finish }],
        })
    };
    push(head(
        json!({ "role": "assistant", "content": "", "refusal": null }),
        json!(null),
    ));
    for i in 0..text_chunks {
        let word = [
            " the",
            " loop",
            " reads",
            " notes",
            ".txt",
            " and\n",
            " \"quotes\"",
        ][i % 7];
        push(head(json!({ "content": word }), json!(null)));
    }
    push(head(
        json!({ "tool_calls": [{ "index": 0, "id": "call_DdmO9pD3xa9XTPNJ32zg2hcA", "type": "function",
                 "function": { "name": "vfs", "arguments": "" } }] }),
        json!(null),
    ));
    let fragments = (text_chunks / 4).max(1);
    push(head(
        json!({ "tool_calls": [{ "index": 0, "function": { "arguments": "{\"op\":\"write\",\"content\":\"" } }] }),
        json!(null),
    ));
    for i in 0..fragments {
        let piece = format!("line {i} of the file\\n");
        push(head(
            json!({ "tool_calls": [{ "index": 0, "function": { "arguments": piece } }] }),
            json!(null),
        ));
    }
    push(head(
        json!({ "tool_calls": [{ "index": 0, "function": { "arguments": "\",\"path\":\"/a.txt\"}" } }] }),
        json!(null),
    ));
    push(head(json!({}), json!("tool_calls")));
    push(json!({
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", "object": "chat.completion.chunk",
        "created": 1_741_570_283, "model": "gpt-4o-2024-08-06", "choices": [],
        "usage": { "prompt_tokens": 1117, "completion_tokens": 46, "total_tokens": 1163,
                   "prompt_tokens_details": { "cached_tokens": 1024 } },
    }));
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

/// Parses `bytes` as the fetch client does, fed in pieces of `piece` bytes: SSE events, then
/// the Chat Completions assembler. Returns the reply.
pub fn parse_chat_completion_sse(bytes: &[u8], piece: usize) -> Result<ModelReply, ModelError> {
    let mut parser = SseParser::default();
    let mut stream = OpenAiStream::default();
    for chunk in bytes.chunks(piece.max(1)) {
        parser.push_each(chunk, |event| stream.push(event).map(drop))?;
    }
    parser.finish();
    stream.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_synthetic_stream_parses_into_its_text_and_tool_call() {
        let bytes = chat_completion_sse(14);
        let reply = parse_chat_completion_sse(&bytes, 7).unwrap();
        assert_eq!(
            reply.text,
            " the loop reads notes.txt and\n \"quotes\"".repeat(2)
        );
        assert_eq!(reply.tool_calls.len(), 1);
        let args: serde_json::Value = serde_json::from_str(&reply.tool_calls[0].arguments).unwrap();
        assert_eq!(args["path"], "/a.txt");
        assert_eq!(
            args["content"],
            "line 0 of the file\nline 1 of the file\nline 2 of the file\n"
        );
        assert_eq!(
            reply.usage.input_tokens + reply.usage.cached_input_tokens,
            1117
        );
    }
}
