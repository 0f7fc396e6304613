//! Reads a fold snapshot head of layout 4, where a run kept its pause, the completion put to
//! the stop hook and the resend in flight in fields beside its phase. Layout 5 holds them in
//! the phase ([`super::Phase`]); this moves them there, so a session whose last snapshot is
//! older still resumes from it instead of replaying its whole log.

use serde_json::{json, Map, Value};

/// The layout this module reads.
pub(super) const VERSION: u32 = 4;

/// `head` (layout 4) as layout 5 JSON, or `None` when it is not a layout-4 head.
pub(super) fn migrate(head: &str, version: u32) -> Option<Value> {
    let mut head: Value = serde_json::from_str(head).ok()?;
    if head.get("version")?.as_u64()? != u64::from(VERSION) {
        return None;
    }
    if let Some(run) = head.get_mut("state")?.get_mut("run")?.as_object_mut() {
        migrate_run(run)?;
    }
    *head.get_mut("version")? = json!(version);
    Some(head)
}

fn migrate_run(run: &mut Map<String, Value>) -> Option<()> {
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
