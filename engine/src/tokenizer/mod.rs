//! Text to token ids and back for byte-level BPE vocabularies (`tokenizer.ggml.model =
//! "gpt2"`: SmolLM2, Qwen) and SentencePiece ones (`"llama"`: Gemma), matching llama.cpp token
//! for token.
//!
//! Encoding runs in three steps: special tokens written in the text are cut out (`special`),
//! the rest is split into words by the model's pre-tokenizer (`pretokenize`), and each word's
//! bytes are merged by BPE (`bpe`); a SentencePiece vocabulary merges the whole text by its
//! tokens' scores instead (`spm`). The vocabulary's tables live in `vocab`; `unicode` and
//! `byte_level` hold the character classes and GPT-2's byte alphabet. Everything is built once
//! in [`Tokenizer::from_gguf`]; encoding allocates only its output and a few buffers.
//!
//! Verified against llama.cpp's own tokenizer (`tests/tokenizer.rs` and its fixtures). Where
//! llama.cpp's result depends on hash-map order (two tokens with the same text, several
//! fill-in-the-middle candidates, special tokens of equal length), this picks one fixed
//! order; SmolLM2's vocabulary hits none of them. Per-token `lstrip`/`rstrip`
//! attributes (set by llama.cpp for a few models by name) are not applied.

mod bpe;
mod byte_level;
mod hash;
mod pretokenize;
mod special;
mod spm;
mod unicode;
mod vocab;

use std::borrow::Cow;
use std::fmt;

pub use pretokenize::PreTokenizer;

use crate::gguf::{Gguf, Value};
use bpe::{Merges, Scratch};
use byte_level::Alphabet;
use special::{Fragment, SpecialIds};
use spm::Pieces;
use vocab::{Kind, Spelling, Vocab};

/// Why a tokenizer could not be built from a model file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenizerError(pub String);

impl fmt::Display for TokenizerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TokenizerError {}

fn error(message: impl Into<String>) -> TokenizerError {
    TokenizerError(message.into())
}

/// How words become tokens.
// one per tokenizer, built once: its size does not matter
#[allow(clippy::large_enum_variant)]
enum Encoder {
    /// Byte-level BPE after a pre-tokenizer.
    Bpe {
        merges: Merges,
        alphabet: Alphabet,
        pre: PreTokenizer,
        ignore_merges: bool,
    },
    /// SentencePiece merges by score.
    Spm(Pieces),
}

/// A tokenizer read from a GGUF file's `tokenizer.ggml.*` metadata.
pub struct Tokenizer {
    vocab: Vocab,
    encoder: Encoder,
    /// Special tokens in the order they are cut out of text.
    cut_order: Vec<u32>,
    /// The end-of-generation set, sorted.
    end_of_generation: Vec<u32>,
    bos: Option<u32>,
    add_bos: bool,
}

impl fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (model, merges) = match &self.encoder {
            Encoder::Bpe { merges, pre, .. } => (format!("bpe {pre:?}"), merges.len()),
            Encoder::Spm(_) => ("sentencepiece".to_string(), 0),
        };
        f.debug_struct("Tokenizer")
            .field("tokens", &self.vocab.len())
            .field("model", &model)
            .field("merges", &merges)
            .field("end_of_generation", &self.end_of_generation)
            .field("bos", &self.bos)
            .finish_non_exhaustive()
    }
}

/// The longest chat template read (real ones are a few kilobytes; the worker renders it).
const MAX_TEMPLATE_BYTES: usize = 256 * 1024;

/// The file's chat template (`tokenizer.chat_template`), refused when it is longer than any
/// real one.
pub fn chat_template(file: &Gguf) -> Result<Option<String>, String> {
    match file.get("tokenizer.chat_template") {
        Some(Value::Str(t)) if t.len() > MAX_TEMPLATE_BYTES => Err(format!(
            "the chat template is {} bytes; more than {MAX_TEMPLATE_BYTES} is refused",
            t.len()
        )),
        _ => Ok(file.string("tokenizer.chat_template")),
    }
}

