//! Exact decimal arithmetic for the rare numbers the fast paths cannot settle: text with more
//! than 19 significant digits or a far exponent read to the nearest `f64`, and a float's exact
//! decimal value for `{:.N}`. Both are plain big-integer work (a value is `num / den`, the
//! quotient taken to 54 bits with the remainder as the sticky bit), slow but short and exact.

use std::cmp::Ordering;

/// Significant digits kept from a text: a value halfway between two floats has at most 767, so
/// anything past this only matters by being nonzero (kept as one more digit `1`).
const MAX_DIGITS: usize = 800;
/// `f64`'s stored mantissa bits.
const SIG_BITS: u32 = 52;
/// The binary exponent of the smallest subnormal's one bit.
const MIN_EXP2: i64 = -1074;

/// An unsigned integer of any size, 32-bit limbs least significant first, no zero limbs on top.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(n: u64) -> Self {
        let mut big = Big(vec![n as u32, (n >> 32) as u32]);
        big.trim();
        big
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn bit_len(&self) -> i64 {
        self.0.last().map_or(0, |top| {
            32 * self.0.len() as i64 - i64::from(top.leading_zeros())
        })
    }

    /// `self × m + add`.
    fn mul_add_small(&mut self, m: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.0 {
            let wide = u64::from(*limb) * u64::from(m) + carry;
            *limb = wide as u32;
            carry = wide >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    /// `self × 5^n`, thirteen fives (the most a `u32` holds) at a time.
    fn mul_pow5(&mut self, mut n: u32) {
        while n > 0 {
            let step = n.min(13);
            self.mul_add_small(5u32.pow(step), 0);
            n -= step;
        }
    }

    /// `self × 2^n`.
    fn shl(&mut self, n: u32) {
        if self.is_zero() {
            return;
        }
        let (limbs, bits) = ((n / 32) as usize, n % 32);
        if bits > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let next = *limb >> (32 - bits);
                *limb = (*limb << bits) | carry;
                carry = next;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        self.0.splice(0..0, std::iter::repeat_n(0, limbs));
    }

    /// `self - other`, which must not be larger.
    fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let wide = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            borrow = i64::from(wide < 0);
            *limb = wide.rem_euclid(1 << 32) as u32;
        }
        self.trim();
    }

    /// `self / d`, the remainder left in `self`.
    fn div_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let wide = (rem << 32) | u64::from(*limb);
            *limb = (wide / u64::from(d)) as u32;
            rem = wide % u64::from(d);
        }
        self.trim();
        rem as u32
    }

    /// The decimal digits (each 0..=9), most significant first; empty for zero.
    fn decimal_digits(mut self) -> Vec<u8> {
        let mut groups = Vec::new();
        while !self.is_zero() {
            groups.push(self.div_small(1_000_000_000));
        }
        let mut digits = Vec::with_capacity(groups.len() * 9);
        for group in groups.iter().rev() {
            digits.extend((0..9).rev().map(|i| (group / 10u32.pow(i) % 10) as u8));
        }
        let leading = digits.iter().take_while(|&&d| d == 0).count();
        digits.drain(..leading);
        digits
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Big {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

/// A finite float's exact value: `0.DIGITS × 10^point`, no zero digit at either end (no digits
/// for zero).
#[derive(Debug)]
pub(super) struct ExactDecimal {
    /// The significant digits, each 0..=9.
    pub(super) digits: Vec<u8>,
    /// Where the decimal point goes, counted from the first digit.
    pub(super) point: i32,
}

impl ExactDecimal {
    /// The exact value of `f`, which must be finite: `m × 2^e` is `m × 2^e` for `e ≥ 0` and
    /// `m × 5^-e / 10^-e` otherwise, so its digits are an integer's.
    pub(super) fn of(f: f64) -> Self {
        let (mantissa, exp2) = mantissa_exponent(f);
        let mut n = Big::from_u64(mantissa);
        let mut point_shift = 0i64;
        if exp2 >= 0 {
            n.shl(exp2 as u32);
        } else {
            n.mul_pow5((-exp2) as u32);
            point_shift = exp2;
        }
        let mut digits = n.decimal_digits();
        let point = digits.len() as i64 + point_shift;
        let trailing = digits.iter().rev().take_while(|&&d| d == 0).count();
        digits.truncate(digits.len() - trailing);
        ExactDecimal {
            digits,
            point: point as i32,
        }
    }
}

/// `f`'s integer mantissa and binary exponent (`|f| = m × 2^e`).
fn mantissa_exponent(f: f64) -> (u64, i64) {
    let bits = f.abs().to_bits();
    let biased = ((bits >> SIG_BITS) & 0x7FF) as i64;
    let fraction = bits & ((1 << SIG_BITS) - 1);
    match biased {
        0 => (fraction, MIN_EXP2),
        _ => (fraction | (1 << SIG_BITS), biased - 1075),
    }
}

/// The nearest `f64` to an unsigned number in the grammar `parse_f64` checked (digits, an
/// optional `.`, an optional exponent), ties to even.
pub(super) fn nearest_f64(text: &[u8]) -> f64 {
    let (digits, exponent) = significant_digits(text);
    if digits.is_empty() {
        return 0.0;
    }
    // The value is below 10^magnitude and at least a tenth of it.
    let magnitude = digits.len() as i64 + exponent;
    if magnitude > 310 {
        return f64::INFINITY;
    }
    if magnitude < -324 {
        return 0.0;
    }
    let mut num = Big::from_u64(0);
    for &d in &digits {
        num.mul_add_small(10, u32::from(d));
    }
    let mut den = Big::from_u64(1);
    if exponent >= 0 {
        num.mul_pow5(exponent as u32);
        num.shl(exponent as u32);
    } else {
        den.mul_pow5((-exponent) as u32);
        den.shl((-exponent) as u32);
    }
    round_quotient(num, den)
}

/// The digits of `text` from the first nonzero one (at most [`MAX_DIGITS`], with a `1` after
/// them standing for any nonzero digit dropped) and the power of ten that scales them into
/// an integer's place: the value is `DIGITS × 10^exponent`.
fn significant_digits(text: &[u8]) -> (Vec<u8>, i64) {
    let mut digits = Vec::new();
    let mut exponent = 0i64;
    let mut dropped_nonzero = false;
    let mut after_dot = false;
    let mut i = 0;
    while let Some(&b) = text.get(i) {
        match b {
            b'.' => after_dot = true,
            b'0'..=b'9' => {
                let d = b - b'0';
                if digits.len() < MAX_DIGITS {
                    if !digits.is_empty() || d != 0 {
                        digits.push(d);
                    }
                    exponent -= i64::from(after_dot);
                } else {
                    dropped_nonzero |= d != 0;
                    exponent += i64::from(!after_dot);
                }
            }
            _ => break,
        }
        i += 1;
    }
    if let Some(b'e' | b'E') = text.get(i) {
        let rest = &text[i + 1..];
        let (negative, rest) = match rest.first() {
            Some(b'-') => (true, &rest[1..]),
            Some(b'+') => (false, &rest[1..]),
            _ => (false, rest),
        };
        // Beyond a million the value is zero or infinite whatever the digits.
        let written = rest
            .iter()
            .fold(0i64, |n, &b| (n * 10 + i64::from(b - b'0')).min(1_000_000));
        exponent += if negative { -written } else { written };
    }
    if dropped_nonzero {
        digits.push(1);
        exponent -= 1;
    }
    let trailing = digits.iter().rev().take_while(|&&d| d == 0).count();
    digits.truncate(digits.len() - trailing);
    exponent += trailing as i64;
    (digits, exponent)
}

/// The nearest `f64` to `num / den` (both nonzero, the quotient within the float range or just
/// outside it): the quotient scaled to 54 bits by a power of two, its last bit and the
/// remainder deciding the rounding.
fn round_quotient(mut num: Big, mut den: Big) -> f64 {
    // `num / den × 2^-scale` in (2^52, 2^54), then [2^53, 2^54): the value is that × 2^scale.
    let mut scale = num.bit_len() - den.bit_len() - 53;
    let shift = |num: &mut Big, den: &mut Big, scale: i64| {
        if scale < 0 {
            num.shl((-scale) as u32);
        } else {
            den.shl(scale as u32);
        }
    };
    shift(&mut num, &mut den, scale);
    let mut limit = den.clone();
    limit.shl(53);
    if num < limit {
        // The quotient has one bit fewer than the bit lengths suggested.
        num.shl(1);
        scale -= 1;
    }
    let mut quotient = 0u64;
    for bit in (0..=54).rev() {
        let mut part = den.clone();
        part.shl(bit);
        if num >= part {
            num.sub(&part);
            quotient |= 1 << bit;
        }
    }
    let mut sticky = !num.is_zero();
    // Keep 53 bits, or fewer where the value is subnormal; the first bit dropped rounds.
    let dropped = (MIN_EXP2 - scale).clamp(1, 64) as u32;
    let (mut mantissa, round) = if dropped >= 64 {
        (0, false)
    } else {
        sticky |= quotient & ((1 << (dropped - 1)) - 1) != 0;
        (quotient >> dropped, quotient >> (dropped - 1) & 1 == 1)
    };
    let mut exp2 = scale + i64::from(dropped);
    if round && (sticky || mantissa & 1 == 1) {
        mantissa += 1;
        if mantissa == 1 << (SIG_BITS + 1) {
            mantissa >>= 1;
            exp2 += 1;
        }
    }
    compose(mantissa, exp2)
}

/// `mantissa × 2^exp2` as an `f64`, for a mantissa below 2^53 that is at least 2^52 unless
/// `exp2` is the subnormals' exponent.
fn compose(mantissa: u64, exp2: i64) -> f64 {
    if mantissa < 1 << SIG_BITS {
        // Subnormal (or, at 2^52 after rounding up, the smallest normal: the same bits).
        return f64::from_bits(mantissa);
    }
    let biased = exp2 + 1075;
    if biased >= 0x7FF {
        return f64::INFINITY;
    }
    f64::from_bits(((biased as u64) << SIG_BITS) | (mantissa & ((1 << SIG_BITS) - 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_integers_do_what_their_names_say() {
        let mut n = Big::from_u64(u64::MAX);
        n.mul_add_small(10, 7);
        assert_eq!(
            n.clone().decimal_digits(),
            digits_of("184467440737095516157")
        );
        n.shl(70);
        let mut m = n.clone();
        m.sub(&Big::from_u64(1));
        assert!(m < n);
        n.sub(&m);
        assert_eq!(n, Big::from_u64(1));
        let mut p = Big::from_u64(1);
        p.mul_pow5(27);
        assert_eq!(p, Big::from_u64(5u64.pow(27)));
        assert_eq!(p.div_small(5), 0);
        assert_eq!(p, Big::from_u64(5u64.pow(26)));
    }

    fn digits_of(s: &str) -> Vec<u8> {
        s.bytes().map(|b| b - b'0').collect()
    }

    #[test]
    fn a_float_exact_value_has_every_digit() {
        let tenth = ExactDecimal::of(0.1);
        assert_eq!(tenth.point, 0);
        assert_eq!(
            tenth.digits,
            digits_of("1000000000000000055511151231257827021181583404541015625")
        );
        let big = ExactDecimal::of(1e23);
        assert_eq!(big.point, 23);
        assert_eq!(big.digits, digits_of("99999999999999991611392"));
        let tiny = ExactDecimal::of(f64::from_bits(1));
        assert_eq!(tiny.point, -323);
        assert_eq!(tiny.digits.len(), 751);
        assert!(ExactDecimal::of(0.0).digits.is_empty());
    }
}
