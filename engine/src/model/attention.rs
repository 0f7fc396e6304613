//! Causal attention of a batch's queries over the cached keys and values, in blocks of up to
//! [`BLOCK`] queries that read the same key and value head: the heads that share one (grouped
//! queries) and, in a prompt, neighbouring positions. Each key and value loaded then serves
//! every query of its block, where one query at a time read the whole head's cache again for
//! each query. Every query's sums keep the order one query alone would use, so the results are
//! the same bit for bit.

use std::ops::Range;

use crate::kernels::math::{attention_scores_tiled, attention_values_many, softmax, TILE};

/// Queries attended together (their sums take the registers a block's pass keeps).
const BLOCK: usize = 4;

/// Where a layer's queries and cached keys and values are, and which positions each sees.
pub(super) struct Layout<'a> {
    /// The batch's queries: one row of `heads · head_dim` values per position.
    pub queries: &'a [f32],
    /// The layer's cached keys and values: one region of `region` values per key head (see
    /// [`super::KvCache`]).
    pub keys: &'a [f32],
    pub values: &'a [f32],
    pub region: usize,
    pub heads: usize,
    /// Query heads per key head.
    pub per_kv: usize,
    pub head_dim: usize,
    /// Positions cached before the batch.
    pub start: usize,
    /// Positions a query sees at most (a sliding-window layer), else all before it.
    pub window: Option<usize>,
}

/// Buffers one thread reuses from block to block.
#[derive(Default)]
pub(super) struct Buffers {
    queries: Vec<f32>,
    scores: Vec<f32>,
    out: Vec<f32>,
}

