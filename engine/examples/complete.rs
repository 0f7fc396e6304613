//! Runs one completion natively on the engine, as its worker does in the tab, and prints what it
//! wrote: for trying a prompt or grammar on the engine itself (scripts/scenarios-native.sh runs
//! native llama.cpp instead).
//!
//!     cargo run --release -p tabloop-engine --example complete -- MODEL.gguf REQUEST.json
//!
//! REQUEST.json: `{"prompt": "<|im_start|>…", "grammar": "root ::= …" | null, "max_tokens": 64}`.
//! Only the three fields are read, with a minimal reader (the engine has no JSON dependency).
//! `BATCH=n` reads the prompt n tokens at a time (default 512); `SHOW_TOP=k` prints the k (five
//! if not a number) highest logits before each token (where a choice is a near-tie, a slightly different
//! computation may go the other way). `TABLOOP_ENGINE_ACTIVATIONS=7-bit` (or `8-bit (read
//! signed)`, `8-bit sign-magnitude`) computes with the activations a browser on another CPU uses,
//! or one asks for by name. `JUMP_FORWARD=0` samples every
//! token, even where the grammar admits one continuation only; `DRAFTS=0` reads no guesses from
//! the context with the model's token. `SHOW_STEPS=1` prints what each
//! step wrote (a sampled token and what jump-forward appended after it), one step a line.

use tabloop_engine::sampling::Sampling;
use tabloop_engine::session::{Session, Step};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(model), Some(request)) = (args.next(), args.next()) else {
        return Err("usage: complete MODEL.gguf REQUEST.json".into());
    };
    let bytes = std::fs::read(model)?;
    let request = std::fs::read_to_string(request)?;
    let prompt = string_field(&request, "prompt").ok_or("the request has no prompt")?;
    let grammar = string_field(&request, "grammar");
    let max_tokens = number_field(&request, "max_tokens").unwrap_or(64);
    let mut session = Session::load(&bytes, 4096, 2).map_err(|e| e.to_string())?;
    session.set_jump_forward(std::env::var("JUMP_FORWARD").as_deref() != Ok("0"));
    session.set_drafts(std::env::var("DRAFTS").as_deref() != Ok("0"));
    let plan = session.begin(&prompt, grammar.as_deref(), Sampling::Greedy, max_tokens)?;
    let batch = std::env::var("BATCH")
        .ok()
        .and_then(|b| b.parse().ok())
        .unwrap_or(512);
    while session.feed(batch)? > 0 {}
    let mut text = Vec::new();
    let show = std::env::var("SHOW_TOP")
        .ok()
        .map(|n| n.parse().unwrap_or(5));
    let show_steps = std::env::var("SHOW_STEPS").as_deref() == Ok("1");
    let started = std::time::Instant::now();
    let mut steps = 0;
    let finish = loop {
        if let Some(top) = show {
            eprintln!("{}", session.top_logits(top));
        }
        match session.next(0.0)? {
            Step::Token(bytes) => {
                steps += 1;
                if show_steps {
                    eprintln!("{:?}", String::from_utf8_lossy(&bytes));
                }
                text.extend_from_slice(&bytes);
            }
            Step::Stop => break "stop",
            Step::Length => break "length",
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{} prompt tokens, finish {finish}; {} bytes ({} tokens) written in {steps} steps, {seconds:.3} s ({:.1} bytes/s)",
        plan.total,
        text.len(),
        session.generated(),
        text.len() as f64 / seconds
    );
    println!("{}", String::from_utf8_lossy(&text));
    Ok(())
}

/// The JSON string value of `key` in `text` (escapes \" \\ \n \t \r \/ and \uXXXX).
fn string_field(text: &str, key: &str) -> Option<String> {
    let start = text.find(&format!("\"{key}\""))? + key.len() + 2;
    let rest = text[start..].trim_start().strip_prefix(':')?.trim_start();
    let mut chars = rest.strip_prefix('"')?.chars();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// The JSON number value of `key` in `text`.
fn number_field(text: &str, key: &str) -> Option<usize> {
    let start = text.find(&format!("\"{key}\""))? + key.len() + 2;
    let rest = text[start..].trim_start().strip_prefix(':')?.trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}
