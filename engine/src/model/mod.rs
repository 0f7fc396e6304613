//! A loaded model and its forward pass: a batch of tokens in, their keys and values appended
//! to the cache, and the last token's logits out.

pub mod config;
mod forward;
pub mod weights;

pub use config::{Architecture, Config};
pub use forward::{Phases, Scratch};
pub use weights::Weights;

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
}

impl Model {
    /// Takes the model out of a parsed GGUF file (copying what it keeps).
    pub fn from_gguf(file: &Gguf) -> Result<Model, String> {
        let config = Config::from_gguf(file)?;
        let weights = Weights::from_gguf(file, &config)?;
        let rope = Rope::new(
            config.rope_dims,
            config.rope_style,
            config.rope_base,
            weights.rope_factors.as_deref(),
        );
        Ok(Model {
            config,
            weights,
            rope,
        })
    }
}

/// Keys and values of every position so far, per layer. Keys are stored transposed (see
/// [`KvCache::new`]).
#[derive(Debug, Clone)]
pub struct KvCache {
    keys: Vec<Vec<f32>>,
    values: Vec<Vec<f32>>,
    capacity: usize,
    len: usize,
}

impl KvCache {
    /// An empty cache for `capacity` positions of `config`'s model.
    pub fn new(config: &Config, capacity: usize) -> KvCache {
        let width = config.kv_width();
        // keys: one row of `capacity` positions per key value (transposed); values: one row
        // of `width` values per position
        KvCache {
            keys: vec![vec![0.0; capacity * width]; config.layers],
            values: vec![vec![0.0; capacity * width]; config.layers],
            capacity,
            len: 0,
        }
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

    /// Forgets every position from `len` on (keeping a shared prefix for the next prompt).
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
}
