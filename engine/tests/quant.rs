//! Every quantized type the engine reads decodes as ggml does: random blocks of each
//! (tests/fixtures/quant_blocks.json) against the values the PyPI gguf package, ggml's reference
//! formulas in numpy, decodes them to (make_quant_fixture.py).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use tabloop_engine::gguf::TensorType;
use tabloop_engine::quant::decode_row;

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn every_quantized_type_decodes_as_ggml_decodes_it() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/quant_blocks.json"
    );
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let types = [
        ("Q4_0", TensorType::Q4_0),
        ("Q4_1", TensorType::Q4_1),
        ("Q5_0", TensorType::Q5_0),
        ("Q5_1", TensorType::Q5_1),
        ("Q8_0", TensorType::Q8_0),
        ("Q4_K", TensorType::Q4_K),
        ("Q5_K", TensorType::Q5_K),
        ("Q6_K", TensorType::Q6_K),
        ("BF16", TensorType::BF16),
        ("F16", TensorType::F16),
    ];
    for (name, kind) in types {
        let case = &fixture[name];
        let bytes = hex(case["bytes"].as_str().unwrap());
        let expected: Vec<f32> = case["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        let (per_block, block_bytes) = kind.block().unwrap();
        assert_eq!(
            bytes.len() / block_bytes * per_block,
            expected.len(),
            "{name}"
        );
        let mut got = vec![f32::NAN; expected.len()];
        decode_row(kind, &bytes, &mut got);
        for (i, (a, b)) in got.iter().zip(&expected).enumerate() {
            assert!(
                (a - b).abs() <= 1e-6 * b.abs().max(1.0),
                "{name} value {i}: {a} against ggml's {b}"
            );
        }
    }
}
