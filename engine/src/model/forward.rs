//! The forward pass of a batch of tokens through every layer (pre-norm attention with rotary
//! positions and grouped-query heads, then a SwiGLU feed-forward layer), and the logits of the
//! batch's last token.

use crate::kernels::math::{geglu, rms_norm, swiglu, RopeTables};
use crate::kernels::out::SharedOut;
use crate::kernels::{matmul_groups, matmul_on, split};
use std::cell::Cell;

use crate::pool::Pool;
use crate::quant::{QActs, QMatrix, GROUP_ROWS};

use super::attention::{Buffers, Layout};
use super::{Gate, KvCache, Model};

/// Where a forward pass spends its time, in milliseconds (kept only with a clock).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Phases {
    /// Quantized matrix products.
    pub matmul: f64,
    /// Attention over the cache.
    pub attention: f64,
    /// Everything else: norms, rotary positions, activation quantization, gating, sums.
    pub other: f64,
}

/// The threads a forward pass's work is split across, and the clock that times it by phase.
#[derive(Debug, Default)]
pub struct Work {
    /// The threads matrix products and attention are split across.
    pub pool: Pool,
    /// A clock in milliseconds; when set, [`Work::phases`] accumulates timings.
    pub clock: Option<fn() -> f64>,
    phases: Cell<Phases>,
}

impl Work {
    /// Time spent so far, by phase (with a clock).
    pub fn phases(&self) -> Phases {
        self.phases.get()
    }

    /// Sets the clock (or none) and clears the totals.
    pub fn set_clock(&mut self, clock: Option<fn() -> f64>) {
        self.clock = clock;
        self.phases.set(Phases::default());
    }

    /// Runs `f`, adding its time to the phase `add` picks.
    fn timed<T>(&self, add: fn(&mut Phases) -> &mut f64, f: impl FnOnce() -> T) -> T {
        let Some(now) = self.clock else {
            return f();
        };
        let started = now();
        let out = f();
        let mut phases = self.phases.get();
        *add(&mut phases) += now() - started;
        self.phases.set(phases);
        out
    }

    /// `out = w · acts` over all of `w`'s rows, shared out across the threads.
    fn project(&self, w: &QMatrix, acts: &QActs, out: &mut Vec<f32>) {
        self.timed(
            |p| &mut p.matmul,
            || matmul_on(&self.pool, w, acts, sized(out, acts.tokens() * w.rows)),
        );
    }
}

/// What forward passes work with besides the model and the cache: buffers reused from batch
/// to batch, and the threads and clock.
#[derive(Debug, Default)]
pub struct Scratch {
    /// The threads and the clock.
    pub work: Work,
    x: Vec<f32>,
    normed: Vec<f32>,
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    attended: Vec<f32>,
    projected: Vec<f32>,
    gate: Vec<f32>,
    up: Vec<f32>,
    acts: QActs,
    /// The vocabulary's logits of which [`Model::logits_of`] fills a few.
    picked: Vec<f32>,
    rope_tables: RopeTables,
    rope_tables_swa: RopeTables,
}

fn sized(buffer: &mut Vec<f32>, len: usize) -> &mut [f32] {
    buffer.resize(len, 0.0);
    &mut buffer[..len]
}

impl Scratch {
    /// Normalizes the residual stream with `weight` and quantizes it for the products.
    fn norm_and_quantize(&mut self, weight: &[f32], eps: f32) {
        let len = self.x.len();
        rms_norm(&self.x, weight, eps, sized(&mut self.normed, len));
        self.acts.quantize(&self.normed, weight.len());
    }

    /// Scratch whose work is split across `threads` threads (the caller and `threads − 1`
    /// spawned ones; fewer when spawning fails).
    pub fn with_threads(threads: usize) -> Scratch {
        Scratch {
            work: Work {
                pool: Pool::new(threads),
                ..Work::default()
            },
            ..Scratch::default()
        }
    }
}

impl Model {
    /// Runs `tokens` at the positions after the cache's, appends their keys and values, and
    /// writes the last token's logits into `logits` when given. Errors when the batch would
    /// overflow the cache or names a token outside the vocabulary; nothing is appended then.
    pub fn forward(
        &self,
        tokens: &[u32],
        cache: &mut KvCache,
        scratch: &mut Scratch,
        logits: Option<&mut Vec<f32>>,
    ) -> Result<(), String> {
        let c = &self.config;
        let n = tokens.len();
        let start = cache.len;
        if n == 0 {
            return Err("no tokens to evaluate".into());
        }
        if start + n > cache.capacity() {
            return Err(format!(
                "the context is full: {} tokens held, {n} more, room for {}",
                start,
                cache.capacity()
            ));
        }
        if let Some(bad) = tokens.iter().find(|t| **t as usize >= c.vocab) {
            return Err(format!(
                "token {bad} is outside the vocabulary of {}",
                c.vocab
            ));
        }
        cache.reserve(start + n);
        let before = scratch.work.phases();
        let clock = scratch.work.clock;
        let started = clock.map(|now| now());
        self.run(tokens, cache, scratch, logits);
        if let (Some(now), Some(started)) = (clock, started) {
            // other: the whole pass but for what the products and attention took
            let mut p = scratch.work.phases();
            p.other +=
                now() - started - (p.matmul - before.matmul) - (p.attention - before.attention);
            scratch.work.phases.set(p);
        }
        Ok(())
    }

