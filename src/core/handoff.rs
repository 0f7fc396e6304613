//! The handoff report: what a run that did not complete leaves for the next person (or run) —
//! progress so far, confirmed findings and where it got stuck — built from the folded log.

use serde::{Deserialize, Serialize};

use super::run::RunState;

/// A report for a run that stopped without completing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandoffReport {
    /// The task.
    pub task: String,
    /// Steps and tool calls made, per tool.
    pub progress: Vec<String>,
    /// Results that came back successfully (most recent last).
    pub findings: Vec<String>,
    /// Errors, loop-detector notes and open items.
    pub stuck_on: Vec<String>,
    /// The model's last words.
    pub last_message: String,
}

impl HandoffReport {
    /// Builds the report from a run's state.
    pub fn from_run(run: &RunState) -> Self {
        let mut progress = vec![format!(
            "{} step(s), {} tool call(s), {} input and {} output tokens, ${:.4}.",
            run.step,
            run.ledger.tool_calls,
            run.ledger.input_tokens(),
            run.ledger.usage.output_tokens,
            run.ledger.cost_usd
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

    /// The report as Markdown-free plain text, for the UI and the model.
    pub fn to_text(&self) -> String {
        let mut s = format!("Task: {}\n", self.task);
        let mut section = |title: &str, items: &[String]| {
            if !items.is_empty() {
                s.push_str(title);
                s.push('\n');
                for item in items {
                    s.push_str("- ");
                    s.push_str(item);
                    s.push('\n');
                }
            }
        };
        section("Progress:", &self.progress);
        section("Findings:", &self.findings);
        section("Stuck on:", &self.stuck_on);
        if !self.last_message.is_empty() {
            s.push_str("Last message: ");
            s.push_str(&self.last_message);
            s.push('\n');
        }
        s
    }
}
