//! The GBNF parser: text to a [`RuleSet`] (llama.cpp's syntax). A rule is `name ::= ...` and
//! runs until the next line of that form, so a rule may continue on later lines however they
//! are indented. Groups become helper rules (or are inlined when they have one alternative);
//! repetitions are expanded by [`super::repeat`]. Nesting of parentheses is bounded, so hostile
//! text cannot exhaust the call stack.

use super::lex::{is_name_char, Cursor};
use super::repeat::repeat;
use super::rules::{Body, Item, RuleSet};
use super::GrammarError;

/// How deeply parentheses may nest.
pub(super) const MAX_DEPTH: usize = 64;

/// Parses the whole text into rules (not yet checked for undefined names or a root).
pub(super) fn parse_rules(text: &str) -> Result<RuleSet, GrammarError> {
    let mut parser = Parser {
        cur: Cursor::new(text),
        rules: RuleSet::default(),
        owner: 0,
    };
    parser.cur.skip_space();
    while parser.cur.peek().is_some() {
        parser.rule()?;
        parser.cur.skip_space();
    }
    Ok(parser.rules)
}

struct Parser<'t> {
    cur: Cursor<'t>,
    rules: RuleSet,
    /// The rule being defined (helper rules are named after it).
    owner: u32,
}

impl Parser<'_> {
    fn err(&self, at: usize, message: &str) -> GrammarError {
        self.cur.error_at(at, message)
    }

    fn rule(&mut self) -> Result<(), GrammarError> {
        let start = self.cur.pos;
        let Some(name) = self.cur.name() else {
            let found = self
                .cur
                .peek()
                .map_or("the end".to_string(), |c| format!("`{c}`"));
            return Err(self.err(start, &format!("expected a rule name, found {found}")));
        };
        self.cur.skip_inline_space();
        if !self.cur.eat("::=") {
            return Err(self.err(
                self.cur.pos,
                &format!("expected `::=` after the rule name `{name}`"),
            ));
        }
        let named = self.rules.named(name, None);
        self.owner = self.cur.lift(start, named)?;
        let body = self.alternates(0)?;
        if self.cur.peek() == Some(')') {
            return Err(self.err(self.cur.pos, "unexpected `)`: there is no `(` to close"));
        }
        let defined = self.rules.define(self.owner, body);
        self.cur.lift(start, defined)
    }

    /// `sequence ("|" sequence)*`, stopping before `)`, a new rule or the end.
    fn alternates(&mut self, depth: usize) -> Result<Body, GrammarError> {
        let mut alts = vec![self.sequence(depth)?];
        while self.cur.eat("|") {
            alts.push(self.sequence(depth)?);
        }
        Ok(alts)
    }

    fn sequence(&mut self, depth: usize) -> Result<Vec<Item>, GrammarError> {
        let mut items = Vec::new();
        // Where the last symbol (what a repetition applies to) starts in `items`.
        let mut last: Option<usize> = None;
        loop {
            self.cur.skip_space();
            let at = self.cur.pos;
            let Some(c) = self.cur.peek() else { break };
            match c {
                '|' | ')' => break,
                '"' => {
                    last = Some(items.len());
                    self.literal(&mut items)?;
                }
                '[' => {
                    last = Some(items.len());
                    let set = self.class()?;
                    items.push(Item::Chars(set));
                }
                '.' => {
                    self.cur.bump();
                    last = Some(items.len());
                    let any = self.rules.charset(&[], true);
                    items.push(Item::Chars(self.cur.lift(at, any)?));
                }
                '(' => {
                    last = Some(items.len());
                    self.group(depth, &mut items)?;
                }
                '*' | '+' | '?' | '{' => {
                    let (min, max) = self.repetition()?;
                    let Some(start) = last else {
                        return Err(self.err(at, &format!("`{c}` has nothing before it to repeat")));
                    };
                    let repeated = repeat(&mut self.rules, self.owner, &mut items, start, min, max);
                    self.cur.lift(at, repeated)?;
                }
                c if is_name_char(c) => {
                    if self.cur.at_definition() {
                        break;
                    }
                    let name = self.cur.name().unwrap_or_default();
                    let id = self.rules.named(name, Some(at));
                    self.cur.lift(at, self.rules.charge(1))?;
                    last = Some(items.len());
                    items.push(Item::Ref(self.cur.lift(at, id)?));
                }
                other => return Err(self.err(at, &format!("unexpected character `{other}`"))),
            }
        }
        Ok(items)
    }

    /// `( alternates )`: inlined when it has one alternative, else a helper rule.
    fn group(&mut self, depth: usize, items: &mut Vec<Item>) -> Result<(), GrammarError> {
        let open = self.cur.pos;
        if depth + 1 >= MAX_DEPTH {
            return Err(self.err(
                open,
                &format!("parentheses nest more than {MAX_DEPTH} deep"),
            ));
        }
        self.cur.bump();
        let mut body = self.alternates(depth + 1)?;
        if !self.cur.eat(")") {
            let opened = self.cur.where_is(open);
            return Err(self.err(
                self.cur.pos,
                &format!("expected `)` to close the `(` at {opened}"),
            ));
        }
        if body.len() == 1 {
            items.extend(body.pop().unwrap_or_default());
            return Ok(());
        }
        let helper = self.rules.helper(self.owner);
        let helper = self.cur.lift(open, helper)?;
        let defined = self.rules.define(helper, body);
        self.cur.lift(open, defined)?;
        self.cur.lift(open, self.rules.charge(1))?;
        items.push(Item::Ref(helper));
        Ok(())
    }

    /// `"..."`: one item per code point.
    fn literal(&mut self, items: &mut Vec<Item>) -> Result<(), GrammarError> {
        let open = self.cur.pos;
        self.cur.bump();
        loop {
            let at = self.cur.pos;
            let c = match self.cur.bump() {
                None => {
                    return Err(self.err(open, "unterminated literal: this `\"` is never closed"))
                }
                Some('"') => return Ok(()),
                Some('\\') => self.cur.escape(at)?,
                Some(c) => u32::from(c),
            };
            let set = self.rules.charset(&[(c, c)], false);
            items.push(Item::Chars(self.cur.lift(at, set)?));
            self.cur.lift(at, self.rules.charge(1))?;
        }
    }

    /// `[...]` or `[^...]`: the id of its character set.
    fn class(&mut self) -> Result<u32, GrammarError> {
        let open = self.cur.pos;
        self.cur.bump();
        let negated = self.cur.eat("^");
        let mut ranges = Vec::new();
        loop {
            let at = self.cur.pos;
            let lo = match self.class_char(open)? {
                None => break,
                Some(c) => c,
            };
            let hi = if self.cur.peek() == Some('-')
                && !matches!(self.cur.peek_second(), Some(']') | None)
            {
                self.cur.bump();
                self.class_char(open)?.unwrap_or(lo)
            } else {
                lo
            };
            if hi < lo {
                return Err(self.err(at, "this character range runs backwards"));
            }
            ranges.push((lo, hi));
        }
        let set = self.rules.charset(&ranges, negated);
        self.cur.lift(open, set)
    }

    /// One character of a class, or `None` at its closing `]`.
    fn class_char(&mut self, open: usize) -> Result<Option<u32>, GrammarError> {
        let at = self.cur.pos;
        match self.cur.bump() {
            None => Err(self.err(
                open,
                "unterminated character class: this `[` is never closed",
            )),
            Some(']') => Ok(None),
            Some('\\') => self.cur.escape(at).map(Some),
            Some(c) => Ok(Some(u32::from(c))),
        }
    }

    /// `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}` or `{,n}`: (least, most) times.
    fn repetition(&mut self) -> Result<(u32, Option<u32>), GrammarError> {
        let at = self.cur.pos;
        match self.cur.bump() {
            Some('*') => return Ok((0, None)),
            Some('+') => return Ok((1, None)),
            Some('?') => return Ok((0, Some(1))),
            _ => {}
        }
        self.cur.skip_inline_space();
        let min = self.cur.number()?;
        self.cur.skip_inline_space();
        let (min, max) = if self.cur.eat(",") {
            self.cur.skip_inline_space();
            let max = self.cur.number()?;
            self.cur.skip_inline_space();
            (min.unwrap_or(0), max)
        } else {
            let exact = min.ok_or_else(|| self.err(at, "expected a number after `{`"))?;
            (exact, Some(exact))
        };
        if !self.cur.eat("}") {
            return Err(self.err(self.cur.pos, "expected `}` to close the repetition"));
        }
        if max.is_some_and(|max| max < min) {
            return Err(self.err(at, "the repetition's upper bound is below its lower bound"));
        }
        Ok((min, max))
    }
}
