//! "Go to step": finds a step of the latest run in the timeline and asks the list to bring it
//! into view, however long the session is.

use leptos::prelude::*;

use crate::view::Timeline;

/// The step jump form (`data-testid="jump-step"`, `jump-go`, `jump-message`).
#[component]
pub fn StepJump(
    /// The timeline to search.
    #[prop(into)]
    timeline: Signal<Timeline>,
    /// Set to the index of the item to show.
    jump: RwSignal<Option<usize>>,
) -> impl IntoView {
    let value = RwSignal::new(String::new());
    let message = RwSignal::new(None::<String>);
    let go = move || {
        let text = value.get_untracked();
        let found = text
            .trim()
            .parse::<u32>()
            .ok()
            .and_then(|step| timeline.with_untracked(|t| t.step_index(step)));
        match found {
            Some(index) => {
                message.set(None);
                jump.set(Some(index));
            }
            None => message.set(Some(format!("No step {} in the latest run.", text.trim()))),
        }
    };
    view! {
        <form
            class="step-jump"
            on:submit=move |ev| {
                ev.prevent_default();
                go();
            }
        >
            <label for="step-jump-input">"Go to step"</label>
            <input
                id="step-jump-input"
                data-testid="jump-step"
                type="number"
                min="1"
                inputmode="numeric"
                prop:value=move || value.get()
                on:input=move |ev| value.set(event_target_value(&ev))
            />
            <button type="submit" class="small" data-testid="jump-go">
                "Go"
            </button>
            <span class="field-error" role="status" data-testid="jump-message">
                {move || message.get()}
            </span>
        </form>
    }
}