    /// The pass itself (see [`Model::forward`]), its input checked and the cache's room made.
    fn run(
        &self,
        tokens: &[u32],
        cache: &mut KvCache,
        scratch: &mut Scratch,
        logits: Option<&mut Vec<f32>>,
    ) {
        let c = &self.config;
        let (n, start) = (tokens.len(), cache.len);
        let (e, kv, qw, d) = (c.embedding, c.kv_width(), c.q_width(), c.head_dim);
        scratch.rope_tables.fill(&self.rope, start, n);
        if let Some(rope) = &self.rope_swa {
            scratch.rope_tables_swa.fill(rope, start, n);
        }
        let x = sized(&mut scratch.x, n * e);
        for (row, token) in x.chunks_exact_mut(e).zip(tokens) {
            self.weights.embeddings.row(*token as usize, row);
        }
        if c.embedding_scale != 1.0 {
            for v in x.iter_mut() {
                *v *= c.embedding_scale;
            }
        }
        for (index, layer) in self.weights.layers.iter().enumerate() {
            scratch.norm_and_quantize(&layer.attn_norm, c.norm_eps);
            scratch
                .work
                .project(&layer.q, &scratch.acts, &mut scratch.q);
            scratch
                .work
                .project(&layer.k, &scratch.acts, &mut scratch.k);
            scratch
                .work
                .project(&layer.v, &scratch.acts, &mut scratch.v);
            if let Some([qb, kb, vb]) = &layer.qkv_bias {
                add_rows(&mut scratch.q, qb);
                add_rows(&mut scratch.k, kb);
                add_rows(&mut scratch.v, vb);
            }
            if let Some([qn, kn]) = &layer.qk_norm {
                norm_in_place(&mut scratch.q, qn, c.norm_eps, &mut scratch.normed);
                norm_in_place(&mut scratch.k, kn, c.norm_eps, &mut scratch.normed);
            }
            let window = c.window(index);
            let (rope, tables) = match (&self.rope_swa, window) {
                (Some(rope), Some(_)) => (rope, &scratch.rope_tables_swa),
                _ => (&self.rope, &scratch.rope_tables),
            };
            for i in 0..n {
                let table = tables.position(i);
                rope.apply(&mut scratch.q[i * qw..(i + 1) * qw], d, table);
                rope.apply(&mut scratch.k[i * kv..(i + 1) * kv], d, table);
            }
            cache.store(index, start, &scratch.k, &scratch.v);
            self.attend(start, n, window, cache, index, scratch);
            scratch.acts.quantize(&scratch.attended, qw);
            scratch
                .work
                .project(&layer.o, &scratch.acts, &mut scratch.projected);
            if let Some([after_attention, _]) = &layer.post_norms {
                norm_in_place(
                    &mut scratch.projected,
                    after_attention,
                    c.norm_eps,
                    &mut scratch.normed,
                );
            }
            add_into(&mut scratch.x, &scratch.projected);

            scratch.norm_and_quantize(&layer.ffn_norm, c.norm_eps);
            scratch
                .work
                .project(&layer.gate, &scratch.acts, &mut scratch.gate);
            scratch
                .work
                .project(&layer.up, &scratch.acts, &mut scratch.up);
            match c.gate {
                Gate::Silu => swiglu(&mut scratch.gate, &scratch.up),
                Gate::Gelu => geglu(&mut scratch.gate, &scratch.up),
            }
            scratch.acts.quantize(&scratch.gate, c.feed_forward);
            scratch
                .work
                .project(&layer.down, &scratch.acts, &mut scratch.projected);
            if let Some([_, after_ffn]) = &layer.post_norms {
                norm_in_place(
                    &mut scratch.projected,
                    after_ffn,
                    c.norm_eps,
                    &mut scratch.normed,
                );
            }
            add_into(&mut scratch.x, &scratch.projected);
        }
        cache.len = start + n;
        if let Some(logits) = logits {
            let last = &scratch.x[(n - 1) * e..n * e];
            let normed = sized(&mut scratch.normed, e);
            rms_norm(last, &self.weights.output_norm, c.norm_eps, normed);
            scratch.acts.quantize(&scratch.normed[..e], e);
            scratch
                .work
                .project(self.weights.head(), &scratch.acts, logits);
        }
    }

