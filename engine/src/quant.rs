//! Quantized weights and activations in the layouts the matrix kernels read.
//!
//! Weights are 8-bit blocks of 32 (ggml's Q8_0 values, one scale per block), repacked at load
//! so that one 16-byte vector holds four consecutive bytes of four rows: a relaxed-SIMD dot
//! product then sums each row's products into its own lane, and a block of four rows ends as
//! one vector of four row sums with no horizontal additions.
//!
//! Activations are quantized per block of 32 and stored as the CPU's dot product reads them
//! exactly ([`Encoding`]: 8 bits offset by 128 on x86 with AVX-VNNI); the offset is undone with
//! each weight block's correction, `offset · scale · Σq`, computed as the product runs from the
//! block's sum of values, kept in 16 bits: a block of four rows takes 128 bytes of values, 16
//! of scales and 8 of sums, 1.12 times the file's Q8_0 (a float correction stored per row took
//! 1.18 times, and gave the same floats: the offset is a power of two).

use crate::gguf::TensorType;
use crate::kernels::encoding::{encoding, Encoding};

/// Elements per quantization block.
pub const BLOCK: usize = 32;
/// Rows interleaved in one packed group.
pub const GROUP_ROWS: usize = 4;
/// Bytes of one packed block of a group: 4 rows × 32 values.
pub const GROUP_BLOCK_BYTES: usize = GROUP_ROWS * BLOCK;

/// IEEE half to single precision.
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = u32::from(bits >> 15) << 31;
    let exponent = u32::from((bits >> 10) & 0x1f);
    let mantissa = u32::from(bits & 0x3ff);
    let out = match (exponent, mantissa) {
        (0, 0) => sign,
        (0, _) => {
            // subnormal: value = mantissa · 2^-24
            let value = mantissa as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -value } else { value };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, _) => sign | 0x7fc0_0000 | (mantissa << 13),
        _ => sign | ((exponent + 112) << 23) | (mantissa << 13),
    };
    f32::from_bits(out)
}

fn half(bytes: &[u8], at: usize) -> f32 {
    f16_to_f32(u16::from_le_bytes([bytes[at], bytes[at + 1]]))
}

