//! One item of the timeline, drawn according to its kind. Texts are text nodes only.

use leptos::prelude::*;

use super::markdown_text::MarkdownText;
use super::tool_call_card::ToolCallCard;
use crate::core::Reflection;
use crate::view::{step_evidence_text, step_spend_text, RunEnd, StepMarker, TimelineItem};

/// One timeline item (`<li data-kind="…" data-index="…">`).
#[component]
pub fn TimelineEntry(
    /// The item.
    item: TimelineItem,
    /// Its position in the timeline.
    index: usize,
    /// Fork handler for step markers.
    on_fork: Option<Callback<(u32, u32)>>,
    /// The session's latest run: only its steps can be forked.
    #[prop(into)]
    latest_run: Signal<u32>,
) -> impl IntoView {
    let kind = item.kind();
    let body = match item {
        TimelineItem::User { text } => view! {
            <div class="who">"You"</div>
            <p class="text">{text}</p>
        }
        .into_any(),
        TimelineItem::Assistant { text } => view! {
            <div class="who">"Model"</div>
            <MarkdownText text/>
        }
        .into_any(),
        TimelineItem::ToolCall(call) => view! { <ToolCallCard call/> }.into_any(),
        TimelineItem::Step(marker) => step_view(marker, on_fork, latest_run).into_any(),
        TimelineItem::Guard {
            detector,
            stop,
            message,
            evidence,
        } => view! {
            <div class="who">
                {if stop { "Loop guard stopped the run" } else { "Loop guard" }}
                <span class="tag">{detector}</span>
            </div>
            <p class="text">{message}</p>
            {(!evidence.is_empty()).then(|| view! {
                <details class="guard-evidence">
                    <summary>"What repeats"</summary>
                    <ul>{evidence.into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}</ul>
                </details>
            })}
        }
        .into_any(),
        TimelineItem::Reflection(reflection) => reflection_view(reflection).into_any(),
        TimelineItem::CompletionRejected { blockers } => view! {
            <div class="who">"Not done yet"</div>
            <ul class="blockers">
                {blockers.into_iter().map(|b| view! { <li>{b}</li> }).collect_view()}
            </ul>
        }
        .into_any(),
        TimelineItem::Compaction { summary } => view! {
            <details>
                <summary class="who">"Older turns were summarised"</summary>
                <p class="text">{summary}</p>
            </details>
        }
        .into_any(),
        TimelineItem::Note { text } => view! { <p class="note">{text}</p> }.into_any(),
        TimelineItem::RunFinished(end) => run_end_view(end).into_any(),
        TimelineItem::Error { source, message } => view! {
            <div class="who">{source.label()}</div>
            <p class="text">{message}</p>
        }
        .into_any(),
    };
    view! {
        <li class="item" data-kind=kind data-index=index>
            {body}
        </li>
    }
}

fn step_view(
    marker: StepMarker,
    on_fork: Option<Callback<(u32, u32)>>,
    latest_run: Signal<u32>,
) -> impl IntoView {
    let StepMarker {
        run,
        step,
        reason,
        before,
        after,
        evidence,
    } = marker;
    let spend = step_spend_text(&before, after.as_ref());
    let evidence = evidence.map(|e| step_evidence_text(&e));
    let fork = on_fork.filter(|_| after.is_some()).map(|on_fork| {
        move || {
            // Any step of any run can be forked; the latest run's steps say so plainly.
            let title = if latest_run.get() == run {
                "Copy the session up to the end of this step into a new session".to_string()
            } else {
                format!(
                    "Copy the session up to the end of step {step} of run {run} into a new session"
                )
            };
            view! {
                <button
                    class="link fork"
                    data-testid="fork"
                    title=title
                    on:click=move |_| on_fork.run((run, step))
                >
                    "Fork from here"
                </button>
            }
        }
    });
    view! {
        <div class="step-head">
            <span class="step-no">{format!("Step {step}")}</span>
            <span class="step-reason">{reason}</span>
            {fork}
        </div>
        <div class="step-spend">{spend}</div>
        {evidence.map(|e| view! { <div class="step-evidence">{e}</div> })}
    }
}

fn run_end_view(end: RunEnd) -> impl IntoView {
    let class = if end.succeeded() {
        "run-end ok"
    } else {
        "run-end stopped"
    };
    view! {
        <div class=class>
            <div class="who">
                "Run finished" <span class="tag" data-testid="stop-reason">{end.stop}</span>
            </div>
            <p class="explanation">{end.explanation}</p>
            // An answer that is the model message just above is not shown twice; other final
            // texts (the finish tool's summary, a result the runtime ended the run with) are.
            {end
                .final_text
                .filter(|_| !end.shown_above)
                .map(|text| view! { <div class="final"><MarkdownText text/></div> })}
            {end
                .handoff
                .map(|h| {
                    view! {
                        <details class="handoff">
                            <summary>"Handoff report"</summary>
                            <pre>{h}</pre>
                        </details>
                    }
                })}
        </div>
    }
}

/// A forced reflection, shown as the model's account (not as an answer): where it stands,
/// what it tried, where it is stuck, and what it will do next or that it gives up.
fn reflection_view(reflection: Reflection) -> impl IntoView {
    let Reflection {
        status,
        tried,
        stuck_on,
        next,
        give_up,
    } = reflection;
    let list = |title: &'static str, items: Vec<String>| {
        (!items.is_empty()).then(|| {
            view! {
                <div class="reflection-part">
                    <span class="label">{title}</span>
                    <ul>{items.into_iter().map(|i| view! { <li>{i}</li> }).collect_view()}</ul>
                </div>
            }
        })
    };
    view! {
        <div class="who">
            "Reflection"
            <span class="tag" data-testid="reflection-verdict">
                {if give_up { "gives up" } else { "goes on" }}
            </span>
        </div>
        <p class="text">{status}</p>
        {list("Tried", tried)}
        {list("Stuck on", stuck_on)}
        {(!next.is_empty() && !give_up).then(|| view! {
            <p class="reflection-next"><span class="label">"Next"</span>" "{next}</p>
        })}
    }
}
