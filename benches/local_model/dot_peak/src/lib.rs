//! Q8_0 dot-product loops on a small product: the ceiling of the engine's prefill kernel
//! against llama.cpp's.
//!
//! One small matrix (16 rows of 1,024 values, 16 KB) times 8 tokens, small enough to stay in
//! L1, so the loops are bound by arithmetic, not memory. In wasm the product is the engine's
//! own `kernels::matmul` on its own packing (`exports`): the relaxed-SIMD build on eight tokens
//! at once and on two batches of four, the SIMD128 build on all eight. Natively it is
//! llama.cpp's AVX2 loop shape (`avx2`, run by the `dot-peak-native` binary).
//! `benches/local_model/dot_peak.mjs` builds, runs and checks them.

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "wasm32")]
mod exports;

use tabloop_engine::gguf::TensorType;
use tabloop_engine::kernels::encoding::Encoding;
use tabloop_engine::quant::{f16_to_f32, f32_to_f16, QActs, QMatrix};

/// Values per Q8_0 block.
pub const BLOCK: usize = 32;
/// Values per row (the hidden width of Qwen3-0.6B).
pub const COLS: usize = 1024;
/// Blocks per row.
pub const BLOCKS: usize = COLS / BLOCK;
/// Weight rows.
pub const ROWS: usize = 16;
/// Rows interleaved in one packed group (the engine's layout).
pub const GROUP_ROWS: usize = 4;
/// Groups of rows.
pub const GROUPS: usize = ROWS / GROUP_ROWS;
/// Tokens.
pub const TOKENS: usize = 8;
/// Multiply-adds in one product of the matrix by all the tokens.
pub const MACS: usize = ROWS * COLS * TOKENS;

/// The operands in plain row-major form (for llama.cpp's loop and the checks) and as the
/// engine packs them (its own `QMatrix` and `QActs`, so the wasm loops are its kernels), and
/// the output.
pub struct Data {
    /// How [`Data::acts`] are stored: 7-bit (the relaxed build on this CPU) or signed bytes.
    pub encoding: Encoding,
    /// `ROWS × COLS` weights, row-major (llama.cpp's Q8_0 order).
    pub weights: Vec<i8>,
    /// `ROWS × BLOCKS` weight scales (half-precision values, as Q8_0 stores them).
    pub wscales: Vec<f32>,
    /// `TOKENS × COLS` stored activation bytes.
    pub acts: Vec<u8>,
    /// `TOKENS × BLOCKS` activation scales.
    pub xscales: Vec<f32>,
    /// The weights packed by the engine from their Q8_0 bytes.
    pub matrix: QMatrix,
    /// All the tokens, for the engine (eight per weight load).
    pub tokens: QActs,
    /// The tokens as two batches of four, for the engine's four-token path.
    pub halves: [QActs; 2],
    /// `TOKENS × ROWS` results.
    pub out: Vec<f32>,
}

/// A small deterministic generator (xorshift32): the data only has to be fixed and varied.
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }

    /// Uniform in `-max..=max`.
    fn int(&mut self, max: i32) -> i32 {
        (self.next() % (2 * max as u32 + 1)) as i32 - max
    }

    /// Uniform in [0.5, 1.5).
    fn scale(&mut self) -> f32 {
        0.5 + (self.next() >> 8) as f32 / (1u32 << 24) as f32
    }
}

/// `tokens` tokens of stored activation bytes and their scales, as the engine holds them.
fn engine_acts(encoding: Encoding, acts: &[u8], scales: &[f32]) -> QActs {
    let mut x = QActs::for_encoding(encoding);
    x.cols = COLS;
    x.quants = acts.to_vec();
    x.scales = scales.to_vec();
    x
}

impl Data {
    /// Random operands from `seed` (not 0), activations stored as `encoding` (one the engine
    /// stores without sign masks: 7-bit or signed bytes).
    pub fn new(seed: u32, encoding: Encoding) -> Data {
        assert!(!encoding.masks_signs());
        let mut rng = Rng(seed.max(1));
        let weights: Vec<i8> = (0..ROWS * COLS).map(|_| rng.int(127) as i8).collect();
        let scale_bits: Vec<u16> = (0..ROWS * BLOCKS)
            .map(|_| f32_to_f16(rng.scale()))
            .collect();
        let wscales = scale_bits.iter().map(|&b| f16_to_f32(b)).collect();
        let max = encoding.max() as i32;
        let acts: Vec<u8> = (0..TOKENS * COLS)
            .map(|_| encoding.store(rng.int(max)))
            .collect();
        let xscales: Vec<f32> = (0..TOKENS * BLOCKS).map(|_| rng.scale()).collect();
        // Q8_0 as a GGUF file holds it: per block a half-precision scale, then 32 values.
        let mut q8_0 = Vec::with_capacity(ROWS * BLOCKS * (2 + BLOCK));
        for (block, bits) in scale_bits.iter().enumerate() {
            q8_0.extend_from_slice(&bits.to_le_bytes());
            q8_0.extend(weights[block * BLOCK..][..BLOCK].iter().map(|&w| w as u8));
        }
        let matrix = QMatrix::from_tensor_for(TensorType::Q8_0, &q8_0, ROWS, COLS, encoding);
        let half = TOKENS / 2;
        let halves = [0, 1].map(|h| {
            engine_acts(
                encoding,
                &acts[h * half * COLS..][..half * COLS],
                &xscales[h * half * BLOCKS..][..half * BLOCKS],
            )
        });
        Data {
            encoding,
            tokens: engine_acts(encoding, &acts, &xscales),
            halves,
            matrix,
            weights,
            wscales,
            acts,
            xscales,
            out: vec![0.0; TOKENS * ROWS],
        }
    }

    /// The worst gap between [`Data::out`] and a plain scalar product, as a share of the sum of
    /// the terms' magnitudes (float rounding gives about 1e-7; a wrong kernel, 1e-2 or more).
    pub fn worst_gap(&self) -> f64 {
        let mut worst: f64 = 0.0;
        for t in 0..TOKENS {
            for r in 0..ROWS {
                let (mut sum, mut size) = (0.0f64, 0.0f64);
                for b in 0..BLOCKS {
                    let mut dot = 0i64;
                    for k in b * BLOCK..(b + 1) * BLOCK {
                        let x = self.encoding.load(self.acts[t * COLS + k]);
                        dot += i64::from(i32::from(self.weights[r * COLS + k]) * x);
                    }
                    let term = dot as f64
                        * f64::from(self.wscales[r * BLOCKS + b])
                        * f64::from(self.xscales[t * BLOCKS + b]);
                    sum += term;
                    size += term.abs();
                }
                let got = f64::from(self.out[t * ROWS + r]);
                worst = worst.max((got - sum).abs() / size.max(1.0));
            }
        }
        worst
    }
}
