//! Where a match stands ([`GrammarState`]): the live parse stacks plus the decoder holding a
//! code point whose UTF-8 bytes have only partly arrived. Bytes are tried on scratch buffers,
//! so checking a token never changes the state and, once the buffers have grown, allocates
//! nothing.

use super::compiled::Grammar;
use super::matcher::{any_top, step, top_set, Expander, TooAmbiguous, MAX_STACKS};
use super::stacks::Stacks;
use super::utf8::{Fed, Utf8};
use super::GrammarError;

/// How far generation has got through a grammar. Cheap to clone (to try continuations);
/// equal states allow exactly the same continuations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrammarState {
    stacks: Stacks,
    utf8: Utf8,
}

/// Buffers reused across checks.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    ex: Expander,
    /// The stacks after the bytes tried so far (valid when `Run::moved`).
    now: Stacks,
    next: Stacks,
}

/// The outcome of trying bytes.
struct Run {
    accepted: bool,
    /// Whether the stacks changed (then the new ones are in `Scratch::now`).
    moved: bool,
    utf8: Utf8,
}

impl GrammarState {
    /// The state before anything is generated.
    pub fn new(grammar: &Grammar) -> GrammarState {
        GrammarState {
            stacks: grammar.initial.clone(),
            utf8: Utf8::default(),
        }
    }

    /// Whether these bytes (a token's; they may start or end inside a UTF-8 sequence) may come
    /// next: exactly when [`advance`](Self::advance) with them would succeed. Does not change
    /// the state. Empty bytes: false.
    pub fn accepts(&self, grammar: &Grammar, bytes: &[u8]) -> bool {
        self.check(grammar, bytes, &mut Scratch::default())
    }

    /// Whether any of `candidates` (tokens' bytes) may come next: [`accepts`](Self::accepts)
    /// on each until one is accepted, those whose first byte cannot come next dropped by a
    /// bitmap lookup, the buffers shared.
    pub fn accepts_any<'b>(
        &self,
        grammar: &Grammar,
        candidates: impl IntoIterator<Item = &'b [u8]>,
    ) -> bool {
        let first = self.first_bytes(grammar);
        let mut scratch = Scratch::default();
        candidates.into_iter().any(|bytes| {
            bytes
                .first()
                .is_some_and(|&b| (first[usize::from(b >> 6)] >> (b & 63)) & 1 == 1)
                && self.check(grammar, bytes, &mut scratch)
        })
    }

    /// [`accepts`](Self::accepts) with buffers reused across calls.
    pub(super) fn check(&self, grammar: &Grammar, bytes: &[u8], scratch: &mut Scratch) -> bool {
        self.run(grammar, bytes, scratch)
            .is_ok_and(|run| run.accepted)
    }

    /// Appends the bytes (a token's); an error, with the state unchanged, when the grammar
    /// does not allow them here.
    pub fn advance(&mut self, grammar: &Grammar, bytes: &[u8]) -> Result<(), GrammarError> {
        let mut scratch = Scratch::default();
        match self.run(grammar, bytes, &mut scratch) {
            Ok(Run {
                accepted: true,
                moved,
                utf8,
            }) => {
                if moved {
                    self.stacks = std::mem::take(&mut scratch.now);
                }
                self.utf8 = utf8;
                Ok(())
            }
            Ok(Run {
                accepted: false, ..
            }) => Err(GrammarError(format!(
                "the grammar does not allow {:?} here",
                String::from_utf8_lossy(bytes)
            ))),
            Err(TooAmbiguous) => Err(GrammarError(format!(
                "the grammar is too ambiguous here: more than {MAX_STACKS} parse stacks"
            ))),
        }
    }

    /// Whether what was appended so far is a whole match of `root` (so generation may end
    /// here). False while a UTF-8 sequence is incomplete.
    pub fn is_complete(&self) -> bool {
        self.utf8.is_idle() && self.stacks.iter().any(|stack| stack.is_empty())
    }

    /// Whether anything at all may still be appended.
    pub fn can_continue(&self) -> bool {
        !self.utf8.is_idle() || self.stacks.iter().any(|stack| !stack.is_empty())
    }

    /// The bytes the grammar admits as the only continuation from here, up to `limit` of
    /// them: while generation may not end, no UTF-8 sequence is open and exactly one ASCII
    /// byte may come next, that byte. What a jump-forward appends without asking the model.
    pub fn forced_bytes(&self, grammar: &Grammar, limit: usize) -> Vec<u8> {
        let mut state = self.clone();
        let mut out = Vec::new();
        let mut scratch = Scratch::default();
        while out.len() < limit && !state.is_complete() && state.utf8.is_idle() {
            let map = state.first_bytes(grammar);
            let ones: u32 = map.iter().map(|m| m.count_ones()).sum();
            let Some(byte) = (0..128u8).find(|b| map[usize::from(b >> 6)] & (1 << (b & 63)) != 0)
            else {
                break;
            };
            if ones != 1 || !state.check(grammar, &[byte], &mut scratch) {
                break;
            }
            if state.advance(grammar, &[byte]).is_err() {
                break;
            }
            out.push(byte);
        }
        out
    }

    /// A bitmap of the bytes a token may start with here (a superset: a byte in it may still
    /// be refused by [`accepts`](Self::accepts), one outside it always is).
    pub(super) fn first_bytes(&self, grammar: &Grammar) -> [u64; 4] {
        let mut map = [0u64; 4];
        if let Some((lo, hi)) = self.utf8.next_byte_range() {
            for b in lo..=hi {
                map[usize::from(b >> 6)] |= 1 << (b & 63);
            }
            return map;
        }
        for stack in self.stacks.iter() {
            if let Some(set) = stack.last().and_then(|&pos| top_set(grammar, pos)) {
                for (m, s) in map.iter_mut().zip(set.first_bytes()) {
                    *m |= s;
                }
            }
        }
        map
    }

    /// Tries `bytes`: every complete code point is matched (so a yes here means `advance`
    /// succeeds), and a trailing partial one must be able to start an allowed code point.
    fn run(
        &self,
        grammar: &Grammar,
        bytes: &[u8],
        scratch: &mut Scratch,
    ) -> Result<Run, TooAmbiguous> {
        let mut run = Run {
            accepted: false,
            moved: false,
            utf8: self.utf8,
        };
        if bytes.is_empty() {
            return Ok(run);
        }
        for &byte in bytes {
            match run.utf8.feed(byte) {
                Fed::Invalid => return Ok(run),
                Fed::More => {}
                Fed::Char(c) => {
                    if !self.step(grammar, c, scratch, &mut run)? {
                        return Ok(run);
                    }
                }
            }
        }
        run.accepted = match run.utf8.pending_range() {
            Some((lo, hi)) => any_top(grammar, self.current(scratch, &run), |set| {
                set.intersects(lo, hi)
            }),
            None => true,
        };
        Ok(run)
    }

    fn current<'a>(&'a self, scratch: &'a Scratch, run: &Run) -> &'a Stacks {
        if run.moved {
            &scratch.now
        } else {
            &self.stacks
        }
    }

    /// Matches one code point; false when no stack survives.
    fn step(
        &self,
        grammar: &Grammar,
        c: u32,
        scratch: &mut Scratch,
        run: &mut Run,
    ) -> Result<bool, TooAmbiguous> {
        let from = if run.moved {
            &scratch.now
        } else {
            &self.stacks
        };
        step(grammar, from, c, &mut scratch.ex, &mut scratch.next)?;
        std::mem::swap(&mut scratch.now, &mut scratch.next);
        run.moved = true;
        Ok(!scratch.now.is_empty())
    }
}
