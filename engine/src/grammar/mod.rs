//! GBNF grammars (llama.cpp's syntax) that constrain what the model may generate.
//!
//! [`Grammar::parse`] turns grammar text into flat rules; a [`GrammarState`] tracks a match
//! byte by byte (tokens may split UTF-8 sequences); [`choose_greedy`] picks the best token the
//! grammar allows. Grammar text is untrusted: every failure is a [`GrammarError`], never a
//! panic, and parsing and matching are bounded in depth and size.
//!
//! One file per job: `lex` and `parse` read the text into `rules` (with `repeat`
//! expanding repetitions), `check` refuses harmful left recursion, `build` flattens the
//! rules into `compiled`'s form, `charset` and `utf8` handle characters, `stacks` and
//! `matcher` advance parse stacks, `state` is the public match state and `choose` the greedy
//! choice.

mod build;
mod charset;
mod check;
mod choose;
mod compiled;
mod lex;
mod matcher;
mod parse;
mod repeat;
mod rules;
mod stacks;
mod state;
mod utf8;

use std::fmt;

pub use choose::choose_greedy;
pub use compiled::Grammar;
pub use state::GrammarState;

/// Why a grammar could not be parsed, or why bytes were refused: a message saying what and,
/// for grammar text, where ("line L, column C: ...").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrammarError(pub String);

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GrammarError {}
