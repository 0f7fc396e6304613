//! The file browser's tree from a volume's flat file list: directories derived from the paths,
//! each before what it holds, indented by depth; download names and upload paths.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;
use tabloop::ports::FileEntry;
use tabloop::view::{download_name, file_tree, upload_path, TreeRow};

fn file(path: &str, size: u64) -> FileEntry {
    FileEntry {
        path: path.to_string(),
        size,
        modified_at: 0,
    }
}

fn row(path: &str, name: &str, depth: usize, size: Option<u64>) -> TreeRow {
    TreeRow {
        path: path.to_string(),
        name: name.to_string(),
        depth,
        size,
    }
}

#[test]
fn directories_come_from_the_paths_and_precede_their_files_in_path_order() {
    let files = [
        file("/notes/todo.md", 12),
        file("/a.txt", 1),
        file("/notes/deep/x.js", 30),
        file("/notes/b.md", 5),
        file("/z/y.txt", 2),
    ];
    assert_eq!(
        file_tree(&files),
        vec![
            row("/a.txt", "a.txt", 0, Some(1)),
            row("/notes", "notes", 0, None),
            row("/notes/b.md", "b.md", 1, Some(5)),
            row("/notes/deep", "deep", 1, None),
            row("/notes/deep/x.js", "x.js", 2, Some(30)),
            row("/notes/todo.md", "todo.md", 1, Some(12)),
            row("/z", "z", 0, None),
            row("/z/y.txt", "y.txt", 1, Some(2)),
        ]
    );
}

#[test]
fn a_directory_is_listed_once_even_when_a_sibling_directory_shares_a_prefix() {
    let files = [
        file("/ab/1", 1),
        file("/a/b/2", 2),
        file("/a/c", 3),
        file("/a/b/3", 4),
    ];
    let paths: Vec<(String, bool)> = file_tree(&files)
        .into_iter()
        .map(|r| (r.path.clone(), r.is_dir()))
        .collect();
    assert_eq!(
        paths,
        vec![
            ("/a".to_string(), true),
            ("/a/b".to_string(), true),
            ("/a/b/2".to_string(), false),
            ("/a/b/3".to_string(), false),
            ("/a/c".to_string(), false),
            ("/ab".to_string(), true),
            ("/ab/1".to_string(), false),
        ]
    );
}

#[test]
fn an_empty_volume_has_no_rows() {
    assert_eq!(file_tree(&[]), Vec::<TreeRow>::new());
}

#[test]
fn downloads_are_named_after_the_last_segment_and_uploads_land_in_the_folder() {
    assert_eq!(download_name("/notes/todo.md"), "todo.md");
    assert_eq!(download_name("/"), "file");
    assert_eq!(upload_path("", "a.txt"), "/a.txt");
    assert_eq!(upload_path("/", "a.txt"), "/a.txt");
    assert_eq!(upload_path("/notes", "a.txt"), "/notes/a.txt");
}
