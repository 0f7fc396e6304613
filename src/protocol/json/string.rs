//! A JSON string's content, read as serde_json reads it into a `String`: escapes decoded, a
//! `\u` surrogate only with its pair, no raw control character.

use super::error::{JsonError, JsonErrorCode as Code};
use super::parse::Parser;

impl Parser<'_> {
    /// The string whose opening quote was read; the index ends past its closing quote.
    pub(super) fn string(&mut self) -> Result<String, JsonError> {
        let start = self.index;
        let end = plain_run(self.bytes, start);
        if self.bytes.get(end) == Some(&b'"') {
            self.index = end + 1;
            return Ok(self.slice(start, end).to_owned());
        }
        self.escaped(start, end)
    }

    /// The text between two ASCII bytes (so at char boundaries).
    fn slice(&self, start: usize, end: usize) -> &str {
        self.text.get(start..end).unwrap_or_default()
    }

    /// The rest of a string from its first escape, control character or end at `i`: kept out
    /// of line so that the common, escape-free case stays small.
    #[inline(never)]
    fn escaped(&mut self, start: usize, mut i: usize) -> Result<String, JsonError> {
        let mut out = String::with_capacity(i - start + 16);
        out.push_str(self.slice(start, i));
        loop {
            self.index = i;
            match self.next() {
                None => return Err(self.error(Code::EofWhileParsingString)),
                Some(b'"') => return Ok(out),
                Some(b'\\') => self.escape(&mut out)?,
                Some(_) => return Err(self.error(Code::ControlCharacterWhileParsingString)),
            }
            i = plain_run(self.bytes, self.index);
            out.push_str(self.slice(self.index, i));
        }
    }

    /// Decodes the escape after a backslash into `out`.
    fn escape(&mut self, out: &mut String) -> Result<(), JsonError> {
        let Some(letter) = self.next() else {
            return Err(self.error(Code::EofWhileParsingString));
        };
        let c = match letter {
            b'u' => self.unicode_escape()?,
            _ => short_escape(letter).ok_or_else(|| self.error(Code::InvalidEscape))?,
        };
        out.push(c);
        Ok(())
    }

    /// The character of a `\u` escape (and of its pair, for a surrogate).
    fn unicode_escape(&mut self) -> Result<char, JsonError> {
        let high = self.hex4()?;
        if (0xDC00..=0xDFFF).contains(&high) {
            return Err(self.error(Code::LoneLeadingSurrogateInHexEscape));
        }
        if !(0xD800..=0xDBFF).contains(&high) {
            return Ok(char::from_u32(high).unwrap_or_default());
        }
        for expected in [b'\\', b'u'] {
            match self.peek() {
                None => return Err(self.error(Code::EofWhileParsingString)),
                Some(byte) => {
                    self.index += 1;
                    if byte != expected {
                        return Err(self.error(Code::UnexpectedEndOfHexEscape));
                    }
                }
            }
        }
        let low = self.hex4()?;
        if !(0xDC00..=0xDFFF).contains(&low) {
            return Err(self.error(Code::LoneLeadingSurrogateInHexEscape));
        }
        Ok(char::from_u32(surrogate_pair(high, low)).unwrap_or_default())
    }

    /// Four hex digits (`0-9a-fA-F`).
    fn hex4(&mut self) -> Result<u32, JsonError> {
        let Some(digits) = self.bytes.get(self.index..self.index + 4) else {
            self.index = self.bytes.len();
            return Err(self.error(Code::EofWhileParsingString));
        };
        self.index += 4;
        hex4(digits).ok_or_else(|| self.error(Code::InvalidEscape))
    }
}

/// The character a one-letter escape (`\n`, `\"`, …) stands for; `None` for `u` and any
/// letter JSON has no escape for.
pub(crate) fn short_escape(letter: u8) -> Option<char> {
    Some(match letter {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

/// Four hex digits (only `0-9a-fA-F`: no sign, unlike `from_str_radix`) as a number.
pub(crate) fn hex4(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |acc, &b| {
        char::from(b).to_digit(16).map(|d| acc * 16 + d)
    })
}

/// The code point of a UTF-16 surrogate pair (`high` in D800–DBFF, `low` in DC00–DFFF).
pub(crate) fn surrogate_pair(high: u32, low: u32) -> u32 {
    0x1_0000 + ((high - 0xD800) << 10) + (low - 0xDC00)
}

/// The end of the run of bytes from `i` that stand for themselves in a string: it stops at a
/// quote, a backslash or a control character (all ASCII, so always at a char boundary). Eight
/// bytes are tested at a time: a byte's high bit in `hits` is set where it is zero after
/// `^ quote`/`^ backslash` or below 0x20, and the lowest set bit is always exact.
#[inline]
pub(crate) fn plain_run(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    while let Some(Ok(word)) = bytes.get(i..i + 8).map(<[u8; 8]>::try_from) {
        let x = u64::from_le_bytes(word);
        let hits = below(x ^ (ONES * 0x22), 1) | below(x ^ (ONES * 0x5C), 1) | below(x, 0x20);
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        i += 1;
    }
    i
}
