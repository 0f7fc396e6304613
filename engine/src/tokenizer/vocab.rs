//! The vocabulary as owned tables: what kind each token is, the bytes it stands for, and a
//! lookup from the bytes a token spells in GPT-2's alphabet back to its id. Token texts live
//! in one arena (no allocation per token); the lookup is an open-addressing table of ids.

use super::byte_level::Alphabet;
use super::hash::hash_bytes;

/// The space character as SentencePiece vocabularies write it.
pub(crate) const SPACE: char = '\u{2581}';

/// A token's type (`tokenizer.ggml.token_type`, llama.cpp's numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// 1: ordinary text.
    Normal,
    /// 2: the unknown token.
    Unknown,
    /// 3: a control token such as `<|im_end|>`.
    Control,
    /// 4: a user-defined token, split out of text like a control token but always.
    UserDefined,
    /// 5: unused.
    Unused,
    /// 6: a raw byte.
    Byte,
    /// 0 or any other number.
    Undefined,
}

impl Kind {
    /// The kind for a `token_type` value.
    pub(crate) fn from_type(code: f64) -> Kind {
        match code as i64 {
            1 => Kind::Normal,
            2 => Kind::Unknown,
            3 => Kind::Control,
            4 => Kind::UserDefined,
            5 => Kind::Unused,
            6 => Kind::Byte,
            _ => Kind::Undefined,
        }
    }
}

/// A byte range of the arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u32,
    end: u32,
}

const NO_KEY: Span = Span { start: 0, end: 0 };

/// How a vocabulary writes the bytes of its ordinary tokens.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Spelling<'a> {
    /// GPT-2's byte alphabet (byte-level BPE).
    ByteLevel(&'a Alphabet),
    /// Plain UTF-8 with `▁` for a space (SentencePiece); tokens are looked up by their text.
    SentencePiece,
}

/// The owned vocabulary.
#[derive(Debug, Clone)]
pub(crate) struct Vocab {
    kinds: Vec<Kind>,
    arena: Vec<u8>,
    /// What each token stands for (llama.cpp's `token_to_piece` with `special`).
    shown: Vec<Span>,
    /// The bytes each token's text spells in GPT-2's alphabet; [`NO_KEY`] when its text has a
    /// character outside the alphabet (no word can ever be that token).
    keys: Vec<Span>,
    /// Open-addressing table over `keys`: slot holds id + 1, 0 is empty.
    slots: Vec<u32>,
    /// The token whose text is exactly this one byte, if any.
    single_byte: [Option<u32>; 256],
}

impl Vocab {
    /// Builds the tables from the token texts (as stored: spelled as `spelling` says, or plain
    /// text for control tokens) and their kinds (one per text).
    pub(crate) fn new<T: AsRef<[u8]>>(
        texts: &[T],
        kinds: Vec<Kind>,
        spelling: Spelling<'_>,
    ) -> Vocab {
        let bytes = texts.iter().map(|t| t.as_ref().len()).sum::<usize>();
        let mut arena = Vec::with_capacity(bytes + bytes / 4);
        let mut shown = Vec::with_capacity(texts.len());
        let mut keys = Vec::with_capacity(texts.len());
        let mut single_byte = [None; 256];
        let mut decoded = Vec::new();
        for (id, (text, &kind)) in texts.iter().zip(&kinds).enumerate() {
            let text = text.as_ref();
            if let [byte] = text {
                single_byte[usize::from(*byte)] = Some(id as u32);
            }
            let text = String::from_utf8_lossy(text);
            let decodable = match spelling {
                Spelling::ByteLevel(alphabet) => alphabet.decode_into(&text, &mut decoded),
                Spelling::SentencePiece => {
                    decoded.clear();
                    decoded.extend_from_slice(text.as_bytes());
                    true
                }
            };
            let start = arena.len();
            match (kind, spelling) {
                (Kind::Control | Kind::UserDefined | Kind::Unknown, _) => {
                    arena.extend_from_slice(text.as_bytes())
                }
                (Kind::Normal, Spelling::SentencePiece) => {
                    arena.extend_from_slice(text.replace(SPACE, " ").as_bytes())
                }
                (Kind::Normal, Spelling::ByteLevel(_)) if decodable => {
                    arena.extend_from_slice(&decoded)
                }
                (Kind::Normal, Spelling::ByteLevel(alphabet)) => {
                    unknown_bytes(&text, alphabet, &mut arena)
                }
                (Kind::Byte, _) => arena.extend(hex_byte(&text)),
                (Kind::Unused | Kind::Undefined, _) => {}
            }
            let shown_span = span(start, arena.len());
            shown.push(shown_span);
            let key = if !decodable {
                NO_KEY
            } else if arena[start..] == decoded[..] {
                shown_span
            } else {
                let key_start = arena.len();
                arena.extend_from_slice(&decoded);
                span(key_start, arena.len())
            };
            keys.push(key);
        }
        let mut vocab = Vocab {
            kinds,
            arena,
            shown,
            keys,
            slots: Vec::new(),
            single_byte,
        };
        vocab.index();
        vocab
    }

