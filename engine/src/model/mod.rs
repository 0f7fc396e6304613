//! A loaded model and its forward pass: a batch of tokens in, their keys and values appended
//! to the cache, and the last token's logits out.

mod attention;
pub mod config;
mod forward;
pub mod weights;

pub use config::{Architecture, Config, Gate, RopeStyle, SlidingWindow};
pub use forward::{Phases, Scratch, Work};
pub use weights::{ReadAt, TensorSource, Weights};

use crate::gguf::Gguf;
use crate::kernels::math::Rope;

/// A model ready to run.
#[derive(Debug, Clone)]
pub struct Model {
    /// Its shape.
    pub config: Config,
    /// Its tensors.
    pub weights: Weights,
    rope: Rope,
    /// The sliding-window layers' rotary tables (their own base frequency), when there are any.
    rope_swa: Option<Rope>,
}

impl Model {
    /// Takes the model out of a parsed GGUF file in memory (copying what it keeps).
    pub fn from_gguf(file: &Gguf) -> Result<Model, String> {
        Model::from_parts(file, file)
    }

    /// Takes the model described by `file`'s header, its tensors' bytes from `source`.
    pub fn from_parts(file: &Gguf, source: &dyn TensorSource) -> Result<Model, String> {
        let config = Config::from_gguf(file)?;
        let weights = Weights::from_gguf(file, source, &config)?;
        let halves = config.rope_style == RopeStyle::Halves;
        let rope = Rope::new(
            config.rope_dims,
            config.rope_base,
            weights.rope_factors.as_deref(),
            halves,
        );
        let rope_swa = config
            .sliding_window
            .map(|w| Rope::new(config.rope_dims, w.rope_base, None, halves));
        Ok(Model {
            config,
            weights,
            rope,
            rope_swa,
        })
    }
}

/// Keys and values of every position so far, per layer. Keys are stored transposed (one row
/// per key value, room for `room` positions in it), so a query's scores are vector products
/// along rows; values one row per position. Rows are [`ROW_PAD`] values longer than they need:
/// see [`KvCache::key_pitch`]. Memory grows with use: room for [`FIRST_ROOM`] positions at
/// first, doubled when a batch needs more, up to the context (4,096 positions of SmolLM2-135M
/// take about 200 MB as f32).
#[derive(Debug, Clone)]
pub struct KvCache {
    keys: Vec<Vec<f32>>,
    values: Vec<Vec<f32>>,
    width: usize,
    /// Positions the rows have room for now.
    room: usize,
    /// Positions it may ever hold (the context).
    capacity: usize,
    /// Positions it makes room for when it first grows.
    first_room: usize,
    len: usize,
}

/// Positions a cache has room for before it first grows.
pub const FIRST_ROOM: usize = 512;

/// Values a cache row holds beyond what it needs: one 64-byte cache line. Without it, the rows
/// a query's scores walk down together sit a power of two apart (the room doubles from 512),
/// so they all fall into the same few sets of the CPU's caches and evict one another: every
/// key of a long context then comes from L3 or memory instead of L2.
pub const ROW_PAD: usize = 16;

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
            width: config.kv_width(),
            room: 0,
            capacity,
            len: 0,
        }
    }

    /// Makes room for `needed` positions (at most the capacity): key rows are copied to a
    /// wider room, at least doubling, so growing costs O(positions) over a whole session.
    fn reserve(&mut self, needed: usize) {
        if needed <= self.room {
            return;
        }
        let room = needed
            .max(self.room * 2)
            .max(self.first_room)
            .min(self.capacity);
        let (old_pitch, new_pitch) = (self.key_pitch(), room + ROW_PAD);
        for keys in &mut self.keys {
            let mut wider = vec![0.0; self.width * new_pitch];
            for (old, new) in keys
                .chunks_exact(old_pitch)
                .zip(wider.chunks_exact_mut(new_pitch))
            {
                new[..self.len].copy_from_slice(&old[..self.len]);
            }
            *keys = wider;
        }
        let value_pitch = self.value_pitch();
        for values in &mut self.values {
            values.resize(value_pitch * room, 0.0);
        }
        self.room = room;
    }

    /// Values from one key row to the next (one row per key value, a column per position).
    pub fn key_pitch(&self) -> usize {
        self.room + ROW_PAD
    }

    /// Values from one position's value row to the next.
    pub fn value_pitch(&self) -> usize {
        self.width + ROW_PAD
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
