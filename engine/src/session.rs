//! One model serving completions one at a time: a prompt is read in batches (the caller
//! reports progress and may stop between them), then tokens are generated one by one, greedy
//! or sampled, under an optional grammar. What the cache already holds is reused: the longest
//! run of cached tokens whose text starts the new prompt is kept, even when the prompt's own
//! tokenization would split that text otherwise (the model's earlier reply, as it wrote it).

use crate::draft::Pacing;
use crate::gguf::Gguf;
use crate::grammar::{Grammar, GrammarState};
use crate::jump::Extensions;
use crate::model::{Architecture, KvCache, Model, Phases, ReadAt, Scratch, TensorSource};
use crate::sampling::Sampling;
use crate::tokenizer::{chat_template, Tokenizer};

mod step;

/// A loaded model with its cache.
pub struct Session {
    model: Model,
    tokenizer: Tokenizer,
    cache: KvCache,
    /// The tokens whose keys and values the cache holds, in order.
    cached: Vec<u32>,
    scratch: Scratch,
    logits: Vec<f32>,
    completion: Option<Completion>,
    /// The file's chat template (Jinja text), for the caller to render prompts with.
    chat_template: Option<String>,
    /// Whether what the grammar forces is appended without sampling (see
    /// [`Session::set_jump_forward`]).
    jump_forward: bool,
    /// Whether guesses from the context are read with the model's token under greedy decoding
    /// (see [`Session::set_drafts`]).
    drafts: bool,
    /// The logits of a pass with guesses, a row per token read (kept from pass to pass).
    draft_rows: Vec<f32>,
    /// The vocabulary sorted for jump-forward, once it is first needed.
    extensions: std::cell::OnceCell<Extensions>,
    /// The tokens the last (or current) completion generated (their count is held to its
    /// `max_tokens`; the repeat guard reads them).
    output: Vec<u32>,
}

/// The completion in progress.
struct Completion {
    /// Prompt tokens not yet evaluated.
    pending: Vec<u32>,
    grammar: Option<(Grammar, GrammarState)>,
    sampling: Sampling,
    max_tokens: usize,
    /// When it guesses from the context (see [`crate::draft::Pacing`]).
    pacing: Pacing,
}

/// Bytes of a file read first for its header (doubled until the tensor table fits: SmolLM2's
/// header, with its vocabulary, is about 2 MB).
const FIRST_HEADER_READ: usize = 1 << 20;

/// Why a model could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The file is a model this engine does not run (another runtime may): the reason.
    Unsupported(String),
    /// The file is broken or inconsistent: the reason.
    Invalid(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Unsupported(why) => {
                write!(f, "the engine does not run this model: its {why}")
            }
            LoadError::Invalid(why) => f.write_str(why),
        }
    }
}

/// Why this engine cannot run the model in `file`, or `None` when it can: its architecture,
/// tokenizer and tensor types.
pub fn unsupported(file: &Gguf) -> Option<String> {
    let arch = file.string("general.architecture").unwrap_or_default();
    if Architecture::from_name(&arch).is_none() {
        return Some(format!(
            "architecture {arch:?} (it runs llama, qwen2, qwen3 and gemma3)"
        ));
    }
    let template = file.string("tokenizer.chat_template").unwrap_or_default();
    let chatml = template.contains("<|im_start|>") && template.contains("<|im_end|>");
    let gemma = template.contains("<start_of_turn>") && template.contains("<end_of_turn>");
    if !(chatml || gemma) {
        return Some("chat template (it renders ChatML and Gemma's turns)".into());
    }
    let tokenizer = file.string("tokenizer.ggml.model").unwrap_or_default();
    match tokenizer.as_str() {
        "gpt2" => {
            let pre = file.string("tokenizer.ggml.pre").unwrap_or_default();
            if crate::tokenizer::PreTokenizer::from_name(&pre).is_err() {
                return Some(format!("pre-tokenizer {pre:?}"));
            }
        }
        "llama" => {}
        _ => {
            return Some(format!(
                "tokenizer {tokenizer:?} (it runs byte-level BPE, \"gpt2\", and SentencePiece, \"llama\")"
            ))
        }
    }
    file.tensors()
        .iter()
        .find(|t| t.kind.block().is_none())
        .map(|t| format!("tensor type {} ({})", t.kind.name(), t.name))
}

/// What starting a completion found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromptPlan {
    /// Tokens in the whole prompt (reused ones included).
    pub total: usize,
    /// Tokens reused from the cache.
    pub reused: usize,
}

/// One generation step's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A token was generated: its bytes (possibly part of a UTF-8 character).
    Token(Vec<u8>),
    /// Generation ended: an end-of-generation token, or the grammar admits nothing more.
    Stop,
    /// Generation reached its token limit.
    Length,
}

