//! Checking a jump-forward's tokens against the model. The forced tokens are the tokenizer's
//! split of the forced text; greedy decoding, one token at a time, may split it otherwise
//! (SmolLM2 writes ` {` then `"` where the tokenizer has ` {"`: a Qwen-style call in 33 tokens,
//! not 32), and then the context the model reads next differs, and so may what it writes (a
//! third call where greedy decoding ended). So once the batch is read, each forced token is
//! compared with the model's own greedy choice at its place; at the first that differs the jump
//! stops there and the model's choice goes on, which keeps greedy decoding with jump-forward
//! token for token what it is without (under sampling too the forced text takes the model's
//! most likely split: a draw would need a random number per token).
//!
//! At a forced token's place the grammar admits only the tokens spelling a prefix of the rest
//! of the forced text (the jump stops before a place where a token could reach past it), so
//! only their logits are computed: the output norm and a few rows of the head per place,
//! against the whole vocabulary a full set of logits would take.

use super::Extensions;
use crate::model::{Model, Scratch};
use crate::repetition::{breaks_run, RepeatGuard};
use crate::tokenizer::Tokenizer;

/// Where greedy decoding leaves the forced tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Departure {
    /// How many forced tokens greedy decoding writes as they are.
    pub kept: usize,
    /// The token it writes instead of the next one.
    pub choice: u32,
}

/// What the check reads. The last batch read starts with the token before the forced ones,
/// so its row `i` holds what chooses forced token `i`.
pub(crate) struct Forced<'a> {
    /// The reply's tokens so far, the forced ones last (the repeat guard reads them).
    pub output: &'a [u32],
    /// How many of them are forced.
    pub count: usize,
}

/// The first forced token the model's greedy choice (under the grammar, with the repeat
/// guard's penalty, ties to the lower id as [`choose_greedy`](crate::grammar::choose_greedy))
/// differs from, or `None` when it writes them all.
pub(crate) fn departure(
    model: &Model,
    scratch: &mut Scratch,
    tokenizer: &Tokenizer,
    extensions: &Extensions,
    forced: Forced<'_>,
) -> Result<Option<Departure>, String> {
    let Forced { output, count } = forced;
    let count = count.min(output.len());
    let start = output.len() - count;
    let mut rest: Vec<u8> = output[start..]
        .iter()
        .flat_map(|id| tokenizer.token_bytes(*id).iter().copied())
        .collect();
    let breaks = |token: u32| breaks_run(tokenizer.token_bytes(token));
    for kept in 0..count {
        let at = start + kept;
        let token = output[at];
        let candidates = extensions.prefixes(tokenizer, &rest);
        rest.drain(..tokenizer.token_bytes(token).len().min(rest.len()));
        if candidates.iter().all(|&id| id == token) {
            continue;
        }
        let mut logits = model.logits_of(scratch, kept, &candidates)?;
        for (penalized, penalty) in RepeatGuard::DEFAULT.penalties(&output[..at], breaks) {
            for (id, logit) in candidates.iter().zip(logits.iter_mut()) {
                if *id == penalized {
                    *logit -= penalty;
                }
            }
        }
        let best = candidates
            .iter()
            .zip(&logits)
            .filter(|(_, logit)| !logit.is_nan())
            .max_by(|(a, x), (b, y)| x.total_cmp(y).then_with(|| b.cmp(a)));
        match best {
            Some((&choice, _)) if choice != token => {
                return Ok(Some(Departure { kept, choice }));
            }
            Some(_) | None => {}
        }
    }
    Ok(None)
}
