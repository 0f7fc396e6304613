//! The quantized matrix product on WebAssembly relaxed SIMD.
//!
//! `i32x4.relaxed_dot_i8x16_i7x16_add_s` multiplies 16 signed weight bytes by 16 activation
//! bytes (stored as this CPU reads them exactly: see [`super::encoding`]) and adds each group
//! of four products into one lane (one AVX-VNNI `vpdpbusd` on x86, `sdot` on Arm). With four rows interleaved four bytes at a time
//! (see [`crate::quant`]) and the activation's four bytes splatted across the vector, each lane
//! accumulates one row: a block of 32 values is 8 such instructions per group of four rows, and
//! it ends as one vector of four row sums, scaled and accumulated as floats.
//!
//! With signs masked ([`super::encoding::Encoding::SignMagnitude8`]) each weight vector is first
//! xored with the activation's four sign bytes, splatted the same way (`!w = −w − 1` where the
//! value is negative; stored [`BLOCK`] bytes after the values, so the load carries the offset),
//! and each block's sums start from the block's negative magnitudes, which the flipped weights
//! took off every row: one load and one xor more per product, for 8-bit activations on CPUs
//! whose dot product saturates.

use core::arch::wasm32::*;

use super::out::{store_group, SharedOut};
use super::simd_common::{corrections, store_tokens};
use crate::quant::{QActs, QMatrix, BLOCK, GROUP_BLOCK_BYTES, GROUP_ROWS};

/// Groups of rows computed together (their activation loads are shared).
const GROUPS_AT_ONCE: usize = 2;

/// Tokens computed together (each weight vector loaded once is used for all of them): eight
/// where a batch has them, then what is left in one run. Eight halves the weight loads per
/// product against four (`benches/local_model/dot_peak.mjs` times this kernel both ways: 28.8
/// against 24.5 G multiply-adds/s a core on this CPU).
const TOKENS_AT_ONCE: usize = 8;

/// The rows of `groups` for every token (see [`super::matmul`]).
///
/// # Safety
/// Callers sharing `out` at the same time must pass disjoint group ranges.
pub unsafe fn matmul(w: &QMatrix, x: &QActs, groups: std::ops::Range<usize>, out: &SharedOut) {
    if x.encoding.masks_signs() {
        // SAFETY: passed on from the caller.
        unsafe { matmul_with::<true>(w, x, groups, out) }
    } else {
        // SAFETY: passed on from the caller.
        unsafe { matmul_with::<false>(w, x, groups, out) }
    }
}

