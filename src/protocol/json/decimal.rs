//! The standard library's exact fallback for decimal-to-`f64` conversion, ported (Rust's
//! `core::num::dec2flt::{decimal_seq, slow}`, MIT or Apache-2.0 as this crate): the number's
//! decimal digits (up to 768, beyond which only whether any is nonzero matters) are shifted by
//! powers of two, each shift exact, until the value lies in [1/2, 1) times a known power of two;
//! the top 53 bits, rounded half to even, are then the mantissa.

/// `f64`'s stored mantissa bits.
const SIG_BITS: u32 = 52;
/// `f64`'s smallest normal binary exponent.
const EXP_MIN: i32 = -1022;
/// `f64`'s biased exponent of infinity.
const INFINITE_POWER: i32 = 0x7FF;
/// Digits kept; enough to decide the rounding of any `f64`.
const MAX_DIGITS: usize = 768;
/// Digits a `u64` holds whatever they are.
const MAX_DIGITS_WITHOUT_OVERFLOW: usize = 19;
/// Decimal points beyond this are 0 or infinity.
const DECIMAL_POINT_RANGE: i32 = 2047;
/// The largest shift at a time (a digit shifted left by it still fits a `u64`).
const MAX_SHIFT: usize = 60;

/// A decimal number: `0.d1 d2 d3 ... × 10^decimal_point`.
pub(super) struct Decimal {
    pub(super) num_digits: usize,
    pub(super) decimal_point: i32,
    /// Nonzero digits were dropped past `MAX_DIGITS`.
    truncated: bool,
    pub(super) digits: [u8; MAX_DIGITS],
}

impl Decimal {
    /// The digits of an unsigned number already checked by the caller's grammar.
    pub(super) fn parse(mut s: &[u8]) -> Self {
        let mut d = Decimal {
            num_digits: 0,
            decimal_point: 0,
            truncated: false,
            digits: [0; MAX_DIGITS],
        };
        let start = s;
        while let Some((&b'0', rest)) = s.split_first() {
            s = rest;
        }
        s = d.push_digits(s);
        if let Some((&b'.', rest)) = s.split_first() {
            s = rest;
            let first = s;
            if d.num_digits == 0 {
                while let Some((&b'0', rest)) = s.split_first() {
                    s = rest;
                }
            }
            s = d.push_digits(s);
            d.decimal_point = s.len() as i32 - first.len() as i32;
        }
        if d.num_digits != 0 {
            // Trailing zeros are not digits: they only move the point.
            let mut trailing_zeros = 0;
            for &c in start[..start.len() - s.len()].iter().rev() {
                if c == b'0' {
                    trailing_zeros += 1;
                } else if c != b'.' {
                    break;
                }
            }
            d.decimal_point += trailing_zeros as i32;
            d.num_digits -= trailing_zeros;
            d.decimal_point += d.num_digits as i32;
            if d.num_digits > MAX_DIGITS {
                d.truncated = true;
                d.num_digits = MAX_DIGITS;
            }
        }
        if let Some((&(b'e' | b'E'), rest)) = s.split_first() {
            s = rest;
            let negative = s.first() == Some(&b'-');
            if let Some((&(b'-' | b'+'), rest)) = s.split_first() {
                s = rest;
            }
            let mut exponent = 0_i32;
            for &c in s.iter().take_while(|c| c.is_ascii_digit()) {
                if exponent < 0x10000 {
                    exponent = 10 * exponent + i32::from(c - b'0');
                }
            }
            d.decimal_point += if negative { -exponent } else { exponent };
        }
        d
    }

