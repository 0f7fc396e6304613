//! Drafts from the context: a reply often repeats what the context holds (a path from the task,
//! a name from a tool's result, a line it wrote before), so after the model's token the tokens
//! that followed the same few tokens the last time they occurred are guessed to come next
//! ("prompt lookup"). They are read with that token in one forward pass, which in the tab costs
//! less than reading them one by one (its kernels read up to eight tokens per load of the
//! weights),
//! and each guess is kept only while it is the token greedy decoding chooses at its
//! place, from that pass's logits, under the grammar and the repeat guard; at the first that is
//! not, the model's own choice goes on. So greedy decoding writes the same tokens with drafts as
//! without, in fewer passes when the guesses hold. Drafting is for greedy decoding only: a
//! sampled reply would need a draw per guess.

use crate::grammar::{Grammar, GrammarState};
use crate::model::{Model, Scratch};
use crate::repetition::{breaks_run, RepeatGuard};
use crate::sampling::{choose, Sampling};
use crate::tokenizer::Tokenizer;

/// Most tokens guessed after the model's token: with it, a batch of eight, one load of the
/// weights in the tab's relaxed-SIMD kernel (two in its SIMD128 one). A run of three matched tokens was followed
/// by the model's own choices for 31 of 34 guesses on a quoting reply of SmolLM2's (and 1 of 19
/// guesses after two-token runs in a story), so a long quote is read eight tokens a pass.
pub(crate) const DRAFT_LIMIT: usize = 7;

/// Tokens read without drafts after a pass whose guesses the model took none of: a reply that
/// has stopped repeating its context (or repeats what the repeat guard holds back) does not pay
/// for a longer pass at every token. On the 0.6B-shaped synthetic Qwen3 in the tab, whose
/// random weights write runs of one character, guesses at every token made the reply 16 %
/// slower.
const DRAFT_PAUSE: usize = 8;

/// Guesses after a weaker match (of one or two tokens), where no longer one is found or
/// guessing is paused: with the model's token a pass of three, which the tab's kernels read
/// with one load of the weights, as they read a pass of one, so a miss costs little and does
/// not pause guessing. A path the task named (`notes` then `.` `txt`) or a word the reply
/// wrote before is guessed from its first token: on SmolLM2's calls-after-calls tool reply
/// (BENCHMARKS.md) 23 passes instead of 27 for its 92 tokens, with no loss on a story.
pub(crate) const SPARE_GUESSES: usize = 2;

/// When a completion guesses: not for [`DRAFT_PAUSE`] tokens after a miss of more than
/// [`SPARE_GUESSES`] guesses.
#[derive(Debug, Default)]
pub(crate) struct Pacing {
    pause: usize,
}

impl Pacing {
    /// Whether the next token may take guesses (a token read without counts toward the pause).
    pub(crate) fn ready(&mut self) -> bool {
        if self.pause == 0 {
            return true;
        }
        self.pause -= 1;
        false
    }

    /// Takes note of how many of a pass's `guessed` guesses the model kept.
    pub(crate) fn kept(&mut self, kept: usize, guessed: usize) {
        if kept == 0 && guessed > SPARE_GUESSES {
            self.pause = DRAFT_PAUSE;
        }
    }
}

/// The longest run of the context's last tokens matched against its earlier text.
const LONGEST_MATCH: usize = 4;

/// The shortest for a long pass of guesses: one token matches too often to guess well, and a
/// guess that does not hold makes its pass longer for nothing.
const SHORTEST_MATCH: usize = 3;

