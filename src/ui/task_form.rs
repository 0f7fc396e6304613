//! The composer: a task (or a message to the run in progress) and the Run button.

use leptos::prelude::*;

use super::submit_form::SubmitForm;

/// The task form (`<textarea data-testid="task">`, `<button data-testid="run">`). Ctrl+Enter
/// or ⌘+Enter submits too.
#[component]
pub fn TaskForm(
    /// Called with the trimmed text when the user submits.
    on_run: Callback<String>,
    /// While true, the Run button is disabled.
    #[prop(into)]
    busy: Signal<bool>,
    /// A run is in progress: the text joins it.
    #[prop(into)]
    in_flight: Signal<bool>,
    /// The next task is sent to the model without the earlier ones (said beside the button, so
    /// a follow-up such as "make it shorter" is not expected to work).
    #[prop(into)]
    alone: Signal<bool>,
    /// The text being written, shared so a task that could not start can be put back.
    text: RwSignal<String>,
) -> impl IntoView {
    let submit = move || {
        let task = text.get_untracked().trim().to_string();
        if !task.is_empty() && !busy.get_untracked() {
            text.set(String::new());
            on_run.run(task);
        }
    };
    view! {
        <SubmitForm class="task-form" on_submit=Callback::new(move |()| submit())>
            <label class="visually-hidden" for="task-input">"Task"</label>
            <textarea
                id="task-input"
                data-testid="task"
                rows="3"
                placeholder=move || {
                    if in_flight.get() {
                        "Add a message to the run in progress…"
                    } else {
                        "Describe a task for the agent…"
                    }
                }
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                        ev.prevent_default();
                        submit();
                    }
                }
            ></textarea>
            <div class="task-actions">
                <span class="hint">
                    "Ctrl+Enter to run"
                    <Show when=move || alone.get() && !in_flight.get()>
                        <span data-testid="task-alone">
                            " · the model reads this task on its own, not the earlier ones"
                        </span>
                    </Show>
                </span>
                <button
                    type="submit"
                    class="primary"
                    data-testid="run"
                    disabled=move || busy.get() || text.with(|t| t.trim().is_empty())
                >
                    {move || if in_flight.get() { "Send" } else { "Run" }}
                </button>
            </div>
        </SubmitForm>
    }
}
