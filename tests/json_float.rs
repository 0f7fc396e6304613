//! The plain float reader (`protocol::json::parse_f64`) against the standard library's
//! `str::parse::<f64>`, bit for bit: shortest and long forms of random floats, halfway cases,
//! the edges of the subnormal and infinite ranges, and digit strings far longer than any float.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(not(target_arch = "wasm32"))]

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use tabloop::protocol::json::{self, parse_f64};

fn agree(text: &str) {
    let ours = parse_f64(text).map(f64::to_bits);
    let std = text.parse::<f64>().ok().map(f64::to_bits);
    assert_eq!(ours, std, "{text}");
}

#[test]
fn edge_cases_read_as_the_standard_library_reads_them() {
    for text in [
        "0",
        "-0",
        "0.0",
        "1",
        "1.5",
        "0.1",
        "0.2",
        "0.3",
        "0.30000000000000004",
        "1e22",
        "1e23",
        "9007199254740992",
        "9007199254740993",
        "9007199254740994",
        "9007199254740995",
        "18446744073709551615",
        "18446744073709551616",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "1.8e308",
        "1e309",
        "2.2250738585072014e-308",
        "2.2250738585072011e-308",
        "4.9406564584124654e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "1e-324",
        "5e-324",
        "1e-400",
        "123456789012345678901234567890",
        "0.000000000000000000000000000001",
        "1.e5",
        ".5",
        "5.",
        "+1",
        "-1.25e-3",
        "1E+2",
        "00012",
        "0.0000",
        "1e0000000000000000001",
        "1e-99999999999",
        "1e99999999999",
        "7e-10",
        "3.14159",
        "2.718281828459045235360287471352662497757",
        "1448997445238699",
        "4503599627370496.5",
        "4503599627370497.5",
        "9007199254740993.0000000000000000000000000000000000001",
        "6.103515625e-05",
        "0.1e-22",
        "12345678901234567e-37",
        "123e37",
        "1e37",
        "8e37",
    ] {
        agree(text);
    }
    for text in [
        "", "-", "+", ".", "e5", "1e", "1e+", "inf", "NaN", "1.2.3", "1e5.5", " 1", "0x10",
    ] {
        assert_eq!(parse_f64(text), None, "{text}");
    }
}

#[test]
fn numbers_longer_than_the_kept_digits_round_by_every_digit() {
    // Halfway between two floats, then nudged by a digit past the 768th.
    let half = "9007199254740993";
    agree(half);
    agree(&format!("{half}.{}", "0".repeat(800)));
    agree(&format!("{half}.{}1", "0".repeat(800)));
    agree(&format!("{}e-800", "1".repeat(900)));
    agree(&format!("0.{}1e10", "0".repeat(1000)));
}

/// Quotients whose first 64 or so bits, cut where a float rounds, look exactly halfway
/// between two floats while the exact value lies just above: the reader must round up.
#[test]
fn a_quotient_that_only_looks_halfway_rounds_by_its_remainder() {
    let mut found = 0;
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..2_000_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mantissa = x % 10_000_000_000_000_000_000;
        let k = 20 + (x >> 59) as u32 % 8;
        let d = u128::from(5u64.pow(k));
        let numerator = u128::from(mantissa) << u128::from(mantissa).leading_zeros();
        let (q, r) = (numerator / d, numerator % d);
        let dropped = 128 - q.leading_zeros() - 53;
        let half = 1u128 << (dropped - 1);
        if r != 0 && q & ((half << 1) - 1) == half {
            agree(&format!("{mantissa}e-{k}"));
            found += 1;
        }
    }
    assert!(found > 10, "found {found} such numbers");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn any_float_written_any_way_reads_back_alike(bits in any::<u64>()) {
        let f = f64::from_bits(bits);
        if f.is_finite() {
            agree(&format!("{f}"));
            agree(&format!("{f:e}"));
            agree(&format!("{f:.3e}"));
            agree(&format!("{f:.25e}"));
            agree(zmij::Buffer::new().format_finite(f));
        }
    }

    #[test]
    fn any_mantissa_of_up_to_19_digits_near_one_reads_alike(
        mantissa in any::<u64>(),
        digits in 1u32..20,
        exp in -32i32..32,
        scale in -25i32..25,
        unit in 0.0f64..1.0,
    ) {
        let mantissa = mantissa % 10u64.pow(digits.min(19));
        agree(&format!("{mantissa}e{exp}"));
        let f = unit * 10f64.powi(scale);
        agree(zmij::Buffer::new().format_finite(f));
        agree(&format!("{f:.17e}"));
    }

    #[test]
    fn any_digit_string_reads_alike(
        int in "[0-9]{0,40}",
        frac in prop::option::of("[0-9]{0,40}"),
        exp in prop::option::of(-400i32..400),
    ) {
        let mut text = int;
        if let Some(frac) = frac {
            text.push('.');
            text.push_str(&frac);
        }
        if let Some(exp) = exp {
            text.push_str(&format!("e{exp}"));
        }
        agree(&text);
    }
}

#[test]
fn floats_are_displayed_as_the_standard_library_displays_them() {
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.1,
        0.5,
        1.5,
        2.5,
        0.25,
        0.35,
        0.125,
        0.00005,
        0.00015,
        0.99995,
        0.99996,
        9.99995,
        1e21,
        1e22,
        1e-7,
        123456.789,
        0.0012345,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        1e300,
        0.30000000000000004,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -1e-10,
        // ...173.125 exactly, halfway between two shortest candidates (.12, .13): the upper one.
        -227_091_780_258_173.13,
    ];
    for f in specials {
        assert_eq!(json::display_f64(f), format!("{f}"));
        for decimals in [0, 1, 2, 4, 10] {
            assert_eq!(
                json::fixed_f64(f, decimals),
                format!("{f:.decimals$}"),
                "{f} {decimals}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn any_float_is_displayed_alike(bits in any::<u64>(), decimals in 0usize..12) {
        let f = f64::from_bits(bits);
        prop_assert_eq!(json::display_f64(f), format!("{f}"));
        prop_assert_eq!(json::fixed_f64(f, decimals), format!("{f:.decimals$}"));
    }

    #[test]
    fn any_cost_like_float_is_displayed_alike(cents in 0u64..100_000_000, scale in 0i32..12, decimals in 0usize..8) {
        let f = cents as f64 / 10f64.powi(scale);
        prop_assert_eq!(json::display_f64(f), format!("{f}"));
        prop_assert_eq!(json::fixed_f64(f, decimals), format!("{f:.decimals$}"));
        prop_assert_eq!(json::fixed_f64(-f, decimals), format!("{:.decimals$}", -f));
    }
}
