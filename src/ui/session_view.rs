//! The session on screen: header, status, storage banner, timeline, live output, approval
//! cards and the task form.

use leptos::prelude::*;

use super::actions::{decide, retry_provider, retry_storage, run_task};
use super::approval_card::ApprovalCard;
use super::key_banner::KeyBanner;
use super::provider_banner::ProviderBanner;
use super::session_toolbar::SessionToolbar;
use super::state::{AppState, Role};
use super::status_bar::StatusBar;
use super::storage_banner::StorageBanner;
use super::streaming_view::StreamingView;
use super::task_form::TaskForm;
use super::timeline_view::TimelineView;
use super::transfer::fork;
use crate::view::{RunPhase, Timeline, ToolCallView};

/// The open session, or the empty state (`data-testid="empty-session"`) before the first task.
#[component]
pub fn SessionView(
    /// The playground's state.
    app: AppState,
) -> impl IntoView {
    let shown = app.shown;
    let has_session = move || shown.id.with(Option::is_some);
    let in_flight = Signal::derive(move || shown.summary.with(|s| s.in_flight));
    let waiting = Signal::derive(move || shown.summary.with(|s| s.phase == RunPhase::CallingModel));
    let on_fork = Callback::new(move |(run, step): (u32, u32)| fork(app, run, step));
    let on_decide =
        Callback::new(move |(call, approved): (String, bool)| decide(app, call, approved));
    let on_retry = Callback::new(move |()| retry_storage(app));
    let on_retry_provider = Callback::new(move |()| retry_provider(app));
    // A follower tab shows the run read-only: its inputs would be refused.
    let busy = Signal::derive(move || app.busy.get() || shown.role.get() == Role::Follower);
    let on_run = Callback::new(move |task: String| run_task(app, task));
    view! {
        <section class="session-view" aria-label="Session">
            <Show
                when=has_session
                fallback=|| {
                    view! {
                        <div class="empty-state">
                            <p class="empty" data-testid="empty-session">
                                "Start a task to begin a session."
                            </p>
                            <p class="hint">
                                "The agent works in this tab. Every step is saved as it happens, so \
                                 a reload picks the run up where it stopped."
                            </p>
                        </div>
                    }
                }
            >
                <SessionToolbar app/>
                <StatusBar summary=shown.summary role=shown.role/>
                <KeyBanner app/>
                <StorageBanner live=shown.live on_retry/>
                <ProviderBanner summary=shown.summary on_retry=on_retry_provider/>
                <TimelineView timeline=shown.timeline on_fork/>
                <StreamingView live=shown.live waiting/>
                <For
                    each=move || shown.timeline.with(Timeline::pending_approvals)
                    key=|call: &ToolCallView| call.call.clone()
                    children=move |call: ToolCallView| view! { <ApprovalCard call on_decide/> }
                />
            </Show>
            <TaskForm on_run busy in_flight/>
        </section>
    }
}
