//! A model's shape, read from its GGUF metadata: the llama architecture (SmolLM2, TinyLlama,
//! Llama). Others (Qwen2's biases and halves rotation among them) run on wllama until they are
//! checked against llama.cpp here.

use crate::gguf::Gguf;

/// The architectures this engine runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Architecture {
    /// `llama`: SmolLM2, TinyLlama, Llama 3.
    Llama,
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
    /// Values per head.
    pub head_dim: usize,
    /// Width of the feed-forward layer.
    pub feed_forward: usize,
    /// RMS normalization epsilon.
    pub norm_eps: f32,
    /// Rotary base frequency.
    pub rope_base: f32,
    /// Values per head that are rotated.
    pub rope_dims: usize,
    /// Context length the model was trained for.
    pub trained_context: usize,
    /// Tokens in the vocabulary.
    pub vocab: usize,
}

impl Config {
    /// Reads the shape from `file`'s metadata, or says what is missing or unsupported.
    pub fn from_gguf(file: &Gguf) -> Result<Config, String> {
        let arch = file
            .string("general.architecture")
            .ok_or("the file names no architecture")?;
        let architecture = match arch.as_str() {
            "llama" => Architecture::Llama,
            other => return Err(format!("architecture {other} is not supported")),
        };
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
        let head_dim = embedding / heads;
        if head_dim * heads != embedding || heads % kv_heads != 0 || head_dim % 2 != 0 {
            return Err(format!(
                "{heads} heads over {embedding} values with {kv_heads} key/value heads do not divide evenly"
            ));
        }
        let vocab = match count("vocab_size") {
            Ok(n) => n,
            Err(_) => file
                .array("tokenizer.ggml.tokens")
                .map(|a| a.len())
                .ok_or("the file has no vocabulary size")?,
        };
        Ok(Config {
            architecture,
            embedding,
            layers: count("block_count")?,
            heads,
            kv_heads,
            head_dim,
            feed_forward: count("feed_forward_length")?,
            norm_eps: number("attention.layer_norm_rms_epsilon").unwrap_or(1e-5) as f32,
            rope_base: number("rope.freq_base").unwrap_or(10_000.0) as f32,
            rope_dims: count("rope.dimension_count").unwrap_or(head_dim),
            trained_context: count("context_length").unwrap_or(2048),
            vocab,
        })
    }

    /// Values in one token's keys (or values) across the key/value heads.
    pub fn kv_width(&self) -> usize {
        self.kv_heads * self.head_dim
    }
}