impl Tokenizer {
    /// Reads the tokenizer of a GGUF file: byte-level BPE (`tokenizer.ggml.model = "gpt2"`)
    /// with one of the [`PreTokenizer`] families, or SentencePiece (`"llama"`); anything else
    /// is an error naming what the file asks for.
    pub fn from_gguf(file: &Gguf) -> Result<Tokenizer, TokenizerError> {
        let model = file
            .string("tokenizer.ggml.model")
            .ok_or_else(|| error("the file has no tokenizer (no tokenizer.ggml.model)"))?;
        let sentencepiece = match model.as_str() {
            "gpt2" => false,
            "llama" => true,
            _ => {
                return Err(error(format!(
                    "tokenizer model {model:?} is not supported: \"gpt2\" (byte-level BPE) and \
                     \"llama\" (SentencePiece) are"
                )))
            }
        };
        let config = if sentencepiece {
            None
        } else {
            let pre_name = file
                .string("tokenizer.ggml.pre")
                .ok_or_else(|| error("the file names no pre-tokenizer (tokenizer.ggml.pre)"))?;
            Some(pretokenize::config(&pre_name)?)
        };

        let tokens = file
            .array("tokenizer.ggml.tokens")
            .ok_or_else(|| error("the file has no tokenizer.ggml.tokens"))?
            .strings()
            .map_err(|e| error(format!("tokenizer.ggml.tokens: {e}")))?;
        let n = tokens.len();
        if n == 0 || n >= (u32::MAX / 2) as usize {
            return Err(error(format!("a vocabulary of {n} tokens is not usable")));
        }
        // llama.cpp names an empty token "[EMPTY_<id>]".
        let texts: Vec<Cow<'_, [u8]>> = tokens
            .iter()
            .enumerate()
            .map(|(id, &text)| match text {
                [] => Cow::Owned(format!("[EMPTY_{id}]").into_bytes()),
                text => Cow::Borrowed(text),
            })
            .collect();
        let mut kinds = match file.array("tokenizer.ggml.token_type") {
            Some(types) => {
                let types = types
                    .numbers()
                    .map_err(|e| error(format!("tokenizer.ggml.token_type: {e}")))?;
                if types.len() < n {
                    return Err(error(format!(
                        "tokenizer.ggml.token_type has {} entries for {n} tokens",
                        types.len()
                    )));
                }
                types[..n].iter().map(|&t| Kind::from_type(t)).collect()
            }
            None => vec![Kind::Normal; n],
        };
        let ids = SpecialIds::read(file, n, sentencepiece);
        let end_of_generation = special::end_of_generation(&texts, &mut kinds, &ids);
        let flag = |key: &str| match file.get(key) {
            Some(Value::Bool(on)) => Some(*on),
            _ => None,
        };
        let (vocab, encoder, default_bos) = match config {
            Some(config) => {
                let alphabet = Alphabet::new();
                let vocab = Vocab::new(&texts, kinds, Spelling::ByteLevel(&alphabet));
                let merges = file
                    .array("tokenizer.ggml.merges")
                    .ok_or_else(|| error("the file has no tokenizer.ggml.merges"))?
                    .strings()
                    .map_err(|e| error(format!("tokenizer.ggml.merges: {e}")))?;
                let given = merges.len();
                let merges = Merges::new(&merges, &vocab, &alphabet);
                // A few unusable merges are tolerated (llama.cpp drops them too); a table most
                // of whose merges join nothing of the vocabulary is not this vocabulary's.
                if merges.len() * 2 < given {
                    return Err(error(format!(
                        "tokenizer.ggml.merges: only {} of the {given} merges join tokens of \
                         the vocabulary",
                        merges.len()
                    )));
                }
                let encoder = Encoder::Bpe {
                    merges,
                    alphabet,
                    pre: config.splitter,
                    ignore_merges: config.ignore_merges,
                };
                (vocab, encoder, config.add_bos)
            }
            None => {
                let vocab = Vocab::new(&texts, kinds, Spelling::SentencePiece);
                let scores = match file.array("tokenizer.ggml.scores") {
                    Some(scores) => scores
                        .numbers()
                        .map_err(|e| error(format!("tokenizer.ggml.scores: {e}")))?
                        .into_iter()
                        .map(|s| s as f32)
                        .collect(),
                    None => Vec::new(),
                };
                // llama.cpp's default for SentencePiece: a space before the text
                let space = flag("tokenizer.ggml.add_space_prefix").unwrap_or(true);
                let pieces = Pieces::new(scores, &vocab, space);
                (vocab, Encoder::Spm(pieces), true)
            }
        };
        let add_bos = flag("tokenizer.ggml.add_bos_token").unwrap_or(default_bos);
        Ok(Tokenizer {
            cut_order: special::cut_order(&vocab),
            vocab,
            encoder,
            end_of_generation,
            bos: ids.bos,
            add_bos,
        })
    }

