//! Shared by the fuzz targets and by the regression tests that replay what they found
//! (`tests/fuzz_regressions.rs` and `engine/tests/fuzz_regressions.rs` include this file's
//! functions through `fuzz/src/checks.rs`): each `check_*` function runs one parser on one input
//! and panics only when the parser misbehaves (a panic inside it, or an output that breaks its
//! promise), never on input the parser rightly refuses.

pub mod checks;
pub mod gguf_writer;
pub mod inert_html;
