//! The quantized matrix product in plain Rust: the same integer block sums as the SIMD
//! kernel, so both give the same results up to the order of float additions. With signs masked
//! ([`crate::kernels::encoding::Encoding::SignMagnitude8`]) it flips weights' bits and adds back
//! the negative magnitudes as the SIMD kernel does, so natively the identity is tested too.

use super::out::SharedOut;
use crate::quant::{QActs, QMatrix, BLOCK, GROUP_BLOCK_BYTES, GROUP_ROWS};

/// The rows of `groups` for every token (see [`super::matmul`]).
///
/// # Safety
/// Callers sharing `out` at the same time must pass disjoint group ranges.
#[allow(unsafe_code)]
pub unsafe fn matmul(w: &QMatrix, x: &QActs, groups: std::ops::Range<usize>, out: &SharedOut) {
    assert_eq!(x.cols, w.cols, "activations of another width");
    let blocks = w.blocks();
    let masks = x.encoding.masks_signs();
    let no_signs = [0u8; BLOCK];
    let (stride, block_bytes) = (x.stride(), x.block_bytes());
    for t in 0..x.tokens() {
        let xq = &x.quants[t * stride..(t + 1) * stride];
        let xs = &x.scales[t * blocks..(t + 1) * blocks];
        for group in groups.clone() {
            let mut acc = [0.0f32; GROUP_ROWS];
            for (block, dx) in xs.iter().enumerate() {
                let index = group * blocks + block;
                let packed = &w.quants[index * GROUP_BLOCK_BYTES..(index + 1) * GROUP_BLOCK_BYTES];
                let xb = &xq[block * block_bytes..block * block_bytes + BLOCK];
                let (signs, negatives) = if masks {
                    let at = block * block_bytes + BLOCK;
                    (&xq[at..at + BLOCK], x.negatives[t * blocks + block])
                } else {
                    (&no_signs[..], 0)
                };
                let mut sums = [negatives; GROUP_ROWS];
                let encoding = x.encoding;
                for chunk in 0..BLOCK / 4 {
                    for (lane, sum) in sums.iter_mut().enumerate() {
                        for k in 0..4 {
                            let flipped =
                                packed[chunk * 16 + lane * 4 + k] as u8 ^ signs[chunk * 4 + k];
                            let wv = i32::from(flipped as i8);
                            *sum += wv * encoding.load(xb[chunk * 4 + k]);
                        }
                    }
                }
                for (lane, a) in acc.iter_mut().enumerate() {
                    let scale = w.scales[index * GROUP_ROWS + lane];
                    let correction = w.correction(index * GROUP_ROWS + lane);
                    *a += dx * (sums[lane] as f32 * scale - correction);
                }
            }
            let row = group * GROUP_ROWS;
            let valid = GROUP_ROWS.min(w.rows - row);
            // SAFETY: these rows belong to this caller's groups.
            unsafe { out.write(t * w.rows + row, &acc[..valid]) };
        }
    }
}
