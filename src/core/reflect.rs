//! Forced reflection and the graceful give-up. When a detector fires, a milestone goes overdue
//! or most of the budget is spent with nothing new, the runtime does not simply push on: it
//! spends one step asking the model for a "status + path" reflection (what is known, what was
//! tried, where it is stuck, what it will do differently, or whether to give up), through a
//! request that offers only the `reflect` tool. If the run is still stuck afterwards, the
//! runtime stops it and the handoff names the repeating calls and the reflection's answer;
//! if the model gives up (in the reflection or with the `give_up` tool), the run ends
//! `gave_up`. Everything is decided from recorded facts, so a replay decides the same.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::protocol::{ModelReply, ToolSpec};

use super::agent::Agent;
use super::log::{
    Detector, Event, HumanReason, OverdueAction, Permission, StopReason, ToolDecl, ToolKind,
    TransitionReason,
};
use super::progress::spent_percent;

/// The tool a reflection request offers.
pub const REFLECT_TOOL: &str = "reflect";

/// The tool that ends a run as `gave_up`.
pub const GIVE_UP_TOOL: &str = "give_up";

/// What a reflection said.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reflection {
    /// Where the task stands.
    pub status: String,
    /// Approaches tried so far.
    pub tried: Vec<String>,
    /// What blocks progress.
    pub stuck_on: Vec<String>,
    /// What the model will do differently.
    pub next: String,
    /// The model concedes.
    pub give_up: bool,
}

impl Reflection {
    /// Reads a reflection reply: the `reflect` call's arguments, else the text as the status.
    pub fn from_reply(reply: &ModelReply) -> Reflection {
        let call = reply.tool_calls.iter().find(|c| c.name == REFLECT_TOOL);
        let args: Value = call
            .and_then(|c| serde_json::from_str(&c.arguments).ok())
            .unwrap_or(Value::Null);
        let text = |key: &str| {
            args.get(key)
                .and_then(Value::as_str)
                .map(|s| s.trim().to_string())
                .unwrap_or_default()
        };
        let list = |key: &str| match args.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .take(8)
                .collect(),
            Some(Value::String(s)) if !s.trim().is_empty() => vec![s.trim().to_string()],
            Some(_) | None => Vec::new(),
        };
        let mut status = text("status");
        if status.is_empty() {
            status = super::hygiene::strip_control_tokens(&reply.text)
                .trim()
                .to_string();
        }
        Reflection {
            status,
            tried: list("tried"),
            stuck_on: list("stuck_on"),
            next: text("next"),
            give_up: args.get("give_up").and_then(Value::as_bool) == Some(true),
        }
    }

    /// The reflection as the model's message in the conversation.
    pub fn to_text(&self) -> String {
        let mut out = format!("Status: {}", self.status);
        if !self.tried.is_empty() {
            out.push_str(&format!("\nTried: {}", self.tried.join("; ")));
        }
        if !self.stuck_on.is_empty() {
            out.push_str(&format!("\nStuck on: {}", self.stuck_on.join("; ")));
        }
        if self.give_up {
            out.push_str("\nI give up.");
        } else if !self.next.is_empty() {
            out.push_str(&format!("\nNext: {}", self.next));
        }
        out
    }
}

/// What the model is asked in a reflection step.
pub fn reflection_prompt(trigger: Detector) -> String {
    let why = match trigger {
        Detector::BudgetEndgame => {
            "Most of this run's budget is spent and the last steps found nothing new. Decide now: \
             finish with what you have, or give up and say where you are stuck."
        }
        Detector::OverdueMilestone => {
            "An open item of your todo list has made no progress for many steps."
        }
        Detector::Repetition
        | Detector::Thrashing
        | Detector::Stagnation
        | Detector::RepeatedError
        | Detector::RepeatedSuccess
        | Detector::ConsecutiveErrors => "Your recent calls are not producing anything new.",
    };
    format!(
        "Stop and reflect before any other call. {why} Call the reflect tool with: status (what \
         you know for certain), tried (the approaches so far), stuck_on (what blocks you), next \
         (a different approach, not one you tried), and give_up: true if the task cannot be \
         done with the tools you have."
    )
}

