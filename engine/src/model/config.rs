//! A model's shape, read from its GGUF metadata, for the architectures this engine runs: llama
//! (SmolLM2, TinyLlama, Llama 3), qwen2 (Qwen2.5: biases on the query, key and value
//! projections), qwen3 (RMS norms of each query and key head) and gemma3 (sliding-window
//! layers, norms after attention and the feed-forward layer, GELU, scaled embeddings). What
//! each differs by is a field here, so the forward pass reads the config, not the name.

use crate::gguf::Gguf;

/// The architectures this engine runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Architecture {
    /// `llama`: SmolLM2, TinyLlama, Llama 3.
    Llama,
    /// `qwen2`: Qwen2 and Qwen2.5.
    Qwen2,
    /// `qwen3`: Qwen3 (dense).
    Qwen3,
    /// `gemma3`: Gemma 3 (text).
    Gemma3,
}

impl Architecture {
    /// The name GGUF files give it (`general.architecture`).
    pub fn name(self) -> &'static str {
        match self {
            Architecture::Llama => "llama",
            Architecture::Qwen2 => "qwen2",
            Architecture::Qwen3 => "qwen3",
            Architecture::Gemma3 => "gemma3",
        }
    }

    /// The architecture a GGUF name stands for, when this engine runs it.
    pub fn from_name(name: &str) -> Option<Architecture> {
        [
            Architecture::Llama,
            Architecture::Qwen2,
            Architecture::Qwen3,
            Architecture::Gemma3,
        ]
        .into_iter()
        .find(|a| a.name() == name)
    }
}

/// Which values of a head rotary positions turn together (llama.cpp's rope modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RopeStyle {
    /// Adjacent pairs `(2i, 2i + 1)` (llama; GGUF stores llama's q and k permuted for this).
    Adjacent,
    /// Halves `(i, i + dims/2)` (GPT-NeoX: Qwen2, Qwen3, Gemma 3).
    Halves,
}

/// The feed-forward layer's gate activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// SiLU (SwiGLU).
    Silu,
    /// GELU, tanh approximation (GeGLU: Gemma).
    Gelu,
}

/// Layers that attend within a window of recent positions (Gemma 3: five layers in six).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlidingWindow {
    /// Positions a query sees, itself included.
    pub size: usize,
    /// Every `period`-th layer (the last of each period) attends globally; the others slide.
    pub period: usize,
    /// Rotary base frequency of the sliding layers.
    pub rope_base: f32,
}

/// The hyperparameters a forward pass needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The architecture.
    pub architecture: Architecture,
    /// Width of the residual stream.
    pub embedding: usize,
    /// Transformer blocks.
    pub layers: usize,
    /// Query heads.
    pub heads: usize,
    /// Key/value heads (grouped-query attention when fewer than `heads`).
    pub kv_heads: usize,
    /// Values per head (`attention.key_length`; the width over the heads otherwise).
    pub head_dim: usize,
    /// Width of the feed-forward layer.
    pub feed_forward: usize,
    /// RMS normalization epsilon.
    pub norm_eps: f32,
    /// Rotary base frequency.
    pub rope_base: f32,
    /// Values per head that are rotated.
    pub rope_dims: usize,
    /// Which values rotate together.
    pub rope_style: RopeStyle,
    /// Context length the model was trained for.
    pub trained_context: usize,
    /// Tokens in the vocabulary.
    pub vocab: usize,
    /// The gate's activation.
    pub gate: Gate,
    /// What embeddings are multiplied by before the first layer (Gemma: sqrt(width)).
    pub embedding_scale: f32,
    /// Sliding-window attention, when some layers use it.
    pub sliding_window: Option<SlidingWindow>,
}