/// [`matmul`] with signs masked (`SIGNS`) or not, each its own loop with no test inside.
///
/// # Safety
/// As [`matmul`].
#[inline(always)]
unsafe fn matmul_with<const SIGNS: bool>(
    w: &QMatrix,
    x: &QActs,
    groups: std::ops::Range<usize>,
    out: &SharedOut,
) {
    let blocks = w.blocks();
    let cols = w.cols;
    let tokens = x.tokens();
    assert!(x.cols == cols && x.scales.len() >= tokens * blocks);
    let stride = x.stride();
    assert!(x.quants.len() >= tokens * stride && x.block_bytes() == block_bytes::<SIGNS>());
    assert!(!SIGNS || x.negatives.len() >= tokens * blocks);
    assert!(groups.end <= w.groups());
    assert!(w.quants.len() >= w.groups() * blocks * GROUP_BLOCK_BYTES);
    assert!(w.scales.len() >= w.groups() * blocks * GROUP_ROWS);
    assert!(w.sums.len() == w.scales.len());
    let mut t = 0;
    while t + TOKENS_AT_ONCE <= tokens {
        // SAFETY: the asserts above bound tokens t..t + TOKENS_AT_ONCE.
        t += unsafe { tokens_at_once::<TOKENS_AT_ONCE, SIGNS>(w, x, t, groups.clone(), out) };
    }
    // The two to seven tokens left share one sweep over the weights too: a jump-forward's or
    // a draft's pass is often that long, and split (four, then the rest) it read the whole
    // matrix twice. One left takes the single-token path, which shares activation loads
    // across groups.
    // SAFETY (every arm): as above, for the tokens left from t.
    t += match tokens - t {
        7 => unsafe { tokens_at_once::<7, SIGNS>(w, x, t, groups.clone(), out) },
        6 => unsafe { tokens_at_once::<6, SIGNS>(w, x, t, groups.clone(), out) },
        5 => unsafe { tokens_at_once::<5, SIGNS>(w, x, t, groups.clone(), out) },
        4 => unsafe { tokens_at_once::<4, SIGNS>(w, x, t, groups.clone(), out) },
        3 => unsafe { tokens_at_once::<3, SIGNS>(w, x, t, groups.clone(), out) },
        2 => unsafe { tokens_at_once::<2, SIGNS>(w, x, t, groups.clone(), out) },
        _ => 0,
    };
    for t in t..tokens {
        let token = Token {
            quants: x.quants[t * stride..(t + 1) * stride].as_ptr(),
            scales: &x.scales[t * blocks..(t + 1) * blocks],
            negatives: if SIGNS {
                &x.negatives[t * blocks..(t + 1) * blocks]
            } else {
                &[]
            },
        };
        let mut group = groups.start;
        while group + GROUPS_AT_ONCE <= groups.end {
            // SAFETY: the asserts above bound every block of these groups and every
            // activation of token `t`.
            let sums = unsafe { groups_for_token::<GROUPS_AT_ONCE, SIGNS>(w, &token, group) };
            for (g, sum) in sums.into_iter().enumerate() {
                // SAFETY: groups in this caller's range.
                unsafe { store_group(w, out, t, group + g, sum) };
            }
            group += GROUPS_AT_ONCE;
        }
        if group < groups.end {
            // SAFETY: as above, for one group.
            let [sum] = unsafe { groups_for_token::<1, SIGNS>(w, &token, group) };
            // SAFETY: groups in this caller's range.
            unsafe { store_group(w, out, t, group, sum) };
        }
    }
}

/// Bytes of a block of activations (see [`QActs::block_bytes`]): its values, then their signs.
const fn block_bytes<const SIGNS: bool>() -> usize {
    if SIGNS {
        2 * BLOCK
    } else {
        BLOCK
    }
}

/// The rows of `groups` for the `N` tokens from `t`, stored into `out`; returns `N`.
///
/// # Safety
/// As [`group_tokens`] for every group of `groups`; callers sharing `out` at the same time
/// pass disjoint group ranges.
#[inline(always)]
unsafe fn tokens_at_once<const N: usize, const SIGNS: bool>(
    w: &QMatrix,
    x: &QActs,
    t: usize,
    groups: std::ops::Range<usize>,
    out: &SharedOut,
) -> usize {
    // SAFETY: passed on from the caller.
    unsafe {
        store_tokens(w, out, t, groups, |group| {
            group_tokens::<N, SIGNS>(w, x, t, group)
        })
    };
    N
}

