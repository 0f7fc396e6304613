//! Float kernels: RMS normalization, rotary positions, SiLU gating, softmax and dot products,
//! with a polynomial `exp` that the compiler can vectorize (a libm call per element would cost
//! more than the matrix products around it).

/// `exp(x)` to about 2 ulp for x in [−87, 88] (clamped outside): 2^n · p(r) with
/// r = x − n·ln2 and a degree-6 polynomial on |r| ≤ ln2/2. Branch-free, so loops over it vectorize.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    let x = x.clamp(-87.0, 88.0);
    let n = (x * LOG2E).round_ties_even();
    let r = x - n * LN2_HI - n * LN2_LO;
    // Taylor coefficients 1/k!, good to ~1e-7 relative on |r| <= 0.347
    let p = 1.0 / 720.0;
    let p = p * r + 1.0 / 120.0;
    let p = p * r + 1.0 / 24.0;
    let p = p * r + 1.0 / 6.0;
    let p = p * r + 0.5;
    let p = p * r + 1.0;
    let p = p * r + 1.0;
    let scale = f32::from_bits(((n as i32 + 127) as u32) << 23);
    p * scale
}

/// `out = x / rms(x) · weight`, per token of `weight.len()` values.
pub fn rms_norm(x: &[f32], weight: &[f32], eps: f32, out: &mut [f32]) {
    let n = weight.len();
    for (xs, os) in x.chunks_exact(n).zip(out.chunks_exact_mut(n)) {
        let sum = sum_squares(xs);
        let scale = 1.0 / (sum / n as f32 + eps).sqrt();
        for ((o, v), w) in os.iter_mut().zip(xs).zip(weight) {
            *o = v * scale * w;
        }
    }
}

fn sum_squares(xs: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let chunks = xs.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (l, v) in lanes.iter_mut().zip(chunk) {
            *l += v * v;
        }
    }
    lanes.iter().sum::<f32>() + rest.iter().map(|v| v * v).sum::<f32>()
}

/// `Σ a[i] · b[i]` with eight independent partial sums (vectorizes).
#[inline(always)]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    let half = [
        lanes[0] + lanes[4],
        lanes[1] + lanes[5],
        lanes[2] + lanes[6],
        lanes[3] + lanes[7],
    ];
    (half[0] + half[2]) + (half[1] + half[3]) + tail
}

/// `out[i] += a · x[i]`.
#[inline(always)]
pub fn axpy(a: f32, x: &[f32], out: &mut [f32]) {
    for (o, v) in out.iter_mut().zip(x) {
        *o += a * v;
    }
}

/// Positions of one key tile (see [`attention_scores_tiled`]).
pub const TILE: usize = 8;

/// `scores[r · len + t · TILE + p] = Σ_k queries[r · d + k] · keys[(t · d + k) · TILE + p]`:
/// the attention scores of `Q` queries (rows of `d` values) that share one key head, against
/// its keys in tiles of [`TILE`] positions (row `k` of tile `t` holds value `k` of the tile's
/// positions; `len` = the positions of all tiles). Each key loaded serves all `Q` queries, and
/// `T` tiles are read at once so that `Q · T · TILE` sums are in flight. Each score sums over
/// `k` in order, as one query alone would.
pub fn attention_scores_tiled<const Q: usize, const T: usize>(
    queries: &[f32],
    keys: &[f32],
    scores: &mut [f32],
) {
    let d = queries.len() / Q;
    let len = keys.len() / d;
    let mut tiles = keys.chunks_exact(d * TILE * T);
    for (n, run) in tiles.by_ref().enumerate() {
        scores_of_tiles::<Q, T>(queries, run, scores, len, n * T * TILE);
    }
    let first = (keys.len() - tiles.remainder().len()) / d;
    for (n, tile) in tiles.remainder().chunks_exact(d * TILE).enumerate() {
        scores_of_tiles::<Q, 1>(queries, tile, scores, len, first + n * TILE);
    }
}

/// [`attention_scores_tiled`]'s scores of the `T` tiles in `run`, written at position `at`.
#[inline(always)]
fn scores_of_tiles<const Q: usize, const T: usize>(
    queries: &[f32],
    run: &[f32],
    scores: &mut [f32],
    len: usize,
    at: usize,
) {
    let d = queries.len() / Q;
    let mut acc = [[[0.0f32; TILE]; T]; Q];
    for k in 0..d {
        for (r, sums) in acc.iter_mut().enumerate() {
            let q = queries[r * d + k];
            for (t, tile_sums) in sums.iter_mut().enumerate() {
                let row = &run[(t * d + k) * TILE..][..TILE];
                for (sum, key) in tile_sums.iter_mut().zip(row) {
                    *sum += q * key;
                }
            }
        }
    }
    for (r, sums) in acc.iter().enumerate() {
        for (t, tile_sums) in sums.iter().enumerate() {
            scores[r * len + at + t * TILE..][..TILE].copy_from_slice(tile_sums);
        }
    }
}

/// `out[r · width + l] = Σ_{j < len} weights[r · row + j] · values[j · width + l]` for `Q`
/// queries (`width` = `out.len() / Q`): the attention output of queries that share one value
/// head, its values one row per position. Each value loaded serves all `Q` queries; `L` lanes
/// of every query's output stay in registers. Each output sums over `j` in order.
pub fn attention_values_many<const Q: usize, const L: usize>(
    weights: &[f32],
    row: usize,
    len: usize,
    values: &[f32],
    out: &mut [f32],
) {
    let width = out.len() / Q;
    let mut start = 0;
    while start + L <= width {
        let mut acc = [[0.0f32; L]; Q];
        for j in 0..len {
            let lanes = &values[j * width + start..][..L];
            for (r, sums) in acc.iter_mut().enumerate() {
                let w = weights[r * row + j];
                for (sum, value) in sums.iter_mut().zip(lanes) {
                    *sum += w * value;
                }
            }
        }
        for (r, sums) in acc.iter().enumerate() {
            out[r * width + start..][..L].copy_from_slice(sums);
        }
        start += L;
    }
    for l in start..width {
        for r in 0..Q {
            out[r * width + l] = (0..len)
                .map(|j| weights[r * row + j] * values[j * width + l])
                .sum();
        }
    }
}