impl Layout<'_> {
    /// Attends heads `heads` of positions `0..n` of the batch, handing each query's output to
    /// `write` with its offset in the batch's attended rows.
    pub fn attend(
        &self,
        heads: Range<usize>,
        n: usize,
        buffers: &mut Buffers,
        write: &mut dyn FnMut(usize, &[f32]),
    ) {
        let mut h = heads.start;
        while h < heads.end {
            let group_end = ((h / self.per_kv + 1) * self.per_kv).min(heads.end);
            let head_count = (group_end - h).min(BLOCK);
            let position_count = (BLOCK / head_count).max(1);
            let mut i = 0;
            while i < n {
                let positions = i..(i + position_count).min(n);
                self.attend_block(h..h + head_count, positions.clone(), buffers, write);
                i = positions.end;
            }
            h += head_count;
        }
    }

    /// Positions `first..seen` that the query at batch position `i` attends to.
    fn seen_by(&self, i: usize) -> Range<usize> {
        let seen = self.start + i + 1;
        let first = self.window.map_or(0, |w| seen.saturating_sub(w));
        first..seen
    }

    /// One block: heads `heads` (of one key head) at batch positions `positions`.
    fn attend_block(
        &self,
        heads: Range<usize>,
        positions: Range<usize>,
        b: &mut Buffers,
        write: &mut dyn FnMut(usize, &[f32]),
    ) {
        let d = self.head_dim;
        let width = self.heads * d;
        let group = heads.start / self.per_kv;
        let count = heads.len() * positions.len();
        // every query's positions lie in the block's span: the first position's first to the
        // last position's last
        let span = self.seen_by(positions.start).start..self.seen_by(positions.end - 1).end;
        let len = span.len();
        let scale = 1.0 / (d as f32).sqrt();
        b.queries.clear();
        for i in positions.clone() {
            for h in heads.clone() {
                let at = i * width + h * d;
                b.queries
                    .extend(self.queries[at..at + d].iter().map(|v| v * scale));
            }
        }
        // scores of whole key tiles, from the one holding the span's first position
        let tiles = span.start / TILE..span.end.div_ceil(TILE);
        let (from, row) = (tiles.start * TILE, tiles.len() * TILE);
        b.scores.resize(count * row, 0.0);
        let region = group * self.region..(group + 1) * self.region;
        let keys = &self.keys[region.clone()][tiles.start * TILE * d..tiles.end * TILE * d];
        match count {
            1 => attention_scores_tiled::<1, 2>(&b.queries, keys, &mut b.scores),
            2 => attention_scores_tiled::<2, 2>(&b.queries, keys, &mut b.scores),
            3 => attention_scores_tiled::<3, 1>(&b.queries, keys, &mut b.scores),
            _ => attention_scores_tiled::<4, 1>(&b.queries, keys, &mut b.scores),
        }
        // each query's weights: the softmax of its own positions' scores, zero elsewhere in
        // the span (positions of the tiles outside the span are never read)
        for (r, scores) in b.scores.chunks_exact_mut(row).enumerate() {
            let own = self.seen_by(positions.start + r / heads.len());
            let (before, rest) = scores.split_at_mut(own.start - from);
            let (mine, after) = rest.split_at_mut(own.len());
            before.fill(0.0);
            after.fill(0.0);
            softmax(mine);
        }
        b.out.resize(count * d, 0.0);
        let values = &self.values[region][span.start * d..span.end * d];
        let weights = &b.scores[span.start - from..];
        let out = &mut b.out;
        match count {
            1 => attention_values_many::<1, 32>(weights, row, len, values, out),
            2 => attention_values_many::<2, 16>(weights, row, len, values, out),
            3 => attention_values_many::<3, 8>(weights, row, len, values, out),
            _ => attention_values_many::<4, 8>(weights, row, len, values, out),
        }
        for (r, out) in b.out.chunks_exact(d).enumerate() {
            let i = positions.start + r / heads.len();
            let h = heads.start + r % heads.len();
            write(i * width + h * d, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values in [−1, 1) that vary with `i` and `salt` (no two tensors alike).
    fn filled(len: usize, salt: usize) -> Vec<f32> {
        (0..len)
            .map(|i| ((i * 2_654_435_761 + salt * 40_503) % 2_003) as f32 / 1_001.5 - 1.0)
            .collect()
    }

    /// One query at a time, each score and output summed in order over its own positions.
    fn one_at_a_time(l: &Layout, n: usize) -> Vec<f32> {
        let d = l.head_dim;
        let mut out = vec![0.0; n * l.heads * d];
        for i in 0..n {
            let seen = l.seen_by(i);
            for h in 0..l.heads {
                let g = h / l.per_kv;
                let at = i * l.heads * d + h * d;
                let q: Vec<f32> = l.queries[at..at + d]
                    .iter()
                    .map(|v| v * (1.0 / (d as f32).sqrt()))
                    .collect();
                let mut weights: Vec<f32> = seen
                    .clone()
                    .map(|j| {
                        (0..d)
                            .map(|k| {
                                q[k] * l.keys[g * l.region + (j / TILE * d + k) * TILE + j % TILE]
                            })
                            .sum()
                    })
                    .collect();
                softmax(&mut weights);
                for (lane, o) in out[at..at + d].iter_mut().enumerate() {
                    *o = seen
                        .clone()
                        .zip(&weights)
                        .map(|(j, w)| w * l.values[g * l.region + j * d + lane])
                        .sum();
                }
            }
        }
        out
    }

    /// Blocked attention against one query at a time, for `kv_heads` key heads of `per_kv`
    /// query heads, a batch of `n` after `start` cached positions, the heads split in `parts`.
    fn check(kv_heads: usize, per_kv: usize, start: usize, n: usize, window: Option<usize>) {
        let (d, heads) = (32, kv_heads * per_kv);
        let positions = start + n;
        // room for a tile more than the positions, whose stale values must not be read
        let region = (positions.div_ceil(TILE) + 1) * TILE * d;
        let queries = filled(n * heads * d, 1);
        let mut keys = filled(kv_heads * region, 2);
        let mut values = filled(kv_heads * region, 3);
        for g in 0..kv_heads {
            for j in positions..region / d {
                for k in 0..d {
                    keys[g * region + (j / TILE * d + k) * TILE + j % TILE] = f32::NAN;
                }
            }
            values[g * region + positions * d..(g + 1) * region].fill(f32::NAN);
        }
        let layout = Layout {
            queries: &queries,
            keys: &keys,
            values: &values,
            region,
            heads,
            per_kv,
            head_dim: d,
            start,
            window,
        };
        let expected = one_at_a_time(&layout, n);
        for parts in [1, 2, 3] {
            let mut got = vec![f32::NAN; expected.len()];
            let mut buffers = Buffers::default();
            for part in 0..parts {
                let heads = crate::kernels::split(heads, parts, part);
                layout.attend(heads, n, &mut buffers, &mut |at, out| {
                    got[at..at + out.len()].copy_from_slice(out);
                });
            }
            assert_eq!(
                got, expected,
                "{kv_heads}×{per_kv} heads, {start}+{n} positions, window {window:?}, {parts} parts"
            );
        }
    }

    #[test]
    fn blocks_of_queries_attend_as_each_query_alone_bit_for_bit() {
        for per_kv in [1, 2, 3, 4, 8] {
            check(2, per_kv, 0, 1, None);
            check(2, per_kv, 0, 7, None);
            check(2, per_kv, 21, 1, None);
            check(2, per_kv, 13, 11, None);
            check(3, per_kv, 40, 5, Some(9));
            check(1, per_kv, 3, 19, Some(6));
        }
    }
}
