//! Opening a session once on a made-up log while the page is idle. The engine compiles a wasm
//! function on its first call, and on a fresh page that compiling, not the work, was most of
//! the first open of a stored session: reading its records, folding them, reading its
//! snapshot back (`benches/compare/ab_sessions.mjs`, see BENCHMARKS.md).

use super::idb_store::parse_lines;
use crate::core::{records_as_lines, Agent};
use crate::runtime::synthetic::session_log;

/// Records in the made-up log: enough for a step with a tool call and the run's end.
const WARM_RECORDS: usize = 24;

/// Writes a made-up log as the store writes it, reads it back as an open does (records, then a
/// snapshot of them with the last record as its tail) and returns whether both reads fold to
/// the same state, which they always should.
pub fn warm_opening() -> bool {
    let log = session_log(WARM_RECORDS, "warm");
    let Ok(read) = parse_lines("warm", &records_as_lines(&log), 0) else {
        return false;
    };
    let (Ok(replayed), Some(last)) = (Agent::replay(&read), read.last()) else {
        return false;
    };
    let Some(write) = replayed.snapshot(last, 0) else {
        return false;
    };
    let tail = std::slice::from_ref(last);
    Agent::from_snapshot_parts(&write.head, &write.parts, tail)
        .is_some_and(|(opened, _)| opened.state() == replayed.state())
}
