//! The loop core and the wire protocol stay pure: no browser crates, no async, no clock, no
//! randomness. This reads the sources, so a forbidden import fails the build's tests.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::Path;

const FORBIDDEN: [&str; 12] = [
    "wasm_bindgen",
    "web_sys",
    "js_sys",
    "gloo",
    "leptos",
    "async fn",
    ".await",
    "std::time",
    "SystemTime",
    "Instant::now",
    "rand::",
    "std::thread",
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn core_and_protocol_import_no_browser_crate_async_or_clock() {
    let mut files = Vec::new();
    rust_files(Path::new("src/core"), &mut files);
    rust_files(Path::new("src/protocol"), &mut files);
    assert!(files.len() > 20, "found the sources");
    let mut violations = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for word in FORBIDDEN {
                if code.contains(word) {
                    violations.push(format!("{}:{}: {}", file.display(), n + 1, word));
                }
            }
        }
    }
    assert_eq!(violations, Vec::<String>::new());
}

#[test]
fn core_does_not_depend_on_layers_above_it() {
    let mut files = Vec::new();
    rust_files(Path::new("src/core"), &mut files);
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for layer in [
            "crate::ports",
            "crate::runtime",
            "crate::web",
            "crate::ui",
            "crate::app",
        ] {
            assert!(!text.contains(layer), "{} imports {layer}", file.display());
        }
    }
}

#[test]
fn source_files_stay_small() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let mut too_big = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        // Lines before the unit tests count.
        let body = text.split("#[cfg(test)]").next().unwrap_or("");
        let lines = body.lines().count();
        if lines > 500 {
            too_big.push(format!("{} has {lines} lines", file.display()));
        }
    }
    assert_eq!(too_big, Vec::<String>::new());
}

#[test]
fn the_event_log_is_a_leaf_that_imports_nothing_of_the_live_fold() {
    let mut files = Vec::new();
    rust_files(Path::new("src/core/log"), &mut files);
    assert!(files.len() >= 5, "found the log's sources");
    let mut violations = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            // Inside the log only sibling modules (`super::x` from a file of `log/`) and the
            // wire protocol may be named.
            let reaches_out = code.contains("super::super")
                || code.contains("crate::core")
                || (code.contains("crate::") && !code.contains("crate::protocol"));
            if reaches_out {
                violations.push(format!("{}:{}: {}", file.display(), n + 1, code.trim()));
            }
        }
    }
    assert_eq!(violations, Vec::<String>::new());
}