impl Session {
    /// Loads a model and its tokenizer from a GGUF file in memory, with room for `context`
    /// tokens (clamped to what the model was trained for), its work split across `threads`
    /// threads.
    pub fn load(bytes: &[u8], context: usize, threads: usize) -> Result<Session, LoadError> {
        let file = Gguf::parse(bytes).map_err(|e| LoadError::Invalid(e.to_string()))?;
        Session::from_parts(&file, &file, context, threads)
    }

    /// [`Session::load`] from a file of `file_len` bytes that `read(offset, buffer)` fills
    /// buffers from: the header first (more of it until the tensor table is whole), then one
    /// tensor at a time, so the file never has to be in memory beside the packed weights.
    pub fn load_reading(
        file_len: usize,
        read: impl Fn(usize, &mut [u8]) -> Result<(), String>,
        context: usize,
        threads: usize,
    ) -> Result<Session, LoadError> {
        let mut header = vec![0; FIRST_HEADER_READ.min(file_len)];
        loop {
            read(0, &mut header).map_err(LoadError::Invalid)?;
            match Gguf::parse_prefix(&header, file_len) {
                Ok(Some(file)) => {
                    return Session::from_parts(&file, &ReadAt(&read), context, threads)
                }
                Ok(None) => header.resize((header.len() * 2).min(file_len), 0),
                Err(e) => return Err(LoadError::Invalid(e.to_string())),
            }
        }
    }

    fn from_parts(
        file: &Gguf,
        source: &dyn TensorSource,
        context: usize,
        threads: usize,
    ) -> Result<Session, LoadError> {
        let chat_template = chat_template(file).map_err(LoadError::Invalid)?;
        unsupported(file).map_or(Ok(()), |why| Err(LoadError::Unsupported(why)))?;
        let model = Model::from_parts(file, source).map_err(LoadError::Invalid)?;
        let tokenizer =
            Tokenizer::from_gguf(file).map_err(|e| LoadError::Invalid(e.to_string()))?;
        let context = context.clamp(16, model.config.trained_context.max(16));
        let cache = KvCache::new(&model.config, context);
        Ok(Session {
            chat_template,
            model,
            tokenizer,
            cache,
            cached: Vec::new(),
            scratch: Scratch::with_threads(threads),
            logits: Vec::new(),
            completion: None,
            jump_forward: true,
            drafts: true,
            draft_rows: Vec::new(),
            extensions: std::cell::OnceCell::new(),
            output: Vec::new(),
        })
    }

    /// Threads the work is split across, and whether all of them are running yet.
    pub fn threads(&self) -> (usize, bool) {
        (
            self.scratch.work.pool.threads(),
            self.scratch.work.pool.ready(),
        )
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Turns timing by phase on (with a clock in milliseconds) or off; clears the totals.
    pub fn set_clock(&mut self, clock: Option<fn() -> f64>) {
        self.scratch.work.set_clock(clock);
    }

    /// Time spent by phase since the clock was set.
    pub fn phases(&self) -> Phases {
        self.scratch.work.phases()
    }

    /// The model as JSON: its shape, context, chat template and the kernels in use.
    pub fn describe(&self) -> String {
        let c = &self.model.config;
        let template = match &self.chat_template {
            Some(text) => json_string(text),
            None => "null".into(),
        };
        format!(
            "{{\"architecture\":{},\"layers\":{},\"embedding\":{},\"heads\":{},\"kv_heads\":{},\"vocab\":{},\"context\":{},\"threads\":{},\"chat_template\":{template},\"kernels\":{},\"activations\":{}}}",
            json_string(c.architecture.name()),
            c.layers,
            c.embedding,
            c.heads,
            c.kv_heads,
            c.vocab,
            self.cache.capacity(),
            self.scratch.work.pool.threads(),
            json_string(crate::kernels::kernel_name()),
            json_string(crate::kernels::encoding::encoding().name()),
        )
    }

    /// Starts a completion of `prompt` (text with control tokens written out, e.g.
    /// `<|im_start|>`), constrained by GBNF `grammar` when given. Returns how many prompt tokens
    /// there are and how many the cache already holds.
    pub fn begin(
        &mut self,
        prompt: &str,
        grammar: Option<&str>,
        sampling: Sampling,
        max_tokens: usize,
    ) -> Result<PromptPlan, String> {
        self.completion = None;
        let grammar = match grammar {
            Some(text) => {
                let grammar = Grammar::parse(text).map_err(|e| format!("grammar: {e}"))?;
                let state = GrammarState::new(&grammar);
                Some((grammar, state))
            }
            None => None,
        };
        let (kept, rest) = self.reusable_prefix(prompt.as_bytes());
        let rest = String::from_utf8_lossy(rest);
        let mut pending = self.tokenizer.encode(&rest, true);
        if kept == 0 {
            if let Some(bos) = self.tokenizer.bos().filter(|_| self.tokenizer.add_bos()) {
                pending.insert(0, bos);
            }
        }
        // The last prompt token is always evaluated again: its logits start the generation.
        let kept = if pending.is_empty() && kept > 0 {
            pending.push(self.cached[kept - 1]);
            kept - 1
        } else {
            kept
        };
        if pending.is_empty() {
            return Err("the prompt is empty".into());
        }
        let total = kept + pending.len();
        if total + max_tokens.min(1) > self.cache.capacity() {
            return Err(format!(
                "the prompt is {total} tokens, more than the context of {} holds",
                self.cache.capacity()
            ));
        }
        self.cache.truncate(kept);
        self.cached.truncate(kept);
        self.output.clear();
        self.completion = Some(Completion {
            pending,
            grammar,
            sampling,
            max_tokens,
            pacing: Pacing::default(),
        });
        Ok(PromptPlan {
            total,
            reused: kept,
        })
    }

    /// How many cached tokens spell a prefix of `prompt`, and the rest of the prompt after them.
    fn reusable_prefix<'p>(&self, prompt: &'p [u8]) -> (usize, &'p [u8]) {
        let mut at = 0;
        let mut kept = 0;
        for token in &self.cached {
            let bytes = self.tokenizer.token_bytes(*token);
            if bytes.is_empty() || !prompt[at..].starts_with(bytes) {
                break;
            }
            at += bytes.len();
            kept += 1;
        }
        // never split a UTF-8 character between the kept tokens and the rest
        while kept > 0 && at < prompt.len() && (prompt[at] & 0xc0) == 0x80 {
            kept -= 1;
            at -= self.tokenizer.token_bytes(self.cached[kept]).len();
        }
        (kept, &prompt[at..])
    }

