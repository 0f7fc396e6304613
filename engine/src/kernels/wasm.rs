//! The quantized matrix product on WebAssembly relaxed SIMD.
//!
//! `i32x4.relaxed_dot_i8x16_i7x16_add_s` multiplies 16 signed weight bytes by 16 activation
//! bytes (stored as this CPU reads them exactly: see [`super::encoding`]) and adds each group
//! of four products into one lane (one AVX-VNNI `vpdpbusd` on x86, `sdot` on Arm). With four rows interleaved four bytes at a time
//! (see [`crate::quant`]) and the activation's four bytes splatted across the vector, each lane
//! accumulates one row: a block of 32 values is 8 such instructions per group of four rows, and
//! it ends as one vector of four row sums, scaled and accumulated as floats.

use core::arch::wasm32::*;

use super::out::{store_group, SharedOut};
use super::simd_common::corrections;
use crate::quant::{QActs, QMatrix, BLOCK, GROUP_BLOCK_BYTES, GROUP_ROWS};

/// Groups of rows computed together (their activation loads are shared).
const GROUPS_AT_ONCE: usize = 2;

/// Tokens computed together (each weight vector loaded once is used for all of them).
const TOKENS_AT_ONCE: usize = 4;

/// The rows of `groups` for every token (see [`super::matmul`]).
///
/// # Safety
/// Callers sharing `out` at the same time must pass disjoint group ranges.
pub unsafe fn matmul(w: &QMatrix, x: &QActs, groups: std::ops::Range<usize>, out: &SharedOut) {
    let blocks = w.blocks();
    let cols = w.cols;
    let tokens = x.tokens();
    assert!(x.cols == cols && x.scales.len() >= tokens * blocks);
    assert!(groups.end <= w.groups());
    assert!(w.quants.len() >= w.groups() * blocks * GROUP_BLOCK_BYTES);
    assert!(w.scales.len() >= w.groups() * blocks * GROUP_ROWS);
    assert!(w.sums.len() == w.scales.len());
    let mut t = 0;
    while t + TOKENS_AT_ONCE <= tokens {
        for group in groups.clone() {
            // SAFETY: the asserts above bound every block of `group` and the activations of
            // tokens t..t + TOKENS_AT_ONCE.
            let sums = unsafe { group_tokens(w, x, t, group) };
            for (i, s) in sums.into_iter().enumerate() {
                // SAFETY: groups in this caller's range.
                unsafe { store_group(w, out, t + i, group, s) };
            }
        }
        t += TOKENS_AT_ONCE;
    }
    for t in t..tokens {
        let xq = x.quants[t * cols..(t + 1) * cols].as_ptr();
        let xs = &x.scales[t * blocks..(t + 1) * blocks];
        let mut group = groups.start;
        while group + GROUPS_AT_ONCE <= groups.end {
            // SAFETY: the asserts above bound every block of these groups and every
            // activation of token `t`.
            let sums = unsafe { groups_for_token::<GROUPS_AT_ONCE>(w, xq, xs, group) };
            for (g, sum) in sums.into_iter().enumerate() {
                // SAFETY: groups in this caller's range.
                unsafe { store_group(w, out, t, group + g, sum) };
            }
            group += GROUPS_AT_ONCE;
        }
        if group < groups.end {
            // SAFETY: as above, for one group.
            let [sum] = unsafe { groups_for_token::<1>(w, xq, xs, group) };
            // SAFETY: groups in this caller's range.
            unsafe { store_group(w, out, t, group, sum) };
        }
    }
}

