//! What a session is configured with: tools and their policies, budgets, guard thresholds,
//! prices and context limits. Persisted in `SessionStarted`, so replay needs nothing else.

use serde::{Deserialize, Serialize};

use super::budget::BudgetLimits;
use crate::protocol::ToolSpec;

/// Whether a tool may run without asking. Decided by the runtime, never by the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Permission {
    /// Runs without asking.
    Allow,
    /// Waits for a human decision bound to the exact arguments.
    Ask,
    /// Never runs; the model is told it was denied.
    Deny,
}

/// Who executes a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// A capability performed by the tool host (JavaScript in the browser).
    Host,
    /// The model's task list, kept by the core itself. Open items block completion.
    Todo,
    /// Ends the run when the host-side verifier passes; its failure goes back as an error.
    Finish,
    /// Ends the run as `gave_up` with the model's account of where it is stuck.
    GiveUp,
}

/// What one approval of an `ask` tool covers beyond the call itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ApprovalScope {
    /// Every later call in the session whose URL argument (named here) has the same host.
    UrlHost(String),
}

impl ApprovalScope {
    /// The scope key of a call with these arguments (`None` when the argument is missing or is
    /// not a URL with a host: such a call is asked about on its own).
    pub fn key(&self, args: &serde_json::Value) -> Option<String> {
        match self {
            ApprovalScope::UrlHost(arg) => {
                let url = args.get(arg)?.as_str()?.trim();
                let (scheme, rest) = url.split_once("://")?;
                let authority = rest.split(['/', '?', '#']).next()?;
                let host = authority.rsplit('@').next()?.to_ascii_lowercase();
                // The scheme's default port names the same host.
                let default_port = match scheme.to_ascii_lowercase().as_str() {
                    "https" => ":443",
                    "http" => ":80",
                    _ => "",
                };
                let host = match host.strip_suffix(default_port) {
                    Some(bare) if !default_port.is_empty() => bare.to_string(),
                    Some(_) | None => host,
                };
                (!host.is_empty()).then_some(host)
            }
        }
    }
}

/// A tool as the core knows it: what the model is told plus how the runtime treats it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDecl {
    /// Name, description and JSON Schema shown to the model.
    pub spec: ToolSpec,
    /// Allow, ask or deny.
    pub permission: Permission,
    /// Safe to run again after an interruption (a GET, a read).
    pub idempotent: bool,
    /// Safe to run concurrently with the other calls of the same reply.
    pub parallel_safe: bool,
    /// Who executes it.
    pub kind: ToolKind,
    /// What an approval of an `ask` call also covers (e.g. the same host).
    #[serde(default)]
    pub approval_scope: Option<ApprovalScope>,
}

/// Loop-detection thresholds (see `loop_guard`). All counts are of tool observations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardThresholds {
    /// Same action on the same state with no new evidence: inject a diagnosis at this count.
    pub repeat_diagnose: u32,
    /// ... and stop with `no_progress` at this count.
    pub repeat_stop: u32,
    /// A-B-A-B alternation: diagnose after this many alternating observations.
    pub thrash_diagnose: u32,
    /// ... and stop after this many.
    pub thrash_stop: u32,
    /// Identical observations while actions vary: diagnose at this many in a row.
    pub stagnation_diagnose: u32,
    /// ... and stop at this many.
    pub stagnation_stop: u32,
    /// The same error (tool + message), whatever the arguments: diagnose at this count.
    pub error_repeat_diagnose: u32,
    /// ... and stop at this count.
    pub error_repeat_stop: u32,
    /// A reply that is the call that just succeeded, unchanged, ends the run with that call's
    /// result as the answer instead of running it again. Small local models ask for the same
    /// call again once a task is done rather than answering; on for them by default.
    #[serde(default)]
    pub end_on_repeated_success: bool,
    /// How a run that is beaten is handled: similarity-based detectors, forced reflections,
    /// overdue milestones and the budget endgame. `None` in sessions written before they
    /// existed, which keep the first rules (exact repeats only) so their logs replay the same.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reflective: Option<ReflectivePolicy>,
}

/// What the runtime does when a run stops making progress (see `core::reflect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReflectivePolicy {
    /// Forced "status + path" reflections a run gets at most.
    pub max_reflections: u32,
    /// After a reflection, observations in a row with nothing new that end the run.
    pub stop_after_reflection: u32,
    /// Steps an open todo may go with no new evidence before it is overdue (0: never).
    pub milestone_steps: u32,
    /// What an overdue milestone comes to when a reflection did not help.
    pub overdue: OverdueAction,
    /// Share of a budget, in percent, after which a run with no new evidence lately is asked
    /// to finish or give up (0: never).
    pub endgame_percent: u32,
    /// Steps with no new evidence that make the endgame question due.
    pub endgame_quiet_steps: u32,
}

