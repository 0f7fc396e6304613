//! Byte-level BPE merges: the rank table built once from `tokenizer.ggml.merges`, and turning
//! one pre-tokenized word into token ids by merging adjacent symbols, lowest rank first (the
//! leftmost pair among equal ranks), until no pair has a rank.
//!
//! Symbols are ids, not strings: a merge is looked up as a pair of ids in a hash map that
//! gives its rank and the merged symbol. A symbol is a vocabulary id, or, for the rare merge
//! whose result is not itself a token, an id past the vocabulary with its bytes kept here;
//! such a symbol ends up as the tokens for the single bytes of its text, as in llama.cpp.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::byte_level::Alphabet;
use super::hash::FxBuild;
use super::vocab::Vocab;

/// The merge table.
#[derive(Debug, Clone)]
pub(crate) struct Merges {
    /// `left << 32 | right` to (rank, merged symbol).
    pairs: HashMap<u64, (u32, u32), FxBuild>,
    /// The symbol each byte starts as.
    byte_symbol: [u32; 256],
    /// The vocabulary's size: symbols from here on are `extra`.
    n_vocab: u32,
    /// Bytes of the symbols that are not tokens.
    extra: Vec<Vec<u8>>,
}

/// Reusable buffers for [`Merges::encode_word`].
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    symbols: Vec<Symbol>,
    queue: BinaryHeap<Reverse<Candidate>>,
    encoded: Vec<u8>,
}

/// A symbol in a word being merged: a doubly linked list over the word's bytes.
#[derive(Debug, Clone, Copy)]
struct Symbol {
    id: u32,
    prev: u32,
    next: u32,
}

/// A pair that may merge: (rank, left position, right position, left id, right id). The
/// ids tell a stale pair (one side merged since) from a live one.
type Candidate = (u32, u32, u32, u32, u32);

/// Decodes the merge `"left right"` (split at the first space after its first byte, as
/// llama.cpp does) into `word` = left's bytes then right's; where right starts, or `None` when
/// a side is empty or strays outside GPT-2's alphabet (no symbol could ever spell it).
fn sides(
    merge: &[u8],
    alphabet: &Alphabet,
    word: &mut Vec<u8>,
    part: &mut Vec<u8>,
) -> Option<usize> {
    let split = merge.iter().skip(1).position(|&b| b == b' ')? + 1;
    let left = std::str::from_utf8(merge.get(..split)?).ok()?;
    let right = std::str::from_utf8(merge.get(split + 1..)?).ok()?;
    word.clear();
    for side in [left, right] {
        if side.is_empty() || !alphabet.decode_into(side, part) {
            return None;
        }
        word.extend_from_slice(part);
    }
    Some(word.len() - part.len())
}

const NONE: u32 = u32::MAX;
const MERGED: u32 = u32::MAX;

impl Merges {
    /// Builds the table from the merges (GPT-2's alphabet, `"left right"`, in rank order).
    /// A merge whose sides cannot both arise is dropped; the first rank of a pair wins.
    pub(crate) fn new(merges: &[&[u8]], vocab: &Vocab, alphabet: &Alphabet) -> Merges {
        let n_vocab = vocab.len() as u32;
        let mut extra: Vec<Vec<u8>> = Vec::new();
        let mut extra_ids: HashMap<Vec<u8>, u32, FxBuild> = HashMap::default();
        let mut ensure = |bytes: &[u8]| -> u32 {
            if let Some(id) = vocab.find(bytes).or_else(|| extra_ids.get(bytes).copied()) {
                return id;
            }
            let id = n_vocab + extra.len() as u32;
            extra.push(bytes.to_vec());
            extra_ids.insert(bytes.to_vec(), id);
            id
        };
        let mut byte_symbol = [0u32; 256];
        for (byte, slot) in byte_symbol.iter_mut().enumerate() {
            *slot = ensure(&[byte as u8]);
        }
        let mut pairs = HashMap::with_capacity_and_hasher(merges.len(), FxBuild::default());
        let mut insert = |rank: usize, left: u32, right: u32, merged: u32| {
            let key = (u64::from(left) << 32) | u64::from(right);
            let entry = pairs.entry(key).or_insert((rank as u32, merged));
            if (rank as u32) < entry.0 {
                *entry = (rank as u32, merged);
            }
        };
        // A side that is not a token can only be the result of another merge, perhaps a
        // later one: such pairs wait until every merge's result has its symbol.
        let mut waiting = Vec::new();
        let (mut word, mut part) = (Vec::new(), Vec::new());
        for (rank, merge) in merges.iter().enumerate() {
            let Some(split) = sides(merge, alphabet, &mut word, &mut part) else {
                continue;
            };
            let merged = ensure(&word);
            match (vocab.find(&word[..split]), vocab.find(&word[split..])) {
                (Some(left), Some(right)) => insert(rank, left, right, merged),
                _ => waiting.push((rank, merge, merged)),
            }
        }
        let find = |bytes: &[u8]| vocab.find(bytes).or_else(|| extra_ids.get(bytes).copied());
        for (rank, merge, merged) in waiting {
            if let Some(split) = sides(merge, alphabet, &mut word, &mut part) {
                if let (Some(left), Some(right)) = (find(&word[..split]), find(&word[split..])) {
                    insert(rank, left, right, merged);
                }
            }
        }
        Merges {
            pairs,
            byte_symbol,
            n_vocab,
            extra,
        }
    }

