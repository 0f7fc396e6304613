//! The parsed grammar in the form matching uses: every alternative of every rule laid out in
//! one flat element array (each ended by `End`), so a parse-stack entry is just a position in
//! it. Plain data: `build` makes it from text, `matcher` and `state` read it.

use super::charset::CharSet;
use super::stacks::Stacks;

/// One element of the flat array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Elem {
    /// One code point from this set.
    Chars(u32),
    /// A match of this rule.
    Ref(u32),
    /// The end of an alternative.
    End,
}

/// A parsed GBNF grammar, ready to match against: immutable, so one grammar serves any number
/// of [`GrammarState`](super::GrammarState)s.
#[derive(Clone, Debug)]
pub struct Grammar {
    pub(super) elems: Vec<Elem>,
    /// The start position of every alternative, rule after rule.
    pub(super) alts: Vec<u32>,
    /// Each rule's alternatives: a range of `alts`.
    pub(super) rules: Vec<(usize, usize)>,
    pub(super) sets: Vec<CharSet>,
    /// The parse stacks before anything is matched.
    pub(super) initial: Stacks,
}

impl Grammar {
    /// The element at `pos` (`End` past the end).
    #[inline]
    pub(super) fn elem(&self, pos: u32) -> Elem {
        self.elems.get(pos as usize).copied().unwrap_or(Elem::End)
    }

    /// The start positions of rule `rule`'s alternatives.
    #[inline]
    pub(super) fn alternatives(&self, rule: u32) -> &[u32] {
        self.rules
            .get(rule as usize)
            .and_then(|&(s, e)| self.alts.get(s..e))
            .unwrap_or(&[])
    }

    /// Character set `id`.
    #[inline]
    pub(super) fn set(&self, id: u32) -> Option<&CharSet> {
        self.sets.get(id as usize)
    }
}
