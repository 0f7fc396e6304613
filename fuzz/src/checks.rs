//! One function per fuzz target: runs the parser on one input and panics only when the parser
//! misbehaves. The fuzz targets call these; so do the regression tests that replay the corpora
//! and every input a fuzzer ever crashed on (`tests/fuzz_regressions.rs` includes this file).

use tabloop_engine::gguf::Gguf;
use tabloop_engine::grammar::{Grammar, GrammarState};
use tabloop_engine::model::Model;
use tabloop_engine::sampling::Sampling;
use tabloop_engine::session::Session;
use tabloop_engine::tokenizer::Tokenizer;

use super::gguf_writer::{gguf, Meta};

/// The GGUF reader and tensor loader: whole-file and streamed loading agree, a file that loads
/// can be prompted, and nothing panics.
pub fn check_gguf(data: &[u8]) {
    let whole = Gguf::parse(data);
    // Streamed: the header read from a prefix (cut at every power of two) as the worker does.
    let mut cut = 1;
    while cut < data.len() {
        if let (Ok(Some(prefix)), Ok(file)) = (Gguf::parse_prefix(&data[..cut], data.len()), &whole)
        {
            assert_eq!(
                prefix.tensors(),
                file.tensors(),
                "a prefix parse disagrees with the whole file"
            );
        }
        cut *= 2;
    }
    let Ok(file) = whole else { return };
    for key in file.keys() {
        let _ = file.string(key);
        let _ = file.number(key);
        if let Some(array) = file.array(key) {
            let _ = array.strings();
            let _ = array.numbers();
        }
    }
    for tensor in file.tensors() {
        assert!(file.data(tensor).len() <= tensor.len);
    }
    let _ = Model::from_gguf(&file);
    let _ = Tokenizer::from_gguf(&file);
    let streamed = Session::load_reading(
        data.len(),
        |at, buf| {
            let end = at
                .checked_add(buf.len())
                .filter(|e| *e <= data.len())
                .ok_or("read past the end")?;
            buf.copy_from_slice(&data[at..end]);
            Ok(())
        },
        32,
        1,
    );
    let loaded = Session::load(data, 32, 1);
    assert_eq!(
        streamed.is_ok(),
        loaded.is_ok(),
        "streamed and whole loading disagree"
    );
    if let Ok(mut session) = loaded {
        if session
            .begin(
                "<|im_start|>user\nhi<|im_end|>\n",
                None,
                Sampling::Greedy,
                2,
            )
            .is_ok()
        {
            let _ = session.feed(64);
            let _ = session.next(0.5);
        }
    }
}

/// Bytes taken from the front of the input, as a fuzz target reads a structure.
struct Take<'a>(&'a [u8]);

impl<'a> Take<'a> {
    fn byte(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().map_or((0, &[][..]), |(f, r)| (*f, r));
        self.0 = rest;
        first
    }
    /// Up to the next 0xFF byte (or the end).
    fn field(&mut self) -> &'a [u8] {
        let end = self
            .0
            .iter()
            .position(|b| *b == 0xFF)
            .unwrap_or(self.0.len());
        let out = &self.0[..end];
        self.0 = self.0.get(end + 1..).unwrap_or(&[]);
        out
    }
}

const PRE_TOKENIZERS: [&str; 6] = [
    "smollm",
    "qwen2",
    "llama-bpe",
    "gpt-2",
    "default",
    "nonsense",
];

