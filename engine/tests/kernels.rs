//! The kernel check the browser runs on its relaxed-SIMD product (`tl_check_kernels`): here it
//! compares the portable product with itself, and must tell apart a product whose blocks' sums
//! are off by one, or one that drops the last row group.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use tabloop_engine::kernels::check::{self, SAME_PRODUCT};
use tabloop_engine::kernels::matmul;
use tabloop_engine::quant::{QActs, QMatrix, GROUP_ROWS};

#[test]
fn the_same_product_agrees() {
    let outcome = check::compare(matmul, check::portable);
    assert_eq!(outcome.products, 3);
    assert!(outcome.agrees(), "{outcome:?}");
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
    for (name, kernel) in [
        ("block sums off by one", sums_off as check::Kernel),
        ("last row group missing", last_group_missing),
    ] {
        let outcome = check::compare(kernel, check::portable);
        assert!(
            !outcome.agrees() && outcome.worst > 10.0 * SAME_PRODUCT,
            "{name}: {outcome:?}"
        );
    }
}