    /// Evaluates up to `batch` more prompt tokens; returns how many remain.
    pub fn feed(&mut self, batch: usize) -> Result<usize, String> {
        let Some(completion) = self.completion.as_mut() else {
            return Err("no completion is in progress".into());
        };
        let take = batch.max(1).min(completion.pending.len());
        if take == 0 {
            return Ok(0);
        }
        let chunk: Vec<u32> = completion.pending.drain(..take).collect();
        let last = completion.pending.is_empty();
        let logits = if last { Some(&mut self.logits) } else { None };
        if let Err(error) = self
            .model
            .forward(&chunk, &mut self.cache, &mut self.scratch, logits)
        {
            self.completion = None;
            return Err(error);
        }
        self.cached.extend_from_slice(&chunk);
        Ok(completion.pending.len())
    }

    /// Tokens the current (or the last) completion generated, those a jump-forward appended
    /// included: a step may append several.
    pub fn generated(&self) -> usize {
        self.output.len()
    }

    /// The tokens the current (or the last) completion generated, in order.
    pub fn generated_tokens(&self) -> &[u32] {
        &self.output
    }

    /// Turns jump-forward decoding on (the default) or off: with it, where the grammar admits
    /// exactly one continuation (a tool call's `","arguments":{"`, a closing `"}}`), its
    /// tokens are appended without sampling them and read in the next forward pass with the
    /// token before them; but for a token at whose place an admitted token could reach past
    /// the forced text (` "/` where it ends in ` "`): that one the model chooses. Once read,
    /// the forced tokens are checked against the model's own greedy choices and the jump is
    /// cut at the first that differs, so greedy decoding writes the same tokens either way.
    pub fn set_jump_forward(&mut self, on: bool) {
        self.jump_forward = on;
    }

    /// Turns drafts from the context on (the default) or off: with them, under greedy decoding,
    /// the tokens that followed the context's last few tokens where they occurred before are
    /// read with the model's token in one pass, and kept while they are what greedy decoding
    /// writes at their places (see [`crate::draft`]), so the reply is the same either way.
    pub fn set_drafts(&mut self, on: bool) {
        self.drafts = on;
    }

    /// The `k` highest logits of the next token as `[[id, logit], …]` JSON, once the prompt is
    /// read (for checking the numbers against another runtime's).
    pub fn top_logits(&self, k: usize) -> String {
        let mut order: Vec<usize> = (0..self.logits.len()).collect();
        order.sort_unstable_by(|a, b| self.logits[*b].total_cmp(&self.logits[*a]));
        let pairs: Vec<String> = order
            .iter()
            .take(k)
            .map(|id| format!("[{id},{}]", self.logits[*id]))
            .collect();
        format!("[{}]", pairs.join(","))
    }

    /// Drops the completion in progress (the cache keeps what was evaluated).
    pub fn cancel(&mut self) {
        self.completion = None;
    }
}

/// `text` as a JSON string literal.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