impl Config {
    /// Reads the shape from `file`'s metadata, or says what is missing or unsupported.
    pub fn from_gguf(file: &Gguf) -> Result<Config, String> {
        let arch = file
            .string("general.architecture")
            .ok_or("the file names no architecture")?;
        let architecture = Architecture::from_name(&arch)
            .ok_or_else(|| format!("architecture {arch} is not supported"))?;
        let number = |key: &str| {
            file.number(&format!("{arch}.{key}"))
                .ok_or_else(|| format!("the file has no {arch}.{key}"))
        };
        let count = |key: &str| -> Result<usize, String> {
            let value = number(key)?;
            if value >= 1.0 && value <= (1u64 << 32) as f64 && value.fract() == 0.0 {
                Ok(value as usize)
            } else {
                Err(format!("{arch}.{key} = {value} is not a usable count"))
            }
        };
        let embedding = count("embedding_length")?;
        let heads = count("attention.head_count")?;
        let kv_heads = count("attention.head_count_kv").unwrap_or(heads);
        let head_dim = count("attention.key_length").unwrap_or(embedding / heads);
        let value_dim = count("attention.value_length").unwrap_or(head_dim);
        if value_dim != head_dim {
            return Err(format!(
                "keys of {head_dim} and values of {value_dim} per head are not supported"
            ));
        }
        if head_dim == 0 || heads % kv_heads != 0 || head_dim % 2 != 0 {
            return Err(format!(
                "{heads} heads of {head_dim} values with {kv_heads} key/value heads do not divide evenly"
            ));
        }
        let vocab = match count("vocab_size") {
            Ok(n) => n,
            Err(_) => file
                .array("tokenizer.ggml.tokens")
                .map(|a| a.len())
                .ok_or("the file has no vocabulary size")?,
        };
        let rope_base = number("rope.freq_base").unwrap_or(10_000.0) as f32;
        let sliding_window = match architecture {
            Architecture::Gemma3 => Some(SlidingWindow {
                size: count("attention.sliding_window")?,
                // llama.cpp's gemma3: every sixth layer attends globally
                period: 6,
                rope_base: number("rope.freq_base_swa").unwrap_or(10_000.0) as f32,
            }),
            Architecture::Llama | Architecture::Qwen2 | Architecture::Qwen3 => None,
        };
        let gemma = architecture == Architecture::Gemma3;
        // Every layer has tensors of its own: a count beyond the file's tensors is a lie that
        // would size tables for it (fuzzing found 2^32 - 2 layers in a 67 KB file).
        let layers = count("block_count")?;
        if layers > file.tensors().len() {
            return Err(format!(
                "{arch}.block_count = {layers}, but the file holds {} tensors",
                file.tensors().len()
            ));
        }
        // Rotary positions turn pairs within a head (fuzzing found 162 of a 32-value head).
        let rope_dims = count("rope.dimension_count").unwrap_or(head_dim);
        if rope_dims > head_dim || rope_dims % 2 != 0 {
            return Err(format!(
                "{arch}.rope.dimension_count = {rope_dims} does not fit heads of {head_dim} values"
            ));
        }
        Ok(Config {
            architecture,
            embedding,
            layers,
            heads,
            kv_heads,
            head_dim,
            feed_forward: count("feed_forward_length")?,
            norm_eps: number("attention.layer_norm_rms_epsilon").unwrap_or(1e-5) as f32,
            rope_base,
            rope_dims,
            rope_style: match architecture {
                Architecture::Llama => RopeStyle::Adjacent,
                Architecture::Qwen2 | Architecture::Qwen3 | Architecture::Gemma3 => {
                    RopeStyle::Halves
                }
            },
            trained_context: count("context_length").unwrap_or(2048),
            vocab,
            gate: if gemma { Gate::Gelu } else { Gate::Silu },
            embedding_scale: if gemma {
                (embedding as f32).sqrt()
            } else {
                1.0
            },
            sliding_window,
        })
    }

    /// Values in one token's keys (or values) across the key/value heads.
    pub fn kv_width(&self) -> usize {
        self.kv_heads * self.head_dim
    }

    /// Values in one token's queries across the heads (the attention output's width).
    pub fn q_width(&self) -> usize {
        self.heads * self.head_dim
    }

    /// The window layer `layer` attends within, or `None` when it attends to every position.
    pub fn window(&self, layer: usize) -> Option<usize> {
        self.sliding_window
            .filter(|w| !(layer + 1).is_multiple_of(w.period))
            .map(|w| w.size)
    }
}
