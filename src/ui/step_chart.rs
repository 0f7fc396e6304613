//! The per-step chart of the current run: tokens as bars, cost as a line, loop-guard marks as
//! vertical lines, drawn as inline SVG from [`chart_layout`].

use leptos::prelude::*;

use crate::view::{chart_layout, RunMeters};

/// Chart size in SVG user units (it scales to the page's width).
const WIDTH: f64 = 600.0;
const HEIGHT: f64 = 90.0;

/// The chart (`data-testid="step-chart"`; bars `.bar`, guard marks `.guard-mark`).
#[component]
pub fn StepChart(
    /// The run's per-step spend.
    #[prop(into)]
    meters: Signal<RunMeters>,
) -> impl IntoView {
    move || {
        meters.with(|m| {
            // Nothing to chart until a step has spent something.
            let spent = m.points().iter().any(|p| p.tokens > 0 || p.cost_usd > 0.0);
            spent.then(|| {
                let chart = chart_layout(m.points(), m.guards(), WIDTH, HEIGHT);
                let bars = chart
                    .bars
                    .into_iter()
                    .map(|b| {
                        view! {
                            <rect class="bar" x=b.x y=b.y width=b.width height=b.height data-title=b.title></rect>
                        }
                    })
                    .collect_view();
                let marks = chart
                    .marks
                    .into_iter()
                    .map(|mark| {
                        let class = if mark.stop { "guard-mark stop" } else { "guard-mark" };
                        view! {
                            <line class=class x1=mark.x x2=mark.x y1="0" y2=HEIGHT data-title=mark.title></line>
                        }
                    })
                    .collect_view();
                let cost = (!chart.cost_path.is_empty())
                    .then(|| view! { <path class="cost-line" d=chart.cost_path></path> });
                view! {
                    <figure class="step-chart" data-testid="step-chart">
                        <svg
                            viewBox=format!("0 0 {WIDTH} {HEIGHT}")
                            preserveAspectRatio="none"
                            role="img"
                            aria-label=format!("Spend per step: {}", chart.description)
                        >
                            {bars}
                            {cost}
                            {marks}
                        </svg>
                        <figcaption>
                            <span class="legend tokens">"tokens per step"</span>
                            <span class="legend cost">"cost per step"</span>
                            <span class="legend guard">"loop guard"</span>
                        </figcaption>
                    </figure>
                }
            })
        })
    }
}
