//! The engine against native llama.cpp on synthetic models of each family it runs (qwen2,
//! qwen3, gemma3: real shapes and vocabulary formats, random weights; scripts/synthetic_gguf.py
//! writes them into target/synthetic/, tests/fixtures/synthetic_<family>.json holds what
//! llama.cpp computed on them, made by make_synthetic_fixture.py): tokenization id for id, the
//! logits after each prompt, and the greedy choices, in every quantization the files come in.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use sha2::{Digest, Sha256};
use support::fixture::compare;
use tabloop_engine::gguf::Gguf;
use tabloop_engine::model::Model;
use tabloop_engine::tokenizer::Tokenizer;

/// How one file compared.
struct Outcome {
    quant: String,
    worst: f32,
    compared: usize,
    parted: Option<(usize, usize)>,
}

fn check_family(family: &str) -> Vec<Outcome> {
    let fixture = support::fixture::read(&format!("tests/fixtures/synthetic_{family}.json"));
    let mut outcomes = Vec::new();
    let mut tokenizer_checked = false;
    for (quant, file) in fixture["files"].as_object().unwrap() {
        let path = support::synthetic_path(family, quant);
        let bytes = std::fs::read(&path).unwrap();
        let digest: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            digest,
            file["sha256"].as_str().unwrap(),
            "{} is not the file llama.cpp's figures are for: regenerate the fixture \
             (make_synthetic_fixture.py) after changing scripts/synthetic_gguf.py",
            path.display()
        );
        let gguf = Gguf::parse(&bytes).unwrap();
        let model = Model::from_gguf(&gguf).unwrap();
        let tokenizer = Tokenizer::from_gguf(&gguf).unwrap();
        if !tokenizer_checked {
            for case in fixture["tokenizer"].as_array().unwrap() {
                let text = case["text"].as_str().unwrap();
                let ids: Vec<u32> = support::fixture::ids(&case["ids"]);
                assert_eq!(tokenizer.encode(text, true), ids, "{family}: {text:?}");
            }
            tokenizer_checked = true;
        }
        let mut outcome = Outcome {
            quant: quant.clone(),
            worst: 0.0,
            compared: 0,
            parted: None,
        };
        for (index, case) in support::fixture::cases(&file["cases"]).iter().enumerate() {
            let mut encoded = tokenizer.encode(&case.text, true);
            if tokenizer.add_bos() {
                encoded.insert(0, tokenizer.bos().unwrap());
            }
            assert_eq!(encoded, case.tokens, "{family} {quant}: {:?}", case.text);
            let c = compare(&model, case, 512);
            outcome.worst = outcome.worst.max(c.worst);
            outcome.compared += c.compared;
            if let (None, Some(step)) = (outcome.parted, c.parted) {
                outcome.parted = Some((index, step));
            }
        }
        outcomes.push(outcome);
    }
    outcomes
}

fn assert_family(family: &str) {
    let outcomes = check_family(family);
    let report: Vec<String> = outcomes
        .iter()
        .map(|o| {
            format!(
                "{family} {:5}: worst top-32 logit gap {:.3}; {} clear greedy steps, {}",
                o.quant,
                o.worst,
                o.compared,
                match o.parted {
                    Some((case, step)) => format!("prompt {case} parted at step {step}"),
                    None => "all equal".into(),
                }
            )
        })
        .collect();
    println!("{report:#?}");
    assert_eq!(outcomes.len(), 10, "every quantization");
    // As on the bundled model (tests/model.rs): within what rounding costs with 8-bit
    // activations, and llama.cpp's choice wherever it was clear.
    for o in &outcomes {
        assert!(
            o.worst < support::fixture::GAP_8_BIT && o.parted.is_none() && o.compared >= 12,
            "{report:#?}"
        );
    }
}

#[test]
fn qwen2_files_compute_what_llama_cpp_computes() {
    assert_family("qwen2");
}

#[test]
fn qwen3_files_compute_what_llama_cpp_computes() {
    assert_family("qwen3");
}

#[test]
fn gemma3_files_compute_what_llama_cpp_computes() {
    assert_family("gemma3");
}
