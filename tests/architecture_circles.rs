//! No two modules of one folder (of src/ or the engine's engine/src/) need each other: a file
//! that imports a sibling (`super::name::`) is not imported back by it, directly or round a
//! longer circle. A circle means the two files
//! are one piece of code in two places, or that something both need belongs in a third file.
//! A type whose methods are spread over files by topic keeps what those files share in files of
//! its own (`Agent` over src/core/, `IdbStore` over src/web/ with its digest cache in
//! digest_cache.rs), so its own file needs nothing back from them.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The sibling modules each `.rs` file directly in `dir` names through `super::`.
fn sibling_imports(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files: BTreeMap<String, String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            (name, fs::read_to_string(&path).unwrap())
        })
        .collect();
    files
        .iter()
        .filter(|(name, _)| name.as_str() != "mod")
        .map(|(name, text)| {
            // The code before the unit tests, comments left out.
            let body: String = text
                .split("#[cfg(test)]")
                .next()
                .unwrap_or("")
                .lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            let named = files
                .keys()
                .filter(|other| *other != name && *other != "mod")
                .filter(|other| {
                    body.contains(&format!("super::{other}::"))
                        || body.contains(&format!("super::{{{other}::"))
                })
                .cloned()
                .collect();
            (name.clone(), named)
        })
        .collect()
}

/// A circle among `graph`'s nodes, as the names round it, if there is one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            return Some(path[at..].to_vec());
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

fn folders(dir: &Path, out: &mut Vec<PathBuf>) {
    out.push(dir.to_path_buf());
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            folders(&path, out);
        }
    }
}

#[test]
fn no_two_modules_of_a_folder_import_each_other() {
    let mut dirs = Vec::new();
    folders(Path::new("src"), &mut dirs);
    folders(Path::new("engine/src"), &mut dirs);
    let mut circles = Vec::new();
    for dir in &dirs {
        if let Some(found) = circle(&sibling_imports(dir)) {
            circles.push(format!("{}: {}", dir.display(), found.join(" → ")));
        }
    }
    assert_eq!(circles, Vec::<String>::new());
}

#[test]
fn the_circle_check_finds_a_circle_and_passes_a_chain() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in edges {
            g.entry(from.to_string())
                .or_default()
                .insert(to.to_string());
            g.entry(to.to_string()).or_default();
        }
        g
    };
    assert_eq!(circle(&graph(&[("a", "b"), ("b", "c")])), None);
    let found = circle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])).unwrap();
    assert_eq!(found.len(), 3);
    // And it reads the sources: the real tree has sibling imports to check.
    assert!(!sibling_imports(Path::new("src/providers"))
        .values()
        .all(BTreeSet::is_empty));
}