/// The `reflect` tool a reflection request offers.
pub fn reflect_spec() -> ToolSpec {
    ToolSpec {
        local_parameters: None,
        name: REFLECT_TOOL.into(),
        description: "Report where the task stands and how you will go on (or give up).".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "status": {"type": "string"},
                "tried": {"type": "array", "items": {"type": "string"}},
                "stuck_on": {"type": "array", "items": {"type": "string"}},
                "next": {"type": "string"},
                "give_up": {"type": "boolean"}
            },
            "required": ["status", "stuck_on", "give_up"],
            "additionalProperties": false
        }),
    }
}

/// The `give_up` tool, offered in every session under the reflective rules.
pub fn give_up_tool() -> ToolDecl {
    ToolDecl {
        spec: ToolSpec {
            local_parameters: None,
            name: GIVE_UP_TOOL.into(),
            description: "Call when the task cannot be done with the tools you have, instead of \
                          trying the same things again: say why, where you are stuck and what \
                          you tried."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "reason": {"type": "string", "minLength": 1},
                    "stuck_on": {"type": "array", "items": {"type": "string"}},
                    "tried": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["reason", "stuck_on"],
                "additionalProperties": false
            }),
        },
        permission: Permission::Allow,
        idempotent: true,
        parallel_safe: false,
        kind: ToolKind::GiveUp,
        approval_scope: None,
    }
}

/// A `give_up` call's arguments as a reflection (the handoff reads both alike).
pub fn give_up_reflection(args: &Value) -> Reflection {
    let list = |key: &str| -> Vec<String> {
        args.get(key)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .take(8)
                    .collect()
            })
            .unwrap_or_default()
    };
    Reflection {
        status: args
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        tried: list("tried"),
        stuck_on: list("stuck_on"),
        next: String::new(),
        give_up: true,
    }
}

impl Agent {
    /// Under the reflective rules, what a complete tool batch leads to when the run is not
    /// making progress: a forced reflection, or the stop. Returns whether it decided.
    pub(super) fn reflective_after_batch(&mut self) -> bool {
        let Some(run) = self.state.active_run() else {
            return false;
        };
        let (Some(progress), Some(policy)) = (&run.progress, self.state.config.guard.reflective)
        else {
            return false;
        };
        let stuck_after = progress.guard.stuck_since_reflection();
        let still_stuck = stuck_after.is_some_and(|n| n >= policy.stop_after_reflection);
        let finding = progress.finding.clone();
        let reflected = progress.reflections > 0;
        let can_reflect = progress.reflections < policy.max_reflections;
        let errors = run.consecutive_errors;
        if reflected && errors >= self.state.config.max_consecutive_errors {
            // Still failing after a reflection: the error breaker ends the run.
            return false;
        }
        if let Some(finding) = finding {
            let stop = finding.level == super::guard::Level::Stop;
            if reflected && (stop || still_stuck) || stop && !can_reflect {
                self.stop_no_progress(finding.detector, finding.evidence);
                return true;
            }
            if can_reflect {
                self.ask_reflection(finding.detector, finding.evidence);
                return true;
            }
            let message = super::loop_guard::message(finding.detector, false);
            self.emit(Event::GuardTriggered {
                detector: finding.detector,
                stop: false,
                message,
                evidence: finding.evidence,
            });
            return false;
        }
        if reflected && still_stuck {
            let trigger = progress.trigger.clone();
            let detector = trigger
                .as_ref()
                .map_or(Detector::Stagnation, |t| t.detector);
            let evidence = progress.guard.recent_calls();
            self.stop_no_progress(detector, evidence);
            return true;
        }
        if errors >= self.state.config.max_consecutive_errors && !reflected && can_reflect {
            let evidence = progress.guard.recent_calls();
            self.ask_reflection(Detector::ConsecutiveErrors, evidence);
            return true;
        }
        false
    }

