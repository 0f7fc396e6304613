//! The quantized matrix product on WebAssembly SIMD128 alone (no relaxed SIMD: Safari, or a
//! browser with it turned off). Exact for 8-bit activations on every CPU: bytes are widened to
//! 16 bits and multiplied by `i32x4.dot_i16x8_s`, which sums pairs of products without
//! saturating, so activations are stored signed ([`super::encoding::Encoding::Signed8`]).
//!
//! The packed layout is the relaxed kernel's (four rows, four bytes each, per 16-byte vector).
//! Widening the low half of a weight vector gives rows 0 and 1, the high half rows 2 and 3; the
//! activation's four bytes are splatted, so after the dot product each lane holds the sum of
//! two products of one row. Lanes are kept apart through a block and folded into one sum per row
//! at its end (two shuffles and an add).

use core::arch::wasm32::*;

use super::out::{store_group, SharedOut};
use super::simd_common::{corrections, store_tokens};
use crate::quant::{QActs, QMatrix, BLOCK, GROUP_BLOCK_BYTES, GROUP_ROWS};

/// Groups of rows computed together (their activation loads are shared).
const GROUPS_AT_ONCE: usize = 2;

/// Tokens computed together where a batch has them (each weight vector, loaded and widened
/// once, is used for all of them): a prompt four at a time, and the two or three a
/// jump-forward's or a draft's pass often holds.
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
    assert!(x.quants.len() >= tokens * cols);
    // signs masked are for the relaxed dot product (`encoding::exact_here` never offers them here)
    assert!(
        !x.encoding.masks_signs(),
        "sign masks in the SIMD128 kernel"
    );
    assert!(groups.end <= w.groups());
    assert!(w.quants.len() >= w.groups() * blocks * GROUP_BLOCK_BYTES);
    assert!(w.scales.len() >= w.groups() * blocks * GROUP_ROWS);
    assert!(w.sums.len() == w.scales.len());
    let mut t = 0;
    while t < tokens {
        // SAFETY (each arm): the asserts above bound every block of the groups and the
        // activations of tokens t..t + n.
        let n = match tokens - t {
            1 => break,
            2 => unsafe { tokens_at_once::<2>(w, x, t, groups.clone(), out) },
            3 => unsafe { tokens_at_once::<3>(w, x, t, groups.clone(), out) },
            _ => unsafe { tokens_at_once::<TOKENS_AT_ONCE>(w, x, t, groups.clone(), out) },
        };
        t += n;
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

/// The rows of `groups` for the `N` tokens from `t`, stored into `out`; returns `N`.
///
/// # Safety
/// Every block of `groups` must exist in `w`, and tokens `t..t + N` in `x`; callers sharing
/// `out` at the same time pass disjoint group ranges.
#[inline(always)]
unsafe fn tokens_at_once<const N: usize>(
    w: &QMatrix,
    x: &QActs,
    t: usize,
    groups: std::ops::Range<usize>,
    out: &SharedOut,
) -> usize {
    // SAFETY: passed on from the caller.
    unsafe { store_tokens(w, out, t, groups, |group| group_tokens::<N>(w, x, t, group)) };
    N
}

/// The float sums of one group's rows for the `N` tokens from `t` (each weight vector loaded
/// and widened once for all of them).
///
/// # Safety
/// Group `group` must exist in `w`, and tokens `t..t + N` in `x`.
#[inline(always)]
unsafe fn group_tokens<const N: usize>(
    w: &QMatrix,
    x: &QActs,
    t: usize,
    group: usize,
) -> [v128; N] {
    let blocks = w.blocks();
    let cols = w.cols;
    // SAFETY: the caller guarantees the group and the tokens exist.
    unsafe {
        let quants = w.quants.as_ptr().add(group * blocks * GROUP_BLOCK_BYTES);
        let scales = w.scales.as_ptr().add(group * blocks * GROUP_ROWS);
        let block_sums = w.sums.as_ptr().add(group * blocks * GROUP_ROWS);
        let offset = f32x4_splat(w.encoding.offset() as f32);
        let xq = x.quants.as_ptr().add(t * cols);
        let xs = x.scales.as_ptr().add(t * blocks);
        let mut acc = [f32x4_splat(0.0); N];
        for block in 0..blocks {
            // per token: rows 0 and 1 (two lanes each), rows 2 and 3
            let mut low = [i32x4_splat(0); N];
            let mut high = [i32x4_splat(0); N];
            for chunk in 0..BLOCK / 4 {
                let wv =
                    v128_load(quants.add(block * GROUP_BLOCK_BYTES + chunk * 16) as *const v128);
                let (w_low, w_high) = (i16x8_extend_low_i8x16(wv), i16x8_extend_high_i8x16(wv));
                for i in 0..N {
                    let at = i * cols + block * BLOCK + chunk * 4;
                    let xv = i16x8_extend_low_i8x16(v128_load32_splat(xq.add(at) as *const u32));
                    low[i] = i32x4_add(low[i], i32x4_dot_i16x8(w_low, xv));
                    high[i] = i32x4_add(high[i], i32x4_dot_i16x8(w_high, xv));
                }
            }
            let at = block * GROUP_ROWS;
            let scale = v128_load(scales.add(at) as *const v128);
            let correction = corrections(scale, offset, block_sums.add(at));
            for i in 0..N {
                let sum = i32x4_add(
                    i32x4_shuffle::<0, 2, 4, 6>(low[i], high[i]),
                    i32x4_shuffle::<1, 3, 5, 7>(low[i], high[i]),
                );
                let f = f32x4_sub(f32x4_mul(f32x4_convert_i32x4(sum), scale), correction);
                acc[i] = f32x4_add(
                    acc[i],
                    f32x4_mul(f32x4_splat(*xs.add(i * blocks + block)), f),
                );
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
            // per group: rows 0 and 1 (two lanes each), rows 2 and 3
            let mut low = [i32x4_splat(0); G];
            let mut high = [i32x4_splat(0); G];
            for chunk in 0..BLOCK / 4 {
                // the activation's four bytes, widened: x0 x1 x2 x3 x0 x1 x2 x3
                let xv = i16x8_extend_low_i8x16(v128_load32_splat(xb.add(chunk * 4) as *const u32));
                for g in 0..G {
                    let wp = quants.add((g * blocks + block) * GROUP_BLOCK_BYTES + chunk * 16);
                    let wv = v128_load(wp as *const v128);
                    low[g] = i32x4_add(low[g], i32x4_dot_i16x8(i16x8_extend_low_i8x16(wv), xv));
                    high[g] = i32x4_add(high[g], i32x4_dot_i16x8(i16x8_extend_high_i8x16(wv), xv));
                }
            }
            let dxv = f32x4_splat(*dx);
            for g in 0..G {
                // lanes (r0, r0, r1, r1) and (r2, r2, r3, r3) folded into (r0, r1, r2, r3)
                let sum = i32x4_add(
                    i32x4_shuffle::<0, 2, 4, 6>(low[g], high[g]),
                    i32x4_shuffle::<1, 3, 5, 7>(low[g], high[g]),
                );
                let at = (g * blocks + block) * GROUP_ROWS;
                let scale = v128_load(scales.add(at) as *const v128);
                let f = f32x4_sub(
                    f32x4_mul(f32x4_convert_i32x4(sum), scale),
                    corrections(scale, offset, block_sums.add(at)),
                );
                acc[g] = f32x4_add(acc[g], f32x4_mul(dxv, f));
            }
        }
        acc
    }
}