impl Default for ReflectivePolicy {
    fn default() -> Self {
        Self {
            max_reflections: 2,
            stop_after_reflection: 2,
            milestone_steps: 8,
            overdue: OverdueAction::AskHuman,
            endgame_percent: 75,
            endgame_quiet_steps: 3,
        }
    }
}

/// Where an overdue milestone ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverdueAction {
    /// The run ends `needs_human`: a person decides how to go on.
    AskHuman,
    /// The run ends `no_progress`.
    GiveUp,
}

impl Default for GuardThresholds {
    fn default() -> Self {
        Self {
            repeat_diagnose: 3,
            repeat_stop: 5,
            thrash_diagnose: 4,
            thrash_stop: 6,
            stagnation_diagnose: 4,
            stagnation_stop: 6,
            error_repeat_diagnose: 3,
            error_repeat_stop: 5,
            end_on_repeated_success: false,
            reflective: Some(ReflectivePolicy::default()),
        }
    }
}

/// USD prices per million tokens of one model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Uncached input tokens (and cache writes).
    pub input_per_mtok: f64,
    /// Output tokens.
    pub output_per_mtok: f64,
    /// Input tokens read from the provider's cache.
    pub cached_input_per_mtok: f64,
}

/// Everything that shapes a session's loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentConfig {
    /// System prompt given to the model.
    pub system: Option<String>,
    /// Tools offered to the model.
    pub tools: Vec<ToolDecl>,
    /// Default limits of each run.
    pub budget: BudgetLimits,
    /// Loop-detection thresholds.
    pub guard: GuardThresholds,
    /// Consecutive failed observations (tool errors, invalid calls) that stop the run.
    pub max_consecutive_errors: u32,
    /// Consecutive rejected completion proposals before the run stops needing a human.
    pub max_completion_blocks: u32,
    /// Consecutive replies cut at the output limit that are continued before stopping.
    pub max_output_recoveries: u32,
    /// A final answer is accepted only after the `finish` tool's verifier passed.
    pub require_finish: bool,
    /// The host has a verifier for `finish`. Without one a `finish` call is not sent to the host:
    /// the core records it as a claim nobody checked and ends the run as `unverified_finish`.
    #[serde(default)]
    pub finish_verifier: bool,
    /// The model's context window in tokens.
    pub context_window: u64,
    /// Compact when the projected context exceeds this share of the window.
    pub compaction_threshold: f64,
    /// Messages kept verbatim after a compaction.
    pub compaction_keep_recent: usize,
    /// Output-token cap of each model call.
    pub max_output_tokens: u32,
    /// Prices of the model in use, for the cost budget.
    pub price: Price,
    /// Longest tool result kept in context, in characters; longer ones are cut with a note.
    pub max_observation_chars: usize,
    /// The model sees the current run only (its task and steps), not the runs before it in the
    /// session. Why: a small in-tab model copies its earlier replies into a new task (after a
    /// story, "Create a file todo.md" and "What files do I have?" were both answered with it).
    /// The log keeps everything; only the requests leave the earlier runs out.
    #[serde(default)]
    pub context_per_task: bool,
    /// Which model the session talks to (kind, base URL, model name; never a key), opaque to
    /// the core, kept so a reopened session calls the same model.
    #[serde(default)]
    pub provider: serde_json::Value,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            system: None,
            tools: Vec::new(),
            budget: BudgetLimits::default(),
            guard: GuardThresholds::default(),
            max_consecutive_errors: 3,
            max_completion_blocks: 8,
            max_output_recoveries: 3,
            require_finish: false,
            finish_verifier: false,
            context_window: 8192,
            compaction_threshold: 0.8,
            compaction_keep_recent: 6,
            max_output_tokens: 1024,
            price: Price::default(),
            max_observation_chars: 16_000,
            context_per_task: false,
            provider: serde_json::Value::Null,
        }
    }
}

impl AgentConfig {
    /// The declaration of the tool called `name`, if offered.
    pub fn tool(&self, name: &str) -> Option<&ToolDecl> {
        self.tools.iter().find(|t| t.spec.name == name)
    }
}