/// The float sums of one group's rows for [`TOKENS_AT_ONCE`] tokens from `t`.
///
/// # Safety
/// Group `group` must exist in `w`, and tokens `t..t + TOKENS_AT_ONCE` in `x`.
#[inline(always)]
unsafe fn group_tokens(w: &QMatrix, x: &QActs, t: usize, group: usize) -> [v128; TOKENS_AT_ONCE] {
    let blocks = w.blocks();
    // SAFETY: the caller guarantees the group and the tokens exist.
    unsafe {
        let q0 = w.quants.as_ptr().add(group * blocks * GROUP_BLOCK_BYTES);
        let s0 = w.scales.as_ptr().add(group * blocks * GROUP_ROWS);
        let b0 = w.sums.as_ptr().add(group * blocks * GROUP_ROWS);
        let offset = f32x4_splat(w.encoding.offset() as f32);
        let xq = x.quants.as_ptr().add(t * w.cols);
        let xs = x.scales.as_ptr().add(t * blocks);
        let mut acc = [f32x4_splat(0.0); TOKENS_AT_ONCE];
        for block in 0..blocks {
            let wp = q0.add(block * GROUP_BLOCK_BYTES);
            let mut sums = [i32x4_splat(0); TOKENS_AT_ONCE];
            for chunk in 0..BLOCK / 4 {
                let wv = v128_load(wp.add(chunk * 16) as *const v128);
                for (i, sum) in sums.iter_mut().enumerate() {
                    let at = i * w.cols + block * BLOCK + chunk * 4;
                    let xv = v128_load32_splat(xq.add(at) as *const u32);
                    *sum = i32x4_relaxed_dot_i8x16_i7x16_add(wv, xv, *sum);
                }
            }
            let scale = v128_load(s0.add(block * GROUP_ROWS) as *const v128);
            let correction = corrections(scale, offset, b0.add(block * GROUP_ROWS));
            for (i, (a, sum)) in acc.iter_mut().zip(sums).enumerate() {
                let f = f32x4_sub(f32x4_mul(f32x4_convert_i32x4(sum), scale), correction);
                *a = f32x4_relaxed_madd(f32x4_splat(*xs.add(i * blocks + block)), f, *a);
            }
        }
        acc
    }
}

/// The float sums of `G` consecutive groups' rows for one token (sharing each activation load).
///
/// # Safety
/// Groups `group..group + G` must exist in `w`, and `xq` must point to `w.cols` activation bytes.
#[inline(always)]
unsafe fn groups_for_token<const G: usize>(
    w: &QMatrix,
    xq: *const u8,
    xs: &[f32],
    group: usize,
) -> [v128; G] {
    let blocks = w.blocks();
    // SAFETY: the caller guarantees the groups and the activations exist.
    unsafe {
        let quants = w.quants.as_ptr().add(group * blocks * GROUP_BLOCK_BYTES);
        let scales = w.scales.as_ptr().add(group * blocks * GROUP_ROWS);
        let block_sums = w.sums.as_ptr().add(group * blocks * GROUP_ROWS);
        let offset = f32x4_splat(w.encoding.offset() as f32);
        let mut acc = [f32x4_splat(0.0); G];
        for (block, dx) in xs.iter().enumerate() {
            let xb = xq.add(block * BLOCK);
            let mut sums = [i32x4_splat(0); G];
            for chunk in 0..BLOCK / 4 {
                let xv = v128_load32_splat(xb.add(chunk * 4) as *const u32);
                for (g, sum) in sums.iter_mut().enumerate() {
                    let wp = quants.add((g * blocks + block) * GROUP_BLOCK_BYTES + chunk * 16);
                    *sum =
                        i32x4_relaxed_dot_i8x16_i7x16_add(v128_load(wp as *const v128), xv, *sum);
                }
            }
            let dxv = f32x4_splat(*dx);
            for (g, (a, sum)) in acc.iter_mut().zip(sums).enumerate() {
                let at = (g * blocks + block) * GROUP_ROWS;
                let scale = v128_load(scales.add(at) as *const v128);
                let f = f32x4_sub(
                    f32x4_mul(f32x4_convert_i32x4(sum), scale),
                    corrections(scale, offset, block_sums.add(at)),
                );
                *a = f32x4_relaxed_madd(dxv, f, *a);
            }
        }
        acc
    }
}
