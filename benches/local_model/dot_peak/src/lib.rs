//! Bare Q8_0 dot-product loops: the ceiling of the engine's prefill kernel against llama.cpp's.
//!
//! One small matrix (16 rows of 1,024 values, 16 KB) times 8 tokens, small enough to stay in
//! L1, so the loops are bound by arithmetic, not memory. The same product is computed by the
//! engine's relaxed-SIMD loop with 4 and with 8 tokens per weight load, the engine's SIMD128
//! loop (both in wasm, `relaxed` and `simd128`, exported by `exports`) and natively by
//! llama.cpp's AVX2 loop shape (`avx2`, run by the `dot-peak-native` binary).
//! `benches/local_model/dot_peak.mjs` builds, runs and checks them.

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "wasm32")]
mod exports;
#[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
mod relaxed;
#[cfg(all(
    target_arch = "wasm32",
    target_feature = "simd128",
    not(target_feature = "relaxed-simd")
))]
mod simd128;

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

/// How activations are stored, as the engine stores them for each kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acts {
    /// −63..=63 stored plus 64: the relaxed dot product's 7-bit operand on this CPU.
    Seven,
    /// −127..=127 as signed bytes: SIMD128 and llama.cpp.
    Signed,
}

impl Acts {
    /// What a value is stored plus.
    pub fn offset(self) -> i32 {
        match self {
            Acts::Seven => 64,
            Acts::Signed => 0,
        }
    }

    /// The value a stored byte holds.
    pub fn load(self, byte: u8) -> i32 {
        match self {
            Acts::Seven => i32::from(byte) - 64,
            Acts::Signed => i32::from(byte as i8),
        }
    }

    fn max(self) -> i32 {
        match self {
            Acts::Seven => 63,
            Acts::Signed => 127,
        }
    }
}

/// The operands in plain row-major form and in the engine's packed form, and the output.
pub struct Data {
    /// How [`Data::acts`] are stored.
    pub encoding: Acts,
    /// `ROWS × COLS` weights, row-major (llama.cpp's Q8_0 order).
    pub weights: Vec<i8>,
    /// `ROWS × BLOCKS` weight scales.
    pub wscales: Vec<f32>,
    /// `TOKENS × COLS` stored activation bytes.
    pub acts: Vec<u8>,
    /// `TOKENS × BLOCKS` activation scales.
    pub xscales: Vec<f32>,
    /// Per group and block: 8 vectors of four rows' four consecutive bytes.
    pub packed: Vec<i8>,
    /// Per group and block: the four rows' scales.
    pub packed_scales: Vec<f32>,
    /// Per group and block: the four rows' sums of values (for the activations' offset).
    pub packed_sums: Vec<i16>,
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

impl Data {
    /// Random operands from `seed` (not 0), activations stored as `encoding`.
    pub fn new(seed: u32, encoding: Acts) -> Data {
        let mut rng = Rng(seed.max(1));
        let weights: Vec<i8> = (0..ROWS * COLS).map(|_| rng.int(127) as i8).collect();
        let wscales: Vec<f32> = (0..ROWS * BLOCKS).map(|_| rng.scale()).collect();
        let acts = (0..TOKENS * COLS)
            .map(|_| (rng.int(encoding.max()) + encoding.offset()) as u8)
            .collect();
        let xscales = (0..TOKENS * BLOCKS).map(|_| rng.scale()).collect();
        let mut packed = vec![0; ROWS * COLS];
        let mut packed_scales = vec![0.0; ROWS * BLOCKS];
        let mut packed_sums = vec![0; ROWS * BLOCKS];
        for row in 0..ROWS {
            let (group, lane) = (row / GROUP_ROWS, row % GROUP_ROWS);
            for block in 0..BLOCKS {
                let at = (group * BLOCKS + block) * GROUP_ROWS;
                let values = &weights[row * COLS + block * BLOCK..][..BLOCK];
                packed_scales[at + lane] = wscales[row * BLOCKS + block];
                packed_sums[at + lane] = values.iter().map(|&w| i16::from(w)).sum();
                for (k, &w) in values.iter().enumerate() {
                    // chunk k / 4 is one 16-byte vector: four bytes of each of the four rows
                    packed[at * BLOCK + (k / 4) * 16 + lane * 4 + k % 4] = w;
                }
            }
        }
        Data {
            encoding,
            weights,
            wscales,
            acts,
            xscales,
            packed,
            packed_scales,
            packed_sums,
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
