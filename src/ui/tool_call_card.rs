//! A tool call in the timeline: name, status, arguments and — once known — its result or why
//! it did not run. Arguments and results are shown as text, never as markup.

use leptos::prelude::*;

use crate::view::{ToolCallView, ToolStatus};

/// One tool call.
#[component]
pub fn ToolCallCard(
    /// The call.
    call: ToolCallView,
) -> impl IntoView {
    let ToolCallView {
        call: id,
        name,
        args,
        status,
    } = call;
    let label = status.label();
    let badge = format!("badge status-{}", label.replace(' ', "-"));
    let outcome = match status {
        ToolStatus::Finished { result, is_error } => {
            let class = if is_error { "result error" } else { "result" };
            view! {
                <div class="field-label">{if is_error { "Error" } else { "Result" }}</div>
                <pre class=class data-testid="tool-result">{result}</pre>
            }
            .into_any()
        }
        ToolStatus::Rejected { reason } => {
            view! { <p class="reason" data-testid="tool-rejected">{reason}</p> }.into_any()
        }
        ToolStatus::Interrupted { cause } => {
            view! { <p class="reason">{format!("Not finished: {cause}.")}</p> }.into_any()
        }
        ToolStatus::Running { attempt } if attempt > 1 => {
            view! { <p class="reason">{format!("Attempt {attempt} after an interruption.")}</p> }
                .into_any()
        }
        ToolStatus::AwaitingApproval { .. } => {
            view! { <p class="reason">"Waiting for your decision below."</p> }.into_any()
        }
        ToolStatus::Pending | ToolStatus::Approved | ToolStatus::Running { .. } => ().into_any(),
    };
    view! {
        <div class="tool-head">
            <span class="tool-icon" aria-hidden="true">"ƒ"</span>
            <code class="tool-name">{name}</code>
            <span class=badge data-testid="tool-status">{label}</span>
            <span class="call-id">{id}</span>
        </div>
        <pre class="args">{args}</pre>
        {outcome}
    }
}