    /// Fills the lookup table; a later token with the same bytes replaces an earlier one, as
    /// in llama.cpp.
    fn index(&mut self) {
        let size = (self.keys.len() * 2).next_power_of_two().max(16);
        self.slots = vec![0; size];
        let mask = size - 1;
        for id in 0..self.keys.len() {
            if self.keys[id] == NO_KEY {
                continue;
            }
            let key = self.key(id as u32);
            let mut slot = hash_bytes(key) as usize & mask;
            loop {
                match self.slots[slot] {
                    0 => break,
                    other if self.key(other - 1) == key => break,
                    _ => slot = (slot + 1) & mask,
                }
            }
            self.slots[slot] = id as u32 + 1;
        }
    }

    fn key(&self, id: u32) -> &[u8] {
        let span = self.keys.get(id as usize).copied().unwrap_or(NO_KEY);
        self.arena
            .get(span.start as usize..span.end as usize)
            .unwrap_or(&[])
    }

    /// The token whose text spells exactly `bytes` in GPT-2's alphabet.
    pub(crate) fn find(&self, bytes: &[u8]) -> Option<u32> {
        if bytes.is_empty() || self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut slot = hash_bytes(bytes) as usize & mask;
        loop {
            match self.slots[slot] {
                0 => return None,
                id if self.key(id - 1) == bytes => return Some(id - 1),
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    /// The token whose stored text is exactly the byte `byte`.
    pub(crate) fn single_byte(&self, byte: u8) -> Option<u32> {
        self.single_byte[usize::from(byte)]
    }

    /// How many tokens there are.
    pub(crate) fn len(&self) -> usize {
        self.kinds.len()
    }

    /// The token's kind ([`Kind::Undefined`] out of range).
    pub(crate) fn kind(&self, id: u32) -> Kind {
        self.kinds
            .get(id as usize)
            .copied()
            .unwrap_or(Kind::Undefined)
    }

    /// What the token stands for: decoded bytes for text, the text itself for control tokens.
    pub(crate) fn shown(&self, id: u32) -> &[u8] {
        match self.shown.get(id as usize) {
            Some(span) => self
                .arena
                .get(span.start as usize..span.end as usize)
                .unwrap_or(&[]),
            None => &[],
        }
    }
}

/// The byte a byte token `<0xXX>` stands for.
fn hex_byte(text: &str) -> Option<u8> {
    let hex = text.strip_prefix("<0x")?.strip_suffix('>')?;
    (hex.len() == 2).then(|| u8::from_str_radix(hex, 16).ok())?
}

fn span(start: usize, end: usize) -> Span {
    Span {
        start: start as u32,
        end: end as u32,
    }
}

/// What llama.cpp shows for a normal token whose text strays outside GPT-2's alphabet: the
/// bytes of the characters in it, and `[UNK_BYTE_0x..<text>]` for each one that is not.
fn unknown_bytes(text: &str, alphabet: &Alphabet, out: &mut Vec<u8>) {
    let mut one = Vec::new();
    let mut buf = [0u8; 4];
    for c in text.chars() {
        if alphabet.decode_into(c.encode_utf8(&mut buf), &mut one) {
            out.extend_from_slice(&one);
        } else {
            out.extend_from_slice(b"[UNK_BYTE_0x");
            for byte in c.encode_utf8(&mut buf).bytes() {
                out.extend_from_slice(format!("{byte:02x}").as_bytes());
            }
            out.extend_from_slice(text.as_bytes());
            out.push(b']');
        }
    }
}
