//! The kernel check the browser runs on its relaxed-SIMD product (`tl_check_kernels`): here it
//! compares the portable product with itself, and must tell apart a product whose blocks' sums
//! are off by one, one that drops the last row group, or one that leaves out the negative
//! magnitudes of sign-and-magnitude activations; and sign-and-magnitude activations hold what
//! the signed ones hold.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use tabloop_engine::kernels::check::{self, SAME_PRODUCT};
use tabloop_engine::kernels::encoding::{exact_here, Encoding};
use tabloop_engine::kernels::matmul;
use tabloop_engine::quant::{QActs, QMatrix, GROUP_ROWS};

#[test]
fn the_same_product_agrees_in_every_encoding() {
    // natively the portable sums are exact in every encoding, and all are compared
    assert_eq!(exact_here().len(), Encoding::ALL.len());
    let outcome = check::compare(matmul, check::portable);
    assert_eq!(
        outcome.products,
        check::SHAPES_COMPARED * Encoding::ALL.len()
    );
    assert!(outcome.agrees(), "{outcome:?}");
}

#[test]
fn every_encoding_is_found_by_the_name_it_reports() {
    for encoding in Encoding::ALL {
        assert_eq!(Encoding::named(encoding.name()), Some(encoding));
    }
    assert_eq!(Encoding::named("8-bit"), None);
}

#[test]
fn sign_and_magnitude_hold_the_signed_values() {
    let values: Vec<f32> = (0..64).map(|i| (i as f32 - 30.5) * 0.37).collect();
    let mut signed = QActs::for_encoding(Encoding::Signed8);
    signed.quantize(&values, 64);
    let mut split = QActs::for_encoding(Encoding::SignMagnitude8);
    split.quantize(&values, 64);
    assert_eq!(split.scales, signed.scales);
    assert_eq!((split.tokens(), split.stride()), (1, 128));
    // per block: 32 magnitudes, then their 32 sign masks
    let (mut magnitudes, mut signs) = (Vec::new(), Vec::new());
    for block in split.quants.chunks(64) {
        magnitudes.extend_from_slice(&block[..32]);
        signs.extend_from_slice(&block[32..]);
    }
    let rebuilt: Vec<i8> = magnitudes
        .iter()
        .zip(&signs)
        .map(|(m, s)| if *s == 0xFF { -(*m as i8) } else { *m as i8 })
        .collect();
    let want: Vec<i8> = signed.quants.iter().map(|q| *q as i8).collect();
    assert_eq!(rebuilt, want);
    assert!(signs.iter().all(|s| *s == 0 || *s == 0xFF));
    let negatives: Vec<i32> = want
        .chunks(32)
        .map(|b| b.iter().map(|q| i32::from(*q).min(0).abs()).sum())
        .collect();
    assert_eq!(split.negatives, negatives);
    // the other encodings carry no signs
    assert_eq!((signed.tokens(), signed.stride()), (1, 64));
    assert!(signed.negatives.is_empty());
}

#[test]
fn a_product_with_a_small_error_does_not() {
    fn sums_off(w: &QMatrix, x: &QActs, out: &mut [f32]) {
        let mut off = w.clone();
        off.sums.iter_mut().for_each(|s| *s += 1);
        matmul(&off, x, out);
    }
    fn last_group_missing(w: &QMatrix, x: &QActs, out: &mut [f32]) {
        matmul(w, x, out);
        for token in out.chunks_mut(w.rows) {
            let start = (w.groups() - 1) * GROUP_ROWS;
            token[start..].fill(0.0);
        }
    }
    fn negatives_missing(w: &QMatrix, x: &QActs, out: &mut [f32]) {
        let mut off = x.clone();
        off.negatives.iter_mut().for_each(|n| *n = 0);
        matmul(w, &off, out);
    }
    for (name, kernel) in [
        ("block sums off by one", sums_off as check::Kernel),
        ("last row group missing", last_group_missing),
        ("negative magnitudes missing", negatives_missing),
    ] {
        let outcome = check::compare(kernel, check::portable);
        assert!(
            !outcome.agrees() && outcome.worst > 10.0 * SAME_PRODUCT,
            "{name}: {outcome:?}"
        );
    }
}
