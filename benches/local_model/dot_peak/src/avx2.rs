//! llama.cpp's Q8_0 × Q8_0 prefill loop on AVX2 without VNNI (ggml's llamafile `sgemm.cpp`,
//! `tinyBLAS_Q0_AVX::gemm4xN<2>`, the tile it picks on a CPU with 16 vector registers): 4 weight
//! rows × 2 tokens, per 32-byte block `vpsignb` twice, `vpmaddubsw`, `vpmaddwd` with ones, a
//! convert and an FMA with the product of the two blocks' scales. Scales here are f32 (llama.cpp
//! converts four f16 scales with one `vcvtph2ps`).

use std::arch::x86_64::*;

use crate::{Data, BLOCK, BLOCKS, COLS, GROUPS, GROUP_ROWS, ROWS, TOKENS};

/// Tokens per tile.
const RN: usize = 2;

/// Whether this CPU runs [`product`].
pub fn available() -> bool {
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
}

/// The whole product, tile by tile, into `d.out`.
///
/// # Safety
/// The CPU must have AVX2 and FMA ([`available`]).
#[target_feature(enable = "avx2,fma")]
#[inline(never)]
pub unsafe fn product(d: &mut Data) {
    assert!(d.weights.len() == ROWS * COLS && d.acts.len() == TOKENS * COLS);
    assert!(d.matrix.scales.len() == ROWS * BLOCKS && d.xscales.len() == TOKENS * BLOCKS);
    assert!(d.out.len() == TOKENS * ROWS && d.encoding.offset() == 0);
    for t in (0..TOKENS).step_by(RN) {
        for group in 0..GROUPS {
            // SAFETY: the asserts above bound every row and token read; AVX2 from the caller.
            let sums = unsafe { tile(d, t, group) };
            for (j, row) in sums.iter().enumerate() {
                for (i, &v) in row.iter().enumerate() {
                    d.out[(t + j) * ROWS + group * GROUP_ROWS + i] = hsum(v);
                }
            }
        }
    }
}

/// One tile: rows `4 · group..` times tokens `t..t + RN`, eight accumulators.
///
/// # Safety
/// `d` must hold the rows and tokens; AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn tile(d: &Data, t: usize, group: usize) -> [[__m256; GROUP_ROWS]; RN] {
    // SAFETY: the caller guarantees the rows and tokens exist.
    unsafe {
        let w = d.weights.as_ptr().add(group * GROUP_ROWS * COLS);
        let x = d.acts.as_ptr().add(t * COLS) as *const i8;
        let ws = d.matrix.scales.as_ptr().add(group * BLOCKS * GROUP_ROWS);
        let xs = d.xscales.as_ptr().add(t * BLOCKS);
        let mut acc = [[_mm256_setzero_ps(); GROUP_ROWS]; RN];
        for l in 0..BLOCKS {
            let da = _mm_loadu_ps(ws.add(l * GROUP_ROWS));
            let a = w.add(l * BLOCK) as *const __m256i;
            let a0 = _mm256_loadu_si256(a);
            let a1 = _mm256_loadu_si256(a.byte_add(COLS));
            let a2 = _mm256_loadu_si256(a.byte_add(2 * COLS));
            let a3 = _mm256_loadu_si256(a.byte_add(3 * COLS));
            for (j, acc) in acc.iter_mut().enumerate() {
                let dv = _mm_mul_ps(da, _mm_set1_ps(*xs.add(j * BLOCKS + l)));
                let dv = _mm256_set_m128(dv, dv);
                let b = _mm256_loadu_si256(x.add(j * COLS + l * BLOCK) as *const __m256i);
                acc[0] = _mm256_fmadd_ps(_mm256_shuffle_ps::<0x00>(dv, dv), updot(a0, b), acc[0]);
                acc[1] = _mm256_fmadd_ps(_mm256_shuffle_ps::<0x55>(dv, dv), updot(a1, b), acc[1]);
                acc[2] = _mm256_fmadd_ps(_mm256_shuffle_ps::<0xaa>(dv, dv), updot(a2, b), acc[2]);
                acc[3] = _mm256_fmadd_ps(_mm256_shuffle_ps::<0xff>(dv, dv), updot(a3, b), acc[3]);
            }
        }
        acc
    }
}

/// The eight sums of four products of signed bytes `a · b`, as floats (llama.cpp's `updot` of
/// `sign(a, a)` and `sign(b, a)`).
#[target_feature(enable = "avx2,fma")]
#[inline]
fn updot(a: __m256i, b: __m256i) -> __m256 {
    let pairs = _mm256_maddubs_epi16(_mm256_sign_epi8(a, a), _mm256_sign_epi8(b, a));
    _mm256_cvtepi32_ps(_mm256_madd_epi16(_mm256_set1_epi16(1), pairs))
}

/// The sum of the eight lanes.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn hsum(v: __m256) -> f32 {
    let x = _mm_add_ps(_mm256_extractf128_ps::<1>(v), _mm256_castps256_ps128(v));
    let x = _mm_add_ps(x, _mm_movehl_ps(x, x));
    _mm_cvtss_f32(_mm_add_ss(x, _mm_movehdup_ps(x)))
}