    /// Text to ids. With `parse_special`, control tokens written in the text (e.g.
    /// `"<|im_start|>"`) become their ids; otherwise they are ordinary text. Never adds BOS
    /// (callers decide, see [`Tokenizer::add_bos`]).
    pub fn encode(&self, text: &str, parse_special: bool) -> Vec<u32> {
        let mut out = Vec::with_capacity(text.len() / 3 + 4);
        let (mut fragments, mut spare) = (Vec::new(), Vec::new());
        special::cut(
            text,
            &self.cut_order,
            &self.vocab,
            parse_special,
            &mut fragments,
            &mut spare,
        );
        let (merges, alphabet, pre, ignore_merges) = match &self.encoder {
            Encoder::Bpe {
                merges,
                alphabet,
                pre,
                ignore_merges,
            } => (merges, alphabet, *pre, *ignore_merges),
            Encoder::Spm(pieces) => {
                self.encode_pieces(pieces, text, &fragments, &mut out);
                return out;
            }
        };
        let mut scratch = Scratch::default();
        let (mut chars, mut ends) = (Vec::new(), Vec::new());
        for fragment in fragments {
            let (start, end) = match fragment {
                Fragment::Token(id) => {
                    out.push(id);
                    continue;
                }
                Fragment::Text(start, end) => (start, end),
            };
            let Some(piece) = text.get(start..end) else {
                continue;
            };
            pre.split_into(piece, &mut chars, &mut ends);
            let mut word_start = 0;
            for &word_end in &ends {
                let word = piece.as_bytes().get(word_start..word_end).unwrap_or(&[]);
                word_start = word_end;
                if ignore_merges {
                    if let Some(id) = self.vocab.find(word) {
                        out.push(id);
                        continue;
                    }
                }
                merges.encode_word(word, &self.vocab, alphabet, &mut scratch, &mut out);
            }
        }
        out
    }

    /// SentencePiece's encoding of the fragments: text after a special token (or at the start)
    /// gets a space before it when the model asks for one.
    fn encode_pieces(
        &self,
        pieces: &Pieces,
        text: &str,
        fragments: &[Fragment],
        out: &mut Vec<u32>,
    ) {
        let mut after_special = true;
        for fragment in fragments {
            match *fragment {
                Fragment::Token(id) => {
                    out.push(id);
                    after_special = true;
                }
                Fragment::Text(start, end) => {
                    let Some(piece) = text.get(start..end) else {
                        continue;
                    };
                    let prefix = if pieces.add_space_prefix && after_special {
                        " "
                    } else {
                        ""
                    };
                    let escaped = spm::escape_spaces(&format!("{prefix}{piece}"));
                    pieces.encode(&escaped, &self.vocab, out);
                    after_special = false;
                }
            }
        }
    }

    /// The bytes token `id` stands for (control tokens: their text, e.g. `b"<|im_end|>"`);
    /// empty for an id out of range. A token may be part of a UTF-8 character.
    pub fn token_bytes(&self, id: u32) -> &[u8] {
        self.vocab.shown(id)
    }

    /// Whether generation ends at this token: llama.cpp's end-of-generation set, i.e. EOS,
    /// EOT, EOM and the tokens named like `<|im_end|>`, `<|endoftext|>`, `<|eot_id|>`,
    /// `<|end_of_text|>`, `<end_of_turn>`, ...
    pub fn is_end_of_generation(&self, id: u32) -> bool {
        self.end_of_generation.binary_search(&id).is_ok()
    }

    /// Whether the token is a control token (not text).
    pub fn is_control(&self, id: u32) -> bool {
        self.vocab.kind(id) == Kind::Control
    }

    /// How many tokens the vocabulary has.
    pub fn len(&self) -> usize {
        self.vocab.len()
    }

    /// Whether the vocabulary is empty (never, for a tokenizer that loaded).
    pub fn is_empty(&self) -> bool {
        self.vocab.len() == 0
    }

    /// The beginning-of-sequence token, if the model has one.
    pub fn bos(&self) -> Option<u32> {
        self.bos
    }

    /// Whether the model asks for BOS before a prompt (`tokenizer.ggml.add_bos_token`, else
    /// llama.cpp's default for the pre-tokenizer).
    pub fn add_bos(&self) -> bool {
        self.add_bos
    }

    /// The pre-tokenizer this model uses (none for SentencePiece).
    pub fn pre_tokenizer(&self) -> Option<PreTokenizer> {
        match &self.encoder {
            Encoder::Bpe { pre, .. } => Some(*pre),
            Encoder::Spm(_) => None,
        }
    }
}
