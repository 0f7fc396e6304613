//! The layering of shared/DESIGN.md, checked by reading the sources: the loop core and the
//! wire protocol stay pure (no browser crates, no async, no clock, no randomness), imports flow
//! one way (protocol ← core ← ports ← runtime ← view ← web, ui ← app; ui never imports web),
//! the event log is a leaf, and no source file passes 500 lines (the engine's included).
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
    rust_files(Path::new("src/providers"), &mut files);
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

/// The layers in import order: a layer may import only the layers before it. `core` and
/// `providers` share a rank, as do `web` and `ui`: neither of a pair may import the other.
const LAYERS: [(&str, u32); 9] = [
    ("protocol", 0),
    ("core", 1),
    ("providers", 1),
    ("ports", 2),
    ("runtime", 3),
    ("view", 4),
    ("web", 5),
    ("ui", 5),
    ("app", 6),
];

fn rank(layer: &str) -> Option<u32> {
    LAYERS.iter().find(|(l, _)| *l == layer).map(|(_, r)| *r)
}

/// The layer of a source file (`src/<layer>/...` or `src/<layer>.rs`).
fn layer_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix("src").ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    rank(name).map(|_| name.to_string())
}

/// Every `crate::<layer>` a file's code (comments aside) names.
fn imported_layers(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if rank(&name).is_some() {
                out.push((n + 1, name));
            }
            rest = after;
        }
    }
    out
}

#[test]
fn imports_flow_one_way_through_the_layers_and_ui_never_imports_web() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let mut checked = 0;
    let mut violations = Vec::new();
    for file in &files {
        let Some(layer) = layer_of(file) else {
            continue;
        };
        let own = rank(&layer).unwrap();
        let text = fs::read_to_string(file).unwrap();
        for (line, imported) in imported_layers(&text) {
            checked += 1;
            if imported == layer {
                continue;
            }
            let other = rank(&imported).unwrap();
            if other >= own {
                violations.push(format!(
                    "{}:{line}: {layer} imports {imported}",
                    file.display()
                ));
            }
        }
    }
    assert!(checked > 100, "found the imports ({checked})");
    assert_eq!(violations, Vec::<String>::new());
}

#[test]
fn the_layer_check_catches_an_upward_or_sideways_import() {
    let upward = imported_layers("use crate::runtime::Driver; // crate::web in a comment");
    assert_eq!(upward, vec![(1, "runtime".to_string())]);
    assert!(rank("runtime").unwrap() > rank("core").unwrap());
    assert_eq!(
        rank("web"),
        rank("ui"),
        "siblings: neither may import the other"
    );
    assert_eq!(
        layer_of(Path::new("src/ui/actions.rs")).as_deref(),
        Some("ui")
    );
    assert_eq!(layer_of(Path::new("src/app.rs")).as_deref(), Some("app"));
    assert_eq!(layer_of(Path::new("src/lib.rs")), None);
}

#[test]
fn source_files_stay_small() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    rust_files(Path::new("engine/src"), &mut files);
    assert!(
        files.iter().any(|f| f.starts_with("engine/src")),
        "found the engine's sources"
    );
    let mut too_big = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        // Lines before the unit tests count.
        let body = text.split("#[cfg(test)]").next().unwrap_or("");
        let lines = body.lines().count();
        if lines > 500 {
            too_big.push(format!("{} has {lines} lines", file.display()));
        } else if lines > 300 {
            // Over the aim, under the cap: reported, not failed.
            println!("over the 300-line aim: {} ({lines} lines)", file.display());
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

#[test]
fn protocol_holds_the_wire_types_alone() {
    let mut files = Vec::new();
    rust_files(Path::new("src/protocol"), &mut files);
    let mut names: Vec<String> = files
        .iter()
        .map(|f| {
            f.strip_prefix("src/protocol")
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "message.rs",
            "mod.rs",
            "model.rs",
            "request_messages.rs",
            "stream.rs"
        ],
        "provider adapters, parsers and policies belong in src/providers"
    );
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        assert!(
            !text.contains("crate::providers"),
            "{} imports the adapters",
            file.display()
        );
    }
}