/// The tokens that followed the latest earlier occurrence of the longest run (up to
/// [`LONGEST_MATCH`] tokens) that the context ends with: up to `room` of them after a run of
/// [`SHORTEST_MATCH`] or more where `long` (the pacing allows a long pass), else up to
/// [`SPARE_GUESSES`]. The context is `earlier` then `last` (the cached tokens and the model's
/// token, not yet read); one scan of it per length, bounded by the context's room.
pub(crate) fn lookup(earlier: &[u32], last: u32, room: usize, long: bool) -> Vec<u32> {
    let len = earlier.len() + 1;
    let at = |i: usize| if i < earlier.len() { earlier[i] } else { last };
    let run_at =
        |start: usize, tail: usize, n: usize| (0..n).all(|k| at(start + k) == at(tail + k));
    for n in (1..=LONGEST_MATCH.min(len.saturating_sub(1))).rev() {
        let tail = len - n;
        // the latest occurrence that ends before the tail does, and is followed by a token
        if let Some(start) = (0..tail).rev().find(|&start| run_at(start, tail, n)) {
            let limit = if long && n >= SHORTEST_MATCH {
                room
            } else {
                room.min(SPARE_GUESSES)
            };
            return (start + n..(start + n + limit).min(len)).map(at).collect();
        }
    }
    Vec::new()
}

/// The drafts the grammar admits after `state`, in order, cut before the first it does not
/// (and before any control token: a draft never ends the reply).
pub(crate) fn admitted(
    drafts: &[u32],
    tokenizer: &Tokenizer,
    grammar: Option<(&Grammar, &GrammarState)>,
) -> Vec<u32> {
    let mut state = grammar.map(|(_, s)| s.clone());
    let mut out = Vec::new();
    for &token in drafts {
        let bytes = tokenizer.token_bytes(token);
        if tokenizer.is_control(token) || bytes.is_empty() {
            break;
        }
        if let (Some((g, _)), Some(s)) = (grammar, state.as_mut()) {
            if !s.accepts(g, bytes) || s.advance(g, bytes).is_err() {
                break;
            }
        }
        out.push(token);
    }
    out
}

/// What the check reads: the last forward pass read the model's token and then the drafts,
/// so its row `i` chooses draft `i`, and the row after the last draft the token after them.
pub(crate) struct Drafted<'a> {
    /// The reply's tokens so far, the drafts last (the repeat guard reads them).
    pub output: &'a [u32],
    /// How many of them are drafts.
    pub count: usize,
    /// The grammar and where it stood before the drafts.
    pub grammar: Option<(&'a Grammar, GrammarState)>,
}

/// Compares each draft with greedy decoding's choice at its place, and returns how many of
/// them it writes as they are, with the grammar's state after those. `rows` gets every row's
/// logits (a buffer kept between passes: for Qwen's vocabulary, eight rows are 4.9 MB);
/// `logits` the row after the last draft kept, as a pass ending there would have written it:
/// the next step chooses from it (the model's own token where a draft did not hold).
pub(crate) fn check(
    model: &Model,
    scratch: &mut Scratch,
    tokenizer: &Tokenizer,
    drafted: Drafted<'_>,
    rows: &mut Vec<f32>,
    logits: &mut Vec<f32>,
) -> Result<(usize, Option<GrammarState>), String> {
    let Drafted {
        output,
        count,
        grammar,
    } = drafted;
    let start = output.len() - count;
    let vocab = model.config.vocab;
    model.logits_rows(scratch, count + 1, rows)?;
    let (grammar, mut state) = match grammar {
        Some((g, s)) => (Some(g), Some(s)),
        None => (None, None),
    };
    let json = grammar.is_some();
    let breaks = |token: u32| json && breaks_run(tokenizer.token_bytes(token));
    let mut kept = 0;
    while kept < count {
        let at = start + kept;
        let row = &mut rows[kept * vocab..(kept + 1) * vocab];
        let choice = penalized_choice(row, &output[..at], breaks, |row| {
            choose(
                row,
                tokenizer,
                grammar.zip(state.as_ref()),
                Sampling::Greedy,
                0.0,
            )
        });
        if choice != Some(output[at]) {
            break;
        }
        if let (Some(g), Some(s)) = (grammar, state.as_mut()) {
            s.advance(g, tokenizer.token_bytes(output[at]))
                .map_err(|e| e.to_string())?;
        }
        kept += 1;
    }
    logits.clear();
    logits.extend_from_slice(&rows[kept * vocab..(kept + 1) * vocab]);
    Ok((kept, state))
}