/// The tokenizer's loading and encoding: a vocabulary, merges, token types, scores and special
/// ids built from the input into a GGUF, then a text encoded; every id is in the vocabulary and
/// the ids' bytes are the text's (byte-level BPE without special tokens parsed).
pub fn check_tokenizer(data: &[u8]) {
    let mut input = Take(data);
    let flags = input.byte();
    let sentencepiece = flags & 1 == 1;
    let parse_special = flags & 2 == 2;
    let pre = PRE_TOKENIZERS[usize::from(input.byte()) % PRE_TOKENIZERS.len()];
    let count = usize::from(input.byte()) + 1;
    let text = String::from_utf8_lossy(input.field()).into_owned();
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    let mut types = Vec::new();
    let mut scores = Vec::new();
    for i in 0..count {
        if input.0.is_empty() {
            break;
        }
        let kind = input.byte();
        tokens.push(input.field().to_vec());
        types.push(i32::from(kind % 7));
        scores.push(-(i as f32) * 0.5);
    }
    // Every byte as a token too (as real byte-level vocabularies have), unless the input says not.
    if flags & 4 == 0 {
        let alphabet = byte_level_alphabet();
        for b in alphabet {
            tokens.push(b.into_bytes());
            types.push(1);
            scores.push(-1000.0);
        }
    }
    let mut merges = Vec::new();
    while !input.0.is_empty() && merges.len() < 256 {
        merges.push(input.field().to_vec());
    }
    // Where a merge makes a symbol that is no token, llama.cpp (and the engine, id for id) falls
    // back to the single-byte tokens of its spelling and drops the rest: text comes back whole
    // only when every merge's result is a token.
    let closed = merges
        .iter()
        .all(|m| match m.iter().position(|b| *b == b' ') {
            Some(i) => {
                let joined: Vec<u8> = m[..i].iter().chain(&m[i + 1..]).copied().collect();
                m[i + 1..].contains(&b' ') || tokens.contains(&joined)
            }
            None => true,
        });
    let mut meta = vec![
        (
            "tokenizer.ggml.model",
            Meta::Str(if sentencepiece {
                b"llama".to_vec()
            } else {
                b"gpt2".to_vec()
            }),
        ),
        ("tokenizer.ggml.pre", Meta::Str(pre.as_bytes().to_vec())),
        ("tokenizer.ggml.tokens", Meta::Strings(tokens.clone())),
        ("tokenizer.ggml.token_type", Meta::I32s(types.clone())),
        ("tokenizer.ggml.scores", Meta::F32s(scores)),
        ("tokenizer.ggml.merges", Meta::Strings(merges)),
        (
            "tokenizer.ggml.add_space_prefix",
            Meta::Bool(flags & 8 == 8),
        ),
    ];
    if flags & 16 == 16 {
        meta.push(("tokenizer.ggml.bos_token_id", Meta::U32(u32::from(flags))));
        meta.push((
            "tokenizer.ggml.eos_token_id",
            Meta::U32(tokens.len() as u32 + u32::from(flags & 32)),
        ));
    }
    let bytes = gguf(&meta);
    let Ok(file) = Gguf::parse(&bytes) else {
        panic!("the writer wrote a file the reader refuses")
    };
    let Ok(tokenizer) = Tokenizer::from_gguf(&file) else {
        return;
    };
    let ids = tokenizer.encode(&text, parse_special);
    let mut spelled = Vec::new();
    for id in &ids {
        assert!(
            (*id as usize) < tokenizer.len(),
            "id {id} is outside a vocabulary of {}",
            tokenizer.len()
        );
        spelled.extend_from_slice(tokenizer.token_bytes(*id));
        let _ = tokenizer.is_control(*id);
        let _ = tokenizer.is_end_of_generation(*id);
    }
    // ...and when every token is a normal one (control, unused and other kinds spell nothing).
    let normal = types.iter().all(|t| *t == 1);
    if !sentencepiece && !parse_special && flags & 4 == 0 && pre != "nonsense" && closed && normal {
        assert_eq!(
            String::from_utf8_lossy(&spelled),
            text,
            "byte-level BPE must spell the text back"
        );
    }
}

/// GPT-2's byte-level alphabet: the 256 characters bytes are written as.
fn byte_level_alphabet() -> Vec<String> {
    let mut out = Vec::with_capacity(256);
    let mut extra = 0;
    for b in 0u32..256 {
        let printable =
            (33..=126).contains(&b) || (161..=172).contains(&b) || (174..=255).contains(&b);
        let c = if printable {
            b
        } else {
            extra += 1;
            255 + extra
        };
        out.push(char::from_u32(c).map(String::from).unwrap_or_default());
    }
    out
}

