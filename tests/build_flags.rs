//! The build settings a measurement chose, held so that a tidy-up cannot drop them unnoticed.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;

/// The lines of `table` in a TOML file (from its header to the next header).
fn table_lines<'a>(text: &'a str, table: &str) -> Vec<&'a str> {
    let header = format!("[{table}]");
    text.lines()
        .skip_while(|line| line.trim() != header)
        .skip(1)
        .take_while(|line| !line.trim_start().starts_with('['))
        .filter(|line| !line.trim_start().starts_with('#'))
        .collect()
}

#[test]
fn the_app_wasm_is_built_with_the_measured_inline_threshold() {
    // The app's size-first build inlines serde's small calls at this threshold; without it a
    // step is about 7 % slower (see .cargo/config.toml and BENCHMARKS.md).
    let config = fs::read_to_string(".cargo/config.toml").unwrap();
    let lines = table_lines(&config, "target.wasm32-unknown-unknown");
    let flags: Vec<&&str> = lines.iter().filter(|l| l.contains("rustflags")).collect();
    assert_eq!(
        flags.len(),
        1,
        "no rustflags for the app's wasm build: {lines:?}"
    );
    assert!(
        flags[0].contains(r#""llvm-args=-inline-threshold=50""#),
        "the app's wasm rustflags lost the inline threshold: {}",
        flags[0]
    );
}

#[test]
fn every_engine_build_sets_its_own_rustflags() {
    // The engine is built for speed; the app's lower inline threshold must not reach it. Cargo
    // takes RUSTFLAGS from the environment in place of the config's, so each engine build
    // setting it is enough.
    let script = fs::read_to_string("scripts/build-engine.sh").unwrap();
    let code: Vec<&str> = script
        .lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .collect();
    let builds: Vec<usize> = (0..code.len())
        .filter(|&i| code[i].contains("cargo build") && code[i].contains("tabloop-engine"))
        .collect();
    assert!(
        !builds.is_empty(),
        "no engine build found in scripts/build-engine.sh"
    );
    for i in builds {
        // The command may continue a line that set the environment (`\` at its end).
        let command = if i > 0 && code[i - 1].trim_end().ends_with('\\') {
            format!("{} {}", code[i - 1], code[i])
        } else {
            code[i].to_string()
        };
        assert!(
            command.contains("RUSTFLAGS="),
            "an engine build inherits the app's rustflags: {command}"
        );
    }
}