/// `choose(row)` with the repeat guard's penalties for a reply of `output` applied to the row
/// (as the step applies them), which is left as it was.
fn penalized_choice(
    row: &mut [f32],
    output: &[u32],
    breaks: impl Fn(u32) -> bool,
    choose: impl FnOnce(&[f32]) -> Option<u32>,
) -> Option<u32> {
    let penalties = RepeatGuard::DEFAULT.penalties(output, breaks);
    let mut saved = Vec::with_capacity(penalties.len());
    for (token, penalty) in penalties {
        if let Some(logit) = row.get_mut(token as usize) {
            saved.push((token as usize, *logit));
            *logit -= penalty;
        }
    }
    let choice = choose(row);
    for (index, logit) in saved.into_iter().rev() {
        row[index] = logit;
    }
    choice
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`lookup`] over a whole context written out, a long pass allowed.
    fn look(context: &[u32], room: usize) -> Vec<u32> {
        look_paced(context, room, true)
    }

    /// [`lookup`] over a whole context written out.
    fn look_paced(context: &[u32], room: usize, long: bool) -> Vec<u32> {
        match context.split_last() {
            Some((last, earlier)) => lookup(earlier, *last, room, long),
            None => Vec::new(),
        }
    }

    #[test]
    fn pacing_pauses_guessing_after_a_miss_only() {
        let mut pacing = Pacing::default();
        assert!(pacing.ready());
        pacing.kept(2, DRAFT_LIMIT);
        assert!(pacing.ready());
        // a missed pass of spare guesses costs little: no pause
        pacing.kept(0, SPARE_GUESSES);
        assert!(pacing.ready());
        pacing.kept(0, SPARE_GUESSES + 1);
        for _ in 0..DRAFT_PAUSE {
            assert!(!pacing.ready());
        }
        assert!(pacing.ready());
    }

    #[test]
    fn a_short_match_or_a_paused_pacing_gives_spare_guesses_only() {
        // "7" then "8 9 4" earlier: one token matched
        assert_eq!(look(&[7, 8, 9, 4, 1, 2, 7], 7), vec![8, 9]);
        // "1 2 3" then "4 5 6": a long pass, or spare guesses while paused
        let context = [1, 2, 3, 4, 5, 6, 9, 1, 2, 3];
        assert_eq!(look(&context, 7), vec![4, 5, 6, 9, 1, 2, 3]);
        assert_eq!(look_paced(&context, 7, false), vec![4, 5]);
        // a longer match wins over a later shorter one
        assert_eq!(look(&[1, 2, 5, 2, 6, 1, 2], 1), vec![5]);
    }

    #[test]
    fn the_longest_earlier_match_gives_what_followed_it_most_recently() {
        // "b c d" occurred before, followed by "e f"
        assert_eq!(look(&[1, 2, 3, 4, 5, 6, 9, 2, 3, 4], 2), vec![5, 6]);
        // a longer run wins over a later shorter one
        assert_eq!(
            look(&[1, 2, 3, 4, 7, 8, 2, 3, 4, 5, 1, 2, 3, 4], 2),
            vec![7, 8]
        );
        // the latest occurrence of the same run, and no more than the context holds after it
        assert_eq!(look(&[5, 6, 7, 1, 5, 6, 7, 2, 5, 6, 7], 1), vec![2]);
        assert_eq!(
            look(&[5, 6, 7, 1, 5, 6, 7, 2, 5, 6, 7], 9),
            vec![2, 5, 6, 7]
        );
    }

    #[test]
    fn no_match_no_room_and_no_context_give_nothing() {
        assert!(look(&[], 3).is_empty());
        assert!(look(&[1], 3).is_empty());
        assert!(look(&[1, 2, 3], 3).is_empty());
        // two tokens match too often for a long pass: spare guesses only
        assert_eq!(look(&[1, 2, 3, 4, 9, 2, 3], 3), vec![4, 9]);
        assert!(look(&[1, 2, 3, 1, 2, 3], 0).is_empty());
    }

    #[test]
    fn a_match_reaching_the_tail_drafts_up_to_it() {
        // "1 1 1" occurs at 0, followed by the tail's last token
        assert_eq!(look(&[1, 1, 1, 1], 3), vec![1]);
    }
}
