//! Progress of the in-tab model: its download or load, the prompt being read, tokens being
//! written; and, once it has started, where it runs (the GPU, or the CPU and why).

use leptos::prelude::*;

use crate::view::DownloadProgress;

/// A progress bar with a text (`data-testid="model-progress"` on the `<progress>`,
/// `data-testid="model-progress-text"` on the text), shown once loading has begun, and where
/// the model runs (`data-testid="model-backend"`), kept after the start.
#[component]
pub fn ModelProgress(
    /// The last progress report.
    #[prop(into)]
    progress: Signal<Option<DownloadProgress>>,
) -> impl IntoView {
    // The note comes with the start only; it stays on screen while the model reads and writes.
    let backend = Memo::new(move |last: Option<&Option<String>>| {
        progress
            .with(|p| p.as_ref().and_then(|p| p.note.clone()))
            .or_else(|| last.cloned().flatten())
    });
    move || {
        progress.get().map(|p| {
            let done = p.done() || p.phase == "init";
            view! {
                <div class="model-progress" class:done=done>
                    <progress data-testid="model-progress" max="1" value=p.fraction()></progress>
                    <span data-testid="model-progress-text">{p.text()}</span>
                    {move || {
                        backend
                            .get()
                            .map(|note| {
                                let text = format!("Runs {note}");
                                let title = text.clone();
                                view! {
                                    <span
                                        class="model-backend"
                                        data-testid="model-backend"
                                        title=title
                                    >
                                        {text}
                                    </span>
                                }
                            })
                    }}
                </div>
            }
        })
    }
}
