//! The model call in flight: its text as it streams in (as text, never markup).

use leptos::prelude::*;

use crate::view::LiveState;

/// Live output of the model (`data-testid="streaming"`), shown while a call streams.
#[component]
pub fn StreamingView(
    /// Live state of the session.
    #[prop(into)]
    live: Signal<LiveState>,
    /// A model call is in flight (shows a placeholder until output arrives).
    #[prop(into)]
    waiting: Signal<bool>,
) -> impl IntoView {
    move || {
        live.with(|l| {
            (l.is_streaming() || waiting.get()).then(|| {
                let thinking = (!l.thinking.is_empty()).then(|| {
                    let thinking = l.thinking.clone();
                    view! {
                        <details class="thinking">
                            <summary>"Reasoning"</summary>
                            <p class="text">{thinking}</p>
                        </details>
                    }
                });
                let tools = (!l.writing_tools.is_empty())
                    .then(|| format!("Writing a call to {}…", l.writing_tools.join(", ")));
                let text = if l.streaming.is_empty() && l.writing_tools.is_empty() {
                    None
                } else {
                    Some(l.streaming.clone())
                };
                let placeholder = text.is_none().then(|| {
                    view! { <p class="note">"Waiting for the model…"</p> }
                });
                view! {
                    <div class="streaming" data-testid="streaming" aria-live="polite">
                        <div class="who">"Model" <span class="typing" aria-hidden="true"></span></div>
                        {thinking}
                        {placeholder}
                        {text.map(|t| view! { <p class="text">{t}</p> })}
                        {tools.map(|t| view! { <p class="note">{t}</p> })}
                    </div>
                }
            })
        })
    }
}
