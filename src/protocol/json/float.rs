//! Decimal text to the nearest `f64`, exactly as the standard library's `str::parse::<f64>`
//! rounds it, without its Eisel-Lemire table of 128-bit powers of five (10 KB of random-looking
//! data that gzip cannot shrink, a twenty-fifth of the compressed bundle).
//!
//! Three paths, each exact: a number of at most 19 significant digits whose value is one exact
//! `f64` operation (Clinger's fast path: a mantissa up to 2^53 times or over a power of ten up to
//! 10^22) is computed directly; one of at most 19 digits times 10^-27 ..= 10^27 with 128-bit
//! integers ([`wide_path`]: the 17-digit floats a shortest-form printer writes, at about twice
//! the standard library's time); any other exactly with big integers
//! ([`super::decimal::nearest_f64`], slower still). The tests compare every path with the
//! standard library's parser bit for bit.

use super::decimal::nearest_f64;

/// Largest mantissa of the fast path: every integer up to 2^53 is an exact `f64`.
const MAX_MANTISSA_FAST_PATH: u64 = 2 << 52;
/// 10^0 ..= 10^22, each an exact `f64`.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];
/// Exponents written beyond this are held here (the value is then 0 or infinite anyway).
const EXPONENT_CAP: i64 = 0x10000;

/// `text` as the nearest `f64`: an optional sign, digits with an optional `.` (at least one
/// digit in all), an optional exponent (`e` or `E`, an optional sign, digits). Too large is
/// infinite, too small zero, as `str::parse` answers. `None` for anything else (no `inf` or
/// `NaN`, no spaces).
pub fn parse_f64(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    let (negative, unsigned) = match bytes.first() {
        Some(b'-') => (true, &bytes[1..]),
        Some(b'+') => (false, &bytes[1..]),
        Some(_) | None => (false, bytes),
    };
    let magnitude = match fast_path(unsigned)? {
        Exactness::Exact(value) => value,
        Exactness::Wide { mantissa, exponent } => match wide_path(mantissa, exponent) {
            Some(value) => value,
            None => nearest_f64(unsigned),
        },
        Exactness::Long => nearest_f64(unsigned),
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// What the grammar check found out about a number's value.
enum Exactness {
    /// The fast path's value.
    Exact(f64),
    /// At most 19 significant digits: `mantissa × 10^exponent`.
    Wide { mantissa: u64, exponent: i64 },
    /// More digits than a `u64` holds.
    Long,
}

/// Checks the grammar of an unsigned number; its value when the fast path gives it exactly.
fn fast_path(s: &[u8]) -> Option<Exactness> {
    let mut mantissa = 0u64;
    let mut significant = 0usize;
    let mut exponent = 0i64;
    let mut digits = 0usize;
    let mut i = 0;
    let mut seen_dot = false;
    while let Some(&b) = s.get(i) {
        match b {
            b'0'..=b'9' => {
                digits += 1;
                if significant > 0 || b != b'0' {
                    significant += 1;
                    if significant <= 19 {
                        mantissa = mantissa * 10 + u64::from(b - b'0');
                    }
                }
                if seen_dot && significant <= 19 {
                    exponent -= 1;
                } else if !seen_dot && significant > 19 {
                    exponent += 1;
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            _ => break,
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    if let Some(b'e' | b'E') = s.get(i) {
        i += 1;
        let negative = s.get(i) == Some(&b'-');
        if let Some(b'-' | b'+') = s.get(i) {
            i += 1;
        }
        let start = i;
        let mut written = 0i64;
        while let Some(&b @ b'0'..=b'9') = s.get(i) {
            if written < EXPONENT_CAP {
                written = written * 10 + i64::from(b - b'0');
            }
            i += 1;
        }
        if i == start {
            return None;
        }
        exponent += if negative { -written } else { written };
    }
    if i != s.len() {
        return None;
    }
    if significant > 19 {
        return Some(Exactness::Long);
    }
    let wide = Exactness::Wide { mantissa, exponent };
    if mantissa > MAX_MANTISSA_FAST_PATH {
        return Some(wide);
    }
    let value = match exponent {
        0..=22 => mantissa as f64 * POW10[exponent as usize],
        -22..=-1 => mantissa as f64 / POW10[(-exponent) as usize],
        // A small mantissa may take up to 15 more powers of ten and stay exact.
        23..=37 => {
            let scaled = POW10[(exponent - 22) as usize] as u64;
            match mantissa.checked_mul(scaled) {
                Some(m) if m <= MAX_MANTISSA_FAST_PATH => m as f64 * POW10[22],
                Some(_) | None => return Some(wide),
            }
        }
        _ => return Some(wide),
    };
    Some(Exactness::Exact(value))
}

/// `mantissa × 10^exponent` for |exponent| up to 27 (where `5^|exponent|` fits a `u64`),
/// exactly rounded with 128-bit integers: `10^e = 5^e × 2^e`, and the power of two only moves
/// the binary point. A product is exact; a quotient is taken to 64 bits or more with a sticky
/// bit for its remainder, so rounding it to 53 bits rounds the exact value. The common case of
/// 17-digit floats written by a shortest-form printer, at a fraction of the fallback's cost.
fn wide_path(mantissa: u64, exponent: i64) -> Option<f64> {
    if mantissa == 0 {
        return Some(0.0);
    }
    let k = u32::try_from(exponent.unsigned_abs())
        .ok()
        .filter(|&k| k <= 27)?;
    let pow5 = u128::from(5u64.pow(k));
    let (value, shift) = if exponent >= 0 {
        (u128::from(mantissa) * pow5, i64::from(k))
    } else {
        let s = u128::from(mantissa).leading_zeros();
        let numerator = u128::from(mantissa) << s;
        let quotient = numerator / pow5;
        let sticky = u128::from(numerator % pow5 != 0);
        (quotient | sticky, -i64::from(s) - i64::from(k))
    };
    // Both steps exact: the integer rounds once, and the scale stays far inside the normal range.
    let scale = f64::from_bits(((1023 + shift) as u64) << 52);
    Some(value as f64 * scale)
}
