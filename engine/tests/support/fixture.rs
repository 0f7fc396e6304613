//! llama.cpp's figures as the fixture files hold them (make_logits_fixture.py,
//! make_synthetic_fixture.py), and the bounds the engine is held to against them.

use serde_json::Value;
use tabloop_engine::model::{KvCache, Model, Scratch};

/// A greedy choice made by less than this (logit difference to the runner-up) may go the other
/// way under a slightly different computation.
pub const NEAR_TIE: f32 = 1.0;

/// The largest gap over llama.cpp's top logits after a prompt, with 8-bit activations as
/// llama.cpp quantizes them (0.24–0.32 measured on the bundled model).
pub const GAP_8_BIT: f32 = 0.5;

/// One prompt: its tokens, llama.cpp's top logits after it, and its greedy continuation with
/// each choice's margin over the runner-up.
pub struct Case {
    pub text: String,
    pub tokens: Vec<u32>,
    pub top: Vec<(usize, f32)>,
    pub greedy: Vec<u32>,
    pub margins: Vec<f32>,
}

/// The JSON file at `path` (relative to the engine crate).
pub fn read(path: &str) -> Value {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()));
    serde_json::from_str(&text).unwrap()
}

/// A JSON array of token ids.
pub fn ids(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_u64().unwrap() as u32)
        .collect()
}

/// A JSON array of cases.
pub fn cases(v: &Value) -> Vec<Case> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|case| Case {
            text: case["text"].as_str().unwrap_or_default().to_string(),
            tokens: ids(&case["tokens"]),
            top: case["top"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    (
                        p[0].as_u64().unwrap() as usize,
                        p[1].as_f64().unwrap() as f32,
                    )
                })
                .collect(),
            greedy: ids(&case["greedy"]),
            margins: case["margins"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_f64().unwrap() as f32)
                .collect(),
        })
        .collect()
}

/// The index of the highest value.
pub fn argmax(xs: &[f32]) -> usize {
    let mut best = 0;
    for (i, v) in xs.iter().enumerate() {
        if *v > xs[best] {
            best = i;
        }
    }
    best
}

/// How a model's numbers compared with llama.cpp's on one prompt.
pub struct Comparison {
    /// The largest gap over llama.cpp's top logits after the prompt.
    pub worst: f32,
    /// The mean gap over them (steadier than the largest, for comparing encodings).
    pub mean: f32,
    /// Greedy steps where llama.cpp's choice was clear (a margin of [`NEAR_TIE`] or more).
    pub compared: usize,
    /// The first clear step where the model chose otherwise.
    pub parted: Option<usize>,
}

/// Runs `case`'s prompt, then its greedy continuation side by side, fed llama.cpp's choices:
/// where its choice was clear (a margin over the runner-up above what our logits may differ
/// by) ours must be the same; at a near-tie either is right.
pub fn compare(model: &Model, case: &Case, context: usize) -> Comparison {
    let mut cache = KvCache::new(&model.config, context);
    let mut scratch = Scratch::default();
    let mut logits = Vec::new();
    model
        .forward(&case.tokens, &mut cache, &mut scratch, Some(&mut logits))
        .unwrap();
    let gaps: Vec<f32> = case
        .top
        .iter()
        .map(|(id, value)| (logits[*id] - value).abs())
        .collect();
    let worst = gaps.iter().copied().fold(0.0f32, f32::max);
    let mean = gaps.iter().sum::<f32>() / gaps.len().max(1) as f32;
    let (mut compared, mut parted) = (0, None);
    for (step, (theirs, margin)) in case.greedy.iter().zip(&case.margins).enumerate() {
        if *margin >= NEAR_TIE {
            compared += 1;
            if argmax(&logits) as u32 != *theirs && parted.is_none() {
                parted = Some(step);
            }
        }
        model
            .forward(&[*theirs], &mut cache, &mut scratch, Some(&mut logits))
            .unwrap();
    }
    Comparison {
        worst,
        mean,
        compared,
        parted,
    }
}
