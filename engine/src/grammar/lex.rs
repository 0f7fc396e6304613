//! The lexical layer of GBNF: a cursor over the text that skips spaces and `#` comments,
//! reads rule names, escapes (`\n`, `\x41`, `\u00e9`, ...) and numbers, and turns a byte
//! offset into the "line L, column C" that error messages carry.

use super::charset::MAX_CHAR;
use super::GrammarError;

/// A position in the grammar text (always on a character boundary).
#[derive(Clone, Debug)]
pub(super) struct Cursor<'t> {
    text: &'t str,
    pub(super) pos: usize,
}

/// Whether `c` may appear in a rule name.
pub(super) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

impl<'t> Cursor<'t> {
    pub(super) fn new(text: &'t str) -> Cursor<'t> {
        Cursor { text, pos: 0 }
    }

    fn rest(&self) -> &'t str {
        self.text.get(self.pos..).unwrap_or("")
    }

    pub(super) fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// The character after the next one.
    pub(super) fn peek_second(&self) -> Option<char> {
        self.rest().chars().nth(1)
    }

    pub(super) fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Consumes `s` when the text continues with it.
    pub(super) fn eat(&mut self, s: &str) -> bool {
        let found = self.rest().starts_with(s);
        if found {
            self.pos += s.len();
        }
        found
    }

    /// Skips spaces, tabs, newlines and comments.
    pub(super) fn skip_space(&mut self) {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start_matches([' ', '\t', '\r', '\n']);
            self.pos += rest.len() - trimmed.len();
            if !trimmed.starts_with('#') {
                return;
            }
            let comment = trimmed.find('\n').unwrap_or(trimmed.len());
            self.pos += comment;
        }
    }

    /// Skips spaces and tabs only.
    pub(super) fn skip_inline_space(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start_matches([' ', '\t']).len();
    }

    /// Reads a rule name, if one starts here.
    pub(super) fn name(&mut self) -> Option<&'t str> {
        let rest = self.rest();
        let len = rest.find(|c| !is_name_char(c)).unwrap_or(rest.len());
        let name = rest.get(..len).filter(|n| !n.is_empty())?;
        self.pos += len;
        Some(name)
    }

    /// Whether a rule definition (`name ::=`) starts here.
    pub(super) fn at_definition(&self) -> bool {
        let mut probe = self.clone();
        probe.name().is_some() && {
            probe.skip_inline_space();
            probe.rest().starts_with("::=")
        }
    }

    /// Reads a decimal number (at most 1,000,000,000), if one starts here.
    pub(super) fn number(&mut self) -> Result<Option<u32>, GrammarError> {
        let start = self.pos;
        let mut value: Option<u32> = None;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            self.bump();
            value = Some(value.unwrap_or(0).saturating_mul(10).saturating_add(d));
        }
        match value {
            Some(v) if v > 1_000_000_000 => {
                Err(self.error_at(start, "this repetition count is too large"))
            }
            other => Ok(other),
        }
    }

    /// Reads the rest of an escape; the cursor is just past the backslash at `at`.
    pub(super) fn escape(&mut self, at: usize) -> Result<u32, GrammarError> {
        let c = self
            .bump()
            .ok_or_else(|| self.error_at(at, "the text ends inside an escape"))?;
        let digits = match c {
            'n' => return Ok(u32::from('\n')),
            'r' => return Ok(u32::from('\r')),
            't' => return Ok(u32::from('\t')),
            '\\' | '"' | '[' | ']' | '-' | '^' | '/' | '\'' => return Ok(u32::from(c)),
            'x' => 2,
            'u' => 4,
            'U' => 8,
            other => return Err(self.error_at(at, &format!("unknown escape `\\{other}`"))),
        };
        let mut value = 0u32;
        for _ in 0..digits {
            let d = self.peek().and_then(|c| c.to_digit(16)).ok_or_else(|| {
                self.error_at(
                    at,
                    &format!("the escape `\\{c}` needs {digits} hexadecimal digits"),
                )
            })?;
            self.bump();
            value = (value << 4) | d;
        }
        if value > MAX_CHAR {
            return Err(self.error_at(at, &format!("U+{value:X} is not a Unicode code point")));
        }
        Ok(value)
    }

    /// Lifts a position-less error (from the rule set) to one located at `at`.
    pub(super) fn lift<T>(&self, at: usize, result: Result<T, String>) -> Result<T, GrammarError> {
        result.map_err(|message| self.error_at(at, &message))
    }

    /// An error located at byte offset `at`.
    pub(super) fn error_at(&self, at: usize, message: &str) -> GrammarError {
        GrammarError(format!("{}: {message}", self.where_is(at)))
    }

    /// "line L, column C" of byte offset `at` (both counted from 1, columns in characters).
    pub(super) fn where_is(&self, at: usize) -> String {
        let before = self.text.get(..at).unwrap_or(self.text);
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
        format!("line {line}, column {column}")
    }
}
