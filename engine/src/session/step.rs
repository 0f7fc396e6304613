//! One generation step: the model's token, and with jump-forward what the grammar forces after
//! it, read in one forward pass and then checked against what greedy decoding would have
//! written there ([`departure`]): where it differs the cache is rolled back to that place (its
//! positions simply dropped) and the model's token goes on from there, in another pass. Where
//! nothing is forced, guesses from the context ([`crate::draft`]) may ride along instead.

use super::{Completion, Session, Step};
use crate::draft::{admitted, check, lookup, Drafted, DRAFT_LIMIT};
use crate::grammar::GrammarState;
use crate::jump::check::{departure, Departure, Forced};
use crate::jump::{jump_forward, Extensions};
use crate::repetition::{breaks_run, RepeatGuard};
use crate::sampling::{choose, Sampling};

/// What reading a token (and what was forced after it) came to.
enum Read {
    /// Read, and checked: the step is over.
    Done,
    /// Greedy decoding leaves the forced tokens here: this token goes on.
    Departed(u32),
    /// The context has no room for the token.
    Full,
}

impl Session {
    /// Generates the next token (after the prompt is fed), with jump-forward what the grammar
    /// forces after it: a step may append several tokens.
    pub fn next(&mut self, random: f32) -> Result<Step, String> {
        let Some(mut completion) = self.completion.take() else {
            return Err("no completion is in progress".into());
        };
        if !completion.pending.is_empty() {
            self.completion = Some(completion);
            return Err("the prompt is not read yet".into());
        }
        if self.output.len() >= completion.max_tokens {
            return Ok(Step::Length);
        }
        if let Some((_, state)) = &completion.grammar {
            if state.is_complete() && !state.can_continue() {
                return Ok(Step::Stop);
            }
        }
        let tokenizer = &self.tokenizer;
        // JSON's punctuation ends a run only under a grammar (a tool call's JSON); in free text
        // a loop of whole lines is a run like any other.
        let json = completion.grammar.is_some();
        RepeatGuard::DEFAULT.penalize(&mut self.logits, &self.output, |token| {
            json && breaks_run(tokenizer.token_bytes(token))
        });
        let grammar = completion.grammar.as_ref().map(|(g, s)| (g, s));
        let Some(mut token) = choose(
            &self.logits,
            tokenizer,
            grammar,
            completion.sampling,
            random,
        ) else {
            return Err("the grammar admits no token the model can write".into());
        };
        if tokenizer.is_end_of_generation(token) {
            return Ok(Step::Stop);
        }
        let mut bytes = Vec::new();
        loop {
            match self.read(&mut completion, token, &mut bytes)? {
                Read::Done => break,
                Read::Departed(choice) => token = choice,
                Read::Full => return Ok(Step::Length),
            }
        }
        self.completion = Some(completion);
        Ok(Step::Token(bytes))
    }

