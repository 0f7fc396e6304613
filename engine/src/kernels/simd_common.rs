//! What the two WebAssembly SIMD kernels share.

use core::arch::wasm32::*;

use super::out::{store_group, SharedOut};
use crate::quant::QMatrix;

/// The corrections `offset · scale · Σq` of a block's four rows, as
/// [`crate::quant::QMatrix::correction`] computes each (the offset times the scale is exact: a
/// power of two), from the rows' `scale`, the `offset` in every lane and their sums at `sums`.
///
/// # Safety
/// `sums` must point to four block sums.
#[inline(always)]
pub unsafe fn corrections(scale: v128, offset: v128, sums: *const i16) -> v128 {
    // SAFETY: passed on from the caller.
    let sums = unsafe { f32x4_convert_i32x4(i32x4_load_extend_i16x4(sums)) };
    f32x4_mul(f32x4_mul(offset, scale), sums)
}

/// Stores the row sums of every group of `groups` for the `N` tokens from `t`, as `sums`
/// computes them for a group (one kernel's products of several tokens at once).
///
/// # Safety
/// `sums` must be sound to call for every group of `groups`; callers sharing `out` at the
/// same time pass disjoint group ranges.
#[inline(always)]
pub unsafe fn store_tokens<const N: usize>(
    w: &QMatrix,
    out: &SharedOut,
    t: usize,
    groups: std::ops::Range<usize>,
    sums: impl Fn(usize) -> [v128; N],
) {
    for group in groups {
        for (i, sum) in sums(group).into_iter().enumerate() {
            // SAFETY: groups in the caller's range.
            unsafe { store_group(w, out, t + i, group, sum) };
        }
    }
}
