//! The engine itself, greedy on synthetic Qwen3 and Gemma 3 files (random weights, the
//! family's real vocabulary and tags; scripts/synthetic-models.sh writes them), under the
//! grammar built from a task's tools: what it writes parses back into the structured call.
// Native only: the engine is a native dev-dependency.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{json, Value};
use tabloop::protocol::{FinishReason, Message, ModelRequest, ToolSpec, Usage};
use tabloop::providers::{build_native_request, parse_native_output, ToolDialect};

/// Qwen3's dialect, its template's default system text left out.
fn qwen3() -> ToolDialect {
    ToolDialect::Hermes {
        default_system: None,
    }
}

fn usage() -> Usage {
    Usage {
        input_tokens: 50,
        output_tokens: 20,
        ..Usage::default()
    }
}

/// Runs the engine greedily on a synthetic file of `family` (random weights, the family's real
/// vocabulary and tags; scripts/synthetic-models.sh writes them) with the request's messages in
/// the family's turns (as www/local/engine/chat_template.js renders them) and `grammar`.
fn engine_writes(family: &str, messages: &[Value], grammar: &str) -> String {
    use tabloop_engine::sampling::Sampling;
    use tabloop_engine::session::{Session, Step};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/synthetic/{family}-tiny-q8_0.gguf"));
    let bytes = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}: run scripts/synthetic-models.sh", path.display()));
    let turn = |m: &Value| {
        (
            m["role"].as_str().unwrap().to_string(),
            m["content"].as_str().unwrap().to_string(),
        )
    };
    let prompt = if family == "gemma3" {
        let system = messages[0]["content"].as_str().unwrap();
        let mut out = String::new();
        for (i, m) in messages[1..].iter().enumerate() {
            let (role, content) = turn(m);
            let role = if role == "assistant" { "model" } else { "user" };
            let prefix = if i == 0 {
                format!("{system}\n\n")
            } else {
                String::new()
            };
            out += &format!(
                "<start_of_turn>{role}\n{prefix}{}<end_of_turn>\n",
                content.trim()
            );
        }
        out + "<start_of_turn>model\n"
    } else {
        let mut out = String::new();
        for m in messages {
            let (role, content) = turn(m);
            out += &format!("<|im_start|>{role}\n{content}<|im_end|>\n");
        }
        // Qwen3's template with thinking off (chat_template.js writes it the same)
        out + "<|im_start|>assistant\n<think>\n\n</think>\n\n"
    };
    let mut session = Session::load(&bytes, 2048, 1).unwrap();
    session
        .begin(&prompt, Some(grammar), Sampling::Greedy, 120)
        .unwrap();
    while session.feed(512).unwrap() > 0 {}
    let mut written = Vec::new();
    loop {
        match session.next(0.0).unwrap() {
            Step::Token(bytes) => written.extend(bytes),
            Step::Stop => break,
            Step::Length => panic!(
                "the call did not end within 120 tokens: {}",
                String::from_utf8_lossy(&written)
            ),
        }
    }
    String::from_utf8(written).unwrap()
}

/// The task for the engine: one tool whose one argument is short (random weights would write a
/// free string without end).
fn short_task() -> ModelRequest {
    ModelRequest {
        system: Some("You are tabloop.".into()),
        messages: vec![Message::User {
            text: "Read the file notes.txt".into(),
        }]
        .into(),
        tools: vec![ToolSpec {
            local_parameters: None,
            name: "read_file".into(),
            description: "Read a file.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string", "maxLength": 12}}, "required": ["path"]}),
        }],
        max_output_tokens: 120,
    }
}

#[test]
fn the_engine_under_the_qwen_grammar_writes_calls_the_parser_reads_on_a_synthetic_qwen3_file() {
    let req = short_task();
    let local = build_native_request(&req, &qwen3());
    // random weights would choose text: the grammar's call branch alone, and one call, as
    // they write call after call (mostly a byte a token, as greedy decoding splits them)
    let grammar = local.grammar.unwrap().replacen(
        "root ::= think? (calls | text calls?)",
        "root ::= call",
        1,
    );
    let written = engine_writes("qwen3", &local.messages, &grammar);
    assert!(
        written.starts_with("<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \""),
        "{written}"
    );
    let parsed = parse_native_output(&written, &req.tools, &qwen3(), usage(), "c".into());
    assert_eq!(parsed.finish, FinishReason::ToolUse, "{written}");
    assert!(parsed.tool_calls.iter().all(|c| c.name == "read_file"
        && serde_json::from_str::<Value>(&c.arguments).unwrap()["path"].is_string()));
}