#[test]
fn serde_is_the_one_serialization_stack() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let mut violations = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            // A field list of its own for a reader or writer, or a JSON trait beside serde's.
            let private = [
                "json_struct!",
                "json_tagged!",
                "json_names!",
                "json_external!",
            ]
            .iter()
            .any(|m| code.contains(m))
                || code.contains("trait ToJson")
                || code.contains("trait FromJson")
                || (code.contains("macro_rules!") && code.contains("json"));
            if private {
                violations.push(format!("{}:{}: {}", file.display(), n + 1, code.trim()));
            }
        }
    }
    assert_eq!(violations, Vec::<String>::new());
}

/// The code of a file, line by line, comments dropped (`//` to the end of a line).
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(n, line)| (n + 1, line.split("//").next().unwrap_or("")))
}

/// Every source file under `dir` with its text.
fn sources(dir: &str) -> Vec<(std::path::PathBuf, String)> {
    let mut files = Vec::new();
    rust_files(Path::new(dir), &mut files);
    files
        .into_iter()
        .map(|f| {
            let text = fs::read_to_string(&f).unwrap();
            (f, text)
        })
        .collect()
}

#[test]
fn types_serialise_by_derive_and_only_a_plain_list_delegates_by_hand() {
    let mut by_hand = Vec::new();
    for (file, text) in sources("src") {
        for (n, code) in code_lines(&text) {
            let manual = code.contains("impl Serialize for")
                || code.contains("impl serde::Serialize for")
                || code.contains("Deserialize<'de> for")
                || code.contains("Serializer for")
                || code.contains("Visitor<'de> for");
            if manual {
                by_hand.push(format!("{}:{n}", file.display()));
            }
        }
    }
    // `RequestMessages` is a shared view of a list: it writes and reads as that list, handing
    // both to serde's own `Vec<Message>` impls. Anything else declares its fields by derive.
    assert_eq!(
        by_hand,
        [
            "src/protocol/request_messages.rs:108",
            "src/protocol/request_messages.rs:114"
        ]
    );
}

#[test]
fn every_provider_request_goes_through_gloo_net() {
    let mut direct = Vec::new();
    let mut gloo = Vec::new();
    for (file, text) in sources("src") {
        for (n, code) in code_lines(&text) {
            // `fetch` by hand: the request types of web_sys, or the global bound by an extern.
            let by_hand = code.contains("web_sys::Request")
                || code.contains("RequestInit")
                || code.contains("js_name = fetch")
                || code.contains("fn fetch(");
            if by_hand {
                direct.push(format!("{}:{n}: {}", file.display(), code.trim()));
            }
            if code.contains("gloo_net::http") {
                gloo.push(file.display().to_string());
            }
        }
    }
    assert_eq!(direct, Vec::<String>::new(), "HTTP goes through gloo_net");
    assert_eq!(gloo, ["src/web/http_stream.rs"]);
    // The remote model client sends every attempt through that one function.
    let remote = fs::read_to_string("src/web/remote_client.rs").unwrap();
    assert!(remote.contains("use crate::web::http_stream::{post_json"));
}

#[test]
fn objects_cross_the_js_boundary_through_serde_wasm_bindgen() {
    // The one conversion, and who calls it.
    let bridge = fs::read_to_string("src/web/js_value.rs").unwrap();
    assert!(bridge.contains("serde_wasm_bindgen::from_value"));
    assert!(bridge.contains("serde_wasm_bindgen::Serializer::json_compatible"));
    let mut text_crossings = Vec::new();
    let mut users = 0;
    for (file, text) in sources("src") {
        let name = file.display().to_string();
        if text.contains("js_value::") || text.contains("js_value::{") {
            users += 1;
        }
        for (n, code) in code_lines(&text) {
            // Two measured exceptions: js_value.rs's route for integers beyond 2^53, and the
            // session list (api.rs says why, with the benchmark).
            let allowed = name == "src/web/js_value.rs"
                || (name == "src/web/api.rs" && code.contains("JSON::parse(&listing_json("));
            if (code.contains("JSON::parse") || code.contains("JSON::stringify")) && !allowed {
                text_crossings.push(format!("{name}:{n}"));
            }
            if code.contains("serde_wasm_bindgen") && name != "src/web/js_value.rs" {
                text_crossings.push(format!(
                    "{name}:{n}: serde_wasm_bindgen outside js_value.rs"
                ));
            }
        }
    }
    assert!(
        users >= 8,
        "the API, tools, stop hook, sampler, files, local model ({users})"
    );
    // No other JSON text is made or read by the browser's JSON object from Rust: stored records
    // cross as the stored text itself (idb_store.rs says why), everything else as objects.
    assert_eq!(text_crossings, Vec::<String>::new());
}

