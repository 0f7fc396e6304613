//! Completions on the bundled SmolLM2-135M through the session, as the worker drives it: a
//! model read one tensor at a time, the cache reused through the model's own reply, a grammar
//! ending the reply, the token limit.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::cell::RefCell;

use pretty_assertions::assert_eq;
use tabloop_engine::sampling::Sampling;
use tabloop_engine::session::{PromptPlan, Session, Step};

const PROMPT: &str = "<|im_start|>system\nReply with one JSON object only.<|im_end|>\n<|im_start|>user\nRead the file notes.txt.<|im_end|>\n<|im_start|>assistant\n";
const GRAMMAR: &str = r#"root ::= "{\"tool\":\"read_file\",\"arguments\":{\"path\":" string "}}"
string ::= "\"" [^"\\\x00-\x1F]* "\"""#;

fn session() -> Session {
    Session::load(support::model_bytes(), 1024, 1).unwrap()
}

/// What a completion did.
struct Completion {
    plan: PromptPlan,
    text: String,
    /// Tokens generated (a step may append several: jump-forward).
    tokens: usize,
    /// Those tokens.
    ids: Vec<u32>,
    /// Steps that wrote something.
    steps: usize,
    /// Tokens the last of them appended (with what the grammar forced after it).
    last_step: usize,
    /// What each step wrote.
    pieces: Vec<String>,
    end: Step,
}

/// Reads the prompt and generates until the end.
fn complete(session: &mut Session, prompt: &str, grammar: Option<&str>, max: usize) -> Completion {
    let plan = session
        .begin(prompt, grammar, Sampling::Greedy, max)
        .unwrap();
    while session.feed(64).unwrap() > 0 {}
    let mut text = Vec::new();
    let (mut steps, mut last_step, mut pieces) = (0, 0, Vec::new());
    loop {
        let before = session.generated();
        match session.next(0.0).unwrap() {
            Step::Token(bytes) => {
                pieces.push(String::from_utf8_lossy(&bytes).into_owned());
                text.extend(bytes);
                steps += 1;
                last_step = session.generated() - before;
            }
            end @ (Step::Stop | Step::Length) => {
                let text = String::from_utf8(text).unwrap();
                return Completion {
                    plan,
                    text,
                    tokens: session.generated(),
                    ids: session.generated_tokens().to_vec(),
                    steps,
                    last_step,
                    pieces,
                    end,
                };
            }
        }
    }
}

#[test]
fn a_grammar_shapes_the_reply_and_ends_it() {
    let mut session = session();
    let done = complete(&mut session, PROMPT, Some(GRAMMAR), 64);
    assert_eq!(done.plan.reused, 0);
    assert_eq!(done.end, Step::Stop);
    let text = done.text;
    assert!(
        text.starts_with(r#"{"tool":"read_file","arguments":{"path":""#),
        "{text}"
    );
    assert!(text.ends_with(r#""}}"#), "{text}");
}

#[test]
fn the_next_prompt_reuses_the_cache_through_the_model_s_own_reply() {
    let mut session = session();
    let first = complete(&mut session, PROMPT, Some(GRAMMAR), 64);
    let reply = &first.text;
    let next = format!("{PROMPT}{reply}<|im_end|>\n<|im_start|>user\nResult of read_file:\nhello<|im_end|>\n<|im_start|>assistant\n");
    let second = complete(&mut session, &next, Some(GRAMMAR), 64);
    // the first prompt and the reply as the model wrote it, but for the reply's last token
    // (never evaluated: the grammar ended there), though jump-forward forced the call's end:
    // that step was read to check its forced tokens against the model's own
    assert!(first.last_step > 1, "the call's end is forced");
    assert_eq!(second.plan.reused, first.plan.total + first.tokens - 1);
    assert!(second.plan.total > second.plan.reused);
}

#[test]
fn a_reply_stops_at_its_token_limit() {
    let mut session = session();
    let done = complete(&mut session, PROMPT, None, 3);
    assert_eq!(done.end, Step::Length);
    assert_eq!(done.tokens, 3, "{}", done.text);
}

#[test]
fn a_model_read_one_tensor_at_a_time_answers_as_the_one_in_memory() {
    let bytes = support::model_bytes();
    let reads = RefCell::new(Vec::new());
    let read = |offset: usize, buffer: &mut [u8]| {
        reads.borrow_mut().push((offset, buffer.len()));
        buffer.copy_from_slice(&bytes[offset..offset + buffer.len()]);
        Ok(())
    };
    let mut reading = Session::load_reading(bytes.len(), read, 1024, 1).unwrap();
    let reads = reads.into_inner();
    // the header took two reads (1 MiB, then 2 MiB: the vocabulary is larger than the first),
    // then one read per tensor, none of them the whole file
    assert_eq!(reads[..2], [(0, 1 << 20), (0, 2 << 20)]);
    assert_eq!(reads.len() - 2, 272, "one read per tensor");
    assert!(reads.iter().all(|(_, len)| *len < bytes.len() / 4));
    let mut in_memory = session();
    let ours = complete(&mut reading, PROMPT, Some(GRAMMAR), 64).text;
    let theirs = complete(&mut in_memory, PROMPT, Some(GRAMMAR), 64).text;
    assert_eq!(ours, theirs);
    assert_eq!(reading.top_logits(5), in_memory.top_logits(5));
}

#[test]
fn a_failing_read_is_an_error_naming_what_was_read() {
    let bytes = support::model_bytes();
    let read = |offset: usize, buffer: &mut [u8]| {
        if offset > 4 << 20 {
            return Err("the file went away".to_string());
        }
        buffer.copy_from_slice(&bytes[offset..offset + buffer.len()]);
        Ok(())
    };
    let error = Session::load_reading(bytes.len(), read, 1024, 1)
        .err()
        .unwrap();
    assert!(error.to_string().starts_with("reading tensor "), "{error}");
    assert!(
        error.to_string().ends_with(": the file went away"),
        "{error}"
    );
}

/// The bundled file with the string value of metadata `key` changed at its start to `to`
/// (of the same length).
fn patched(key: &str, from: &str, to: &str) -> Vec<u8> {
    let mut bytes = support::model_bytes().to_vec();
    let at = bytes
        .windows(key.len())
        .position(|w| w == key.as_bytes())
        .unwrap();
    // the key, then the value's type (u32) and length (u64), then the text
    let text = at + key.len() + 4 + 8;
    let found = bytes[text..]
        .windows(from.len())
        .position(|w| w == from.as_bytes())
        .unwrap();
    bytes[text + found..text + found + to.len()].copy_from_slice(to.as_bytes());
    bytes
}

/// [`patched`] for every occurrence within the value.
fn patched_all(key: &str, from: &str, to: &str) -> Vec<u8> {
    let mut bytes = support::model_bytes().to_vec();
    let at = bytes
        .windows(key.len())
        .position(|w| w == key.as_bytes())
        .unwrap();
    let len_at = at + key.len() + 4;
    let len = u64::from_le_bytes(bytes[len_at..len_at + 8].try_into().unwrap()) as usize;
    let text = len_at + 8;
    let value = String::from_utf8(bytes[text..text + len].to_vec()).unwrap();
    let changed = value.replace(from, to);
    assert_eq!(changed.len(), value.len());
    bytes[text..text + len].copy_from_slice(changed.as_bytes());
    bytes
}

#[test]
fn a_model_the_engine_does_not_run_is_refused_with_the_reason() {
    let refusal = |bytes: Vec<u8>| Session::load(&bytes, 1024, 1).err().unwrap().to_string();
    assert_eq!(
        refusal(patched("general.architecture", "llama", "phi3_")),
        "the engine does not run this model: its architecture \"phi3_\" (it runs llama, qwen2, qwen3 and gemma3)"
    );
    assert_eq!(
        refusal(patched_all(
            "tokenizer.chat_template",
            "<|im_start|>",
            "<|im_begin|>"
        )),
        "the engine does not run this model: its chat template (it renders ChatML and Gemma's turns)"
    );
    assert_eq!(
        refusal(patched("tokenizer.ggml.pre", "smollm", "falcon")),
        "the engine does not run this model: its pre-tokenizer \"falcon\""
    );
}

/// The benchmark's tool task (benches/local_model/workload.mjs) as the tab renders it.
const TOOL_PROMPT: &str = "<|im_start|>system\nReply with one JSON object only.\nTo call a tool: {\"tool\":\"<name>\",\"arguments\":{...}}\nTo answer the user: {\"tool\":\"answer\",\"arguments\":{\"text\":\"<answer>\"}}\nTools:\n- vfs: Virtual filesystem stored in the browser. Arguments: op* = read (path) | write (path, content) | list (path)\n(* = required)<|im_end|>\n<|im_start|>user\nUse the vfs tool to write the text hello into the file /notes.txt.<|im_end|>\n<|im_start|>assistant\n";
const TOOL_GRAMMAR: &str = r#"root ::= call0 | final
final ::= "{\"tool\":\"answer\",\"arguments\":{\"text\":" string "}}"
r0 ::= "{" "\"op\":" "\"read\"" "," "\"path\":" string "}"
r1 ::= "{" "\"op\":" "\"write\"" "," "\"path\":" string "," "\"content\":" string "}"
r2 ::= "{" "\"op\":" "\"list\"" "," "\"path\":" string "}"
call0 ::= "{\"tool\":\"vfs\",\"arguments\":" (r0 | r1 | r2) "}"
string ::= "\"" char* "\""
char ::= [^"\\\x7F\x00-\x1F] | "\\" ["\\bfnrt]"#;

#[test]
fn jump_forward_writes_the_same_call_in_fewer_steps() {
    let mut session = session();
    // jump-forward alone (drafts from the context have a test of their own)
    session.set_drafts(false);
    let jumped = complete(&mut session, TOOL_PROMPT, Some(TOOL_GRAMMAR), 96);
    session.set_jump_forward(false);
    let stepped = complete(&mut session, TOOL_PROMPT, Some(TOOL_GRAMMAR), 96);
    assert_eq!(
        stepped.text,
        r#"{"tool":"vfs","arguments":{"op":"write","path":"/notes.txt","content":"Hello, World!"}}"#
    );
    assert_eq!(jumped.text, stepped.text);
    // token for token what greedy decoding writes, not the tokenizer's split of forced text
    assert_eq!(jumped.ids, stepped.ids);
    assert_eq!((jumped.end, stepped.end), (Step::Stop, Step::Stop));
    // one step per sampled token: the forced stretches ride along with the token before them
    assert!(
        jumped.steps * 2 < stepped.steps,
        "{} steps with jump-forward, {} without",
        jumped.steps,
        stepped.steps
    );
    // every token counted, forced ones included
    assert_eq!(stepped.tokens, stepped.steps);
    assert!(jumped.tokens > jumped.steps);
}

/// A task whose answer repeats what the prompt holds: what drafts from the context are for.
const QUOTE_PROMPT: &str = "<|im_start|>system\nYou are tabloop, an agent in a browser tab.<|im_end|>\n<|im_start|>user\nI read the file /notes.txt for you. It says:\n\nBuy milk and eggs on Tuesday. Call Anna about the garden fence. The train to Leeds leaves at 9:40 from platform 3.\n\nRepeat the file's text back to me word for word.<|im_end|>\n<|im_start|>assistant\n";

#[test]
fn drafts_from_the_context_write_the_same_reply_in_fewer_steps() {
    let mut session = session();
    let drafted = complete(&mut session, QUOTE_PROMPT, None, 48);
    session.set_drafts(false);
    let plain = complete(&mut session, QUOTE_PROMPT, None, 48);
    assert!(
        plain
            .text
            .starts_with("Buy milk and eggs on Tuesday. Call Anna"),
        "{}",
        plain.text
    );
    // token for token what greedy decoding writes without them
    assert_eq!(drafted.ids, plain.ids);
    assert_eq!(drafted.text, plain.text);
    assert_eq!((drafted.end, plain.end), (Step::Length, Step::Length));
    assert_eq!(plain.steps, plain.tokens);
    assert!(
        drafted.steps * 3 < plain.steps * 2,
        "{} steps with drafts, {} without",
        drafted.steps,
        plain.steps
    );
}

#[test]
fn a_path_the_task_named_is_guessed_from_its_first_token() {
    let mut session = session();
    let drafted = complete(&mut session, TOOL_PROMPT, Some(TOOL_GRAMMAR), 96);
    // The task says "/notes.txt" after " file", the call after `"path":"`: only the one
    // token `notes` matches, and the spare guesses after it (`.` `txt`) ride in its pass.
    assert!(
        drafted
            .pieces
            .iter()
            .any(|piece| piece.starts_with("notes.txt")),
        "{:?}",
        drafted.pieces
    );
}

#[test]
fn drafts_under_a_grammar_write_the_same_call_as_sampling_every_token() {
    let mut session = session();
    let drafted = complete(&mut session, TOOL_PROMPT, Some(TOOL_GRAMMAR), 96);
    session.set_drafts(false);
    session.set_jump_forward(false);
    let stepped = complete(&mut session, TOOL_PROMPT, Some(TOOL_GRAMMAR), 96);
    assert_eq!(drafted.ids, stepped.ids);
    assert_eq!(drafted.text, stepped.text);
    assert_eq!((drafted.end, stepped.end), (Step::Stop, Step::Stop));
}
