//! The idle warm-up's made-up input (`web::idb_index`, `web::warm_open`): each part must read
//! and fold as the real code does, or the warm-up stops short and compiles nothing for the first
//! `listSessions` or `createAgent`.

use wasm_bindgen_test::*;

/// The idle warm-up's made-up index parses as a current digest; if it did not, the warm-up
/// would skip the code a listing runs and warm nothing.
#[wasm_bindgen_test]
fn the_warm_up_index_parses_as_a_current_digest() {
    let digest = tabloop::web::idb_index::warm_index_parsing().expect("a current digest");
    assert!(matches!(
        digest.phase(),
        tabloop::core::RunPhase::Finished { .. }
    ));
}

/// The idle warm-up's made-up session is written, read back record by record and from its
/// snapshot, and both reads fold alike; if any part failed, the warm-up would stop short of
/// the code a first open runs.
#[wasm_bindgen_test]
fn the_warm_up_opens_its_made_up_session_from_records_and_from_a_snapshot() {
    assert!(tabloop::web::warm_open::warm_opening());
}

/// The idle warm-up reads its made-up options and tool list from JS objects into a session's
/// configuration that offers the made-up tool; if either read failed, the warm-up would skip
/// the reading code a first `createAgent` runs.
#[wasm_bindgen_test]
fn the_warm_up_reads_made_up_options_and_tools_into_a_configuration() {
    assert!(tabloop::web::warm_open::warm_launch_reading());
}