#[test]
fn protocol_is_free_of_logic() {
    let mut violations = Vec::new();
    for (file, text) in sources("src/protocol") {
        let name = file.display().to_string();
        let mut body_start = None;
        for (n, code) in code_lines(&text) {
            // No loops, no async, nothing of the crate beyond the wire types themselves.
            let logic = [" for ", "while ", "loop {", "async ", ".await"]
                .iter()
                .any(|k| code.contains(k) && !code.trim_start().starts_with("impl"))
                || (code.contains("crate::") && !code.contains("crate::protocol"));
            if logic {
                violations.push(format!("{name}:{n}: {}", code.trim()));
            }
            // Accessors stay short: a function body over 30 lines is logic to move out.
            if code.trim_start().starts_with("pub fn ") || code.trim_start().starts_with("fn ") {
                body_start = Some(n);
            }
            if code.starts_with("    }") || code.starts_with('}') {
                if let Some(start) = body_start.take() {
                    if n - start > 30 {
                        violations
                            .push(format!("{name}:{start}: a function of {} lines", n - start));
                    }
                }
            }
        }
    }
    assert_eq!(violations, Vec::<String>::new());
}

#[test]
fn every_port_trait_lives_in_ports() {
    let mut elsewhere = Vec::new();
    let mut in_ports = Vec::new();
    for (file, text) in sources("src") {
        for (n, code) in code_lines(&text) {
            let declared = code.trim_start();
            if !(declared.starts_with("pub trait ") || declared.starts_with("pub(crate) trait ")) {
                continue;
            }
            let trait_name: String = declared
                .split("trait ")
                .nth(1)
                .unwrap()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if file.starts_with("src/ports") {
                in_ports.push(trait_name);
            } else {
                elsewhere.push(format!("{}:{n}: {trait_name}", file.display()));
            }
        }
    }
    assert_eq!(elsewhere, Vec::<String>::new(), "public traits are ports");
    in_ports.sort();
    assert_eq!(
        in_ports,
        [
            "Clock",
            "DynFiles",
            "DynStore",
            "EventStore",
            "Files",
            "ModelClient",
            "ModelLibrary",
            "Platform",
            "PortSet",
            "ToolHost"
        ]
    );
}

#[test]
fn adapters_are_named_in_the_composition_root_alone() {
    // The concrete adapters a session runs on are built in app/ only.
    let built = [
        "IdbStore::default()",
        "TabPlatform::new(",
        "AnyModel::from_options(",
        "JsToolHost::new(",
        "Sampler::new(",
        "SessionService::new(",
    ];
    let mut outside = Vec::new();
    for (file, text) in sources("src") {
        if file.starts_with("src/app") {
            continue;
        }
        for (n, code) in code_lines(&text) {
            if built.iter().any(|b| code.contains(b)) {
                outside.push(format!("{}:{n}: {}", file.display(), code.trim()));
            }
        }
    }
    assert_eq!(outside, Vec::<String>::new());
}

#[test]
fn errors_above_the_js_boundary_are_typed() {
    // Every error is an enum with `Display` (the JS API and the playground show that text).
    let mut stringly = Vec::new();
    for (file, text) in sources("src") {
        for (n, code) in code_lines(&text) {
            if code.contains("Result<") && code.contains(", String>") {
                stringly.push(format!("{}:{n}: {}", file.display(), code.trim()));
            }
        }
    }
    assert_eq!(stringly, Vec::<String>::new());
}
