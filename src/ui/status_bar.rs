//! The status bar of the session on screen: phase, spend and this tab's role.

use leptos::prelude::*;

use super::state::Role;
use crate::core::StopReason;
use crate::view::{format_cost, format_count, RunPhase, SessionSummary};

/// Phase, steps, tokens, cost and writer/follower (`data-testid="status"`).
#[component]
pub fn StatusBar(
    /// The session's summary.
    #[prop(into)]
    summary: Signal<SessionSummary>,
    /// This tab's part in the session.
    #[prop(into)]
    role: Signal<Role>,
) -> impl IntoView {
    let phase = move || summary.with(|s| s.phase().clone());
    // A run paused for the person (its provider or a tool's server could not be reached) waits
    // like an approval does.
    let paused = move || summary.with(|s| s.paused.is_some());
    let label = move || {
        if paused() {
            "paused: retry when the network or provider is back".to_string()
        } else {
            phase().label()
        }
    };
    let phase_class = move || {
        let state = match phase() {
            _ if paused() => "waiting",
            RunPhase::Idle => "idle",
            RunPhase::Working | RunPhase::CallingModel | RunPhase::RunningTools => "busy",
            RunPhase::AwaitingApproval => "waiting",
            RunPhase::Finished {
                stop: StopReason::Completed | StopReason::VerifiedFinish,
            } => "done",
            RunPhase::Finished { .. } => "stopped",
        };
        format!("phase {state}")
    };
    let steps = move || {
        summary.with(|s| match s.limits().and_then(|l| l.max_steps) {
            Some(max) => format!("{} / {max}", s.spent().steps),
            None => s.spent().steps.to_string(),
        })
    };
    let tokens = move || summary.with(|s| format_count(s.spent().tokens));
    let cost = move || summary.with(|s| format_cost(s.spent().cost_usd));
    view! {
        <div class="status-bar" data-testid="status" role="status">
            <span class=phase_class data-testid="status-phase">
                <span class="dot" aria-hidden="true"></span>
                {label}
            </span>
            {metric("Steps", "status-steps", steps)}
            {metric("Tokens", "status-tokens", tokens)}
            {metric("Cost", "status-cost", cost)}
            <span class="role" data-testid="status-role">{move || role.get().label()}</span>
        </div>
    }
}

/// One figure of the bar: its label and its value (`data-testid` on the value).
fn metric(label: &'static str, testid: &'static str, value: impl IntoView) -> impl IntoView {
    view! {
        <span class="metric">
            <span class="metric-label">{label}</span>
            <span data-testid=testid>{value}</span>
        </span>
    }
}
