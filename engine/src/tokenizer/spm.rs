//! SentencePiece-style tokenization (`tokenizer.ggml.model = "llama"`: Gemma, Llama 2), as
//! llama.cpp does it: spaces written as `▁`, the text split into characters, and adjacent
//! symbols merged highest score first (the leftmost among equal scores) while their
//! concatenation is a token; a character that is no token is spelled by its bytes' `<0xXX>`
//! tokens.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::vocab::Vocab;

/// What SentencePiece tokenization needs besides the vocabulary.
#[derive(Debug, Clone)]
pub(crate) struct Pieces {
    /// Each token's score (merges prefer higher).
    scores: Vec<f32>,
    /// The `<0xXX>` token of each byte.
    bytes: [Option<u32>; 256],
    /// Whether a space is put before text that follows a special token or starts the input.
    pub(crate) add_space_prefix: bool,
}

/// A symbol of the text being merged: a byte range, linked to its neighbours.
#[derive(Debug, Clone, Copy)]
struct Symbol {
    start: usize,
    len: usize,
    prev: Option<usize>,
    next: Option<usize>,
}

/// Two adjacent symbols whose concatenation is a token.
#[derive(Debug, Clone, Copy)]
struct Bigram {
    left: usize,
    right: usize,
    score: f32,
    len: usize,
}

impl PartialEq for Bigram {
    fn eq(&self, other: &Bigram) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Bigram {}

impl PartialOrd for Bigram {
    fn partial_cmp(&self, other: &Bigram) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Bigram {
    /// The greatest is popped first: the highest score, then the leftmost.
    fn cmp(&self, other: &Bigram) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then(other.left.cmp(&self.left))
    }
}

impl Pieces {
    /// The scores (`tokenizer.ggml.scores`, one per token; missing ones count as 0).
    pub(crate) fn new(scores: Vec<f32>, vocab: &Vocab, add_space_prefix: bool) -> Pieces {
        let mut bytes = [None; 256];
        for (byte, slot) in bytes.iter_mut().enumerate() {
            *slot = vocab
                .find(format!("<0x{byte:02X}>").as_bytes())
                .or_else(|| vocab.find(&[byte as u8]));
        }
        Pieces {
            scores,
            bytes,
            add_space_prefix,
        }
    }

    fn score(&self, id: u32) -> f32 {
        self.scores.get(id as usize).copied().unwrap_or(0.0)
    }

    /// Appends the tokens of `text` (spaces already written as `▁`) to `out`.
    pub(crate) fn encode(&self, text: &str, vocab: &Vocab, out: &mut Vec<u32>) {
        let bytes = text.as_bytes();
        let mut symbols: Vec<Symbol> = Vec::with_capacity(text.len());
        for (at, c) in text.char_indices() {
            let index = symbols.len();
            symbols.push(Symbol {
                start: at,
                len: c.len_utf8(),
                prev: index.checked_sub(1),
                next: None,
            });
            if let Some(prev) = index.checked_sub(1) {
                symbols[prev].next = Some(index);
            }
        }
        let mut queue = BinaryHeap::new();
        let try_pair = |symbols: &[Symbol],
                        queue: &mut BinaryHeap<Bigram>,
                        left: Option<usize>,
                        right: Option<usize>| {
            let (Some(left), Some(right)) = (left, right) else {
                return;
            };
            let (l, r) = (symbols[left], symbols[right]);
            let Some(piece) = bytes.get(l.start..l.start + l.len + r.len) else {
                return;
            };
            let Some(id) = vocab.find(piece) else {
                return;
            };
            queue.push(Bigram {
                left,
                right,
                score: self.score(id),
                len: piece.len(),
            });
        };
        for i in 1..symbols.len() {
            try_pair(&symbols, &mut queue, Some(i - 1), Some(i));
        }
        while let Some(bigram) = queue.pop() {
            let (left, right) = (symbols[bigram.left], symbols[bigram.right]);
            // stale: a side was merged into something else since
            if left.len == 0 || right.len == 0 || left.len + right.len != bigram.len {
                continue;
            }
            symbols[bigram.left].len += right.len;
            symbols[bigram.right].len = 0;
            symbols[bigram.left].next = right.next;
            if let Some(next) = right.next {
                symbols[next].prev = Some(bigram.left);
            }
            try_pair(&symbols, &mut queue, left.prev, Some(bigram.left));
            try_pair(&symbols, &mut queue, Some(bigram.left), right.next);
        }
        // Every merge made a token, so a symbol that is none is one character the vocabulary
        // lacks: its bytes' tokens (llama.cpp's resegment comes to the same).
        let mut at = if symbols.is_empty() { None } else { Some(0) };
        while let Some(index) = at {
            let s = symbols[index];
            let piece = &bytes[s.start..s.start + s.len];
            match vocab.find(piece) {
                Some(id) => out.push(id),
                None => out.extend(piece.iter().filter_map(|b| self.bytes[usize::from(*b)])),
            }
            at = s.next;
        }
    }
}

/// `text` with every space written as `▁`.
pub(crate) fn escape_spaces(text: &str) -> String {
    text.replace(' ', "\u{2581}")
}
