//! The playground shell: title, session list and the current session's view.

use leptos::prelude::*;

/// The whole playground page.
#[component]
pub fn Playground() -> impl IntoView {
    view! {
        <header class="app-header">
            <h1>"tabloop"</h1>
            <span class="tagline">"an agent loop that lives in this tab"</span>
        </header>
        <main class="playground">
            <aside class="sessions" aria-label="Sessions">
                <p class="empty">"No sessions yet."</p>
            </aside>
            <section class="session-view" aria-label="Session">
                <p class="empty" data-testid="empty-session">"Start a task to begin a session."</p>
            </section>
        </main>
    }
}
