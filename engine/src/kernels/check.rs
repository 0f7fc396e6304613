//! This build's matrix product against the portable one, on the same packed weights and
//! quantized activations. Both sum the same integers, so they may differ only by the order of
//! float additions (a fused multiply-add or not): a kernel that reads a byte wrongly or misreads a
//! block's sum differs by far more. This is what tests the browser's relaxed-SIMD kernels on
//! whatever CPU runs them; comparing whole forward passes cannot (7-bit activations, or a fused
//! multiply-add, move a prompt's logits by as much as a real kernel error would).
//!
//! It compares the products in every encoding this build computes exactly on this CPU
//! ([`exact_here`]), not only the one in use: a browser on a CPU where the probe picks 7 bits
//! also checks the 8-bit sign-magnitude product, and the other way round.

use super::encoding::{exact_here, Encoding};
use super::out::SharedOut;
use crate::gguf::TensorType;
use crate::quant::{f32_to_f16, QActs, QMatrix, BLOCK};

/// Above this (the largest difference over the largest output of a product) the two kernels
/// do not compute the same product.
pub const SAME_PRODUCT: f32 = 1e-4;

/// A matrix product: `out[t · w.rows + r]` for every token `t` of `x` and row `r`.
pub type Kernel = fn(&QMatrix, &QActs, &mut [f32]);

/// Rows, columns, tokens of the products compared: model-sized, some with an odd number of
/// row groups, and token counts that take each kernel path. The relaxed-SIMD kernel reads runs
/// of eight, then the two to seven left in one run, or one alone: 6, 7, and 8 + 1 to 8 + 5.
/// The SIMD128 kernel reads runs of four, then three, two or one (7 = 4 + 3, 9 = 4 + 4 + 1).
const SHAPES: [(usize, usize, usize); 7] = [
    (68, 1536, 7),
    (576, 576, 10),
    (1536, 576, 13),
    (68, 576, 6),
    (132, 576, 12),
    (68, 1536, 11),
    (132, 576, 9),
];

/// How many shapes [`compare`] multiplies, in each encoding it checks.
pub const SHAPES_COMPARED: usize = SHAPES.len();

/// The outcome of [`compare`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KernelCheck {
    /// Products compared.
    pub products: usize,
    /// The largest difference, over the largest output of its product.
    pub worst: f32,
}

impl KernelCheck {
    /// Whether every product agreed within [`SAME_PRODUCT`].
    pub fn agrees(&self) -> bool {
        self.worst < SAME_PRODUCT
    }
}

/// The portable kernel over every row group.
pub fn portable(w: &QMatrix, x: &QActs, out: &mut [f32]) {
    let shared = SharedOut::new(out);
    // SAFETY: one caller, every group.
    #[allow(unsafe_code)]
    unsafe {
        super::portable::matmul(w, x, 0..w.groups(), &shared)
    };
}

/// Runs `kernel` and `reference` on pseudo-random Q8_0 weights and activations (with outliers,
/// as a model's have) in every activation encoding exact on this CPU ([`exact_here`]).
pub fn compare(kernel: Kernel, reference: Kernel) -> KernelCheck {
    let encodings = exact_here();
    let mut worst = 0.0f32;
    for encoding in &encodings {
        worst = worst.max(compare_in(kernel, reference, *encoding));
    }
    KernelCheck {
        products: SHAPES_COMPARED * encodings.len(),
        worst,
    }
}

/// The worst difference of [`compare`] over its shapes, with activations stored as `encoding`.
fn compare_in(kernel: Kernel, reference: Kernel, encoding: Encoding) -> f32 {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let mut worst = 0.0f32;
    for (rows, cols, tokens) in SHAPES {
        let weights = random.q8_0(rows, cols);
        let w = QMatrix::from_tensor_for(TensorType::Q8_0, &weights, rows, cols, encoding);
        let values: Vec<f32> = (0..tokens * cols).map(|_| random.activation()).collect();
        let mut x = QActs::for_encoding(encoding);
        x.quantize(&values, cols);
        let (mut ours, mut theirs) = (vec![0.0; tokens * rows], vec![0.0; tokens * rows]);
        kernel(&w, &x, &mut ours);
        reference(&w, &x, &mut theirs);
        let scale = theirs
            .iter()
            .fold(0.0f32, |m, v| m.max(v.abs()))
            .max(f32::MIN_POSITIVE);
        let diff = ours
            .iter()
            .zip(&theirs)
            .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
        // NaN (a kernel writing garbage) counts as the worst.
        worst = if diff.is_nan() {
            f32::INFINITY
        } else {
            worst.max(diff / scale)
        };
    }
    worst
}

/// A small xorshift generator: the same inputs on every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [-1, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    /// Mostly small, one in fifty twenty times larger.
    fn activation(&mut self) -> f32 {
        let v = self.unit();
        if self.next().is_multiple_of(50) {
            v * 20.0
        } else {
            v
        }
    }

    /// `rows` rows of Q8_0 blocks: a half-precision scale and 32 values in −128..=127.
    fn q8_0(&mut self, rows: usize, cols: usize) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(rows * cols / BLOCK * 34);
        for _ in 0..rows * cols / BLOCK {
            let scale = 0.002 + 0.02 * self.unit().abs();
            bytes.extend_from_slice(&f32_to_f16(scale).to_le_bytes());
            bytes.extend((0..BLOCK).map(|_| self.next() as u8));
        }
        bytes
    }
}
