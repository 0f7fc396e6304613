//! A model's tensors, taken from a GGUF file into the engine's own layouts: matrices packed for
//! the kernels ([`QMatrix`]), vectors as floats. After loading, the file's bytes are no longer
//! needed.

use std::borrow::Cow;

use crate::gguf::{Gguf, TensorInfo, TensorType};
use crate::quant::{decode_row, QMatrix, BLOCK};

use super::config::{Architecture, Config};

/// Where a model's tensor bytes come from: the file in memory, or read one tensor at a time
/// (so a model never needs its whole file and its packed weights in memory at once).
pub trait TensorSource {
    /// The bytes of `tensor`.
    fn read(&self, tensor: &TensorInfo) -> Result<Cow<'_, [u8]>, String>;
}

impl TensorSource for Gguf<'_> {
    fn read(&self, tensor: &TensorInfo) -> Result<Cow<'_, [u8]>, String> {
        let bytes = self.data(tensor);
        if bytes.len() == tensor.len {
            Ok(Cow::Borrowed(bytes))
        } else {
            Err(format!("tensor {} is not in the bytes given", tensor.name))
        }
    }
}

/// Tensors read from a file by a function that fills a buffer from an offset.
pub struct ReadAt<F: Fn(usize, &mut [u8]) -> Result<(), String>>(pub F);

impl<F: Fn(usize, &mut [u8]) -> Result<(), String>> TensorSource for ReadAt<F> {
    fn read(&self, tensor: &TensorInfo) -> Result<Cow<'_, [u8]>, String> {
        let mut bytes = vec![0; tensor.len];
        (self.0)(tensor.start, &mut bytes)
            .map_err(|e| format!("reading tensor {}: {e}", tensor.name))?;
        Ok(Cow::Owned(bytes))
    }
}

/// One transformer block's tensors.
#[derive(Debug, Clone)]
pub struct Layer {
    /// RMS norm before attention.
    pub attn_norm: Vec<f32>,
    /// Biases added to the query, key and value projections (qwen2).
    pub qkv_bias: Option<[Vec<f32>; 3]>,
    /// RMS norms of each query head and each key head, before rotary positions (qwen3, gemma3).
    pub qk_norm: Option<[Vec<f32>; 2]>,
    /// RMS norms of the attention's and the feed-forward layer's outputs, before they join the
    /// residual stream (gemma3).
    pub post_norms: Option<[Vec<f32>; 2]>,
    /// Query projection (embedding → heads · head_dim).
    pub q: QMatrix,
    /// Key projection (embedding → kv_heads · head_dim).
    pub k: QMatrix,
    /// Value projection.
    pub v: QMatrix,
    /// Attention output projection.
    pub o: QMatrix,
    /// RMS norm before the feed-forward layer.
    pub ffn_norm: Vec<f32>,
    /// Feed-forward gate.
    pub gate: QMatrix,
    /// Feed-forward up projection.
    pub up: QMatrix,
    /// Feed-forward down projection.
    pub down: QMatrix,
}

/// All of a model's tensors.
#[derive(Debug, Clone)]
pub struct Weights {
    /// Token embeddings (one row per token).
    pub embeddings: QMatrix,
    /// The blocks, in order.
    pub layers: Vec<Layer>,
    /// Final RMS norm.
    pub output_norm: Vec<f32>,
    /// The output head, or `None` when it is the embedding matrix (tied).
    pub output: Option<QMatrix>,
    /// Per-pair rotary frequency factors (llama 3), if the file has them.
    pub rope_factors: Option<Vec<f32>>,
}

