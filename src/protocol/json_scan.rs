//! A strict, hand-written JSON reader for the hot path of stream parsing: it walks a text in
//! place, hands object members and array items to the caller, borrows strings that hold no
//! escapes and skips what the caller does not read without building anything.
//!
//! It accepts a subset of what serde_json accepts and reads it the same way, and answers `None`
//! for everything else: invalid JSON, nesting deeper than [`MAX_DEPTH`], or a number serde_json
//! might reject as out of range. A caller that falls back to serde_json on `None` therefore
//! answers exactly as serde_json alone would, for any input.

use std::borrow::Cow;

use super::json::{hex4, plain_run, short_escape, surrogate_pair};

/// Nesting deeper than this is declined, well inside serde_json's own limit of 128.
const MAX_DEPTH: usize = 32;

/// Integer digits a number may have (so that, with at most two exponent digits, its magnitude
/// stays far below `f64::MAX`, where serde_json would report it out of range).
const MAX_INT_DIGITS: usize = 100;

/// A position in a JSON text. Every reading method consumes one value (or fails with `None`,
/// after which the cursor is not to be used further).
#[derive(Debug)]
pub(crate) struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        Cursor { text, pos: 0 }
    }

    /// The next byte, if any.
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// The next byte after JSON whitespace (space, tab, LF, CR: exactly serde_json's set).
    pub(crate) fn peek_value(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
        self.peek()
    }

    /// Consumes `byte` (after whitespace) or fails.
    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek_value()? == byte).then(|| self.pos += 1)
    }

    /// Whether only whitespace is left, as serde_json requires after the top-level value.
    pub(crate) fn at_end(&mut self) -> bool {
        self.peek_value().is_none()
    }

    /// Reads an object, calling `member` with each key (unescaped) and the cursor before its
    /// value, which `member` must consume.
    pub(crate) fn object(
        &mut self,
        depth: usize,
        mut member: impl FnMut(&mut Self, &str) -> Option<()>,
    ) -> Option<()> {
        self.sequence(depth, b'{', b'}', |c| {
            if c.peek()? != b'"' {
                return None;
            }
            let key = c.string()?;
            c.expect(b':')?;
            c.peek_value()?;
            member(c, &key)
        })
    }

    /// Reads an array, calling `item` with the cursor before each item, which it must consume.
    pub(crate) fn array(
        &mut self,
        depth: usize,
        item: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        self.sequence(depth, b'[', b']', item)
    }

    /// Reads `open`, then comma-separated entries through `entry` (called at each entry's
    /// first byte), then `close`: the frame objects and arrays share.
    fn sequence(
        &mut self,
        depth: usize,
        open: u8,
        close: u8,
        mut entry: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.expect(open)?;
        if self.peek_value()? == close {
            self.pos += 1;
            return Some(());
        }
        loop {
            self.peek_value()?;
            entry(self)?;
            match self.peek_value()? {
                b',' => self.pos += 1,
                b if b == close => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Skips any one value, checking it is valid JSON.
    pub(crate) fn skip(&mut self, depth: usize) -> Option<()> {
        match self.peek_value()? {
            b'{' => self.object(depth + 1, |c, _| c.skip(depth + 1)),
            b'[' => self.array(depth + 1, |c| c.skip(depth + 1)),
            b'"' => self.string().map(drop),
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            b'n' => self.literal("null"),
            b'-' | b'0'..=b'9' => self.number().map(drop),
            _ => None,
        }
    }

    /// A string value, `None` for any other (skipped) value: how a JSON tree's `as_str` reads a
    /// member.
    pub(crate) fn str_or_absent(&mut self, depth: usize) -> Option<Option<Cow<'a, str>>> {
        if self.peek_value()? == b'"' {
            return self.string().map(Some);
        }
        self.skip(depth).map(|()| None)
    }

    /// A non-negative integer that fits a `u64`, `None` for any other (skipped) value: how a
    /// JSON tree's `as_u64` reads a member.
    pub(crate) fn u64_or_absent(&mut self, depth: usize) -> Option<Option<u64>> {
        if matches!(self.peek_value()?, b'-' | b'0'..=b'9') {
            // Up to 19 digits always fit; a longer integer may not, and then is not a `u64`.
            return Some(self.number()?.and_then(|digits| match digits.len() {
                0..=19 => Some(digits.bytes().fold(0, |v, d| v * 10 + u64::from(d - b'0'))),
                _ => digits.parse().ok(),
            }));
        }
        self.skip(depth).map(|()| None)
    }

    /// Consumes the literal `word`.
    fn literal(&mut self, word: &str) -> Option<()> {
        let rest = self.text.get(self.pos..)?;
        rest.starts_with(word).then(|| self.pos += word.len())
    }

    /// Reads a number; its digits when it is a non-negative integer without fraction or
    /// exponent (what serde_json stores as an integer), else `Some(None)`.
    fn number(&mut self) -> Option<Option<&'a str>> {
        let bytes = self.text.as_bytes();
        let digits = |mut i: usize| {
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        let negative = self.peek() == Some(b'-');
        let int_start = self.pos + usize::from(negative);
        let mut i = match bytes.get(int_start)? {
            b'0' => int_start + 1,
            b'1'..=b'9' => digits(int_start),
            _ => return None,
        };
        let int_end = i;
        if bytes.get(i) == Some(&b'.') {
            let end = digits(i + 1);
            if end == i + 1 {
                return None;
            }
            i = end;
        }
        if let Some(b'e' | b'E') = bytes.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = bytes.get(i) {
                i += 1;
            }
            let end = digits(i);
            if end == i || end - i > 2 {
                return None;
            }
            i = end;
        }
        if int_end - int_start > MAX_INT_DIGITS {
            return None;
        }
        self.pos = i;
        if negative || i != int_end {
            return Some(None);
        }
        self.text.get(int_start..int_end).map(Some)
    }

    /// Reads a string: borrowed when it has no escape, unescaped into an owned one otherwise.
    /// Control characters must be escaped and `\u` escapes must pair their surrogates, as
    /// serde_json requires.
    #[inline]
    pub(crate) fn string(&mut self) -> Option<Cow<'a, str>> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.pos + 1;
        let end = self.plain_run(start);
        if self.text.as_bytes().get(end) == Some(&b'"') {
            self.pos = end + 1;
            return self.text.get(start..end).map(Cow::Borrowed);
        }
        self.escaped(start, end).map(Cow::Owned)
    }

    /// The rest of a string from its first escape (or control character) at `i`: kept out of
    /// line so that the common, escape-free case stays small.
    #[inline(never)]
    fn escaped(&mut self, start: usize, mut i: usize) -> Option<String> {
        let mut out = String::with_capacity(i - start + 16);
        out.push_str(self.text.get(start..i)?);
        loop {
            match *self.text.as_bytes().get(i)? {
                b'"' => {
                    self.pos = i + 1;
                    return Some(out);
                }
                b'\\' => i = self.escape(i + 1, &mut out)?,
                _ => return None,
            }
            let end = self.plain_run(i);
            out.push_str(self.text.get(i..end)?);
            i = end;
        }
    }

    /// The end of the run of bytes from `i` that stand for themselves in a string.
    #[inline]
    fn plain_run(&self, i: usize) -> usize {
        plain_run(self.text.as_bytes(), i)
    }

    /// Decodes the escape whose letter is at `i` into `out`; the index after it.
    fn escape(&self, i: usize, out: &mut String) -> Option<usize> {
        let letter = *self.text.as_bytes().get(i)?;
        if letter != b'u' {
            out.push(short_escape(letter)?);
            return Some(i + 1);
        }
        let high = self.hex4(i + 1)?;
        let (code, next) = match high {
            0xD800..=0xDBFF => {
                if self.text.as_bytes().get(i + 5..i + 7)? != b"\\u" {
                    return None;
                }
                let low = self.hex4(i + 7)?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return None;
                }
                (surrogate_pair(high, low), i + 11)
            }
            0xDC00..=0xDFFF => return None,
            _ => (high, i + 5),
        };
        out.push(char::from_u32(code)?);
        Some(next)
    }

    /// The four hex digits at `i` as a number.
    fn hex4(&self, i: usize) -> Option<u32> {
        hex4(self.text.as_bytes().get(i..i + 4)?)
    }
}
