//! The file browser's tree, built from a volume's flat file list: a row per directory (derived
//! from the paths, as the volume has no directory records) and per file, indented by depth, in
//! path order with each directory before what it holds.

use crate::ports::FileEntry;

/// One row of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeRow {
    /// Full path from the volume root (`/notes` for a directory, `/notes/a.md` for a file).
    pub path: String,
    /// The last segment.
    pub name: String,
    /// Directories above it (0 at the root).
    pub depth: usize,
    /// A file, with its size in bytes; `None` for a directory.
    pub size: Option<u64>,
}

impl TreeRow {
    /// Whether the row is a directory.
    pub fn is_dir(&self) -> bool {
        self.size.is_none()
    }
}

/// The rows of the tree of `files` (any order in, path order out).
pub fn file_tree(files: &[FileEntry]) -> Vec<TreeRow> {
    let mut sorted: Vec<&FileEntry> = files.iter().collect();
    sorted.sort_by(|a, b| segments(&a.path).cmp(&segments(&b.path)));
    let mut rows = Vec::new();
    let mut open: Vec<&str> = Vec::new();
    for file in sorted {
        let parts = segments(&file.path);
        let Some((name, dirs)) = parts.split_last() else {
            continue;
        };
        let shared = open.iter().zip(dirs).take_while(|(a, b)| a == b).count();
        open.truncate(shared);
        for (depth, dir) in dirs.iter().enumerate().skip(shared) {
            open.push(dir);
            rows.push(TreeRow {
                path: format!("/{}", dirs[..=depth].join("/")),
                name: (*dir).to_string(),
                depth,
                size: None,
            });
        }
        rows.push(TreeRow {
            path: format!("/{}", parts.join("/")),
            name: (*name).to_string(),
            depth: dirs.len(),
            size: Some(file.size),
        });
    }
    rows
}

fn segments(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

/// The name a downloaded file gets: its last segment (`file` for a path without one).
pub fn download_name(path: &str) -> String {
    segments(path)
        .last()
        .map_or_else(|| "file".to_string(), |s| (*s).to_string())
}

/// Where an uploaded file goes: `name` inside directory `dir` (`/` or a directory row's path).
pub fn upload_path(dir: &str, name: &str) -> String {
    let dir = dir.trim_end_matches('/');
    format!("{dir}/{name}")
}
