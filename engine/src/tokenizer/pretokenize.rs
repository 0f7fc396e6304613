//! Pre-tokenizers: split text into the words BPE then works on, one hand-written matcher per
//! regex family, each following llama.cpp's own matcher for that regex (`unicode.cpp`,
//! `unicode_regex_split_custom_*`) rather than a regex engine, including where the two differ:
//! `\s+(?!\S)` only looks ahead within the current chunk, so in `smollm` a space run just
//! before a digit stays whole.

use super::unicode::{class, Class};
use super::TokenizerError;

/// Which of llama.cpp's pre-tokenizer regexes splits text into words before BPE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreTokenizer {
    /// GPT-2's `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`.
    Gpt2,
    /// `\p{N}` first (every number character a word of its own), then [`PreTokenizer::Gpt2`]
    /// within each stretch between them (SmolLM, StarCoder).
    Smollm,
    /// Qwen2's `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|
    /// ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`.
    Qwen2,
    /// Llama 3's regex: Qwen2's with `\p{N}{1,3}` (numbers in runs of up to three).
    Llama3,
}

/// What a `tokenizer.ggml.pre` name selects: the splitter, and whether a word that is a token
/// as a whole skips the merges (llama.cpp's `ignore_merges`).
pub(crate) struct PreConfig {
    pub(crate) splitter: PreTokenizer,
    pub(crate) ignore_merges: bool,
    /// llama.cpp's default for `add_bos_token` when the file does not say.
    pub(crate) add_bos: bool,
}

impl PreTokenizer {
    /// The pre-tokenizer llama.cpp uses for a `tokenizer.ggml.pre` name; an error naming it
    /// when it is none of the families implemented here.
    pub fn from_name(name: &str) -> Result<PreTokenizer, TokenizerError> {
        config(name).map(|c| c.splitter)
    }

    /// Splits `text` into words (they concatenate back to `text`).
    pub fn split(self, text: &str) -> Vec<&str> {
        let mut scratch = Vec::new();
        let mut ends = Vec::new();
        self.split_into(text, &mut scratch, &mut ends);
        let mut start = 0;
        ends.iter()
            .map(|&end| {
                let word = text.get(start..end).unwrap_or("");
                start = end;
                word
            })
            .collect()
    }

    /// Fills `ends` with the byte offset where each word of `text` ends (the last is
    /// `text.len()`; none for empty text). `scratch` is reused between calls.
    pub(crate) fn split_into(self, text: &str, scratch: &mut Vec<Cp>, ends: &mut Vec<usize>) {
        ends.clear();
        scratch.clear();
        scratch.extend(text.char_indices().map(|(at, c)| Cp {
            at,
            c,
            class: class(c),
        }));
        let mut out = Words {
            cps: scratch,
            text_len: text.len(),
            ends,
        };
        let n = scratch.len();
        match self {
            PreTokenizer::Gpt2 => gpt2(&mut out, 0, n),
            PreTokenizer::Qwen2 => modern(&mut out, 0, n, 1),
            PreTokenizer::Llama3 => modern(&mut out, 0, n, 3),
            PreTokenizer::Smollm => {
                let mut pos = 0;
                while pos < n {
                    let mut end = pos + 1;
                    if scratch[pos].class != Class::Number {
                        while end < n && scratch[end].class != Class::Number {
                            end += 1;
                        }
                        gpt2(&mut out, pos, end);
                    } else {
                        out.emit(end);
                    }
                    pos = end;
                }
            }
        }
    }
}

/// The pre-tokenizer settings for a `tokenizer.ggml.pre` name (llama.cpp's `llama-vocab.cpp`).
pub(crate) fn config(name: &str) -> Result<PreConfig, TokenizerError> {
    let (splitter, ignore_merges, add_bos) = match name {
        "llama3" | "llama-v3" | "llama-bpe" | "falcon3" | "falcon-h1" | "pixtral" | "midm-2.0"
        | "lfm2" | "jina-v5-nano" => (PreTokenizer::Llama3, true, true),
        "dbrx" | "smaug-bpe" => (PreTokenizer::Llama3, false, false),
        "qwen2" | "deepseek-r1-qwen" | "kormo" | "f2llmv2" | "megrez" | "stablelm2" | "hunyuan"
        | "solar-open" => (PreTokenizer::Qwen2, false, false),
        "smollm" | "starcoder" | "refact" | "command-r" | "codeshell" | "exaone" | "minerva-7b"
        | "mellum2" => (PreTokenizer::Smollm, false, false),
        // "gpt2" is not a name llama.cpp knows ("gpt-2" is); accepted as the obvious alias.
        "gpt2" | "gpt-2" | "phi-2" | "jina-es" | "jina-de" | "gigachat" | "jina-v2-es"
        | "jina-v2-de" | "a.x-4.0" | "mellum" | "modern-bert" | "mpt" | "olmo" | "jais"
        | "trillion" | "granite-docling" | "exaone4" | "jina-v1-en" | "jina-v2-code"
        | "roberta-bpe" => (PreTokenizer::Gpt2, false, false),
        other => {
            return Err(TokenizerError(format!(
                "pre-tokenizer {other:?} (tokenizer.ggml.pre) is not supported: this engine \
                 knows the gpt2, smollm, qwen2 and llama3 families"
            )))
        }
    };
    Ok(PreConfig {
        splitter,
        ignore_merges,
        add_bos,
    })
}

