//! The handoff report as the log records it: what a run that did not complete leaves for the
//! next person (or run) — progress so far, confirmed findings and where it got stuck.

use serde::{Deserialize, Serialize};

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