    /// Before a step: a reflection that is due (an overdue milestone, the budget endgame), or
    /// the end of a run whose overdue milestone a reflection did not help. Returns the
    /// transition the step takes instead of `reason`, or `None` when the run ended.
    pub(super) fn due_reflection(&mut self, reason: TransitionReason) -> Option<TransitionReason> {
        let run = self.state.active_run()?;
        let (Some(progress), Some(policy)) = (&run.progress, self.state.config.guard.reflective)
        else {
            return Some(reason);
        };
        if matches!(
            reason,
            TransitionReason::Reflection { .. } | TransitionReason::AnswerRequested
        ) {
            return Some(reason);
        }
        let open: Vec<String> = run.open_todos().map(|t| t.text.clone()).collect();
        let milestone_due = policy.milestone_steps > 0
            && !open.is_empty()
            && progress.milestone_quiet >= policy.milestone_steps;
        if milestone_due && progress.milestone_reflected {
            if progress.milestone_quiet >= policy.milestone_steps + policy.milestone_steps / 2 {
                let explanation = format!(
                    "The open todo items made no progress for {} steps, and a reflection did \
                     not change that.",
                    progress.milestone_quiet
                );
                let stop = match policy.overdue {
                    OverdueAction::AskHuman => StopReason::NeedsHuman {
                        reason: HumanReason::MilestoneOverdue { todos: open },
                    },
                    OverdueAction::GiveUp => StopReason::NoProgress {
                        detector: Detector::OverdueMilestone,
                    },
                };
                self.finish_run(stop, explanation, None);
                return None;
            }
        } else if milestone_due && progress.reflections < policy.max_reflections {
            let evidence = open.iter().map(|t| format!("open todo: {t}")).collect();
            self.emit_diagnosis(Detector::OverdueMilestone, evidence);
            return Some(TransitionReason::Reflection {
                trigger: Detector::OverdueMilestone,
            });
        }
        let endgame_due = policy.endgame_percent > 0
            && !progress.endgame_asked
            && progress.quiet_steps >= policy.endgame_quiet_steps
            && spent_percent(&run.ledger, &run.limits) >= policy.endgame_percent;
        if endgame_due {
            let evidence = progress.guard.recent_calls();
            self.emit_diagnosis(Detector::BudgetEndgame, evidence);
            return Some(TransitionReason::Reflection {
                trigger: Detector::BudgetEndgame,
            });
        }
        Some(reason)
    }

    /// A reflection's reply arrived: the model gives up, or the run goes on.
    pub(super) fn after_reflection(&mut self) {
        let Some(run) = self.state.active_run() else {
            return;
        };
        let gave_up = run
            .progress
            .as_ref()
            .and_then(|p| p.reflection.as_ref())
            .is_some_and(|r| r.give_up);
        if gave_up {
            let explanation =
                "The model gave up when asked to reflect; the handoff says where it is stuck."
                    .to_string();
            return self.finish_run(StopReason::GaveUp, explanation, None);
        }
        self.end_step();
        self.start_step(TransitionReason::AfterReflection);
    }

    fn ask_reflection(&mut self, trigger: Detector, evidence: Vec<String>) {
        self.emit_diagnosis(trigger, evidence);
        self.end_step();
        self.start_step(TransitionReason::Reflection { trigger });
    }

    fn emit_diagnosis(&mut self, detector: Detector, evidence: Vec<String>) {
        let message = super::loop_guard::message(detector, false);
        self.emit(Event::GuardTriggered {
            detector,
            stop: false,
            message,
            evidence,
        });
    }

    fn stop_no_progress(&mut self, detector: Detector, evidence: Vec<String>) {
        let message = super::loop_guard::message(detector, true);
        self.emit(Event::GuardTriggered {
            detector,
            stop: true,
            message: message.clone(),
            evidence,
        });
        let stop = match detector {
            Detector::ConsecutiveErrors => StopReason::ConsecutiveErrors {
                count: self.state.active_run().map_or(0, |r| r.consecutive_errors),
            },
            Detector::Repetition
            | Detector::Thrashing
            | Detector::Stagnation
            | Detector::RepeatedError
            | Detector::RepeatedSuccess
            | Detector::OverdueMilestone
            | Detector::BudgetEndgame => StopReason::NoProgress { detector },
        };
        self.finish_run(stop, message, None);
    }
}
