//! The arithmetic of a forward pass: quantized matrix products, normalization, rotary
//! positions, attention and activations. The matrix product has a relaxed-SIMD version for
//! wasm32 builds with `relaxed-simd` enabled ([`wasm`]), a SIMD128 one for builds without it
//! (`simd128`, for browsers without relaxed SIMD) and a portable one ([`portable`]), all
//! computing the same integer sums; everything else is plain Rust written so that the compiler
//! vectorizes it (independent lanes, no reductions across one accumulator).

pub mod check;
pub mod encoding;
pub mod math;
pub mod portable;
#[cfg(all(
    target_arch = "wasm32",
    target_feature = "simd128",
    not(target_feature = "relaxed-simd")
))]
#[allow(unsafe_code)]
pub mod simd128;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[allow(unsafe_code)]
mod simd_common;
#[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
#[allow(unsafe_code)]
pub mod wasm;

pub mod out;

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::pool::Pool;
use crate::quant::{QActs, QMatrix};
use out::SharedOut;

/// `out[t · w.rows + r] = Σ_k w[r][k] · x[t][k]` for every token `t` of `x` and row `r`.
pub fn matmul(w: &QMatrix, x: &QActs, out: &mut [f32]) {
    matmul_groups(w, x, 0..w.groups(), out);
}

/// [`matmul`] for the rows of groups `groups` only (of [`GROUP_ROWS`](crate::quant::GROUP_ROWS)
/// rows each; the rest of `out` is left as it is): a few logits computed exactly as the whole
/// product computes them, without the rest of the vocabulary.
pub fn matmul_groups(w: &QMatrix, x: &QActs, groups: std::ops::Range<usize>, out: &mut [f32]) {
    assert_eq!(
        w.encoding, x.encoding,
        "weights packed for other activations"
    );
    let groups = groups.start.min(w.groups())..groups.end.min(w.groups());
    let shared = SharedOut::new(out);
    // SAFETY: one caller.
    #[allow(unsafe_code)]
    unsafe {
        groups_into(w, x, groups, &shared)
    };
}

/// Pieces of work per thread a parallel product is cut into: threads claim pieces as they
/// come free, so one slowed by a busy core does less of the work instead of holding up the rest.
const PIECES_PER_THREAD: usize = 4;

/// [`matmul`] with its row groups shared out across the pool's threads.
pub fn matmul_on(pool: &Pool, w: &QMatrix, x: &QActs, out: &mut [f32]) {
    assert_eq!(
        w.encoding, x.encoding,
        "weights packed for other activations"
    );
    let threads = pool.threads();
    if threads == 1 {
        return matmul(w, x, out);
    }
    let groups = w.groups();
    let pieces = (threads * PIECES_PER_THREAD).min(groups).max(1);
    let next = AtomicUsize::new(0);
    let shared = SharedOut::new(out);
    pool.run(&|_| loop {
        let piece = next.fetch_add(1, Ordering::Relaxed);
        if piece >= pieces {
            break;
        }
        // SAFETY: each piece is claimed by one thread, and pieces are disjoint (`split`).
        #[allow(unsafe_code)]
        unsafe {
            groups_into(w, x, split(groups, pieces, piece), &shared)
        };
    });
}

/// The `index`-th of `parts` contiguous, disjoint ranges covering `0..len` (sizes differ by
/// at most one).
pub fn split(len: usize, parts: usize, index: usize) -> std::ops::Range<usize> {
    let (base, extra) = (len / parts, len % parts);
    let start = index * base + index.min(extra);
    start..start + base + usize::from(index < extra)
}

/// The rows of groups `groups` for every token.
///
/// # Safety
/// Callers sharing `out` at the same time must pass disjoint group ranges.
#[allow(unsafe_code)]
unsafe fn groups_into(w: &QMatrix, x: &QActs, groups: std::ops::Range<usize>, out: &SharedOut) {
    #[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
    {
        // SAFETY: passed on from the caller.
        unsafe { wasm::matmul(w, x, groups, out) };
    }
    #[cfg(all(
        target_arch = "wasm32",
        target_feature = "simd128",
        not(target_feature = "relaxed-simd")
    ))]
    {
        // SAFETY: passed on from the caller.
        unsafe { simd128::matmul(w, x, groups, out) };
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        // SAFETY: passed on from the caller.
        unsafe { portable::matmul(w, x, groups, out) };
    }
}

/// Which kernels this build computes with, for reports.
pub fn kernel_name() -> &'static str {
    #[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
    {
        "wasm relaxed-simd"
    }
    #[cfg(all(
        target_arch = "wasm32",
        target_feature = "simd128",
        not(target_feature = "relaxed-simd")
    ))]
    {
        "wasm simd128"
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        "portable"
    }
}
