//! Building the handoff report from a run's folded state (the report itself is log data).

use super::log::HandoffReport;
use super::run::RunState;

impl HandoffReport {
    /// Builds the report from a run's state.
    pub fn from_run(run: &RunState) -> Self {
        let mut progress = vec![format!(
            "{} step(s), {} tool call(s), {} input and {} output tokens, ${}.",
            run.step,
            run.ledger.tool_calls,
            run.ledger.input_tokens(),
            run.ledger.usage.output_tokens,
            format!("{:.4}", run.ledger.cost_usd)
        )];
        progress.extend(
            run.tool_stats
                .iter()
                .map(|(tool, (calls, errors))| format!("{tool}: {calls} call(s), {errors} failed")),
        );
        let mut stuck_on: Vec<String> = run.errors.iter().cloned().collect();
        stuck_on.extend(run.open_todos().map(|t| format!("open todo: {}", t.text)));
        Self {
            task: run.task.clone(),
            progress,
            findings: run.findings.iter().cloned().collect(),
            stuck_on,
            last_message: run.last_text.clone(),
        }
    }
}
