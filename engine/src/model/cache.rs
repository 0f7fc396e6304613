//! The keys and values of every position so far, laid out so that attention reads each key
//! head's cache from one contiguous run of memory.

use super::Config;
/// Positions whose keys are stored together, transposed: a tile holds, for each of a head's
/// key values in turn, that value of `TILE` positions side by side.
pub use crate::kernels::math::TILE;

/// Positions a cache has room for before it first grows.
pub const FIRST_ROOM: usize = 512;

/// Keys and values of every position so far, per layer, each layer's split by key head into
/// regions of `room` positions:
/// - a head's keys are tiles of [`TILE`] positions, one after the other: a query's scores
///   against a tile are `TILE`-wide vector products down the tile's rows;
/// - a head's values are one row of `head_dim` values per position.
///
/// Attention walks a head's region from start to end, so its memory is read in order, one page
/// after the next. (Rows of every head side by side put a head's consecutive rows kilobytes
/// apart: on a long context each read then touched another page and, with those distances a
/// power of two, the same few cache sets.)
///
/// Memory grows with use: room for [`FIRST_ROOM`] positions at first, doubled when a batch
/// needs more, up to the context (4,096 positions of SmolLM2-135M take 189 MB as f32).
#[derive(Debug, Clone)]
pub struct KvCache {
    keys: Vec<Vec<f32>>,
    values: Vec<Vec<f32>>,
    kv_heads: usize,
    head_dim: usize,
    /// Positions each head's region has room for now (a multiple of [`TILE`]).
    room: usize,
    /// Positions it may ever hold (the context).
    capacity: usize,
    /// Positions it makes room for when it first grows.
    first_room: usize,
    pub(super) len: usize,
}

/// Rounds `n` up to whole tiles.
fn whole_tiles(n: usize) -> usize {
    n.div_ceil(TILE) * TILE
}

impl KvCache {
    /// An empty cache for up to `capacity` positions of `config`'s model.
    pub fn new(config: &Config, capacity: usize) -> KvCache {
        KvCache::with_first_room(config, capacity, FIRST_ROOM)
    }

    /// [`KvCache::new`] with room for `first_room` positions before it first grows.
    pub fn with_first_room(config: &Config, capacity: usize, first_room: usize) -> KvCache {
        KvCache {
            first_room: first_room.max(1),
            keys: vec![Vec::new(); config.layers],
            values: vec![Vec::new(); config.layers],
            kv_heads: config.kv_heads,
            head_dim: config.head_dim,
            room: 0,
            capacity,
            len: 0,
        }
    }

    /// Makes room for `needed` positions (at most the capacity, in whole tiles): every head's
    /// region is copied to a wider one, at least doubling, so growing costs O(positions) over
    /// a whole session.
    pub(super) fn reserve(&mut self, needed: usize) {
        if needed <= self.room {
            return;
        }
        let room = whole_tiles(
            needed
                .max(self.room * 2)
                .max(self.first_room)
                .min(self.capacity),
        );
        let (old, new) = (self.region(), room * self.head_dim);
        let held = whole_tiles(self.len) * self.head_dim;
        for layer in self.keys.iter_mut().chain(&mut self.values) {
            let mut wider = vec![0.0; self.kv_heads * new];
            for (old, new) in layer
                .chunks_exact(old.max(1))
                .zip(wider.chunks_exact_mut(new))
            {
                new[..held].copy_from_slice(&old[..held]);
            }
            *layer = wider;
        }
        self.room = room;
    }

    /// Values in one key head's region of a layer's keys, and of its values.
    pub fn region(&self) -> usize {
        self.room * self.head_dim
    }

    /// Stores the keys and values of positions `start..` (rows of every head's values, one
    /// row per position) in layer `layer`, whose room was made.
    pub(super) fn store(&mut self, layer: usize, start: usize, keys: &[f32], values: &[f32]) {
        let (d, region) = (self.head_dim, self.region());
        let width = self.kv_heads * d;
        let (key_cache, value_cache) = (&mut self.keys[layer], &mut self.values[layer]);
        for (i, (key, value)) in keys
            .chunks_exact(width)
            .zip(values.chunks_exact(width))
            .enumerate()
        {
            let pos = start + i;
            let tile = pos / TILE * TILE * d;
            for g in 0..self.kv_heads {
                let head = g * region;
                let column = head + tile + pos % TILE;
                for (k, v) in key[g * d..(g + 1) * d].iter().enumerate() {
                    key_cache[column + k * TILE] = *v;
                }
                let row = head + pos * d;
                value_cache[row..row + d].copy_from_slice(&value[g * d..(g + 1) * d]);
            }
        }
    }

    /// Layer `layer`'s keys and values (see [`KvCache`] for their layout).
    pub(super) fn layer(&self, layer: usize) -> (&[f32], &[f32]) {
        (&self.keys[layer], &self.values[layer])
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Most positions it can hold.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Bytes its keys and values take now.
    pub fn bytes(&self) -> usize {
        let held: usize = self.keys.iter().chain(&self.values).map(Vec::len).sum();
        held * std::mem::size_of::<f32>()
    }

    /// Forgets every position from `len` on (keeping a shared prefix for the next prompt).
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
}