/// The float sums of one group's rows for the `N` tokens from `t`.
///
/// # Safety
/// Group `group` must exist in `w`, and tokens `t..t + N` in `x`.
#[inline(always)]
unsafe fn group_tokens<const N: usize, const SIGNS: bool>(
    w: &QMatrix,
    x: &QActs,
    t: usize,
    group: usize,
) -> [v128; N] {
    let blocks = w.blocks();
    // SAFETY: the caller guarantees the group and the tokens exist.
    unsafe {
        let q0 = w.quants.as_ptr().add(group * blocks * GROUP_BLOCK_BYTES);
        let s0 = w.scales.as_ptr().add(group * blocks * GROUP_ROWS);
        let b0 = w.sums.as_ptr().add(group * blocks * GROUP_ROWS);
        let offset = f32x4_splat(w.encoding.offset() as f32);
        let stride = x.stride();
        let xq = x.quants.as_ptr().add(t * stride);
        let xs = x.scales.as_ptr().add(t * blocks);
        let xn = if SIGNS {
            x.negatives.as_ptr().add(t * blocks)
        } else {
            x.negatives.as_ptr()
        };
        let mut acc = [f32x4_splat(0.0); N];
        for block in 0..blocks {
            let wp = q0.add(block * GROUP_BLOCK_BYTES);
            let mut sums = [i32x4_splat(0); N];
            if SIGNS {
                for (i, sum) in sums.iter_mut().enumerate() {
                    *sum = i32x4_splat(*xn.add(i * blocks + block));
                }
            }
            for chunk in 0..BLOCK / 4 {
                let wv = v128_load(wp.add(chunk * 16) as *const v128);
                for (i, sum) in sums.iter_mut().enumerate() {
                    let at = i * stride + block * block_bytes::<SIGNS>() + chunk * 4;
                    let xv = v128_load32_splat(xq.add(at) as *const u32);
                    let wv = if SIGNS {
                        v128_xor(wv, v128_load32_splat(xq.add(at + BLOCK) as *const u32))
                    } else {
                        wv
                    };
                    *sum = i32x4_relaxed_dot_i8x16_i7x16_add(wv, xv, *sum);
                }
            }
            let scale = v128_load(s0.add(block * GROUP_ROWS) as *const v128);
            // no offset to undo where signs are masked
            let correction = if SIGNS {
                f32x4_splat(0.0)
            } else {
                corrections(scale, offset, b0.add(block * GROUP_ROWS))
            };
            for (i, (a, sum)) in acc.iter_mut().zip(sums).enumerate() {
                let product = f32x4_mul(f32x4_convert_i32x4(sum), scale);
                let f = if SIGNS {
                    product
                } else {
                    f32x4_sub(product, correction)
                };
                *a = f32x4_relaxed_madd(f32x4_splat(*xs.add(i * blocks + block)), f, *a);
            }
        }
        acc
    }
}

/// One token's activations, as [`groups_for_token`] reads them.
struct Token<'a> {
    /// Per block: its stored values (and their signs where masked, see [`QActs::quants`]).
    quants: *const u8,
    /// Per block: the scale.
    scales: &'a [f32],
    /// Per block: the negative magnitudes' sum where signs are masked (else empty).
    negatives: &'a [i32],
}

/// The float sums of `G` consecutive groups' rows for one token (sharing each activation load,
/// and each sign load where `SIGNS`).
///
/// # Safety
/// Groups `group..group + G` must exist in `w`, and `x` must point to a token's activations
/// (with their signs, and a sum per block, where `SIGNS`).
#[inline(always)]
unsafe fn groups_for_token<const G: usize, const SIGNS: bool>(
    w: &QMatrix,
    x: &Token,
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
        for (block, dx) in x.scales.iter().enumerate() {
            let xb = x.quants.add(block * block_bytes::<SIGNS>());
            let start = if SIGNS {
                i32x4_splat(*x.negatives.as_ptr().add(block))
            } else {
                i32x4_splat(0)
            };
            let mut sums = [start; G];
            for chunk in 0..BLOCK / 4 {
                let xv = v128_load32_splat(xb.add(chunk * 4) as *const u32);
                let sv = if SIGNS {
                    v128_load32_splat(xb.add(BLOCK + chunk * 4) as *const u32)
                } else {
                    i32x4_splat(0)
                };
                for (g, sum) in sums.iter_mut().enumerate() {
                    let wp = quants.add((g * blocks + block) * GROUP_BLOCK_BYTES + chunk * 16);
                    let wv = v128_load(wp as *const v128);
                    let wv = if SIGNS { v128_xor(wv, sv) } else { wv };
                    *sum = i32x4_relaxed_dot_i8x16_i7x16_add(wv, xv, *sum);
                }
            }
            let dxv = f32x4_splat(*dx);
            for (g, (a, sum)) in acc.iter_mut().zip(sums).enumerate() {
                let at = (g * blocks + block) * GROUP_ROWS;
                let scale = v128_load(scales.add(at) as *const v128);
                let product = f32x4_mul(f32x4_convert_i32x4(sum), scale);
                let f = if SIGNS {
                    product
                } else {
                    f32x4_sub(product, corrections(scale, offset, block_sums.add(at)))
                };
                *a = f32x4_relaxed_madd(dxv, f, *a);
            }
        }
        acc
    }
}