/// The GBNF compiler and matcher: a grammar (the input up to its first NUL) is compiled, then
/// the rest is fed in chunks; what the matcher says it accepts it must accept, and bytes it
/// forces must be accepted.
pub fn check_grammar(data: &[u8]) {
    let split = data.iter().position(|b| *b == 0).unwrap_or(data.len());
    let Ok(text) = std::str::from_utf8(&data[..split]) else {
        return;
    };
    let Ok(grammar) = Grammar::parse(text) else {
        return;
    };
    let mut state = GrammarState::new(&grammar);
    let forced = state.forced_bytes(&grammar, 64);
    if !forced.is_empty() {
        assert!(
            state.accepts(&grammar, &forced),
            "the matcher refuses bytes it forces"
        );
    }
    let rest = data.get(split + 1..).unwrap_or(&[]);
    for chunk in rest.chunks(3) {
        let accepts = state.accepts(&grammar, chunk);
        let advanced = state.advance(&grammar, chunk);
        assert_eq!(
            accepts,
            advanced.is_ok(),
            "accepts() and advance() disagree on {chunk:?}"
        );
        if advanced.is_err() {
            break;
        }
        let _ = state.is_complete();
        let _ = state.can_continue();
        let forced = state.forced_bytes(&grammar, 16);
        if !forced.is_empty() {
            assert!(
                state.accepts(&grammar, &forced),
                "the matcher refuses bytes it forces"
            );
        }
    }
}

/// The SSE parser and both providers' stream and reply JSON: the input is a byte stream cut at
/// the lengths its first bytes give; every event goes to the OpenAI and the Anthropic stream
/// readers, and then to the custom provider's chunk reader and the error-body reader.
pub fn check_sse_providers(data: &[u8]) {
    use tabloop::providers::{
        parse_error_body, AnthropicStream, CompletionAssembler, OpenAiStream, SseParser,
    };
    let (cuts, body) = data.split_at(data.len().min(4));
    let mut parser = SseParser::default();
    let mut events = Vec::new();
    let mut rest = body;
    let mut i = 0;
    while !rest.is_empty() {
        let n = usize::from(cuts.get(i % cuts.len().max(1)).copied().unwrap_or(7))
            .max(1)
            .min(rest.len());
        events.extend(parser.push(&rest[..n]));
        rest = &rest[n..];
        i += 1;
    }
    events.extend(parser.finish());
    let _ = parser.ended_mid_event();
    let _ = parser.retry_ms();
    let mut openai = OpenAiStream::default();
    let mut anthropic = AnthropicStream::default();
    let mut custom = CompletionAssembler::default();
    let (mut openai_ok, mut anthropic_ok) = (true, true);
    for event in &events {
        openai_ok = openai_ok && openai.push(event).is_ok();
        anthropic_ok = anthropic_ok && anthropic.push(event).is_ok();
        let _ = custom.push_chunk_text(&event.data);
    }
    let _ = openai.finish();
    let _ = anthropic.finish();
    let _ = custom.finish(!events.is_empty());
    let text = String::from_utf8_lossy(body);
    let _ = parse_error_body(429, &text, Some(1000));
}

/// MCP's `sampling/createMessage` as the runtime reads it: parameters from any server become a
/// model request within the token cap, and a reply becomes the result sent back.
pub fn check_mcp_sampling(data: &[u8]) {
    use tabloop::protocol::{FinishReason, ModelReply, Usage};
    use tabloop::runtime::sampling::{
        sampling_request, sampling_result, SamplingParams, MAX_SAMPLING_TOKENS,
    };
    let Ok(params) = serde_json::from_slice::<SamplingParams>(data) else {
        return;
    };
    if let Ok(request) = sampling_request(&params) {
        assert!(
            request.tools.is_empty(),
            "a sampling request carries no tools"
        );
        assert!(
            request.max_output_tokens <= MAX_SAMPLING_TOKENS,
            "a server got more tokens than the cap"
        );
        let reply = ModelReply {
            text: String::from_utf8_lossy(data).into_owned(),
            tool_calls: Vec::new(),
            finish: FinishReason::EndTurn,
            usage: Usage::default(),
            model: String::new(),
            reasoning: String::new(),
        };
        let result = sampling_result(&reply, "fallback");
        assert!(serde_json::to_string(&result).is_ok());
    }
}

/// The markdown renderer: its HTML holds only its own tags and attributes, every `<` of the
/// text is escaped, and a link or image source is http(s) or mailto (tests/ui_markdown.rs checks
/// the hostile corpus with the same rules, fuzz/src/inert_html.rs).
pub fn check_markdown(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let html = tabloop::view::render_markdown(&text);
    let bad = super::inert_html::violations(&html);
    assert!(bad.is_empty(), "{bad:?} in {html:?} for {text:?}");
}
