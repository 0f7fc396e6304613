//! JSON text to a [`Value`], the way `serde_json::from_str::<Value>` reads it: the same values
//! (numbers as unsigned, signed or float exactly as it chooses, floats correctly rounded as with
//! its `float_roundtrip` feature, a repeated key's last value kept) and, for invalid text, the
//! same error at the same position. It follows serde_json's reader step by step; the tests
//! compare the two on generated and mangled texts.

use serde_json::{Map, Number, Value};

use super::error::{JsonError, JsonErrorCode as Code};

/// Nesting serde_json refuses: the 128th open bracket fails.
const RECURSION_LIMIT: u8 = 128;

/// Parses `text`, which must hold one JSON value and nothing but whitespace around it.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        index: 0,
        remaining_depth: RECURSION_LIMIT,
    };
    let value = parser.value()?;
    match parser.whitespace() {
        Some(_) => Err(parser.peek_error(Code::TrailingCharacters)),
        None => Ok(value),
    }
}

/// A position in the text being read.
pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) bytes: &'a [u8],
    /// The next byte to read.
    pub(super) index: usize,
    remaining_depth: u8,
}

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.index).copied()
    }

    pub(super) fn peek_or_null(&self) -> u8 {
        self.peek().unwrap_or(0)
    }

    pub(super) fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.index += 1;
        Some(byte)
    }

    /// An error about the byte just read (serde_json's `error`).
    pub(super) fn error(&self, code: Code) -> JsonError {
        JsonError::at(code, self.bytes, self.index)
    }

    /// An error about the byte about to be read (serde_json's `peek_error`).
    pub(super) fn peek_error(&self, code: Code) -> JsonError {
        JsonError::at(code, self.bytes, (self.index + 1).min(self.bytes.len()))
    }

    /// The next byte that is not whitespace, not consumed.
    fn whitespace(&mut self) -> Option<u8> {
        loop {
            match self.peek() {
                Some(b' ' | b'\n' | b'\t' | b'\r') => self.index += 1,
                other => return other,
            }
        }
    }

    fn value(&mut self) -> Result<Value, JsonError> {
        let Some(peek) = self.whitespace() else {
            return Err(self.peek_error(Code::EofWhileParsingValue));
        };
        match peek {
            b'n' => self.ident(b"null", Value::Null),
            b't' => self.ident(b"true", Value::Bool(true)),
            b'f' => self.ident(b"false", Value::Bool(false)),
            b'-' => {
                self.index += 1;
                self.integer(false).map(Value::Number)
            }
            b'0'..=b'9' => self.integer(true).map(Value::Number),
            b'"' => {
                self.index += 1;
                self.string().map(Value::String)
            }
            b'[' | b'{' => {
                self.remaining_depth -= 1;
                if self.remaining_depth == 0 {
                    return Err(self.peek_error(Code::RecursionLimitExceeded));
                }
                self.index += 1;
                let value = if peek == b'[' {
                    self.array()?
                } else {
                    self.object()?
                };
                self.remaining_depth += 1;
                // The loops above end only at the closing bracket.
                self.index += 1;
                Ok(value)
            }
            _ => Err(self.peek_error(Code::ExpectedSomeValue)),
        }
    }

    /// The rest of `word`, whose first byte is next.
    fn ident(&mut self, word: &[u8], value: Value) -> Result<Value, JsonError> {
        self.index += 1;
        for &expected in &word[1..] {
            match self.next() {
                None => return Err(self.error(Code::EofWhileParsingValue)),
                Some(byte) if byte != expected => return Err(self.error(Code::ExpectedSomeIdent)),
                Some(_) => {}
            }
        }
        Ok(value)
    }

    /// An array's items after its `[`, up to (not past) its `]`.
    fn array(&mut self) -> Result<Value, JsonError> {
        let mut items = Vec::new();
        loop {
            let Some(peek) = self.whitespace() else {
                return Err(self.peek_error(Code::EofWhileParsingList));
            };
            if peek == b']' {
                return Ok(Value::Array(items));
            }
            if !items.is_empty() {
                if peek != b',' {
                    return Err(self.peek_error(Code::ExpectedListCommaOrEnd));
                }
                self.index += 1;
                match self.whitespace() {
                    Some(b']') => return Err(self.peek_error(Code::TrailingComma)),
                    Some(_) => {}
                    None => return Err(self.peek_error(Code::EofWhileParsingValue)),
                }
            }
            items.push(self.value()?);
        }
    }

    /// An object's members after its `{`, up to (not past) its `}`.
    fn object(&mut self) -> Result<Value, JsonError> {
        let mut members = Map::new();
        let mut first = true;
        loop {
            let Some(peek) = self.whitespace() else {
                return Err(self.peek_error(Code::EofWhileParsingObject));
            };
            if peek == b'}' {
                return Ok(Value::Object(members));
            }
            if first {
                first = false;
                if peek != b'"' {
                    return Err(self.peek_error(Code::KeyMustBeAString));
                }
            } else if peek == b',' {
                self.index += 1;
                match self.whitespace() {
                    Some(b'"') => {}
                    Some(b'}') => return Err(self.peek_error(Code::TrailingComma)),
                    Some(_) => return Err(self.peek_error(Code::KeyMustBeAString)),
                    None => return Err(self.peek_error(Code::EofWhileParsingValue)),
                }
            } else {
                return Err(self.peek_error(Code::ExpectedObjectCommaOrEnd));
            }
            self.index += 1;
            let key = self.string()?;
            match self.whitespace() {
                Some(b':') => self.index += 1,
                Some(_) => return Err(self.peek_error(Code::ExpectedColon)),
                None => return Err(self.peek_error(Code::EofWhileParsingObject)),
            }
            let value = self.value()?;
            members.insert(key, value);
        }
    }

    /// A number whose sign (if any) was read; its first digit is next.
    fn integer(&mut self, positive: bool) -> Result<Number, JsonError> {
        let start = self.index - usize::from(!positive);
        match super::number::read(self, positive, start)? {
            Parsed::Unsigned(n) => Ok(n.into()),
            Parsed::Signed(n) => Ok(n.into()),
            // Never infinite: the reader refuses those.
            Parsed::Float(f) => Ok(Number::from_f64(f).unwrap_or_else(|| 0.into())),
        }
    }
}

/// A number as serde_json keeps it.
pub(super) enum Parsed {
    Unsigned(u64),
    Signed(i64),
    Float(f64),
}