    /// How many merges the table holds.
    pub(crate) fn len(&self) -> usize {
        self.pairs.len()
    }

    fn rank(&self, left: u32, right: u32) -> Option<(u32, u32)> {
        self.pairs
            .get(&((u64::from(left) << 32) | u64::from(right)))
            .copied()
    }

    /// Appends the token ids of `word` (raw bytes of one pre-tokenized word) to `out`.
    pub(crate) fn encode_word(
        &self,
        word: &[u8],
        vocab: &Vocab,
        alphabet: &Alphabet,
        scratch: &mut Scratch,
        out: &mut Vec<u32>,
    ) {
        if let [byte] = word {
            let id = self.byte_symbol[usize::from(*byte)];
            return self.emit(id, vocab, alphabet, &mut scratch.encoded, out);
        }
        let symbols = &mut scratch.symbols;
        symbols.clear();
        symbols.extend(word.iter().enumerate().map(|(i, &b)| Symbol {
            id: self.byte_symbol[usize::from(b)],
            prev: if i == 0 { NONE } else { i as u32 - 1 },
            next: if i + 1 == word.len() {
                NONE
            } else {
                i as u32 + 1
            },
        }));
        let queue = &mut scratch.queue;
        queue.clear();
        let push = |queue: &mut BinaryHeap<_>, symbols: &[Symbol], left: u32, right: u32| {
            let (Some(l), Some(r)) = (symbols.get(left as usize), symbols.get(right as usize))
            else {
                return;
            };
            if let Some((rank, _)) = self.rank(l.id, r.id) {
                queue.push(Reverse((rank, left, right, l.id, r.id)));
            }
        };
        for i in 1..symbols.len() as u32 {
            push(queue, symbols, i - 1, i);
        }
        while let Some(Reverse((_, left, right, left_id, right_id))) = queue.pop() {
            let (l, r) = (left as usize, right as usize);
            let (Some(&ls), Some(&rs)) = (symbols.get(l), symbols.get(r)) else {
                continue;
            };
            if ls.id != left_id || rs.id != right_id || ls.next != right {
                continue;
            }
            let Some((_, merged)) = self.rank(left_id, right_id) else {
                continue;
            };
            symbols[l].id = merged;
            symbols[l].next = rs.next;
            symbols[r].id = MERGED;
            if let Some(after) = symbols.get_mut(rs.next as usize) {
                after.prev = left;
            }
            push(queue, symbols, ls.prev, left);
            push(queue, symbols, left, rs.next);
        }
        let mut at = if symbols.is_empty() { NONE } else { 0 };
        while let Some(&symbol) = scratch.symbols.get(at as usize) {
            self.emit(symbol.id, vocab, alphabet, &mut scratch.encoded, out);
            at = symbol.next;
        }
    }

    /// Appends the tokens for one finished symbol: itself when it is a token, else the tokens
    /// spelled by single bytes of its text in GPT-2's alphabet (llama.cpp's fallback).
    fn emit(
        &self,
        id: u32,
        vocab: &Vocab,
        alphabet: &Alphabet,
        encoded: &mut Vec<u8>,
        out: &mut Vec<u32>,
    ) {
        let Some(index) = id.checked_sub(self.n_vocab) else {
            out.push(id);
            return;
        };
        let Some(bytes) = self.extra.get(index as usize) else {
            return;
        };
        encoded.clear();
        for &byte in bytes {
            alphabet.push_encoded(byte, encoded);
        }
        out.extend(encoded.iter().filter_map(|&b| vocab.single_byte(b)));
    }
}
