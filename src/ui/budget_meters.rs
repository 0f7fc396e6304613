//! A meter per budget of the current run: how much of each limit is spent.

use leptos::prelude::*;

use crate::view::{Meter, RunMeters};

/// The budget meters (`data-testid="budget-meters"`, one `data-meter` per budget).
#[component]
pub fn BudgetMeters(
    /// The run's budgets and spend.
    #[prop(into)]
    meters: Signal<RunMeters>,
) -> impl IntoView {
    move || {
        let list = meters.with(RunMeters::meters);
        (!list.is_empty()).then(|| {
            view! {
                <div class="meters" data-testid="budget-meters" role="group" aria-label="Budgets">
                    {list.into_iter().map(meter_view).collect_view()}
                </div>
            }
        })
    }
}

fn meter_view(meter: Meter) -> impl IntoView {
    let percent = (meter.fraction * 100.0).round();
    let level = if meter.fraction >= 1.0 {
        "meter full"
    } else if meter.fraction >= 0.8 {
        "meter high"
    } else {
        "meter"
    };
    view! {
        <div class=level data-meter=meter.key>
            <span class="meter-label">{meter.label}</span>
            <div
                class="meter-track"
                role="progressbar"
                aria-label=meter.label
                aria-valuemin="0"
                aria-valuemax="100"
                aria-valuenow=percent.to_string()
                aria-valuetext=meter.text.clone()
            >
                <div class="meter-fill" style=format!("width:{percent}%")></div>
            </div>
            <span class="meter-text">{meter.text}</span>
        </div>
    }
}
