//! The synthetic session log the browser benchmark imports: long, replayable, finished.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use tabloop::core::{Agent, Event, StopReason};
use tabloop::runtime::synthetic::session_log;

#[test]
fn a_synthetic_log_has_the_asked_length_replays_and_ends_cancelled() {
    let log = session_log(1_000, "bench-1");
    assert!(
        log.len() >= 1_000 && log.len() < 1_010,
        "{} records",
        log.len()
    );
    let agent = Agent::replay(&log).unwrap();
    assert_eq!(agent.state().session, "bench-1");
    assert!(agent.state().run.is_some());
    let last = &log.last().unwrap().event;
    let Event::RunFinished { outcome } = last else {
        panic!("the log ends with {last:?}");
    };
    assert_eq!(outcome.stop, StopReason::Cancelled);
}
