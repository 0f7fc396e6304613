//! What the two WebAssembly SIMD kernels share.

use core::arch::wasm32::*;

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
