//! Greedy decoding under a grammar: the best-scoring token the grammar allows, found by trying
//! tokens in descending score order (which is what llama.cpp's greedy sampler picks under a
//! grammar). One pass drops every token whose first byte cannot come next (a bitmap lookup,
//! no allocation), a heap orders the rest lazily, and only those popped are matched in full.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::compiled::Grammar;
use super::state::{GrammarState, Scratch};

/// The index of the highest `scores[i]` whose token the grammar allows next, or `None` when
/// no token is allowed. `token_bytes(i)` gives token `i`'s bytes; `is_end(i)` says token `i`
/// ends generation, which is allowed exactly when [`GrammarState::is_complete`]. Tokens with
/// no bytes that are not end tokens, and NaN scores, are never chosen; among equal scores
/// the lowest index wins.
pub fn choose_greedy<'v>(
    grammar: &Grammar,
    state: &GrammarState,
    scores: &[f32],
    token_bytes: impl Fn(usize) -> &'v [u8],
    is_end: impl Fn(usize) -> bool,
) -> Option<usize> {
    let complete = state.is_complete();
    let first = state.first_bytes(grammar);
    let mut candidates = Vec::new();
    for (index, &score) in scores.iter().enumerate() {
        if score.is_nan() {
            continue;
        }
        let possible = if is_end(index) {
            complete
        } else {
            token_bytes(index)
                .first()
                .is_some_and(|&b| (first[usize::from(b >> 6)] >> (b & 63)) & 1 == 1)
        };
        if possible {
            candidates.push(Candidate { score, index });
        }
    }
    let mut heap = BinaryHeap::from(candidates);
    let mut scratch = Scratch::default();
    while let Some(Candidate { index, .. }) = heap.pop() {
        if is_end(index) || state.check(grammar, token_bytes(index), &mut scratch) {
            return Some(index);
        }
    }
    None
}

/// A token in the heap: ordered by score, then by lower index.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    score: f32,
    index: usize,
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then_with(|| other.index.cmp(&self.index))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}