    /// The exact value of `f`, which must be finite: its mantissa's digits shifted by its binary
    /// exponent (every finite `f64` has at most 767 significant decimal digits, all kept).
    pub(super) fn exact(f: f64) -> Self {
        let bits = f.abs().to_bits();
        let biased = ((bits >> SIG_BITS) & 0x7FF) as i32;
        let fraction = bits & ((1 << SIG_BITS) - 1);
        let (mantissa, mut exp2) = match biased {
            0 => (fraction, EXP_MIN - SIG_BITS as i32),
            _ => (fraction | (1 << SIG_BITS), biased - 1023 - SIG_BITS as i32),
        };
        let mut d = Decimal::parse(itoa::Buffer::new().format(mantissa).as_bytes());
        while exp2 > 0 {
            let shift = exp2.min(MAX_SHIFT as i32);
            d.left_shift(shift as usize);
            exp2 -= shift;
        }
        while exp2 < 0 {
            let shift = (-exp2).min(MAX_SHIFT as i32);
            d.right_shift(shift as usize);
            exp2 += shift;
        }
        d
    }

    /// Appends the digits at the start of `s` (counting those past `MAX_DIGITS`); the rest.
    fn push_digits<'a>(&mut self, s: &'a [u8]) -> &'a [u8] {
        let count = s.iter().take_while(|c| c.is_ascii_digit()).count();
        for &c in &s[..count] {
            if let Some(slot) = self.digits.get_mut(self.num_digits) {
                *slot = c - b'0';
            }
            self.num_digits += 1;
        }
        &s[count..]
    }

    /// The nearest `f64` (the standard library's `parse_long_mantissa`).
    pub(super) fn into_f64(mut self) -> f64 {
        const POWERS: [u8; 19] = [
            0, 3, 6, 9, 13, 16, 19, 23, 26, 29, 33, 36, 39, 43, 46, 49, 53, 56, 59,
        ];
        let get_shift = |n: usize| POWERS.get(n).map_or(MAX_SHIFT, |&p| usize::from(p));
        if self.num_digits == 0 || self.decimal_point < -324 {
            return 0.0;
        } else if self.decimal_point >= 310 {
            return f64::INFINITY;
        }
        let mut exp2 = 0_i32;
        while self.decimal_point > 0 {
            let shift = get_shift(self.decimal_point as usize);
            self.right_shift(shift);
            if self.decimal_point < -DECIMAL_POINT_RANGE {
                return 0.0;
            }
            exp2 += shift as i32;
        }
        while self.decimal_point <= 0 {
            let shift = if self.decimal_point == 0 {
                match self.digits[0] {
                    digit if digit >= 5 => break,
                    0 | 1 => 2,
                    _ => 1,
                }
            } else {
                get_shift((-self.decimal_point) as usize)
            };
            self.left_shift(shift);
            if self.decimal_point > DECIMAL_POINT_RANGE {
                return f64::INFINITY;
            }
            exp2 -= shift as i32;
        }
        // The value is now in [1/2, 1): its binary point is one to the left of a mantissa's.
        exp2 -= 1;
        while EXP_MIN > exp2 {
            let n = ((EXP_MIN - exp2) as usize).min(MAX_SHIFT);
            self.right_shift(n);
            exp2 += n as i32;
        }
        if (exp2 - EXP_MIN + 1) >= INFINITE_POWER {
            return f64::INFINITY;
        }
        self.left_shift(SIG_BITS as usize + 1);
        let mut mantissa = self.round();
        if mantissa >= (1_u64 << (SIG_BITS + 1)) {
            // Rounding up carried into a new bit.
            self.right_shift(1);
            exp2 += 1;
            mantissa = self.round();
            if (exp2 - EXP_MIN + 1) >= INFINITE_POWER {
                return f64::INFINITY;
            }
        }
        let mut power2 = exp2 - EXP_MIN + 1;
        if mantissa < (1_u64 << SIG_BITS) {
            // Subnormal.
            power2 -= 1;
        }
        mantissa &= (1_u64 << SIG_BITS) - 1;
        f64::from_bits(((power2 as u64) << SIG_BITS) | mantissa)
    }

    fn trim(&mut self) {
        while self.num_digits != 0 && self.digits[self.num_digits - 1] == 0 {
            self.num_digits -= 1;
        }
    }

    /// The integer part, rounded half to even (a dropped nonzero digit breaks a tie upwards).
    fn round(&self) -> u64 {
        if self.num_digits == 0 || self.decimal_point < 0 {
            return 0;
        } else if self.decimal_point >= MAX_DIGITS_WITHOUT_OVERFLOW as i32 {
            return u64::MAX;
        }
        let dp = self.decimal_point as usize;
        let mut n = 0_u64;
        for i in 0..dp {
            n *= 10;
            if i < self.num_digits {
                n += u64::from(self.digits[i]);
            }
        }
        let mut round_up = false;
        if dp < self.num_digits {
            round_up = self.digits[dp] >= 5;
            if self.digits[dp] == 5 && dp + 1 == self.num_digits {
                round_up = self.truncated || ((dp != 0) && (1 & self.digits[dp - 1] != 0));
            }
        }
        n + u64::from(round_up)
    }

    /// Multiplies by `2^shift` (`shift` at most 60).
    fn left_shift(&mut self, shift: usize) {
        if self.num_digits == 0 {
            return;
        }
        let num_new_digits = new_digits_of_left_shift(self, shift);
        let mut read_index = self.num_digits;
        let mut write_index = self.num_digits + num_new_digits;
        let mut n = 0_u64;
        while read_index != 0 {
            read_index -= 1;
            write_index -= 1;
            n += u64::from(self.digits[read_index]) << shift;
            self.put(write_index, n % 10);
            n /= 10;
        }
        while n > 0 {
            write_index -= 1;
            self.put(write_index, n % 10);
            n /= 10;
        }
        self.num_digits = (self.num_digits + num_new_digits).min(MAX_DIGITS);
        self.decimal_point += num_new_digits as i32;
        self.trim();
    }

    /// Writes digit `digit` at `index`, or notes a nonzero digit dropped past `MAX_DIGITS`.
    fn put(&mut self, index: usize, digit: u64) {
        match self.digits.get_mut(index) {
            Some(slot) => *slot = digit as u8,
            None => self.truncated |= digit > 0,
        }
    }

    /// Divides by `2^shift` (`shift` at most 60).
    fn right_shift(&mut self, shift: usize) {
        let mut read_index = 0;
        let mut write_index = 0;
        let mut n = 0_u64;
        while (n >> shift) == 0 {
            if read_index < self.num_digits {
                n = (10 * n) + u64::from(self.digits[read_index]);
                read_index += 1;
            } else if n == 0 {
                return;
            } else {
                while (n >> shift) == 0 {
                    n *= 10;
                    read_index += 1;
                }
                break;
            }
        }
        self.decimal_point -= read_index as i32 - 1;
        if self.decimal_point < -DECIMAL_POINT_RANGE {
            self.num_digits = 0;
            self.decimal_point = 0;
            self.truncated = false;
            return;
        }
        let mask = (1_u64 << shift) - 1;
        while read_index < self.num_digits {
            let new_digit = (n >> shift) as u8;
            n = (10 * (n & mask)) + u64::from(self.digits[read_index]);
            read_index += 1;
            self.digits[write_index] = new_digit;
            write_index += 1;
        }
        while n > 0 {
            let new_digit = (n >> shift) as u8;
            n = 10 * (n & mask);
            if write_index < MAX_DIGITS {
                self.digits[write_index] = new_digit;
                write_index += 1;
            } else if new_digit > 0 {
                self.truncated = true;
            }
        }
        self.num_digits = write_index;
        self.trim();
    }
}