/// One row of a tensor decoded to floats (`row.len()` values from `data`, which holds the row's
/// encoded bytes). Types without a block size give zeros; callers check types first.
pub fn decode_row(kind: TensorType, data: &[u8], row: &mut [f32]) {
    match kind {
        TensorType::F32 => {
            for (out, bytes) in row.iter_mut().zip(data.chunks_exact(4)) {
                *out = f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            }
        }
        TensorType::F16 => {
            for (out, bytes) in row.iter_mut().zip(data.chunks_exact(2)) {
                *out = f16_to_f32(u16::from_le_bytes([bytes[0], bytes[1]]));
            }
        }
        TensorType::Q8_0 => {
            for (out, block) in row.chunks_exact_mut(BLOCK).zip(data.chunks_exact(34)) {
                let d = half(block, 0);
                for (o, q) in out.iter_mut().zip(&block[2..]) {
                    *o = d * f32::from(*q as i8);
                }
            }
        }
        TensorType::Q4_0 => {
            for (out, block) in row.chunks_exact_mut(BLOCK).zip(data.chunks_exact(18)) {
                let d = half(block, 0);
                for (i, byte) in block[2..].iter().enumerate() {
                    out[i] = d * (f32::from(byte & 0x0f) - 8.0);
                    out[i + 16] = d * (f32::from(byte >> 4) - 8.0);
                }
            }
        }
        TensorType::Q4_1 => {
            for (out, block) in row.chunks_exact_mut(BLOCK).zip(data.chunks_exact(20)) {
                let (d, m) = (half(block, 0), half(block, 2));
                for (i, byte) in block[4..].iter().enumerate() {
                    out[i] = d * f32::from(byte & 0x0f) + m;
                    out[i + 16] = d * f32::from(byte >> 4) + m;
                }
            }
        }
        TensorType::Q5_0 | TensorType::Q5_1 => {
            let with_min = kind == TensorType::Q5_1;
            let size = if with_min { 24 } else { 22 };
            for (out, block) in row.chunks_exact_mut(BLOCK).zip(data.chunks_exact(size)) {
                let d = half(block, 0);
                let (m, at) = if with_min {
                    (half(block, 2), 4)
                } else {
                    (-16.0 * d, 2)
                };
                let high =
                    u32::from_le_bytes([block[at], block[at + 1], block[at + 2], block[at + 3]]);
                for (j, byte) in block[at + 4..at + 20].iter().enumerate() {
                    let low = u32::from(byte & 0x0f) | (((high >> j) & 1) << 4);
                    let up = u32::from(byte >> 4) | (((high >> (j + 16)) & 1) << 4);
                    out[j] = d * low as f32 + m;
                    out[j + 16] = d * up as f32 + m;
                }
            }
        }
        TensorType::Q4_K | TensorType::Q5_K => {
            let five = kind == TensorType::Q5_K;
            let size = if five { 176 } else { 144 };
            for (out, block) in row.chunks_exact_mut(256).zip(data.chunks_exact(size)) {
                let (d, dmin) = (half(block, 0), half(block, 2));
                let scales = &block[4..16];
                let (high, quants) = if five {
                    (&block[16..48], &block[48..176])
                } else {
                    (&[][..], &block[16..144])
                };
                for j in 0..4 {
                    let (sc1, m1) = k_scale_min(2 * j, scales);
                    let (sc2, m2) = k_scale_min(2 * j + 1, scales);
                    let (d1, d2) = (d * f32::from(sc1), d * f32::from(sc2));
                    let (m1, m2) = (dmin * f32::from(m1), dmin * f32::from(m2));
                    let q = &quants[32 * j..32 * j + 32];
                    for l in 0..32 {
                        let (mut lo, mut hi) = (q[l] & 0x0f, q[l] >> 4);
                        if five {
                            lo |= ((high[l] >> (2 * j)) & 1) << 4;
                            hi |= ((high[l] >> (2 * j + 1)) & 1) << 4;
                        }
                        out[64 * j + l] = d1 * f32::from(lo) - m1;
                        out[64 * j + 32 + l] = d2 * f32::from(hi) - m2;
                    }
                }
            }
        }
        TensorType::Q6_K => {
            for (out, block) in row.chunks_exact_mut(256).zip(data.chunks_exact(210)) {
                let d = half(block, 208);
                for n in 0..2 {
                    let ql = &block[64 * n..64 * n + 64];
                    let qh = &block[128 + 32 * n..128 + 32 * n + 32];
                    let sc = &block[192 + 8 * n..192 + 8 * n + 8];
                    let y = &mut out[128 * n..128 * n + 128];
                    for l in 0..32 {
                        let is = l / 16;
                        let six = |low: u8, shift: u8| {
                            i32::from(low | (((qh[l] >> shift) & 3) << 4)) - 32
                        };
                        let q = [
                            six(ql[l] & 0x0f, 0),
                            six(ql[l + 32] & 0x0f, 2),
                            six(ql[l] >> 4, 4),
                            six(ql[l + 32] >> 4, 6),
                        ];
                        for (k, q) in q.into_iter().enumerate() {
                            let scale = f32::from(sc[is + 2 * k] as i8);
                            y[l + 32 * k] = d * scale * q as f32;
                        }
                    }
                }
            }
        }
        TensorType::BF16 => {
            for (out, bytes) in row.iter_mut().zip(data.chunks_exact(2)) {
                *out = f32::from_bits(u32::from(u16::from_le_bytes([bytes[0], bytes[1]])) << 16);
            }
        }
        TensorType::Other(_) => row.fill(0.0),
    }
}

/// Sub-block `j`'s 6-bit scale and minimum in a K-quant super-block's 12 packed bytes
/// (ggml's `get_scale_min_k4`).
fn k_scale_min(j: usize, q: &[u8]) -> (u8, u8) {
    if j < 4 {
        (q[j] & 63, q[j + 4] & 63)
    } else {
        (
            (q[j + 4] & 0x0f) | ((q[j - 4] >> 6) << 4),
            (q[j + 4] >> 4) | ((q[j] >> 6) << 4),
        )
    }
}

/// A weight matrix (`rows` outputs × `cols` inputs) in packed 8-bit blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct QMatrix {
    /// Output rows.
    pub rows: usize,
    /// Input columns (a multiple of [`BLOCK`]).
    pub cols: usize,
    /// Packed values: per group of 4 rows, per block, 8 chunks of 16 bytes (4 bytes of each row).
    pub quants: Vec<i8>,
    /// Per group, per block: the 4 rows' scales.
    pub scales: Vec<f32>,
    /// Per group, per block: the 4 rows' sums of values, `Σq` (within ±32 · 128), from which
    /// the kernels undo the activations' offset: `offset · scale · Σq`.
    pub sums: Vec<i16>,
    /// The encoding of the activations it is multiplied with.
    pub encoding: Encoding,
}

