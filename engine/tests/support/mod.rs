//! What the engine's tests share: the bundled model, loaded once per test binary.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod fixture;

use std::path::PathBuf;
use std::sync::OnceLock;

use tabloop_engine::gguf::Gguf;
use tabloop_engine::model::Model;

/// The bundled SmolLM2-135M (Q8_0) the site serves.
pub fn model_path() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../www/models/smollm2-135m-instruct-q8_0.gguf");
    assert!(
        path.exists(),
        "{} is missing: run scripts/fetch-model-assets.sh",
        path.display()
    );
    path
}

/// The file's bytes, read once.
pub fn model_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| std::fs::read(model_path()).unwrap())
}

/// The model, loaded once.
pub fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| Model::from_gguf(&Gguf::parse(model_bytes()).unwrap()).unwrap())
}

/// A tiny synthetic model (scripts/synthetic-models.sh writes them into target/synthetic/).
pub fn synthetic_path(family: &str, quant: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../target/synthetic/{family}-tiny-{quant}.gguf"));
    assert!(
        path.exists(),
        "{} is missing: run scripts/synthetic-models.sh",
        path.display()
    );
    path
}
