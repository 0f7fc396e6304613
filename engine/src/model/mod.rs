//! A loaded model and its forward pass: a batch of tokens in, their keys and values appended
//! to the cache, and the last token's logits out.

mod attention;
mod cache;
pub mod config;
mod forward;
pub mod weights;

pub use cache::{KvCache, FIRST_ROOM, TILE};
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