impl QMatrix {
    /// Groups of [`GROUP_ROWS`] rows (the last padded with zero rows).
    pub fn groups(&self) -> usize {
        self.rows.div_ceil(GROUP_ROWS)
    }

    /// Blocks per row.
    pub fn blocks(&self) -> usize {
        self.cols / BLOCK
    }

    /// Packs a tensor of `rows` rows of `cols` values for this CPU's activation encoding. Q8_0
    /// keeps its values and scales exactly; other types are decoded and quantized to 8 bits per
    /// block as ggml's Q8_0 would.
    pub fn from_tensor(kind: TensorType, data: &[u8], rows: usize, cols: usize) -> QMatrix {
        QMatrix::from_tensor_for(kind, data, rows, cols, encoding())
    }

    /// [`QMatrix::from_tensor`] for activations stored as `encoding`.
    pub fn from_tensor_for(
        kind: TensorType,
        data: &[u8],
        rows: usize,
        cols: usize,
        encoding: Encoding,
    ) -> QMatrix {
        let blocks = cols / BLOCK;
        let groups = rows.div_ceil(GROUP_ROWS);
        let mut out = QMatrix {
            rows,
            cols,
            quants: vec![0; groups * blocks * GROUP_BLOCK_BYTES],
            scales: vec![0.0; groups * blocks * GROUP_ROWS],
            sums: vec![0; groups * blocks * GROUP_ROWS],
            encoding,
        };
        let row_bytes = kind.block().map_or(0, |(per, bytes)| cols / per * bytes);
        let mut floats = vec![0.0f32; cols];
        let mut q = [0i8; BLOCK];
        for row in 0..rows {
            let encoded = data
                .get(row * row_bytes..(row + 1) * row_bytes)
                .unwrap_or(&[]);
            let exact_q8 = kind == TensorType::Q8_0;
            if !exact_q8 {
                decode_row(kind, encoded, &mut floats);
            }
            for block in 0..blocks {
                let d = if exact_q8 {
                    let at = block * 34;
                    for (dst, src) in q.iter_mut().zip(&encoded[at + 2..at + 34]) {
                        *dst = *src as i8;
                    }
                    half(encoded, at)
                } else {
                    quantize_block_q8(&floats[block * BLOCK..(block + 1) * BLOCK], &mut q)
                };
                out.set_block(row, block, d, &q);
            }
        }
        out
    }

    fn set_block(&mut self, row: usize, block: usize, d: f32, q: &[i8; BLOCK]) {
        let (group, lane) = (row / GROUP_ROWS, row % GROUP_ROWS);
        let index = group * self.blocks() + block;
        let base = index * GROUP_BLOCK_BYTES;
        for chunk in 0..BLOCK / 4 {
            let at = base + chunk * 16 + lane * 4;
            self.quants[at..at + 4].copy_from_slice(&q[chunk * 4..chunk * 4 + 4]);
        }
        self.scales[index * GROUP_ROWS + lane] = d;
        self.sums[index * GROUP_ROWS + lane] = q.iter().map(|v| i16::from(*v)).sum();
    }

    /// The correction of block `index`'s rows (per group, per block), `offset · scale · Σq`:
    /// what the portable kernel subtracts, and the SIMD kernels compute the same way.
    #[inline(always)]
    pub fn correction(&self, index: usize) -> f32 {
        self.encoding.offset() as f32 * self.scales[index] * f32::from(self.sums[index])
    }

    /// Row `row` decoded to floats (the token embedding lookup).
    pub fn row(&self, row: usize, out: &mut [f32]) {
        let (group, lane) = (row / GROUP_ROWS, row % GROUP_ROWS);
        for block in 0..self.blocks() {
            let index = group * self.blocks() + block;
            let d = self.scales[index * GROUP_ROWS + lane];
            let base = index * GROUP_BLOCK_BYTES;
            for chunk in 0..BLOCK / 4 {
                let at = base + chunk * 16 + lane * 4;
                for k in 0..4 {
                    out[block * BLOCK + chunk * 4 + k] = d * f32::from(self.quants[at + k]);
                }
            }
        }
    }
}

/// ggml's Q8_0 quantization of one block: scale `amax / 127`, values rounded to nearest.
fn quantize_block_q8(values: &[f32], out: &mut [i8; BLOCK]) -> f32 {
    let amax = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let d = amax / 127.0;
    let inverse = if d > 0.0 { 1.0 / d } else { 0.0 };
    for (o, v) in out.iter_mut().zip(values) {
        *o = (v * inverse).round() as i8;
    }
    // the scale as ggml stores it, in half precision
    f16_to_f32(f32_to_f16(d))
}

