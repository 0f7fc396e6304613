//! Matching one code point: the parse stacks that survive it, expanded until every stack's top
//! is a character set (or the stack is empty: a whole match). This is llama.cpp's
//! `advance_stack`, done with a worklist instead of recursion and with every stack seen in a
//! step deduplicated, so ambiguous or nullable-looping grammars cannot blow up; past
//! [`MAX_STACKS`] distinct stacks a step gives up rather than eat memory.

use super::charset::CharSet;
use super::compiled::{Elem, Grammar};
use super::stacks::{SeenSet, Stacks};

/// The most distinct stacks (including intermediate ones) one step may visit.
pub(super) const MAX_STACKS: usize = 1 << 14;

/// A step visited more than [`MAX_STACKS`] stacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TooAmbiguous;

/// Reusable buffers for expanding stacks (so a step allocates nothing once they have grown).
#[derive(Clone, Debug, Default)]
pub(super) struct Expander {
    seen: SeenSet,
    /// Indices into `seen` of stacks not expanded yet.
    work: Vec<usize>,
    top: Vec<u32>,
    candidate: Vec<u32>,
}

impl Expander {
    fn begin(&mut self) {
        self.seen.clear();
        self.work.clear();
    }

    /// Queues `self.candidate` unless it was seen in this step already.
    fn queue_candidate(&mut self) -> Result<(), TooAmbiguous> {
        if let Some(i) = self.seen.insert(&self.candidate) {
            if self.seen.len() > MAX_STACKS {
                return Err(TooAmbiguous);
            }
            self.work.push(i);
        }
        Ok(())
    }

    /// Expands every queued stack into `out` (cleared first).
    fn finish(&mut self, grammar: &Grammar, out: &mut Stacks) -> Result<(), TooAmbiguous> {
        out.clear();
        while let Some(i) = self.work.pop() {
            self.top.clear();
            self.top.extend_from_slice(self.seen.get(i));
            let Some((&pos, below)) = self.top.split_last() else {
                out.push(&[]);
                continue;
            };
            match grammar.elem(pos) {
                Elem::Chars(_) => out.push(&self.top),
                Elem::End => {}
                Elem::Ref(rule) => {
                    let next = pos + 1;
                    let has_next = grammar.elem(next) != Elem::End;
                    let depth = below.len();
                    for &alt in grammar.alternatives(rule) {
                        self.candidate.clear();
                        self.candidate
                            .extend_from_slice(self.top.get(..depth).unwrap_or_default());
                        if has_next {
                            self.candidate.push(next);
                        }
                        if grammar.elem(alt) != Elem::End {
                            self.candidate.push(alt);
                        }
                        self.queue_candidate()?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The stacks before anything is matched: rule `root`'s alternatives, expanded.
pub(super) fn initial_stacks(grammar: &Grammar, root: u32) -> Result<Stacks, TooAmbiguous> {
    let mut ex = Expander::default();
    for &alt in grammar.alternatives(root) {
        ex.candidate.clear();
        if grammar.elem(alt) != Elem::End {
            ex.candidate.push(alt);
        }
        ex.queue_candidate()?;
    }
    let mut out = Stacks::default();
    ex.finish(grammar, &mut out)?;
    Ok(out)
}

/// The stacks of `from` that accept code point `c`, advanced past it and expanded, into `out`.
pub(super) fn step(
    grammar: &Grammar,
    from: &Stacks,
    c: u32,
    ex: &mut Expander,
    out: &mut Stacks,
) -> Result<(), TooAmbiguous> {
    ex.begin();
    for stack in from.iter() {
        let Some((&pos, below)) = stack.split_last() else {
            continue;
        };
        if !top_set(grammar, pos).is_some_and(|set| set.contains(c)) {
            continue;
        }
        ex.candidate.clear();
        ex.candidate.extend_from_slice(below);
        if grammar.elem(pos + 1) != Elem::End {
            ex.candidate.push(pos + 1);
        }
        ex.queue_candidate()?;
    }
    ex.finish(grammar, out)
}

/// Whether some stack's top set satisfies `test` (an empty stack has no top).
pub(super) fn any_top(grammar: &Grammar, stacks: &Stacks, test: impl Fn(&CharSet) -> bool) -> bool {
    stacks.iter().any(|stack| {
        stack
            .last()
            .and_then(|&pos| top_set(grammar, pos))
            .is_some_and(&test)
    })
}

/// The character set at `pos`, if that is what is there.
#[inline]
pub(super) fn top_set(grammar: &Grammar, pos: u32) -> Option<&CharSet> {
    match grammar.elem(pos) {
        Elem::Chars(set) => grammar.set(set),
        Elem::Ref(_) | Elem::End => None,
    }
}