/// `gate[i] = gelu(gate[i]) · up[i]` (GeGLU), GELU's tanh approximation as ggml computes it.
pub fn geglu(gate: &mut [f32], up: &[f32]) {
    const SQRT_2_OVER_PI: f32 = 0.797_884_6;
    const COEF: f32 = 0.044_715;
    for (g, u) in gate.iter_mut().zip(up) {
        let x = *g;
        // tanh(y) = 1 − 2 / (exp(2y) + 1), with the vectorizable exp
        let y = SQRT_2_OVER_PI * x * (1.0 + COEF * x * x);
        let tanh = 1.0 - 2.0 / (exp(2.0 * y) + 1.0);
        *g = 0.5 * x * (1.0 + tanh) * u;
    }
}

/// `gate[i] = silu(gate[i]) · up[i]` (SwiGLU).
pub fn swiglu(gate: &mut [f32], up: &[f32]) {
    for (g, u) in gate.iter_mut().zip(up) {
        let v = *g;
        *g = v / (1.0 + exp(-v)) * u;
    }
}

/// Softmax in place.
pub fn softmax(xs: &mut [f32]) {
    // a comparison, not f32::max: wasm's own max differs from Rust's on NaN, so `max` is a
    // call to fmaxf per value there (a seventh of a long prompt's attention time)
    let max = xs
        .iter()
        .fold(f32::NEG_INFINITY, |m, v| if *v > m { *v } else { m });
    let mut sum = 0.0;
    for v in xs.iter_mut() {
        *v = exp(*v - max);
    }
    for v in xs.iter() {
        sum += *v;
    }
    let inverse = 1.0 / sum;
    for v in xs.iter_mut() {
        *v *= inverse;
    }
}

/// Rotary position tables: for each position, `dims/2` (cos, sin) pairs, as llama.cpp computes
/// them (pair `i` rotated by `pos · base^(−2i/dims) / factor[i]`). Which values form pair `i`
/// is the style: adjacent values (llama; GGUF stores llama's q and k permuted for this) or
/// the two halves of the rotated part (NeoX: Qwen2, Qwen3, Gemma 3).
#[derive(Debug, Clone)]
pub struct Rope {
    dims: usize,
    halves: bool,
    inverse_frequencies: Vec<f32>,
}

impl Rope {
    /// Tables for `dims` rotated values per head with base `base` and optional per-pair
    /// frequency factors (llama 3's `rope_freqs`); `halves` pairs value `i` with `i + dims/2`
    /// instead of `i + 1`.
    pub fn new(dims: usize, base: f32, factors: Option<&[f32]>, halves: bool) -> Rope {
        let scale = base.powf(-2.0 / dims as f32);
        let mut theta = 1.0f32;
        let mut inverse_frequencies = Vec::with_capacity(dims / 2);
        for i in 0..dims / 2 {
            let factor = factors.and_then(|f| f.get(i)).copied().unwrap_or(1.0);
            inverse_frequencies.push(theta / factor);
            theta *= scale;
        }
        Rope {
            dims,
            halves,
            inverse_frequencies,
        }
    }

    /// The (cos, sin) pairs of position `pos`.
    fn table(&self, pos: usize, out: &mut Vec<(f32, f32)>) {
        out.extend(self.inverse_frequencies.iter().map(|f| {
            let angle = pos as f32 * f;
            (angle.cos(), angle.sin())
        }));
    }

    /// Rotates every head of `x` (heads of `head_dim` values, the first `dims` rotated) by a
    /// position's table (from [`RopeTables`]).
    pub fn apply(&self, x: &mut [f32], head_dim: usize, table: &[(f32, f32)]) {
        let half = self.dims / 2;
        for head in x.chunks_exact_mut(head_dim) {
            if self.halves {
                let (low, high) = head[..self.dims].split_at_mut(half);
                for ((a, b), (cos, sin)) in low.iter_mut().zip(high.iter_mut()).zip(table) {
                    let (x0, x1) = (*a, *b);
                    *a = x0 * cos - x1 * sin;
                    *b = x0 * sin + x1 * cos;
                }
            } else {
                for (pair, (cos, sin)) in head[..self.dims].chunks_exact_mut(2).zip(table) {
                    let (a, b) = (pair[0], pair[1]);
                    pair[0] = a * cos - b * sin;
                    pair[1] = a * sin + b * cos;
                }
            }
        }
    }
}

/// The rotation tables of a batch's positions, computed once per batch (not once per layer).
#[derive(Debug, Clone, Default)]
pub struct RopeTables {
    pairs: usize,
    tables: Vec<(f32, f32)>,
}

impl RopeTables {
    /// Tables for positions `start..start + n`.
    pub fn fill(&mut self, rope: &Rope, start: usize, n: usize) {
        self.pairs = rope.inverse_frequencies.len();
        self.tables.clear();
        for pos in start..start + n {
            rope.table(pos, &mut self.tables);
        }
    }

    /// The table of the batch's `i`-th position.
    pub fn position(&self, i: usize) -> &[(f32, f32)] {
        &self.tables[i * self.pairs..(i + 1) * self.pairs]
    }
}