/// Single to half precision, rounding to nearest even (for scales, which are finite).
pub fn f32_to_f16(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mantissa = bits & 0x7f_ffff;
    if exponent >= 0x1f {
        return sign | 0x7c00;
    }
    if exponent <= 0 {
        if exponent < -10 {
            return sign;
        }
        let m = mantissa | 0x80_0000;
        let shift = (14 - exponent) as u32;
        let half_m = m >> shift;
        let rest = m & ((1 << shift) - 1);
        let halfway = 1 << (shift - 1);
        let round = u32::from(rest > halfway || (rest == halfway && half_m & 1 == 1));
        return sign | (half_m + round) as u16;
    }
    let half_m = mantissa >> 13;
    let rest = mantissa & 0x1fff;
    let round = u32::from(rest > 0x1000 || (rest == 0x1000 && half_m & 1 == 1));
    let combined = ((exponent as u32) << 10 | half_m) + round;
    sign | combined as u16
}

/// Activations of several tokens quantized for the kernels.
#[derive(Debug, Clone)]
pub struct QActs {
    /// Values per token.
    pub cols: usize,
    /// Per token, per block: the block's values as `encoding` stores them; where the encoding
    /// [`Encoding::masks_signs`], each block's values are followed by their sign masks (0xFF
    /// where negative, else 0), so a kernel finds a value's mask [`BLOCK`] bytes after it (an
    /// offset a load instruction carries, not one more address to compute).
    pub quants: Vec<u8>,
    /// Per token, per block: the scale.
    pub scales: Vec<f32>,
    /// Per token, per block: the sum of the negative values' magnitudes, where the encoding
    /// [`Encoding::masks_signs`] (empty otherwise): what flipping the weights' bits took off
    /// every row's sum (`!w · |q| = −w · |q| − |q|`), the same for every row, so it is added back
    /// once per block.
    pub negatives: Vec<i32>,
    /// How the values are stored (the weights must be multiplied with the same).
    pub encoding: Encoding,
}

impl Default for QActs {
    /// Empty, for this CPU's encoding.
    fn default() -> QActs {
        QActs::for_encoding(encoding())
    }
}

impl QActs {
    /// Empty, for activations stored as `encoding`.
    pub fn for_encoding(encoding: Encoding) -> QActs {
        QActs {
            cols: 0,
            quants: Vec::new(),
            scales: Vec::new(),
            negatives: Vec::new(),
            encoding,
        }
    }

    /// Bytes of [`QActs::quants`] per block: its values, and their signs where masked.
    pub fn block_bytes(&self) -> usize {
        block_bytes(self.encoding)
    }

    /// Bytes of [`QActs::quants`] per token.
    pub fn stride(&self) -> usize {
        self.cols / BLOCK * self.block_bytes()
    }

    /// Quantizes `tokens` rows of `cols` floats each (`values.len() == tokens · cols`).
    pub fn quantize(&mut self, values: &[f32], cols: usize) {
        let (max, encoding) = (self.encoding.max(), self.encoding);
        let masks = encoding.masks_signs();
        let tokens = values.len() / cols;
        let blocks = cols / BLOCK;
        let block_bytes = block_bytes(encoding);
        self.cols = cols;
        self.quants.resize(tokens * blocks * block_bytes, 0);
        self.scales.resize(tokens * blocks, 0.0);
        self.negatives
            .resize(if masks { tokens * blocks } else { 0 }, 0);
        for (i, block) in values.chunks_exact(BLOCK).enumerate() {
            let amax = block.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            let d = amax / max;
            let inverse = if d > 0.0 { 1.0 / d } else { 0.0 };
            self.scales[i] = d;
            let out = &mut self.quants[i * block_bytes..(i + 1) * block_bytes];
            let mut negatives = 0;
            for (k, v) in block.iter().enumerate() {
                let q = (v * inverse).round_ties_even() as i32;
                out[k] = encoding.store(q);
                if masks {
                    out[BLOCK + k] = if q < 0 { 0xFF } else { 0 };
                    negatives += q.min(0).abs();
                }
            }
            if masks {
                self.negatives[i] = negatives;
            }
        }
    }

    /// How many tokens it holds.
    pub fn tokens(&self) -> usize {
        self.quants.len().checked_div(self.stride()).unwrap_or(0)
    }
}

/// Bytes per block of activations stored as `encoding`: its values, and their signs where masked.
fn block_bytes(encoding: Encoding) -> usize {
    if encoding.masks_signs() {
        2 * BLOCK
    } else {
        BLOCK
    }
}
