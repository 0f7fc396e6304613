//! The quantized matrix product on WebAssembly relaxed SIMD.
//!
//! `i32x4.relaxed_dot_i8x16_i7x16_add_s` multiplies 16 signed weight bytes by 16 activation
//! bytes whose top bit is clear and adds each group of four products into one lane (one
//! AVX-VNNI `vpdpbusd` on x86, `sdot` on Arm). With four rows interleaved four bytes at a time
//! (see [`crate::quant`]) and the activation's four bytes splatted across the vector, each lane
//! accumulates one row: a block of 32 values is 8 such instructions per group of four rows, and
//! it ends as one vector of four row sums, scaled and accumulated as floats.

use core::arch::wasm32::*;

use super::out::SharedOut;
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
    assert!(w.corrections.len() == w.scales.len());
    let mut t = 0;
    while t + TOKENS_AT_ONCE <= tokens {
        for group in groups.clone() {
            // SAFETY: the asserts above bound every block of `group` and the activations of
            // tokens t..t + TOKENS_AT_ONCE.
            let sums = unsafe { group_tokens(w, x, t, group) };
            for (i, s) in sums.into_iter().enumerate() {
                // SAFETY: groups in this caller\'s range.
                unsafe { store(w, out, t + i, group, s) };
            }
        }
        t += TOKENS_AT_ONCE;
    }
    for t in t..tokens {
        let xq = x.quants[t * cols..(t + 1) * cols].as_ptr();
        let xs = &x.scales[t * blocks..(t + 1) * blocks];
        let mut group = groups.start;
        while group + GROUPS_AT_ONCE <= groups.end {
            // SAFETY: the asserts above bound every block of groups `group` and `group + 1` and
            // every activation of token `t`.
            let (a, b) = unsafe { two_groups(w, xq, xs, group) };
            // SAFETY: groups in this caller\'s range.
            unsafe { store(w, out, t, group, a) };
            // SAFETY: groups in this caller\'s range.
            unsafe { store(w, out, t, group + 1, b) };
            group += GROUPS_AT_ONCE;
        }
        if group < groups.end {
            // SAFETY: as above, for one group.
            let a = unsafe { one_group(w, xq, xs, group) };
            // SAFETY: groups in this caller\'s range.
            unsafe { store(w, out, t, group, a) };
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
        let c0 = w.corrections.as_ptr().add(group * blocks * GROUP_ROWS);
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
            let correction = v128_load(c0.add(block * GROUP_ROWS) as *const v128);
            for (i, (a, sum)) in acc.iter_mut().zip(sums).enumerate() {
                let f = f32x4_sub(f32x4_mul(f32x4_convert_i32x4(sum), scale), correction);
                *a = f32x4_relaxed_madd(f32x4_splat(*xs.add(i * blocks + block)), f, *a);
            }
        }
        acc
    }
}

/// # Safety
/// The group's rows must be this caller's (see [`matmul`]).
unsafe fn store(w: &QMatrix, out: &SharedOut, t: usize, group: usize, sums: v128) {
    let row = group * GROUP_ROWS;
    let values = [
        f32x4_extract_lane::<0>(sums),
        f32x4_extract_lane::<1>(sums),
        f32x4_extract_lane::<2>(sums),
        f32x4_extract_lane::<3>(sums),
    ];
    let valid = GROUP_ROWS.min(w.rows - row);
    let at = t * w.rows + row;
    // SAFETY: passed on from the caller.
    unsafe { out.write(at, &values[..valid]) };
}

