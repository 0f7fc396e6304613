//! tabloop's in-tab model engine: runs a small llama-family GGUF model (SmolLM2 and its kin)
//! on WebAssembly SIMD in a worker, with no server and no key.
//!
//! Pure Rust with no dependencies: [`gguf`] reads the file, [`tokenizer`] turns text into
//! token ids and back, the model computes logits, [`grammar`] constrains what may be
//! generated. The same code runs natively for tests; on `wasm32` the kernels use SIMD128 and
//! relaxed SIMD.

#![deny(unsafe_code)]

#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)]
pub mod abi;
mod draft;
pub mod gguf;
pub mod grammar;
mod jump;
pub mod kernels;
pub mod model;
pub mod pool;
pub mod quant;
pub mod repetition;
pub mod sampling;
pub mod session;
pub mod tokenizer;
