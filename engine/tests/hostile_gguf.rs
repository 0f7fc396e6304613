//! The hostile-GGUF corpus (scripts/hostile_gguf.py writes it into target/hostile-gguf/; the
//! set-up runs it): every file is refused with an error that names what is wrong, both when the
//! whole file is in memory and when it is read as the worker reads it (header first, then one
//! tensor at a time), in bounded time; the valid file beside them loads and answers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tabloop_engine::sampling::Sampling;
use tabloop_engine::session::Session;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/hostile-gguf")
}

fn load_reading(bytes: &[u8]) -> Result<Session, String> {
    Session::load_reading(
        bytes.len(),
        |at, buf| {
            let end = at + buf.len();
            buf.copy_from_slice(bytes.get(at..end).ok_or("read past the end")?);
            Ok(())
        },
        256,
        1,
    )
    .map_err(|e| e.to_string())
}

#[test]
fn every_hostile_file_is_refused_with_an_error_naming_what_is_wrong() {
    let dir = corpus();
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json"))
            .expect("run scripts/synthetic-models.sh (it writes target/hostile-gguf)"),
    )
    .unwrap();
    let files = manifest["files"].as_array().unwrap();
    assert!(files.len() >= 30, "the corpus has {} files", files.len());
    let mut wrong = Vec::new();
    for entry in files {
        let name = entry["file"].as_str().unwrap();
        let expect = entry["expect"].as_str().unwrap().to_lowercase();
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let start = Instant::now();
        let whole = Session::load(&bytes, 256, 1)
            .map(|_| ())
            .map_err(|e| e.to_string());
        let streamed = load_reading(&bytes).map(|_| ());
        let took = start.elapsed();
        for (how, outcome) in [("whole", &whole), ("streamed", &streamed)] {
            match outcome {
                Ok(()) => wrong.push(format!("{name} ({how}): loaded")),
                Err(e) if !expect.split('|').any(|x| e.to_lowercase().contains(x)) => {
                    wrong.push(format!("{name} ({how}): {e:?} does not say {expect:?}"))
                }
                Err(_) => {}
            }
        }
        if took > Duration::from_secs(5) {
            wrong.push(format!("{name}: took {took:?}"));
        }
    }
    assert_eq!(wrong, Vec::<String>::new());
}

#[test]
fn the_valid_file_beside_them_loads_and_answers() {
    let bytes = std::fs::read(corpus().join("valid.gguf")).unwrap();
    let mut session = load_reading(&bytes).unwrap();
    session
        .begin(
            "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
            None,
            Sampling::Greedy,
            4,
        )
        .unwrap();
    while session.feed(64).unwrap() > 0 {}
    session.next(0.5).unwrap();
}
