//! Download progress of the in-tab model.

use leptos::prelude::*;

use crate::view::DownloadProgress;

/// A progress bar with a bytes text (`data-testid="model-progress"` on the `<progress>`,
/// `data-testid="model-progress-text"` on the text), shown once loading has begun.
#[component]
pub fn ModelProgress(
    /// The last progress report.
    #[prop(into)]
    progress: Signal<Option<DownloadProgress>>,
) -> impl IntoView {
    move || {
        progress.get().map(|p| {
            let done = p.done() || p.phase == "init";
            view! {
                <div class="model-progress" class:done=done>
                    <progress data-testid="model-progress" max="1" value=p.fraction()></progress>
                    <span data-testid="model-progress-text">{p.text()}</span>
                </div>
            }
        })
    }
}
