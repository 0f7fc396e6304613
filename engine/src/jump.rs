//! Jump-forward decoding: where the grammar admits one continuation only, its tokens are
//! appended without asking the model. A forced token is appended only where greedy decoding
//! could not have gone past it: when some token the grammar admits at its place starts with
//! the rest of the forced text and goes on (` "/` where the forced text ends in ` "`), the
//! model chooses there, under the grammar, as it would sampling every token. [`Extensions`]
//! finds those tokens by a binary search over the vocabulary sorted once by bytes. The forced
//! tokens are the tokenizer's split of the forced text, which need not be the model's:
//! [`check`] compares them, once read, with the model's own greedy choices.

pub(crate) mod check;

use crate::grammar::{Grammar, GrammarState};
use crate::tokenizer::Tokenizer;

/// Most bytes one jump-forward appends.
const JUMP_LIMIT: usize = 256;

/// The vocabulary's token ids sorted by their bytes (end-of-generation tokens and tokens
/// without bytes left out): the tokens that start with given bytes are one run of it.
pub(crate) struct Extensions {
    by_bytes: Vec<u32>,
}

impl Extensions {
    /// Sorts the vocabulary (once per model: a few milliseconds for 49,152 tokens).
    pub(crate) fn new(tokenizer: &Tokenizer) -> Extensions {
        let mut by_bytes: Vec<u32> = (0..tokenizer.len() as u32)
            .filter(|&id| {
                !tokenizer.is_end_of_generation(id) && !tokenizer.token_bytes(id).is_empty()
            })
            .collect();
        by_bytes.sort_unstable_by(|a, b| tokenizer.token_bytes(*a).cmp(tokenizer.token_bytes(*b)));
        Extensions { by_bytes }
    }

    /// The tokens that spell a prefix of `text` (shortest first): where the grammar forces
    /// `text`, the only tokens it admits unless one reaches past it.
    pub(crate) fn prefixes(&self, tokenizer: &Tokenizer, text: &[u8]) -> Vec<u32> {
        let mut out = Vec::new();
        for len in 1..=text.len() {
            let prefix = &text[..len];
            let start = self
                .by_bytes
                .partition_point(|&id| tokenizer.token_bytes(id) < prefix);
            let run = self.by_bytes[start..]
                .iter()
                .take_while(|&&id| tokenizer.token_bytes(id).starts_with(prefix));
            let mut longer = false;
            for &id in run {
                if tokenizer.token_bytes(id) == prefix {
                    out.push(id);
                } else {
                    longer = true;
                    break;
                }
            }
            // no token starts with this prefix and goes on: none spells a longer one
            if !longer {
                break;
            }
        }
        out
    }

    /// What the tokens that start with `prefix` and are longer have after it.
    fn past<'t>(
        &'t self,
        tokenizer: &'t Tokenizer,
        prefix: &'t [u8],
    ) -> impl Iterator<Item = &'t [u8]> + 't {
        let start = self
            .by_bytes
            .partition_point(|&id| tokenizer.token_bytes(id) < prefix);
        self.by_bytes[start..]
            .iter()
            .map(|&id| tokenizer.token_bytes(id))
            .take_while(move |bytes| bytes.starts_with(prefix))
            .filter_map(move |bytes| bytes.get(prefix.len()..).filter(|rest| !rest.is_empty()))
    }
}

/// The tokens of what the grammar admits as the only continuation (at most `room` of them),
/// the grammar advanced past them; none without a grammar, or when the tokens would not spell
/// exactly those bytes. They stop before the first token at whose place an admitted token
/// reaches past the forced text.
pub(crate) fn jump_forward(
    tokenizer: &Tokenizer,
    extensions: &Extensions,
    grammar: Option<&mut (Grammar, GrammarState)>,
    room: usize,
) -> Vec<u32> {
    let Some((grammar, state)) = grammar else {
        return Vec::new();
    };
    let forced = state.forced_bytes(grammar, JUMP_LIMIT);
    let Ok(text) = std::str::from_utf8(&forced) else {
        return Vec::new();
    };
    let mut after = state.clone();
    if forced.is_empty() || after.advance(grammar, &forced).is_err() {
        return Vec::new();
    }
    let mut ids = tokenizer.encode(text, false);
    let mut at = 0;
    let mut kept = 0;
    for id in &ids {
        let Some(rest) = forced.get(at..) else {
            break;
        };
        if after.accepts_any(grammar, extensions.past(tokenizer, rest)) {
            break;
        }
        at += tokenizer.token_bytes(*id).len();
        kept += 1;
    }
    ids.truncate(kept.min(room));
    let spelled: Vec<u8> = ids
        .iter()
        .flat_map(|id| tokenizer.token_bytes(*id).iter().copied())
        .collect();
    if spelled.is_empty()
        || !forced.starts_with(&spelled)
        || state.advance(grammar, &spelled).is_err()
    {
        return Vec::new();
    }
    ids
}
