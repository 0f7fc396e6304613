//! A JSON number, read as serde_json reads it: an integer without fraction or exponent that
//! fits is kept as `u64` (or `i64` when negative, except `-0`), anything else is an `f64`
//! correctly rounded from the whole text ([`super::float`], as exact as serde_json's
//! `float_roundtrip` reader). The checks and their error positions follow serde_json's.

use super::error::{JsonError, JsonErrorCode as Code};
use super::parse::{Parsed, Parser};

/// Reads the number whose first digit is next (`start` is where its text begins, at its sign
/// when it has one).
pub(super) fn read(p: &mut Parser<'_>, positive: bool, start: usize) -> Result<Parsed, JsonError> {
    let Some(first) = p.next() else {
        return Err(p.error(Code::EofWhileParsingValue));
    };
    let mut significand: u64 = 0;
    // More integer digits than a `u64` holds: read as a float.
    let mut long = false;
    match first {
        b'0' => {
            if p.peek_or_null().is_ascii_digit() {
                return Err(p.peek_error(Code::InvalidNumber));
            }
        }
        b'1'..=b'9' => {
            significand = u64::from(first - b'0');
            while let digit @ b'0'..=b'9' = p.peek_or_null() {
                let next = significand
                    .checked_mul(10)
                    .and_then(|n| n.checked_add(u64::from(digit - b'0')));
                match next {
                    Some(n) if !long => significand = n,
                    Some(_) | None => long = true,
                }
                p.index += 1;
            }
        }
        _ => return Err(p.error(Code::InvalidNumber)),
    }
    let mut all_zero = significand == 0 && !long;
    let mut float = long;
    if p.peek_or_null() == b'.' {
        float = true;
        p.index += 1;
        let digits = p.index;
        while let digit @ b'0'..=b'9' = p.peek_or_null() {
            all_zero &= digit == b'0';
            p.index += 1;
        }
        if p.index == digits {
            return Err(match p.peek() {
                Some(_) => p.peek_error(Code::InvalidNumber),
                None => p.peek_error(Code::EofWhileParsingValue),
            });
        }
    }
    if let b'e' | b'E' = p.peek_or_null() {
        float = true;
        p.index += 1;
        if exponent(p, all_zero)? == Exponent::Overflowed {
            return Ok(Parsed::Float(if positive { 0.0 } else { -0.0 }));
        }
    }
    if !float {
        return Ok(integer(positive, significand));
    }
    let parsed = p.text.get(start..p.index).and_then(super::float::parse_f64);
    match parsed {
        Some(f) if f.is_finite() => Ok(Parsed::Float(f)),
        Some(_) => Err(p.error(Code::NumberOutOfRange)),
        None => Err(p.error(Code::InvalidNumber)),
    }
}

/// An integer without fraction or exponent that fits a `u64`.
fn integer(positive: bool, significand: u64) -> Parsed {
    if positive {
        return Parsed::Unsigned(significand);
    }
    let negated = (significand as i64).wrapping_neg();
    // Below `i64::MIN`, or `-0`: a float.
    if negated >= 0 {
        Parsed::Float(-(significand as f64))
    } else {
        Parsed::Signed(negated)
    }
}

/// How an exponent was read.
#[derive(PartialEq)]
enum Exponent {
    /// Within what serde_json reads; the number's value is its whole text's.
    Read,
    /// Past `i32::MAX`, where serde_json stops: the number is ±0 (a negative exponent or a zero
    /// significand; the rest is an error).
    Overflowed,
}

/// The exponent after its `e`: a sign, then at least one digit.
fn exponent(p: &mut Parser<'_>, zero_significand: bool) -> Result<Exponent, JsonError> {
    let positive = match p.peek_or_null() {
        b'+' => {
            p.index += 1;
            true
        }
        b'-' => {
            p.index += 1;
            false
        }
        _ => true,
    };
    let mut exp: i32 = match p.next() {
        None => return Err(p.error(Code::EofWhileParsingValue)),
        Some(digit @ b'0'..=b'9') => i32::from(digit - b'0'),
        Some(_) => return Err(p.error(Code::InvalidNumber)),
    };
    while let digit @ b'0'..=b'9' = p.peek_or_null() {
        p.index += 1;
        match exp
            .checked_mul(10)
            .and_then(|e| e.checked_add(i32::from(digit - b'0')))
        {
            Some(next) => exp = next,
            None => {
                if !zero_significand && positive {
                    return Err(p.error(Code::NumberOutOfRange));
                }
                while p.peek_or_null().is_ascii_digit() {
                    p.index += 1;
                }
                return Ok(Exponent::Overflowed);
            }
        }
    }
    Ok(Exponent::Read)
}