/// How many digits a left shift by `shift` adds: the table's count, or one fewer when the
/// number's leading digits are below those of `5^shift`.
fn new_digits_of_left_shift(d: &Decimal, shift: usize) -> usize {
    let shift = shift & 63;
    let x_a = SHIFTS[shift];
    let x_b = SHIFTS[shift + 1];
    let num_new_digits = usize::from(x_a >> 11);
    let pow5_a = usize::from(0x7FF & x_a);
    let pow5_b = usize::from(0x7FF & x_b);
    for (i, &p5) in POW5_DIGITS[pow5_a..pow5_b].iter().enumerate() {
        if i >= d.num_digits {
            return num_new_digits - 1;
        } else if d.digits[i] == p5 {
            continue;
        } else if d.digits[i] < p5 {
            return num_new_digits - 1;
        } else {
            return num_new_digits;
        }
    }
    num_new_digits
}

/// Per shift: new digits (top 5 bits) and where the digits of `5^shift` start in
/// [`POW5_DIGITS`] (low 11 bits).
#[rustfmt::skip]
const SHIFTS: [u16; 65] = [
    0x0000, 0x0800, 0x0801, 0x0803, 0x1006, 0x1009, 0x100D, 0x1812, 0x1817, 0x181D, 0x2024,
    0x202B, 0x2033, 0x203C, 0x2846, 0x2850, 0x285B, 0x3067, 0x3073, 0x3080, 0x388E, 0x389C,
    0x38AB, 0x38BB, 0x40CC, 0x40DD, 0x40EF, 0x4902, 0x4915, 0x4929, 0x513E, 0x5153, 0x5169,
    0x5180, 0x5998, 0x59B0, 0x59C9, 0x61E3, 0x61FD, 0x6218, 0x6A34, 0x6A50, 0x6A6D, 0x6A8B,
    0x72AA, 0x72C9, 0x72E9, 0x7B0A, 0x7B2B, 0x7B4D, 0x8370, 0x8393, 0x83B7, 0x83DC, 0x8C02,
    0x8C28, 0x8C4F, 0x9477, 0x949F, 0x94C8, 0x9CF2, 0x051C, 0x051C, 0x051C, 0x051C,
];