impl Weights {
    /// Loads every tensor `config` needs, named and shaped by `file`'s table, its bytes from
    /// `source`, checking names, shapes and types.
    pub fn from_gguf(
        file: &Gguf,
        source: &dyn TensorSource,
        config: &Config,
    ) -> Result<Weights, String> {
        let file = Tensors { file, source };
        let e = config.embedding;
        let kv = config.kv_width();
        let qw = config.q_width();
        let d = config.head_dim;
        let ff = config.feed_forward;
        let arch = config.architecture;
        // the largest tensor first, while the heap is empty: its file bytes, read whole, are
        // freed before the layers are packed into the room they leave
        let embeddings = matrix(&file, "token_embd.weight", e, config.vocab)?;
        let mut layers = Vec::with_capacity(config.layers);
        for i in 0..config.layers {
            let name = |part: &str| format!("blk.{i}.{part}");
            let qkv_bias = match arch {
                Architecture::Qwen2 => Some([
                    vector(&file, &name("attn_q.bias"), qw)?,
                    vector(&file, &name("attn_k.bias"), kv)?,
                    vector(&file, &name("attn_v.bias"), kv)?,
                ]),
                Architecture::Llama | Architecture::Qwen3 | Architecture::Gemma3 => None,
            };
            let qk_norm = match arch {
                Architecture::Qwen3 | Architecture::Gemma3 => Some([
                    vector(&file, &name("attn_q_norm.weight"), d)?,
                    vector(&file, &name("attn_k_norm.weight"), d)?,
                ]),
                Architecture::Llama | Architecture::Qwen2 => None,
            };
            let post_norms = match arch {
                Architecture::Gemma3 => Some([
                    vector(&file, &name("post_attention_norm.weight"), e)?,
                    vector(&file, &name("post_ffw_norm.weight"), e)?,
                ]),
                Architecture::Llama | Architecture::Qwen2 | Architecture::Qwen3 => None,
            };
            layers.push(Layer {
                attn_norm: vector(&file, &name("attn_norm.weight"), e)?,
                qkv_bias,
                qk_norm,
                post_norms,
                q: matrix(&file, &name("attn_q.weight"), e, qw)?,
                k: matrix(&file, &name("attn_k.weight"), e, kv)?,
                v: matrix(&file, &name("attn_v.weight"), e, kv)?,
                o: matrix(&file, &name("attn_output.weight"), qw, e)?,
                ffn_norm: vector(&file, &name("ffn_norm.weight"), e)?,
                gate: matrix(&file, &name("ffn_gate.weight"), e, ff)?,
                up: matrix(&file, &name("ffn_up.weight"), e, ff)?,
                down: matrix(&file, &name("ffn_down.weight"), ff, e)?,
            });
        }
        let output = match file.tensor("output.weight") {
            Some(_) => Some(matrix(&file, "output.weight", e, config.vocab)?),
            None => None,
        };
        let rope_factors = match file.tensor("rope_freqs.weight") {
            Some(_) => Some(vector(&file, "rope_freqs.weight", config.rope_dims / 2)?),
            None => None,
        };
        Ok(Weights {
            embeddings,
            layers,
            output_norm: vector(&file, "output_norm.weight", e)?,
            output,
            rope_factors,
        })
    }

    /// The matrix that turns the last hidden state into logits.
    pub fn head(&self) -> &QMatrix {
        self.output.as_ref().unwrap_or(&self.embeddings)
    }
}

/// The file's tensor table and where their bytes come from.
struct Tensors<'a, 'f> {
    file: &'a Gguf<'f>,
    source: &'a dyn TensorSource,
}

impl Tensors<'_, '_> {
    fn tensor(&self, name: &str) -> Option<&TensorInfo> {
        self.file.tensor(name)
    }
}

fn find<'f>(file: &'f Tensors, name: &str) -> Result<&'f TensorInfo, String> {
    let tensor = file
        .tensor(name)
        .ok_or_else(|| format!("the file has no tensor {name}"))?;
    if tensor.kind.block().is_none() {
        return Err(format!(
            "tensor {name} is {}, which this engine does not compute with (it reads F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K and Q6_K)",
            tensor.kind.name()
        ));
    }
    Ok(tensor)
}

fn matrix(file: &Tensors, name: &str, cols: usize, rows: usize) -> Result<QMatrix, String> {
    let tensor = find(file, name)?;
    if tensor.dims != [cols, rows] {
        return Err(format!(
            "tensor {name} is {:?}, expected [{cols}, {rows}]",
            tensor.dims
        ));
    }
    if !cols.is_multiple_of(BLOCK) {
        return Err(format!(
            "tensor {name}: rows of {cols} are not whole blocks of {BLOCK}"
        ));
    }
    Ok(QMatrix::from_tensor(
        tensor.kind,
        &file.source.read(tensor)?,
        rows,
        cols,
    ))
}

fn vector(file: &Tensors, name: &str, len: usize) -> Result<Vec<f32>, String> {
    let tensor = find(file, name)?;
    if tensor.elements() != len {
        return Err(format!(
            "tensor {name} has {} values, expected {len}",
            tensor.elements()
        ));
    }
    let mut out = vec![0.0; len];
    match tensor.kind {
        TensorType::F32 | TensorType::F16 | TensorType::BF16 => {
            decode_row(tensor.kind, &file.source.read(tensor)?, &mut out)
        }
        TensorType::Q4_0
        | TensorType::Q4_1
        | TensorType::Q5_0
        | TensorType::Q5_1
        | TensorType::Q8_0
        | TensorType::Q4_K
        | TensorType::Q5_K
        | TensorType::Q6_K
        | TensorType::Other(_) => {
            return Err(format!(
                "tensor {name} is {}, expected floats",
                tensor.kind.name()
            ))
        }
    }
    Ok(out)
}
