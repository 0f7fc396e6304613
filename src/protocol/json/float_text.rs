//! An `f64` as text exactly as the standard library's `Display` writes it (`{}` and `{:.N}`),
//! without its formatting code: Grisu with a Dragon4 fallback, about 14 KB of the bundle, there
//! only for a cost in the handoff report and two error messages.
//!
//! `{}` is the shortest text that reads back as the same float, in plain notation: those digits
//! are zmij's (the JSON writer's formatter, which the bundle has anyway; exactly halfway between
//! two shortest candidates it takes the lower, the standard library the upper), laid out as
//! `Display` lays them out. `{:.N}` is the exact value rounded to N decimals, half to even: the exact
//! value comes from [`ExactDecimal`]. The tests compare both with `format!` on random floats.

use super::decimal::ExactDecimal;

/// `f` as `format!("{f}")` writes it (`1`, `0.1`, `1000000000000000000000`, `-0`, `NaN`).
pub fn display_f64(f: f64) -> String {
    let Some(mut out) = sign_or_special(f) else {
        return special(f).to_string();
    };
    let shortest = zmij::Buffer::new().format_finite(f.abs()).to_string();
    let (mantissa, exponent) = shortest.split_once('e').unwrap_or((&shortest, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let point = mantissa.find('.').unwrap_or(mantissa.len()) as i32;
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let leading = digits.iter().take_while(|&&d| d == b'0').count();
    let digits = &digits[leading..];
    let digits = &digits[..digits.len() - digits.iter().rev().take_while(|&&d| d == b'0').count()];
    if digits.is_empty() {
        out.push('0');
        return out;
    }
    let mut digits = digits.to_vec();
    let mut point = point - leading as i32 + exponent;
    // Exactly halfway between two shortest candidates zmij takes the lower, the standard
    // library the upper.
    let exact = ExactDecimal::of(f);
    let halfway = exact.point == point
        && exact.digits.len() == digits.len() + 1
        && exact.digits[digits.len()] == 5
        && digits
            .iter()
            .zip(&exact.digits)
            .all(|(&d, &e)| d - b'0' == e);
    if halfway {
        let before = digits.len();
        round_up(&mut digits);
        point += (digits.len() - before) as i32;
    }
    lay_out(&mut out, &digits, point, 0);
    out
}

/// `f` as `format!("{f:.decimals$}")` writes it (`0.1235`, `-0.0000`, `2`): the exact value
/// rounded to `decimals` decimals, half to even.
pub fn fixed_f64(f: f64, decimals: usize) -> String {
    let Some(mut out) = sign_or_special(f) else {
        return special(f).to_string();
    };
    let exact = ExactDecimal::of(f);
    let digits = &exact.digits;
    let point = exact.point;
    // Digits kept: those before the point and `decimals` after it.
    let keep = point + decimals as i32;
    let mut kept: Vec<u8> = if keep > 0 {
        (0..keep as usize)
            .map(|i| digits.get(i).copied().unwrap_or(0) + b'0')
            .collect()
    } else {
        Vec::new()
    };
    if keep >= 0 {
        let keep = keep as usize;
        let next = digits.get(keep).copied().unwrap_or(0);
        let rest_nonzero = digits.len() > keep + 1;
        let odd = kept.last().is_some_and(|d| (d - b'0') % 2 == 1);
        if next > 5 || (next == 5 && (rest_nonzero || odd)) {
            round_up(&mut kept);
        }
    }
    // `kept` holds the value times 10^decimals as an integer, without leading zeros.
    let integer_digits = kept.len() as i32 - decimals as i32;
    let all_zero = kept.iter().all(|&d| d == b'0');
    if all_zero {
        kept.clear();
    }
    if kept.is_empty() {
        out.push('0');
        if decimals > 0 {
            out.push('.');
            out.extend(std::iter::repeat_n('0', decimals));
        }
        return out;
    }
    lay_out(&mut out, &kept, integer_digits, decimals);
    out
}

/// Adds one to the decimal integer in `digits` (ASCII), growing it on a carry out.
fn round_up(digits: &mut Vec<u8>) {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return;
        }
    }
    digits.insert(0, b'1');
}

/// `0.DIGITS × 10^point` in plain notation with at least `min_decimals` decimals (the
/// standard library's `digits_to_dec_str`).
fn lay_out(out: &mut String, digits: &[u8], point: i32, min_decimals: usize) {
    let text = |d: &[u8]| d.iter().map(|&b| char::from(b)).collect::<String>();
    if point <= 0 {
        let zeros = (-point) as usize;
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', zeros));
        out.push_str(&text(digits));
        let written = zeros + digits.len();
        out.extend(std::iter::repeat_n(
            '0',
            min_decimals.saturating_sub(written),
        ));
    } else if (point as usize) < digits.len() {
        let (int, frac) = digits.split_at(point as usize);
        out.push_str(&text(int));
        out.push('.');
        out.push_str(&text(frac));
        out.extend(std::iter::repeat_n(
            '0',
            min_decimals.saturating_sub(frac.len()),
        ));
    } else {
        out.push_str(&text(digits));
        out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
        if min_decimals > 0 {
            out.push('.');
            out.extend(std::iter::repeat_n('0', min_decimals));
        }
    }
}

/// The sign a finite `f` is written with (`-` for any negative, `-0` included), `None` for
/// NaN and the infinities.
fn sign_or_special(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    Some(if f.is_sign_negative() { "-" } else { "" }.to_string())
}

/// NaN and the infinities as the standard library writes them.
fn special(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}