/// The float sums of two groups' rows for one token.
///
/// # Safety
/// Groups `group` and `group + 1` must exist in `w`, and `xq` must point to `w.cols`
/// activation bytes.
#[inline(always)]
unsafe fn two_groups(w: &QMatrix, xq: *const u8, xs: &[f32], group: usize) -> (v128, v128) {
    // SAFETY: the caller guarantees the groups and activations exist (see above).
    unsafe {
        let blocks = w.blocks();
        let q0 = w.quants.as_ptr().add(group * blocks * GROUP_BLOCK_BYTES);
        let q1 = q0.add(blocks * GROUP_BLOCK_BYTES);
        let s0 = w.scales.as_ptr().add(group * blocks * GROUP_ROWS);
        let s1 = s0.add(blocks * GROUP_ROWS);
        let c0 = w.corrections.as_ptr().add(group * blocks * GROUP_ROWS);
        let c1 = c0.add(blocks * GROUP_ROWS);
        let mut acc0 = f32x4_splat(0.0);
        let mut acc1 = f32x4_splat(0.0);
        for (block, dx) in xs.iter().enumerate() {
            let xb = xq.add(block * BLOCK);
            let w0 = q0.add(block * GROUP_BLOCK_BYTES);
            let w1 = q1.add(block * GROUP_BLOCK_BYTES);
            let mut sum0 = i32x4_splat(0);
            let mut sum1 = i32x4_splat(0);
            for chunk in 0..BLOCK / 4 {
                let xv = v128_load32_splat(xb.add(chunk * 4) as *const u32);
                sum0 = i32x4_relaxed_dot_i8x16_i7x16_add(
                    v128_load(w0.add(chunk * 16) as *const v128),
                    xv,
                    sum0,
                );
                sum1 = i32x4_relaxed_dot_i8x16_i7x16_add(
                    v128_load(w1.add(chunk * 16) as *const v128),
                    xv,
                    sum1,
                );
            }
            let dxv = f32x4_splat(*dx);
            let at = block * GROUP_ROWS;
            let f0 = f32x4_sub(
                f32x4_mul(
                    f32x4_convert_i32x4(sum0),
                    v128_load(s0.add(at) as *const v128),
                ),
                v128_load(c0.add(at) as *const v128),
            );
            let f1 = f32x4_sub(
                f32x4_mul(
                    f32x4_convert_i32x4(sum1),
                    v128_load(s1.add(at) as *const v128),
                ),
                v128_load(c1.add(at) as *const v128),
            );
            acc0 = f32x4_relaxed_madd(dxv, f0, acc0);
            acc1 = f32x4_relaxed_madd(dxv, f1, acc1);
        }
        (acc0, acc1)
    }
}

/// The float sums of one group's rows for one token.
///
/// # Safety
/// Group `group` must exist in `w`, and `xq` must point to `w.cols` activation bytes.
#[inline(always)]
unsafe fn one_group(w: &QMatrix, xq: *const u8, xs: &[f32], group: usize) -> v128 {
    // SAFETY: the caller guarantees the groups and activations exist (see above).
    unsafe {
        let blocks = w.blocks();
        let q0 = w.quants.as_ptr().add(group * blocks * GROUP_BLOCK_BYTES);
        let s0 = w.scales.as_ptr().add(group * blocks * GROUP_ROWS);
        let c0 = w.corrections.as_ptr().add(group * blocks * GROUP_ROWS);
        let mut acc = f32x4_splat(0.0);
        for (block, dx) in xs.iter().enumerate() {
            let xb = xq.add(block * BLOCK);
            let w0 = q0.add(block * GROUP_BLOCK_BYTES);
            let mut sum = i32x4_splat(0);
            for chunk in 0..BLOCK / 4 {
                let xv = v128_load32_splat(xb.add(chunk * 4) as *const u32);
                sum = i32x4_relaxed_dot_i8x16_i7x16_add(
                    v128_load(w0.add(chunk * 16) as *const v128),
                    xv,
                    sum,
                );
            }
            let at = block * GROUP_ROWS;
            let f = f32x4_sub(
                f32x4_mul(
                    f32x4_convert_i32x4(sum),
                    v128_load(s0.add(at) as *const v128),
                ),
                v128_load(c0.add(at) as *const v128),
            );
            acc = f32x4_relaxed_madd(f32x4_splat(*dx), f, acc);
        }
        acc
    }
}
