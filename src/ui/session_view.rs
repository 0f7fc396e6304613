//! The session on screen: header, status, storage banner, timeline, live output, approval
//! cards and the task form. Esc stops the run this tab writes; a follower tab is read-only.

use leptos::prelude::*;

use super::actions::{cancel, decide, resume, retry_paused, retry_storage, run_task};
use super::approval_card::ApprovalCard;
use super::banner::{Banner, Hold};
use super::budget_meters::BudgetMeters;
use super::follower_banner::FollowerBanner;
use super::session_toolbar::SessionToolbar;
use super::state::{AppState, Role};
use super::status_bar::StatusBar;
use super::step_chart::StepChart;
use super::step_jump::StepJump;
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
    let in_flight = Signal::derive(move || shown.summary.with(|s| s.in_flight()));
    let waiting =
        Signal::derive(move || shown.summary.with(|s| *s.phase() == RunPhase::CallingModel));
    let on_fork = Callback::new(move |(run, step): (u32, u32)| fork(app, run, step));
    let on_decide =
        Callback::new(move |(call, approved): (String, bool)| decide(app, call, approved));
    let key_needed = Signal::derive(move || app.key_needed.get());
    let on_resume = Callback::new(move |()| resume(app));
    let storage_error = Signal::derive(move || shown.live.with(|l| l.storage_error.clone()));
    let paused = Signal::derive(move || shown.summary.with(|s| s.paused.clone()));
    let on_retry = Callback::new(move |()| retry_storage(app));
    let on_retry_paused = Callback::new(move |()| retry_paused(app));
    let on_run = Callback::new(move |task: String| run_task(app, task));
    let alone = Signal::derive(move || shown.timeline.with(Timeline::next_task_alone));
    // A follower tab shows the run read-only: its inputs would be refused.
    let read_only = Signal::derive(move || shown.role.get() == Role::Follower);
    let busy = Signal::derive(move || app.busy.get() || read_only.get());
    let jump = RwSignal::new(None::<usize>);
    let has_steps = move || shown.summary.with(|s| s.spent().steps > 1);
    let esc = window_event_listener(leptos::ev::keydown, move |ev| {
        let running = shown.summary.with_untracked(|s| s.in_flight())
            && shown.role.get_untracked() == Role::Writer;
        if ev.key() == "Escape" && running {
            ev.prevent_default();
            cancel(app);
        }
    });
    on_cleanup(move || esc.remove());
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
                <BudgetMeters meters=shown.meters/>
                <StepChart meters=shown.meters/>
                <FollowerBanner role=shown.role/>
                <Banner hold=Hold::Key message=key_needed on_click=on_resume/>
                <Banner hold=Hold::Storage message=storage_error on_click=on_retry/>
                <Banner hold=Hold::Provider message=paused on_click=on_retry_paused/>
                <Show when=has_steps>
                    <StepJump timeline=shown.timeline jump/>
                </Show>
                <TimelineView timeline=shown.timeline on_fork jump/>
                <StreamingView live=shown.live waiting/>
                <For
                    each=move || shown.timeline.with(Timeline::pending_approvals)
                    key=|call: &ToolCallView| call.call.clone()
                    children=move |call: ToolCallView| view! { <ApprovalCard call on_decide read_only/> }
                />
            </Show>
            <TaskForm on_run busy in_flight alone text=app.draft/>
        </section>
    }
}
