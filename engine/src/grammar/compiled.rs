//! The parsed grammar in the form matching uses: every alternative of every rule laid out in
//! one flat element array (each ended by `End`), so a parse-stack entry is just a position in
//! it. Building it from text checks what the parser cannot: undefined names, a missing `root`,
//! harmful left recursion and a start that is too ambiguous.

use super::charset::CharSet;
use super::check::find_left_recursion;
use super::lex::Cursor;
use super::matcher::{initial_stacks, MAX_STACKS};
use super::parse::parse_rules;
use super::rules::{Body, Item};
use super::stacks::Stacks;
use super::GrammarError;

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
    /// Parses GBNF text (llama.cpp's syntax); the start rule is `root`. Any text is safe to
    /// pass: a malformed or hostile grammar is an error saying what is wrong and where.
    pub fn parse(text: &str) -> Result<Grammar, GrammarError> {
        let set = parse_rules(text)?;
        let root = set.lookup("root");
        let cursor = Cursor::new(text);
        let mut bodies: Vec<Body> = Vec::with_capacity(set.bodies.len());
        for (id, body) in set.bodies.into_iter().enumerate() {
            match body {
                Some(body) => bodies.push(body),
                None => {
                    let name = set.names.get(id).map_or("", String::as_str);
                    let at = set.first_use.get(id).copied().flatten().unwrap_or(0);
                    return Err(
                        cursor.error_at(at, &format!("rule `{name}` is used but never defined"))
                    );
                }
            }
        }
        let Some(root) = root else {
            return Err(GrammarError(
                "the grammar has no `root` rule (matching starts there)".into(),
            ));
        };
        if let Some(name) = find_left_recursion(&bodies, &set.names) {
            return Err(GrammarError(format!(
                "rule `{name}` is left-recursive: it can reach itself before matching anything"
            )));
        }
        let mut grammar = flatten(&bodies, set.sets);
        grammar.initial = initial_stacks(&grammar, root).map_err(|_| {
            GrammarError(format!(
                "the grammar is too ambiguous: it starts with more than {MAX_STACKS} parse stacks"
            ))
        })?;
        Ok(grammar)
    }

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

fn flatten(bodies: &[Body], sets: Vec<CharSet>) -> Grammar {
    let mut grammar = Grammar {
        elems: Vec::new(),
        alts: Vec::new(),
        rules: Vec::new(),
        sets,
        initial: Stacks::default(),
    };
    for body in bodies {
        let first = grammar.alts.len();
        for alt in body {
            grammar
                .alts
                .push(u32::try_from(grammar.elems.len()).unwrap_or(u32::MAX));
            grammar.elems.extend(alt.iter().map(|item| match *item {
                Item::Chars(set) => Elem::Chars(set),
                Item::Ref(rule) => Elem::Ref(rule),
            }));
            grammar.elems.push(Elem::End);
        }
        grammar.rules.push((first, grammar.alts.len()));
    }
    grammar
}
