//! Why a JSON text could not be read, in serde_json's words and at serde_json's position, so a
//! message shown to a model or a person reads as it did when serde_json parsed the text.

use std::fmt;

/// What is wrong at the error's position (serde_json's syntax error codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonErrorCode {
    /// The text ended inside an array.
    EofWhileParsingList,
    /// The text ended inside an object.
    EofWhileParsingObject,
    /// The text ended inside a string.
    EofWhileParsingString,
    /// The text ended where a value was due.
    EofWhileParsingValue,
    /// No `:` after an object's key.
    ExpectedColon,
    /// Neither `,` nor `]` after an array's item.
    ExpectedListCommaOrEnd,
    /// Neither `,` nor `}` after an object's member.
    ExpectedObjectCommaOrEnd,
    /// A misspelt `null`, `true` or `false`.
    ExpectedSomeIdent,
    /// No value where one was due.
    ExpectedSomeValue,
    /// An unknown escape in a string.
    InvalidEscape,
    /// A malformed number.
    InvalidNumber,
    /// A number too large for an `f64`.
    NumberOutOfRange,
    /// A raw control character in a string.
    ControlCharacterWhileParsingString,
    /// An object's key that is not a string.
    KeyMustBeAString,
    /// A `\u` escape of a surrogate without its pair.
    LoneLeadingSurrogateInHexEscape,
    /// A `,` before a closing bracket.
    TrailingComma,
    /// Something after the value.
    TrailingCharacters,
    /// A leading surrogate's escape not followed by a second `\u` escape.
    UnexpectedEndOfHexEscape,
    /// Arrays and objects nested deeper than serde_json reads (127 levels).
    RecursionLimitExceeded,
}

impl fmt::Display for JsonErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JsonErrorCode::EofWhileParsingList => "EOF while parsing a list",
            JsonErrorCode::EofWhileParsingObject => "EOF while parsing an object",
            JsonErrorCode::EofWhileParsingString => "EOF while parsing a string",
            JsonErrorCode::EofWhileParsingValue => "EOF while parsing a value",
            JsonErrorCode::ExpectedColon => "expected `:`",
            JsonErrorCode::ExpectedListCommaOrEnd => "expected `,` or `]`",
            JsonErrorCode::ExpectedObjectCommaOrEnd => "expected `,` or `}`",
            JsonErrorCode::ExpectedSomeIdent => "expected ident",
            JsonErrorCode::ExpectedSomeValue => "expected value",
            JsonErrorCode::InvalidEscape => "invalid escape",
            JsonErrorCode::InvalidNumber => "invalid number",
            JsonErrorCode::NumberOutOfRange => "number out of range",
            JsonErrorCode::ControlCharacterWhileParsingString => {
                "control character (\\u0000-\\u001F) found while parsing a string"
            }
            JsonErrorCode::KeyMustBeAString => "key must be a string",
            JsonErrorCode::LoneLeadingSurrogateInHexEscape => {
                "lone leading surrogate in hex escape"
            }
            JsonErrorCode::TrailingComma => "trailing comma",
            JsonErrorCode::TrailingCharacters => "trailing characters",
            JsonErrorCode::UnexpectedEndOfHexEscape => "unexpected end of hex escape",
            JsonErrorCode::RecursionLimitExceeded => "recursion limit exceeded",
        })
    }
}

/// A JSON text that is not valid JSON: what is wrong and where (line from 1; column the byte
/// offset within the line, as serde_json counts it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{code} at line {line} column {column}")]
pub struct JsonError {
    /// What is wrong.
    pub code: JsonErrorCode,
    /// Line, from 1.
    pub line: usize,
    /// Bytes into the line.
    pub column: usize,
}

impl JsonError {
    /// Whether the text ended too early (it may be the start of valid JSON), as serde_json's
    /// `is_eof` says.
    pub fn is_eof(&self) -> bool {
        matches!(
            self.code,
            JsonErrorCode::EofWhileParsingList
                | JsonErrorCode::EofWhileParsingObject
                | JsonErrorCode::EofWhileParsingString
                | JsonErrorCode::EofWhileParsingValue
        )
    }

    /// The error `code` at byte `index` of `text`.
    pub(super) fn at(code: JsonErrorCode, text: &[u8], index: usize) -> Self {
        let before = text.get(..index).unwrap_or(text);
        let start_of_line = memchr::memrchr(b'\n', before).map_or(0, |newline| newline + 1);
        let line = 1 + memchr::memchr_iter(b'\n', &before[..start_of_line]).count();
        Self {
            code,
            line,
            column: index - start_of_line,
        }
    }
}
