//! The engine's relaxed-SIMD prefill loop (engine/src/kernels/wasm.rs, `group_tokens`, 7-bit
//! activations), with the number of tokens that share each weight load as a parameter: 4 as
//! the engine has it, 8 to see what loading the weights half as often would give.

use core::arch::wasm32::*;

use crate::{Data, BLOCK, BLOCKS, COLS, GROUPS, GROUP_ROWS, ROWS, TOKENS};

/// The whole product, `N` tokens at a time, into `d.out`.
#[inline(never)]
pub fn product<const N: usize>(d: &mut Data) {
    assert!(
        TOKENS.is_multiple_of(N) && d.acts.len() == TOKENS * COLS && d.out.len() == TOKENS * ROWS
    );
    assert!(d.packed.len() == ROWS * COLS && d.packed_scales.len() == ROWS * BLOCKS);
    assert!(d.packed_sums.len() == ROWS * BLOCKS && d.xscales.len() == TOKENS * BLOCKS);
    for t in (0..TOKENS).step_by(N) {
        for group in 0..GROUPS {
            // SAFETY: the asserts above bound every group and token read.
            let sums = unsafe { group_tokens::<N>(d, t, group) };
            for (i, s) in sums.into_iter().enumerate() {
                let at = (t + i) * ROWS + group * GROUP_ROWS;
                // SAFETY: `at + 4 <= TOKENS * ROWS`.
                unsafe { v128_store(d.out.as_mut_ptr().add(at) as *mut v128, s) };
            }
        }
    }
}

/// One group's four row sums for tokens `t..t + N`, as the engine's `group_tokens`.
///
/// # Safety
/// `d` must hold tokens `t..t + N` and group `group`.
#[inline(always)]
unsafe fn group_tokens<const N: usize>(d: &Data, t: usize, group: usize) -> [v128; N] {
    // SAFETY: the caller guarantees the group and the tokens exist.
    unsafe {
        let q0 = d.packed.as_ptr().add(group * BLOCKS * GROUP_ROWS * BLOCK);
        let s0 = d.packed_scales.as_ptr().add(group * BLOCKS * GROUP_ROWS);
        let b0 = d.packed_sums.as_ptr().add(group * BLOCKS * GROUP_ROWS);
        let offset = f32x4_splat(d.encoding.offset() as f32);
        let xq = d.acts.as_ptr().add(t * COLS);
        let xs = d.xscales.as_ptr().add(t * BLOCKS);
        let mut acc = [f32x4_splat(0.0); N];
        for block in 0..BLOCKS {
            let wp = q0.add(block * GROUP_ROWS * BLOCK);
            let mut sums = [i32x4_splat(0); N];
            for chunk in 0..BLOCK / 4 {
                let wv = v128_load(wp.add(chunk * 16) as *const v128);
                for (i, sum) in sums.iter_mut().enumerate() {
                    let at = i * COLS + block * BLOCK + chunk * 4;
                    let xv = v128_load32_splat(xq.add(at) as *const u32);
                    *sum = i32x4_relaxed_dot_i8x16_i7x16_add(wv, xv, *sum);
                }
            }
            let scale = v128_load(s0.add(block * GROUP_ROWS) as *const v128);
            let rows = f32x4_convert_i32x4(i32x4_load_extend_i16x4(b0.add(block * GROUP_ROWS)));
            let correction = f32x4_mul(f32x4_mul(offset, scale), rows);
            for (i, (a, sum)) in acc.iter_mut().zip(sums).enumerate() {
                let f = f32x4_sub(f32x4_mul(f32x4_convert_i32x4(sum), scale), correction);
                *a = f32x4_relaxed_madd(f32x4_splat(*xs.add(i * BLOCKS + block)), f, *a);
            }
        }
        acc
    }
}