/// One character of the text being split, with its class.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cp {
    at: usize,
    c: char,
    class: Class,
}

/// The characters being split and the word ends found so far.
struct Words<'a> {
    cps: &'a [Cp],
    text_len: usize,
    ends: &'a mut Vec<usize>,
}

impl Words<'_> {
    /// Ends the current word before character `pos` (nothing when the word would be empty).
    fn emit(&mut self, pos: usize) {
        let at = self.cps.get(pos).map_or(self.text_len, |cp| cp.at);
        if self.ends.last().is_none_or(|&last| last < at) && at > 0 {
            self.ends.push(at);
        }
    }
}

/// Character `pos` when it lies before `end` (the chunk's end); `None` past it.
fn at(cps: &[Cp], pos: usize, end: usize) -> Option<Cp> {
    if pos < end {
        cps.get(pos).copied()
    } else {
        None
    }
}

fn class_at(cps: &[Cp], pos: usize, end: usize) -> Option<Class> {
    at(cps, pos, end).map(|cp| cp.class)
}

/// `'s|'t|'re|'ve|'m|'ll|'d` at `pos` (any case when `fold`): where the match ends.
fn contraction(cps: &[Cp], pos: usize, end: usize, fold: bool) -> Option<usize> {
    let lower = |p: usize| {
        at(cps, p, end).map(|cp| {
            if fold {
                cp.c.to_ascii_lowercase()
            } else {
                cp.c
            }
        })
    };
    if lower(pos) != Some('\'') {
        return None;
    }
    match (lower(pos + 1)?, lower(pos + 2)) {
        ('s' | 't' | 'm' | 'd', _) => Some(pos + 2),
        ('r', Some('e')) | ('v', Some('e')) | ('l', Some('l')) => Some(pos + 3),
        _ => None,
    }
}

/// The end of the whitespace run at `pos` under `\s+(?!\S)|\s+`: all of it when it reaches the
/// chunk's end or is one character, else all but its last character (left to the next word).
fn space_run(cps: &[Cp], pos: usize, end: usize) -> usize {
    let mut n = 0;
    while class_at(cps, pos + n, end) == Some(Class::Whitespace) {
        n += 1;
    }
    if n > 1 && at(cps, pos + n, end).is_some() {
        pos + n - 1
    } else {
        pos + n.max(1)
    }
}

/// GPT-2's regex over characters `[pos, end)`.
fn gpt2(out: &mut Words<'_>, mut pos: usize, end: usize) {
    let cps = out.cps;
    while let Some(cp) = at(cps, pos, end) {
        let from = pos;
        if let Some(next) = contraction(cps, pos, end, false) {
            pos = next;
        } else {
            let space = usize::from(cp.c == ' ');
            match class_at(cps, pos + space, end) {
                Some(run @ (Class::Letter | Class::Number | Class::Other)) => {
                    // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`
                    pos += space;
                    while class_at(cps, pos, end) == Some(run) {
                        pos += 1;
                    }
                }
                Some(Class::Whitespace) | None => pos = space_run(cps, pos, end),
            }
        }
        pos = pos.max(from + 1);
        out.emit(pos);
    }
}

/// The Qwen2 / Llama 3 regex over characters `[pos, end)`, numbers in runs of up to
/// `digits`.
fn modern(out: &mut Words<'_>, mut pos: usize, end: usize, digits: usize) {
    let cps = out.cps;
    while let Some(cp) = at(cps, pos, end) {
        let from = pos;
        let newline = cp.c == '\r' || cp.c == '\n';
        if let Some(next) = contraction(cps, pos, end, true) {
            pos = next;
        } else if !newline
            && cp.class != Class::Number
            && (cp.class == Class::Letter || class_at(cps, pos + 1, end) == Some(Class::Letter))
        {
            // `[^\r\n\p{L}\p{N}]?\p{L}+`
            pos += 1;
            while class_at(cps, pos, end) == Some(Class::Letter) {
                pos += 1;
            }
        } else if cp.class == Class::Number {
            // `\p{N}{1,digits}`
            let start = pos;
            while pos - start < digits && class_at(cps, pos, end) == Some(Class::Number) {
                pos += 1;
            }
        } else if !matches!(
            class_at(cps, pos + usize::from(cp.c == ' '), end),
            Some(Class::Whitespace | Class::Letter | Class::Number)
        ) {
            // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
            pos += usize::from(cp.c == ' ');
            while class_at(cps, pos, end) == Some(Class::Other) {
                pos += 1;
            }
            while at(cps, pos, end).is_some_and(|cp| cp.c == '\r' || cp.c == '\n') {
                pos += 1;
            }
        } else {
            // `\s*[\r\n]+` up to the run's last line break, else `\s+(?!\S)|\s+`
            let mut n = 0;
            let mut last_break = None;
            while let Some(cp) = at(cps, pos + n, end).filter(|cp| cp.class == Class::Whitespace) {
                n += 1;
                if cp.c == '\r' || cp.c == '\n' {
                    last_break = Some(pos + n);
                }
            }
            pos = last_break.unwrap_or_else(|| space_run(cps, pos, end));
        }
        // Every branch consumes a character; this only makes sure of it.
        pos = pos.max(from + 1);
        out.emit(pos);
    }
}
