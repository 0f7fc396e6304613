//! The playground page: header, session list, settings and the session on screen.

use leptos::prelude::*;

use super::error_alert::ErrorAlert;
use super::file_browser::FileBrowser;
use super::model_progress::ModelProgress;
use super::network_state::NetworkState;
use super::session_list::SessionList;
use super::session_view::SessionView;
use super::settings_panel::SettingsPanel;
use super::startup::start;
use super::state::AppState;
use super::theme_toggle::ThemeToggle;
use super::update_banner::UpdateBanner;

/// The whole playground page. On mount it lists the stored sessions and resumes those with a
/// run in flight.
#[component]
pub fn Playground() -> impl IntoView {
    let app = AppState::new();
    start(app);
    view! {
        <header class="app-header">
            <div class="brand">
                <span class="logo" aria-hidden="true">"⟳"</span>
                <h1>"tabloop"</h1>
            </div>
            <span class="tagline">"an agent loop that lives in this tab"</span>
            <div class="header-progress">
                <ModelProgress progress=app.progress/>
            </div>
            <NetworkState/>
            <ThemeToggle/>
        </header>
        <UpdateBanner/>
        <main class="playground">
            <aside class="sidebar">
                <SessionList app/>
            </aside>
            <div class="main-column">
                <SettingsPanel settings=app.settings open=app.settings_open progress=app.progress/>
                <ErrorAlert error=app.error/>
                <SessionView app/>
                <FileBrowser app/>
            </div>
        </main>
    }
}
