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
        // Under the reflective rules the detector's evidence and the model's own account say
        // where the run is stuck; a tail of raw errors is only the fallback.
        let mut stuck_on: Vec<String> = run
            .progress
            .as_ref()
            .map(|p| p.stuck_on())
            .filter(|lines| !lines.is_empty())
            .unwrap_or_else(|| run.errors.iter().cloned().collect());
        stuck_on.extend(run.open_todos().map(|t| format!("open todo: {}", t.text)));
        if run.consecutive_blocks > 0 {
            stuck_on.push(format!(
                "a final answer was not accepted {} time(s) in a row: {}",
                run.consecutive_blocks,
                if run.verification_failed {
                    "the finish verifier refused it"
                } else {
                    "no verified finish"
                }
            ));
        }
        if let Some(tried) = run
            .progress
            .as_ref()
            .and_then(|p| p.reflection.as_ref())
            .filter(|r| !r.tried.is_empty())
        {
            progress.push(format!("tried: {}", tried.tried.join("; ")));
        }
        Self {
            task: run.task.clone(),
            progress,
            findings: run.findings.iter().cloned().collect(),
            stuck_on,
            last_message: run.last_text.clone(),
        }
    }
}
