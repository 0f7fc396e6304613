//! Reads fold snapshot heads of older layouts: 4, where a run kept its pause, the completion
//! put to the stop hook and the resend in flight in fields beside its phase, and 5, where it
//! kept whether a step was open. The current layout holds all of them in the phase
//! ([`super::Phase`]); this moves them there, so a session whose last snapshot is older still
//! resumes from it instead of replaying its whole log.

use serde_json::{json, Map, Value};

/// Whether this module reads layout `version`.
pub(super) fn reads(version: u32) -> bool {
    version == 4 || version == 5
}

/// `head` (layout 4 or 5) as JSON of layout `current`, or `None` when it is of neither.
pub(super) fn migrate(head: &str, current: u32) -> Option<Value> {
    let mut head: Value = serde_json::from_str(head).ok()?;
    let version = head.get("version")?.as_u64()?;
    if let Some(run) = head.get_mut("state")?.get_mut("run")?.as_object_mut() {
        match version {
            4 => {
                phase_data_4(run)?;
                step_open_5(run)?;
            }
            5 => step_open_5(run)?,
            _ => return None,
        }
    }
    *head.get_mut("version")? = json!(current);
    Some(head)
}

/// Layout 5 kept `step_open` beside the phase: a run between two moves of a closed step is
/// between steps.
fn step_open_5(run: &mut Map<String, Value>) -> Option<()> {
    let open = run.remove("step_open")?.as_bool()?;
    let phase = run.get_mut("phase")?;
    let between = phase.as_str() == Some("Between")
        || phase.get("ResendDue").is_some()
        || phase.get("BatchDone").is_some();
    if !open && between {
        *phase = json!("StepEnded");
    }
    Some(())
}

/// Layout 4 kept the pause, the stop-hook question and the resend beside the phase.
fn phase_data_4(run: &mut Map<String, Value>) -> Option<()> {
    let paused = run.remove("paused")?;
    let hook = run.remove("stop_hook_pending")?;
    let retries = run.remove("model_retries")?.as_u64()?;
    let delay = run.remove("model_retry_delay_ms")?;
    let phase = run.get_mut("phase")?;
    // A resend in flight carries its number and wait.
    if let (Some(model), Some(delay_ms)) = (
        phase
            .get_mut("AwaitingModel")
            .and_then(Value::as_object_mut),
        delay.as_u64().filter(|_| retries > 0),
    ) {
        model.insert(
            "retry".into(),
            json!({"attempt": retries, "delay_ms": delay_ms}),
        );
    }
    if !hook.is_null() {
        *phase = json!({ "AwaitingStopHook": hook });
    }
    match paused.get("kind").and_then(Value::as_str) {
        None => {}
        Some("provider_unreachable") => {
            *phase = json!({"ProviderDown": {"purpose": paused.get("purpose")?}});
        }
        Some("tool_unreachable") => {
            let batch = phase.get_mut("Tools")?.as_object_mut()?;
            batch.insert("waits_for_network".into(), json!(true));
        }
        Some(_) => return None,
    }
    Some(())
}