#[test]
fn the_engine_under_the_gemma_grammar_writes_a_call_the_parser_reads_on_a_synthetic_gemma3_file() {
    let req = short_task();
    let local = build_native_request(&req, &ToolDialect::Gemma);
    let grammar = local
        .grammar
        .unwrap()
        .replacen("root ::= call | text", "root ::= call", 1);
    let written = engine_writes("gemma3", &local.messages, &grammar);
    let parsed = parse_native_output(
        &written,
        &req.tools,
        &ToolDialect::Gemma,
        usage(),
        "c".into(),
    );
    assert_eq!(parsed.finish, FinishReason::ToolUse, "{written}");
    assert_eq!(parsed.tool_calls.len(), 1);
    assert_eq!(parsed.tool_calls[0].name, "read_file");
}

/// What a greedy completion wrote on the engine.
struct EngineRun {
    text: String,
    /// Forward passes after the prompt: each samples one token, with jump-forward also what
    /// the grammar forces after it.
    steps: usize,
    /// The tokens it wrote, forced ones included.
    tokens: Vec<u32>,
}

/// How a completion decodes: jump-forward, and drafts from the context.
#[derive(Clone, Copy)]
struct Decoding {
    jump_forward: bool,
    drafts: bool,
}

/// Jump-forward alone.
const JUMPED: Decoding = Decoding {
    jump_forward: true,
    drafts: false,
};

/// Every token sampled.
const STEPPED: Decoding = Decoding {
    jump_forward: false,
    drafts: false,
};

/// A greedy completion of at most `max_tokens` that must end before them.
fn engine_run(
    model: &[u8],
    prompt: &str,
    grammar: &str,
    max_tokens: usize,
    decoding: Decoding,
) -> EngineRun {
    use tabloop_engine::sampling::Sampling;
    use tabloop_engine::session::{Session, Step};
    let mut session = Session::load(model, 2048, 1).unwrap();
    session.set_jump_forward(decoding.jump_forward);
    session.set_drafts(decoding.drafts);
    session
        .begin(prompt, Some(grammar), Sampling::Greedy, max_tokens)
        .unwrap();
    while session.feed(512).unwrap() > 0 {}
    let (mut written, mut steps) = (Vec::new(), 0);
    loop {
        match session.next(0.0).unwrap() {
            Step::Token(bytes) => {
                written.extend(bytes);
                steps += 1;
            }
            Step::Stop => break,
            Step::Length => panic!(
                "the reply did not end within {max_tokens} tokens: {}",
                String::from_utf8_lossy(&written)
            ),
        }
    }
    EngineRun {
        text: String::from_utf8(written).unwrap(),
        steps,
        tokens: session.generated_tokens().to_vec(),
    }
}

/// The bundled SmolLM2-135M Q8_0.
fn smollm2() -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("www/models/smollm2-135m-instruct-q8_0.gguf");
    std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}: run scripts/fetch-model-assets.sh", path.display()))
}

/// The request in Qwen's format as ChatML turns, the assistant's turn opened with
/// `turn_start`, and the grammar of one call (this small model, once started, writes call
/// after call).
fn one_call(req: &ModelRequest, turn_start: &str) -> (String, String) {
    call_branch(req, turn_start, "root ::= call")
}

/// [`one_call`] with the grammar's root replaced by `root` (`root ::= calls`: call after call).
fn call_branch(req: &ModelRequest, turn_start: &str, root: &str) -> (String, String) {
    let local = build_native_request(req, &qwen3());
    let grammar = local
        .grammar
        .unwrap()
        .replacen("root ::= think? (calls | text calls?)", root, 1);
    let mut prompt = String::new();
    for m in &local.messages {
        let (role, content) = (m["role"].as_str().unwrap(), m["content"].as_str().unwrap());
        prompt += &format!("<|im_start|>{role}\n{content}<|im_end|>\n");
    }
    (prompt + "<|im_start|>assistant\n" + turn_start, grammar)
}

