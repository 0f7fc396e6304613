//! A tool call waiting for a human: what would run, with Approve and Deny.

use leptos::prelude::*;

use crate::view::{ToolCallView, ToolStatus};

/// The approval card of one call (`data-testid="approval"`, `data-call` = call id).
#[component]
pub fn ApprovalCard(
    /// The call waiting for a decision.
    call: ToolCallView,
    /// Called with the call id and `true` to approve, `false` to deny.
    on_decide: Callback<(String, bool)>,
    /// Another tab runs the session: the card is shown, its buttons are disabled.
    #[prop(optional, into)]
    read_only: Signal<bool>,
) -> impl IntoView {
    let after_interrupt = matches!(
        call.status,
        ToolStatus::AwaitingApproval {
            after_interrupt: true
        }
    );
    // Approve (`data-testid="approve"`) and Deny (`deny`), each deciding the call one way.
    let decision =
        |approve: bool, class: &'static str, testid: &'static str, label: &'static str| {
            let id = call.call.clone();
            view! {
                <button
                    class=class
                    data-testid=testid
                    disabled=move || read_only.get()
                    on:click=move |_| on_decide.run((id.clone(), approve))
                >
                    {label}
                </button>
            }
        };
    view! {
        <section
            class="approval"
            data-testid="approval"
            data-call=call.call.clone()
            aria-label="Approval needed"
        >
            <h3>
                "Allow the agent to run " <code>{call.name}</code> "?"
            </h3>
            {after_interrupt
                .then(|| {
                    view! {
                        <p class="warning">
                            "This call was cut off by a page reload and is not safe to repeat: "
                            "it may already have run once."
                        </p>
                    }
                })}
            <div class="field-label">"Arguments"</div>
            <pre class="args">{call.args}</pre>
            <div class="actions">
                {decision(true, "primary", "approve", "Approve")}
                {decision(false, "danger", "deny", "Deny")}
            </div>
        </section>
    }
}
