//! The timeline of a session: one list item per [`Timeline`] item, re-rendered only when that
//! item changes (its key carries the item's revision).

use leptos::prelude::*;

use super::timeline_entry::TimelineEntry;
use crate::view::Timeline;

/// The list of what happened in a session (`data-testid="timeline"`, one `data-kind` per item).
/// Everything model- or tool-made is rendered as text, never as markup.
#[component]
pub fn TimelineView(
    /// The timeline to show.
    #[prop(into)]
    timeline: Signal<Timeline>,
    /// Called with a step number when the user forks the session there; no fork buttons when
    /// absent.
    #[prop(optional)]
    on_fork: Option<Callback<(u32, u32)>>,
) -> impl IntoView {
    let latest_run = Signal::derive(move || timeline.with(Timeline::run));
    view! {
        <ol class="timeline" data-testid="timeline" aria-label="Timeline">
            <For
                each=move || timeline.with(Timeline::keys)
                key=|key| *key
                children=move |(index, _revision)| {
                    timeline
                        .with_untracked(|t| t.items().get(index).cloned())
                        .map(|item| view! { <TimelineEntry item on_fork latest_run/> })
                }
            />
        </ol>
    }
}
