//! Building a [`Grammar`] from GBNF text: the rules the parser read, checked for what the
//! parser cannot see (undefined names, a missing `root`, harmful left recursion, a start that
//! is too ambiguous), then flattened into the matching form.

use super::charset::CharSet;
use super::check::find_left_recursion;
use super::compiled::{Elem, Grammar};
use super::lex::Cursor;
use super::matcher::{initial_stacks, MAX_STACKS};
use super::parse::parse_rules;
use super::rules::{Body, Item};
use super::stacks::Stacks;
use super::GrammarError;

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
