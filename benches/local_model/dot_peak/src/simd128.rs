//! The engine's SIMD128 loop (engine/src/kernels/simd128.rs, `groups_for_token`): one token at
//! a time, two groups of rows sharing each activation load, bytes widened to 16 bits and
//! multiplied by `i32x4.dot_i16x8_s`, signed 8-bit activations.

use core::arch::wasm32::*;

use crate::{Data, BLOCK, BLOCKS, COLS, GROUPS, GROUP_ROWS, ROWS, TOKENS};

/// Groups of rows computed together, as in the engine.
const G: usize = 2;

/// The whole product, token by token, into `d.out`.
#[inline(never)]
pub fn product(d: &mut Data) {
    assert!(
        GROUPS.is_multiple_of(G) && d.acts.len() == TOKENS * COLS && d.out.len() == TOKENS * ROWS
    );
    assert!(d.packed.len() == ROWS * COLS && d.packed_scales.len() == ROWS * BLOCKS);
    assert!(d.packed_sums.len() == ROWS * BLOCKS && d.xscales.len() == TOKENS * BLOCKS);
    for t in 0..TOKENS {
        for group in (0..GROUPS).step_by(G) {
            // SAFETY: the asserts above bound every group and token read.
            let sums = unsafe { groups_for_token(d, t, group) };
            for (g, s) in sums.into_iter().enumerate() {
                let at = t * ROWS + (group + g) * GROUP_ROWS;
                // SAFETY: `at + 4 <= TOKENS * ROWS`.
                unsafe { v128_store(d.out.as_mut_ptr().add(at) as *mut v128, s) };
            }
        }
    }
}

/// The four row sums of groups `group..group + G` for token `t`.
///
/// # Safety
/// `d` must hold token `t` and groups `group..group + G`.
#[inline(always)]
unsafe fn groups_for_token(d: &Data, t: usize, group: usize) -> [v128; G] {
    // SAFETY: the caller guarantees the groups and the token exist.
    unsafe {
        let quants = d.packed.as_ptr().add(group * BLOCKS * GROUP_ROWS * BLOCK);
        let scales = d.packed_scales.as_ptr().add(group * BLOCKS * GROUP_ROWS);
        let block_sums = d.packed_sums.as_ptr().add(group * BLOCKS * GROUP_ROWS);
        let offset = f32x4_splat(d.encoding.offset() as f32);
        let xq = d.acts.as_ptr().add(t * COLS);
        let mut acc = [f32x4_splat(0.0); G];
        for block in 0..BLOCKS {
            let xb = xq.add(block * BLOCK);
            // per group: rows 0 and 1 (two lanes each), rows 2 and 3
            let mut low = [i32x4_splat(0); G];
            let mut high = [i32x4_splat(0); G];
            for chunk in 0..BLOCK / 4 {
                let xv = i16x8_extend_low_i8x16(v128_load32_splat(xb.add(chunk * 4) as *const u32));
                for g in 0..G {
                    let at = (g * BLOCKS + block) * GROUP_ROWS * BLOCK + chunk * 16;
                    let wv = v128_load(quants.add(at) as *const v128);
                    low[g] = i32x4_add(low[g], i32x4_dot_i16x8(i16x8_extend_low_i8x16(wv), xv));
                    high[g] = i32x4_add(high[g], i32x4_dot_i16x8(i16x8_extend_high_i8x16(wv), xv));
                }
            }
            let dx = f32x4_splat(*d.xscales.as_ptr().add(t * BLOCKS + block));
            for g in 0..G {
                let sum = i32x4_add(
                    i32x4_shuffle::<0, 2, 4, 6>(low[g], high[g]),
                    i32x4_shuffle::<1, 3, 5, 7>(low[g], high[g]),
                );
                let at = (g * BLOCKS + block) * GROUP_ROWS;
                let scale = v128_load(scales.add(at) as *const v128);
                let rows = f32x4_convert_i32x4(i32x4_load_extend_i16x4(block_sums.add(at)));
                let correction = f32x4_mul(f32x4_mul(offset, scale), rows);
                let f = f32x4_sub(f32x4_mul(f32x4_convert_i32x4(sum), scale), correction);
                acc[g] = f32x4_add(acc[g], f32x4_mul(dx, f));
            }
        }
        acc
    }
}
