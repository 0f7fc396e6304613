//! The completion check. A final answer (or a `finish` call) is only a proposal: it ends the run
//! when no todo is open and no verifier failed (and, with `require_finish`, a verifier passed).
//! Tool calls still running or waiting for approval cannot block it: between steps no call is
//! in flight, and a batch holding `finish` runs its calls one at a time in the model's order, so
//! every call before `finish` has its result when `finish` is checked.

use super::run::RunState;

/// What blocks completion right now, as sentences for the model; empty when it may complete.
/// `require_finish` adds a blocker until the finish tool's verifier has passed.
pub fn blockers(run: &RunState, require_finish: bool, finishing: bool) -> Vec<String> {
    let mut out = Vec::new();
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
