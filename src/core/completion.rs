//! The completion check. A final answer (or a `finish` call) is only a proposal: it ends the run
//! when no tool call is running, no todo is open, no approval pends and no verifier failed.

use super::run::{Phase, RunState, SlotState};

/// What blocks completion right now, as sentences for the model; empty when it may complete.
/// `require_finish` adds a blocker until the finish tool's verifier has passed.
pub fn blockers(run: &RunState, require_finish: bool, finishing: bool) -> Vec<String> {
    let mut out = Vec::new();
    if let Phase::Tools(batch) = &run.phase {
        let running = batch
            .slots
            .iter()
            .filter(|s| matches!(s.state, SlotState::Running))
            .count();
        if running > 0 {
            out.push(format!("{running} tool call(s) are still running."));
        }
        let waiting = batch
            .slots
            .iter()
            .filter(|s| matches!(s.state, SlotState::AwaitingApproval { .. }))
            .count();
        if waiting > 0 {
            out.push(format!("{waiting} tool call(s) still wait for approval."));
        }
    }
    let open: Vec<String> = run
        .open_todos()
        .map(|t| format!("\"{}\" ({})", t.text, t.id))
        .collect();
    if !open.is_empty() {
        out.push(format!(
            "Open todo items: {}. Finish them or mark them done with the todo tool.",
            open.join(", ")
        ));
    }
    if run.verification_failed && !finishing {
        out.push("The last verification failed; fix the problem and call finish again.".into());
    }
    if require_finish && !finishing && run.verified_summary.is_none() {
        out.push(
            "This task must end with the finish tool, whose verifier checks the result.".into(),
        );
    }
    out
}