#[test]
fn jump_forward_writes_the_same_qwen_call_as_sampling_every_token_in_far_fewer_steps() {
    // a real model (the bundled SmolLM2-135M) asked in Qwen's format, as a Qwen model is
    let model = smollm2();
    let mut req = short_task();
    req.tools.push(ToolSpec {
        local_parameters: None,
        name: "write_file".into(),
        description: "Write a file.".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}),
    });
    let (prompt, grammar) = one_call(&req, "");
    let jumped = engine_run(&model, &prompt, &grammar, 120, JUMPED);
    let stepped = engine_run(&model, &prompt, &grammar, 120, STEPPED);
    // sampled: the tag's first token, the tool's name, the path, its closing quote
    same_tokens_in_fewer_steps(&jumped, &stepped, 3);
    assert_eq!(
        jumped.text,
        "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n</tool_call>"
    );
    let parsed = parse_native_output(&jumped.text, &req.tools, &qwen3(), usage(), "c".into());
    assert_eq!(parsed.finish, FinishReason::ToolUse, "{}", jumped.text);
}

#[test]
fn jump_forward_leaves_the_model_a_token_that_reaches_past_the_forced_text() {
    // the jump-forward benchmark's request (two tools, thinking off): the grammar forces
    // `", "arguments": {"path": "`, whose last token is ` "`, where sampling every token takes
    // ` "/`; forcing ` "` would have written "notes.txt" instead of "/notes.txt"
    let task: Value =
        serde_json::from_str(include_str!("../benches/local_model/qwen_call_task.json")).unwrap();
    let req: ModelRequest = serde_json::from_value(task["request"].clone()).unwrap();
    let (prompt, grammar) = one_call(&req, "<think>\n\n</think>\n\n");
    let model = smollm2();
    let jumped = engine_run(&model, &prompt, &grammar, 120, JUMPED);
    let stepped = engine_run(&model, &prompt, &grammar, 120, STEPPED);
    assert_eq!(
        stepped.text,
        "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"/notes.txt\"}}\n</tool_call>"
    );
    // token for token: the tokenizer splits the forced text in 32 tokens, the model in 33
    same_tokens_in_fewer_steps(&jumped, &stepped, 3);
}

#[test]
fn jump_forward_writes_the_tokens_greedy_decoding_writes_call_after_call() {
    // the jump-forward benchmark's multi-call request: the tokenizer splits the forced
    // `<tool_call>\n{"name": "` and `"}}\n</tool_call>` otherwise than SmolLM2 writes them one
    // token at a time (32 tokens for the first call where it writes 33); appended as the
    // tokenizer splits them, the model read another context and began a third call where
    // greedy decoding ends after two
    let task: Value =
        serde_json::from_str(include_str!("../benches/local_model/qwen_call_task.json")).unwrap();
    let req: ModelRequest = serde_json::from_value(task["request"].clone()).unwrap();
    let (prompt, grammar) = call_branch(&req, "<think>\n\n</think>\n\n", "root ::= calls");
    let model = smollm2();
    let jumped = engine_run(&model, &prompt, &grammar, 160, JUMPED);
    let stepped = engine_run(&model, &prompt, &grammar, 160, STEPPED);
    assert_eq!(
        stepped.text.matches("<tool_call>").count(),
        2,
        "{}",
        stepped.text
    );
    same_tokens_in_fewer_steps(&jumped, &stepped, 2);
    // drafts from the context too: the second call's path is the first's
    let both = Decoding {
        jump_forward: true,
        drafts: true,
    };
    let drafted = engine_run(&model, &prompt, &grammar, 160, both);
    assert_eq!(drafted.tokens, stepped.tokens);
    assert!(
        drafted.steps < jumped.steps,
        "{} steps with drafts, {} without",
        drafted.steps,
        jumped.steps
    );
}

/// Jump-forward wrote what greedy decoding writes, token for token, in under a `factor`-th of
/// its steps.
fn same_tokens_in_fewer_steps(jumped: &EngineRun, stepped: &EngineRun, factor: usize) {
    assert_eq!(jumped.text, stepped.text);
    assert_eq!(jumped.tokens, stepped.tokens);
    assert!(
        jumped.steps * factor < stepped.steps,
        "{} steps with jump-forward, {} without",
        jumped.steps,
        stepped.steps
    );
}