    /// The logits of `tokens` after row `row` of the batch the last [`Model::forward`] read,
    /// as that pass would have written them were the row its last: for checking a batch's
    /// tokens against what the model would have chosen at their places (jump-forward), where
    /// only the few tokens the grammar admits there matter. Costs the output norm and one
    /// group of the head's rows per token (4 rows), not the whole vocabulary.
    pub fn logits_of(
        &self,
        scratch: &mut Scratch,
        row: usize,
        tokens: &[u32],
    ) -> Result<Vec<f32>, String> {
        let (e, head) = (self.config.embedding, self.weights.head());
        let Some(hidden) = scratch.x.get(row * e..(row + 1) * e) else {
            return Err(format!("row {row} is not in the last batch"));
        };
        if let Some(bad) = tokens.iter().find(|t| **t as usize >= head.rows) {
            return Err(format!(
                "token {bad} is outside the vocabulary of {}",
                head.rows
            ));
        }
        let normed = sized(&mut scratch.normed, e);
        rms_norm(
            hidden,
            &self.weights.output_norm,
            self.config.norm_eps,
            normed,
        );
        scratch.acts.quantize(&scratch.normed[..e], e);
        let all = sized(&mut scratch.picked, head.rows);
        for token in tokens {
            let group = *token as usize / GROUP_ROWS;
            matmul_groups(head, &scratch.acts, group..group + 1, all);
        }
        Ok(tokens.iter().map(|t| all[*t as usize]).collect())
    }

    /// The logits after each of the first `rows` rows of the batch the last [`Model::forward`]
    /// read, one row of the vocabulary after another in `out`, each as that pass would have
    /// written it were the row its last (checking drafts, where any token may be the model's
    /// choice): the head reads its weights once for all of them.
    pub fn logits_rows(
        &self,
        scratch: &mut Scratch,
        rows: usize,
        out: &mut Vec<f32>,
    ) -> Result<(), String> {
        let e = self.config.embedding;
        let Some(hidden) = scratch.x.get(..rows * e) else {
            return Err(format!("the last batch has fewer than {rows} rows"));
        };
        let normed = sized(&mut scratch.normed, rows * e);
        rms_norm(
            hidden,
            &self.weights.output_norm,
            self.config.norm_eps,
            normed,
        );
        scratch.acts.quantize(&scratch.normed[..rows * e], e);
        scratch
            .work
            .project(self.weights.head(), &scratch.acts, out);
        Ok(())
    }

    /// Causal attention of the batch's queries over the cached positions of layer `layer` up
    /// to their own (the last `window` of them in a sliding-window layer).
    fn attend(
        &self,
        start: usize,
        n: usize,
        window: Option<usize>,
        cache: &KvCache,
        layer: usize,
        s: &mut Scratch,
    ) {
        let c = &self.config;
        let (keys, values) = cache.layer(layer);
        let layout = Layout {
            queries: &s.q,
            keys,
            values,
            region: cache.region(),
            heads: c.heads,
            per_kv: c.heads / c.kv_heads,
            head_dim: c.head_dim,
            start,
            window,
        };
        let threads = s.work.pool.threads();
        let attended = SharedOut::new(sized(&mut s.attended, n * c.q_width()));
        // heads are split across the threads; each writes only its heads' values
        let work = &s.work;
        work.timed(
            |p| &mut p.attention,
            || {
                work.pool.run(&|index| {
                    let mut buffers = Buffers::default();
                    let heads = split(c.heads, threads, index);
                    layout.attend(heads, n, &mut buffers, &mut |at, out| {
                        // SAFETY: this thread's heads' values are written by it only.
                        #[allow(unsafe_code)]
                        unsafe {
                            attended.write(at, out)
                        };
                    });
                })
            },
        );
    }
}

/// Adds `bias` to every row of `x` (rows of `bias.len()` values).
fn add_rows(x: &mut [f32], bias: &[f32]) {
    for row in x.chunks_exact_mut(bias.len()) {
        add_into(row, bias);
    }
}

/// RMS-normalizes every `weight.len()` values of `x` in place (per head, or per token).
fn norm_in_place(x: &mut [f32], weight: &[f32], eps: f32, spare: &mut Vec<f32>) {
    let out = sized(spare, x.len());
    rms_norm(x, weight, eps, out);
    x.copy_from_slice(out);
}

fn add_into(x: &mut [f32], y: &[f32]) {
    for (a, b) in x.iter_mut().zip(y) {
        *a += b;
    }
}