    /// Appends `token` and what the grammar then forces, reads them in one forward pass
    /// (unless generation ends there), and keeps the forced tokens greedy decoding would have
    /// written too; their bytes go to `bytes`.
    fn read(
        &mut self,
        completion: &mut Completion,
        token: u32,
        bytes: &mut Vec<u8>,
    ) -> Result<Read, String> {
        let tokenizer = &self.tokenizer;
        if let Some((grammar, state)) = completion.grammar.as_mut() {
            state
                .advance(grammar, tokenizer.token_bytes(token))
                .map_err(|e| e.to_string())?;
        }
        bytes.extend_from_slice(tokenizer.token_bytes(token));
        self.output.push(token);
        // where the grammar stood before the jump, for going back to a departure
        let before: Option<GrammarState> = completion
            .grammar
            .as_ref()
            .filter(|_| self.jump_forward)
            .map(|(_, s)| s.clone());
        let forced = if self.jump_forward {
            let extensions = self.extensions.get_or_init(|| Extensions::new(tokenizer));
            // a batch the context cannot hold would end the reply early: fewer forced tokens
            let room = (completion.max_tokens - self.output.len())
                .min(self.cache.capacity().saturating_sub(self.cache.len() + 1));
            jump_forward(tokenizer, extensions, completion.grammar.as_mut(), room)
        } else {
            Vec::new()
        };
        self.output.extend_from_slice(&forced);
        let done = self.output.len() >= completion.max_tokens
            || completion
                .grammar
                .as_ref()
                .is_some_and(|(_, s)| s.is_complete() && !s.can_continue());
        let drafts = if done || !forced.is_empty() {
            Vec::new()
        } else {
            self.drafts_after(completion, token)
        };
        self.output.extend_from_slice(&drafts);
        // The reply's last token is never read (nothing comes after it); a forced one still
        // needs the row before it read, to check it.
        let read = if done {
            forced.len()
        } else {
            forced.len() + 1 + drafts.len()
        };
        if read == 0 {
            return Ok(Read::Done);
        }
        let batch: Vec<u32> = std::iter::once(token)
            .chain(forced.iter().copied())
            .chain(drafts.iter().copied())
            .take(read)
            .collect();
        let start = self.cache.len();
        if start + batch.len() > self.cache.capacity() {
            return Ok(Read::Full);
        }
        let logits = if done || !drafts.is_empty() {
            None
        } else {
            Some(&mut self.logits)
        };
        self.model
            .forward(&batch, &mut self.cache, &mut self.scratch, logits)?;
        self.cached.extend_from_slice(&batch);
        if !drafts.is_empty() {
            self.keep_drafts(completion, start, &drafts, bytes)?;
            return Ok(Read::Done);
        }
        let checked = match self.extensions.get() {
            Some(extensions) if !forced.is_empty() => departure(
                &self.model,
                &mut self.scratch,
                tokenizer,
                extensions,
                Forced {
                    output: &self.output,
                    count: forced.len(),
                },
            )?,
            Some(_) | None => None,
        };
        let kept = checked.map_or(forced.len(), |d| d.kept);
        for id in &forced[..kept] {
            bytes.extend_from_slice(tokenizer.token_bytes(*id));
        }
        let Some(Departure { kept, choice }) = checked else {
            return Ok(Read::Done);
        };
        // Back to the place greedy decoding leaves the forced text: the token and the forced
        // tokens it keeps stay read, the rest is dropped from the cache and the grammar.
        self.keep_read(start, kept, forced.len());
        if let (Some((grammar, state)), Some(before)) = (completion.grammar.as_mut(), before) {
            *state = before;
            for id in &forced[..kept] {
                state
                    .advance(grammar, self.tokenizer.token_bytes(*id))
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(Read::Departed(choice))
    }

    /// Guesses from the context for after `token` (see [`crate::draft`]): none but under greedy
    /// decoding with drafts on, no more than the reply's and the context's room leaves (a pass
    /// with drafts reads the row after the last one, for the next token), and spare guesses
    /// only while the pacing holds long passes back.
    fn drafts_after(&self, completion: &mut Completion, token: u32) -> Vec<u32> {
        if !self.drafts || completion.sampling != Sampling::Greedy {
            return Vec::new();
        }
        let room = completion
            .max_tokens
            .saturating_sub(self.output.len() + 1)
            .min(self.cache.capacity().saturating_sub(self.cache.len() + 1))
            .min(DRAFT_LIMIT);
        if room == 0 {
            return Vec::new();
        }
        let grammar = completion.grammar.as_ref().map(|(g, s)| (g, s));
        let long = completion.pacing.ready();
        admitted(
            &lookup(&self.cached, token, room, long),
            &self.tokenizer,
            grammar,
        )
    }

    /// Once the pass read `drafts` after the token at `start`, keeps those greedy decoding
    /// writes (their bytes go to `bytes`) and drops the rest from the cache, the reply and the
    /// grammar; the logits are then the next token's.
    fn keep_drafts(
        &mut self,
        completion: &mut Completion,
        start: usize,
        drafts: &[u32],
        bytes: &mut Vec<u8>,
    ) -> Result<(), String> {
        let tokenizer = &self.tokenizer;
        let (kept, state) = check(
            &self.model,
            &mut self.scratch,
            tokenizer,
            Drafted {
                output: &self.output,
                count: drafts.len(),
                grammar: completion.grammar.as_ref().map(|(g, s)| (g, s.clone())),
            },
            &mut self.draft_rows,
            &mut self.logits,
        )?;
        for id in &drafts[..kept] {
            bytes.extend_from_slice(tokenizer.token_bytes(*id));
        }
        completion.pacing.kept(kept, drafts.len());
        self.keep_read(start, kept, drafts.len());
        if let (Some((_, now)), Some(state)) = (completion.grammar.as_mut(), state) {
            *now = state;
        }
        Ok(())
    }

    /// Of a pass that read a token at `start` and `appended` tokens after it, keeps the token
    /// and the first `kept` of them, in the cache and in the reply.
    fn keep_read(&mut self, start: usize, kept: usize, appended: usize) {
        let length = start + 1 + kept;
        self.cache.truncate(length);
        self.cached.truncate(length);
        self.output.truncate(self.output.len() - appended + kept);
    }
}