/// The decimal digits of 5^1, 5^2, ... 5^60, one after the other.
#[rustfmt::skip]
const POW5_DIGITS: [u8; 0x051C] = [
    5, 2, 5, 1, 2, 5, 6, 2, 5, 3, 1, 2, 5, 1, 5, 6, 2, 5, 7, 8, 1, 2, 5, 3, 9, 0, 6, 2, 5, 1,
    9, 5, 3, 1, 2, 5, 9, 7, 6, 5, 6, 2, 5, 4, 8, 8, 2, 8, 1, 2, 5, 2, 4, 4, 1, 4, 0, 6, 2, 5,
    1, 2, 2, 0, 7, 0, 3, 1, 2, 5, 6, 1, 0, 3, 5, 1, 5, 6, 2, 5, 3, 0, 5, 1, 7, 5, 7, 8, 1, 2,
    5, 1, 5, 2, 5, 8, 7, 8, 9, 0, 6, 2, 5, 7, 6, 2, 9, 3, 9, 4, 5, 3, 1, 2, 5, 3, 8, 1, 4, 6,
    9, 7, 2, 6, 5, 6, 2, 5, 1, 9, 0, 7, 3, 4, 8, 6, 3, 2, 8, 1, 2, 5, 9, 5, 3, 6, 7, 4, 3, 1,
    6, 4, 0, 6, 2, 5, 4, 7, 6, 8, 3, 7, 1, 5, 8, 2, 0, 3, 1, 2, 5, 2, 3, 8, 4, 1, 8, 5, 7, 9,
    1, 0, 1, 5, 6, 2, 5, 1, 1, 9, 2, 0, 9, 2, 8, 9, 5, 5, 0, 7, 8, 1, 2, 5, 5, 9, 6, 0, 4, 6,
    4, 4, 7, 7, 5, 3, 9, 0, 6, 2, 5, 2, 9, 8, 0, 2, 3, 2, 2, 3, 8, 7, 6, 9, 5, 3, 1, 2, 5, 1,
    4, 9, 0, 1, 1, 6, 1, 1, 9, 3, 8, 4, 7, 6, 5, 6, 2, 5, 7, 4, 5, 0, 5, 8, 0, 5, 9, 6, 9, 2,
    3, 8, 2, 8, 1, 2, 5, 3, 7, 2, 5, 2, 9, 0, 2, 9, 8, 4, 6, 1, 9, 1, 4, 0, 6, 2, 5, 1, 8, 6,
    2, 6, 4, 5, 1, 4, 9, 2, 3, 0, 9, 5, 7, 0, 3, 1, 2, 5, 9, 3, 1, 3, 2, 2, 5, 7, 4, 6, 1, 5,
    4, 7, 8, 5, 1, 5, 6, 2, 5, 4, 6, 5, 6, 6, 1, 2, 8, 7, 3, 0, 7, 7, 3, 9, 2, 5, 7, 8, 1, 2,
    5, 2, 3, 2, 8, 3, 0, 6, 4, 3, 6, 5, 3, 8, 6, 9, 6, 2, 8, 9, 0, 6, 2, 5, 1, 1, 6, 4, 1, 5,
    3, 2, 1, 8, 2, 6, 9, 3, 4, 8, 1, 4, 4, 5, 3, 1, 2, 5, 5, 8, 2, 0, 7, 6, 6, 0, 9, 1, 3, 4,
    6, 7, 4, 0, 7, 2, 2, 6, 5, 6, 2, 5, 2, 9, 1, 0, 3, 8, 3, 0, 4, 5, 6, 7, 3, 3, 7, 0, 3, 6,
    1, 3, 2, 8, 1, 2, 5, 1, 4, 5, 5, 1, 9, 1, 5, 2, 2, 8, 3, 6, 6, 8, 5, 1, 8, 0, 6, 6, 4, 0,
    6, 2, 5, 7, 2, 7, 5, 9, 5, 7, 6, 1, 4, 1, 8, 3, 4, 2, 5, 9, 0, 3, 3, 2, 0, 3, 1, 2, 5, 3,
    6, 3, 7, 9, 7, 8, 8, 0, 7, 0, 9, 1, 7, 1, 2, 9, 5, 1, 6, 6, 0, 1, 5, 6, 2, 5, 1, 8, 1, 8,
    9, 8, 9, 4, 0, 3, 5, 4, 5, 8, 5, 6, 4, 7, 5, 8, 3, 0, 0, 7, 8, 1, 2, 5, 9, 0, 9, 4, 9, 4,
    7, 0, 1, 7, 7, 2, 9, 2, 8, 2, 3, 7, 9, 1, 5, 0, 3, 9, 0, 6, 2, 5, 4, 5, 4, 7, 4, 7, 3, 5,
    0, 8, 8, 6, 4, 6, 4, 1, 1, 8, 9, 5, 7, 5, 1, 9, 5, 3, 1, 2, 5, 2, 2, 7, 3, 7, 3, 6, 7, 5,
    4, 4, 3, 2, 3, 2, 0, 5, 9, 4, 7, 8, 7, 5, 9, 7, 6, 5, 6, 2, 5, 1, 1, 3, 6, 8, 6, 8, 3, 7,
    7, 2, 1, 6, 1, 6, 0, 2, 9, 7, 3, 9, 3, 7, 9, 8, 8, 2, 8, 1, 2, 5, 5, 6, 8, 4, 3, 4, 1, 8,
    8, 6, 0, 8, 0, 8, 0, 1, 4, 8, 6, 9, 6, 8, 9, 9, 4, 1, 4, 0, 6, 2, 5, 2, 8, 4, 2, 1, 7, 0,
    9, 4, 3, 0, 4, 0, 4, 0, 0, 7, 4, 3, 4, 8, 4, 4, 9, 7, 0, 7, 0, 3, 1, 2, 5, 1, 4, 2, 1, 0,
    8, 5, 4, 7, 1, 5, 2, 0, 2, 0, 0, 3, 7, 1, 7, 4, 2, 2, 4, 8, 5, 3, 5, 1, 5, 6, 2, 5, 7, 1,
    0, 5, 4, 2, 7, 3, 5, 7, 6, 0, 1, 0, 0, 1, 8, 5, 8, 7, 1, 1, 2, 4, 2, 6, 7, 5, 7, 8, 1, 2,
    5, 3, 5, 5, 2, 7, 1, 3, 6, 7, 8, 8, 0, 0, 5, 0, 0, 9, 2, 9, 3, 5, 5, 6, 2, 1, 3, 3, 7, 8,
    9, 0, 6, 2, 5, 1, 7, 7, 6, 3, 5, 6, 8, 3, 9, 4, 0, 0, 2, 5, 0, 4, 6, 4, 6, 7, 7, 8, 1, 0,
    6, 6, 8, 9, 4, 5, 3, 1, 2, 5, 8, 8, 8, 1, 7, 8, 4, 1, 9, 7, 0, 0, 1, 2, 5, 2, 3, 2, 3, 3,
    8, 9, 0, 5, 3, 3, 4, 4, 7, 2, 6, 5, 6, 2, 5, 4, 4, 4, 0, 8, 9, 2, 0, 9, 8, 5, 0, 0, 6, 2,
    6, 1, 6, 1, 6, 9, 4, 5, 2, 6, 6, 7, 2, 3, 6, 3, 2, 8, 1, 2, 5, 2, 2, 2, 0, 4, 4, 6, 0, 4,
    9, 2, 5, 0, 3, 1, 3, 0, 8, 0, 8, 4, 7, 2, 6, 3, 3, 3, 6, 1, 8, 1, 6, 4, 0, 6, 2, 5, 1, 1,
    1, 0, 2, 2, 3, 0, 2, 4, 6, 2, 5, 1, 5, 6, 5, 4, 0, 4, 2, 3, 6, 3, 1, 6, 6, 8, 0, 9, 0, 8,
    2, 0, 3, 1, 2, 5, 5, 5, 5, 1, 1, 1, 5, 1, 2, 3, 1, 2, 5, 7, 8, 2, 7, 0, 2, 1, 1, 8, 1, 5,
    8, 3, 4, 0, 4, 5, 4, 1, 0, 1, 5, 6, 2, 5, 2, 7, 7, 5, 5, 5, 7, 5, 6, 1, 5, 6, 2, 8, 9, 1,
    3, 5, 1, 0, 5, 9, 0, 7, 9, 1, 7, 0, 2, 2, 7, 0, 5, 0, 7, 8, 1, 2, 5, 1, 3, 8, 7, 7, 7, 8,
    7, 8, 0, 7, 8, 1, 4, 4, 5, 6, 7, 5, 5, 2, 9, 5, 3, 9, 5, 8, 5, 1, 1, 3, 5, 2, 5, 3, 9, 0,
    6, 2, 5, 6, 9, 3, 8, 8, 9, 3, 9, 0, 3, 9, 0, 7, 2, 2, 8, 3, 7, 7, 6, 4, 7, 6, 9, 7, 9, 2,
    5, 5, 6, 7, 6, 2, 6, 9, 5, 3, 1, 2, 5, 3, 4, 6, 9, 4, 4, 6, 9, 5, 1, 9, 5, 3, 6, 1, 4, 1,
    8, 8, 8, 2, 3, 8, 4, 8, 9, 6, 2, 7, 8, 3, 8, 1, 3, 4, 7, 6, 5, 6, 2, 5, 1, 7, 3, 4, 7, 2,
    3, 4, 7, 5, 9, 7, 6, 8, 0, 7, 0, 9, 4, 4, 1, 1, 9, 2, 4, 4, 8, 1, 3, 9, 1, 9, 0, 6, 7, 3,
    8, 2, 8, 1, 2, 5, 8, 6, 7, 3, 6, 1, 7, 3, 7, 9, 8, 8, 4, 0, 3, 5, 4, 7, 2, 0, 5, 9, 6, 2,
    2, 4, 0, 6, 9, 5, 9, 5, 3, 3, 6, 9, 1, 4, 0, 6, 2, 5,
];
