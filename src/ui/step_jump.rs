//! "Go to step": finds a step of the latest run in the timeline and asks the list to bring it
//! into view, however long the session is.

use leptos::prelude::*;

use super::labelled_input::{InputKind, LabelledInput};
use super::submit_form::SubmitForm;
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
        <SubmitForm class="step-jump" on_submit=Callback::new(move |()| go())>
            <LabelledInput
                id="step-jump-input"
                hook="jump-step"
                label="Go to step"
                kind=InputKind::CountKeypad
                value=value
                on_input=Callback::new(move |text| value.set(text))
            />
            <button type="submit" class="small" data-testid="jump-go">
                "Go"
            </button>
            <span class="field-error" role="status" data-testid="jump-message">
                {move || message.get()}
            </span>
        </SubmitForm>
    }
}
