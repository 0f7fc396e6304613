//! The geometry of the per-step chart: a bar of tokens per step, a line of cost per step and a
//! mark where a loop detector fired, in SVG user units. Long runs are grouped into at most
//! [`MAX_BARS`] bars (each the largest step of its group), so the chart stays small.

use super::run_meters::{GuardMark, StepPoint};

/// Most bars drawn; more steps than this share bars.
pub const MAX_BARS: usize = 120;

/// One bar: a step (or a group of steps).
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Left edge.
    pub x: f64,
    /// Width.
    pub width: f64,
    /// Top edge (the chart's y grows downwards).
    pub y: f64,
    /// Height.
    pub height: f64,
    /// What a tooltip says: `step 4: 1,200 tokens, $0.0020`.
    pub title: String,
}

/// A guard mark: a vertical line at the step it fired in.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// Horizontal position.
    pub x: f64,
    /// It stopped the run.
    pub stop: bool,
    /// What a tooltip says.
    pub title: String,
}

/// Everything the chart component draws.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartLayout {
    /// Token bars.
    pub bars: Vec<Bar>,
    /// The cost line as SVG path data (empty when no step cost anything).
    pub cost_path: String,
    /// Guard marks.
    pub marks: Vec<Mark>,
    /// Largest tokens of one bar (the top of the scale).
    pub max_tokens: u64,
    /// Largest cost of one bar.
    pub max_cost_usd: f64,
    /// A sentence for screen readers.
    pub description: String,
}

/// Lays the chart out in a `width` × `height` box.
pub fn chart_layout(
    points: &[StepPoint],
    guards: &[GuardMark],
    width: f64,
    height: f64,
) -> ChartLayout {
    let per_bar = points.len().div_ceil(MAX_BARS).max(1);
    let groups: Vec<&[StepPoint]> = points.chunks(per_bar).collect();
    let largest = |g: &[StepPoint]| {
        g.iter().fold((0u64, 0.0f64), |(t, c), p| {
            (t.max(p.tokens), c.max(p.cost_usd))
        })
    };
    let peaks: Vec<(u64, f64)> = groups.iter().map(|g| largest(g)).collect();
    let max_tokens = peaks.iter().map(|p| p.0).max().unwrap_or(0);
    let max_cost = peaks.iter().map(|p| p.1).fold(0.0, f64::max);
    let slot = if groups.is_empty() {
        width
    } else {
        width / groups.len() as f64
    };
    let scale = |v: f64, max: f64| if max > 0.0 { v / max * height } else { 0.0 };
    let bars = groups
        .iter()
        .zip(&peaks)
        .enumerate()
        .map(|(i, (group, (tokens, cost)))| {
            let h = scale(*tokens as f64, max_tokens as f64);
            let (first, last) = (
                group.first().map_or(0, |p| p.step),
                group.last().map_or(0, |p| p.step),
            );
            let steps = if first == last {
                format!("step {first}")
            } else {
                format!("steps {first}–{last} (largest)")
            };
            Bar {
                x: i as f64 * slot + slot * 0.1,
                width: slot * 0.8,
                y: height - h,
                height: h,
                title: format!(
                    "{steps}: {} tokens, {}",
                    super::format::format_count(*tokens),
                    super::format::format_cost(*cost)
                ),
            }
        })
        .collect();
    let cost_path = if max_cost > 0.0 {
        peaks
            .iter()
            .enumerate()
            .map(|(i, (_, cost))| {
                let x = i as f64 * slot + slot / 2.0;
                let y = height - scale(*cost, max_cost);
                format!("{}{x:.1},{y:.1}", if i == 0 { "M" } else { "L" })
            })
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        String::new()
    };
    let first_step = points.first().map_or(1, |p| p.step);
    let marks = guards
        .iter()
        .map(|g| {
            let group = (g.step.saturating_sub(first_step) as usize / per_bar)
                .min(groups.len().saturating_sub(1));
            Mark {
                x: group as f64 * slot + slot / 2.0,
                stop: g.stop,
                title: format!(
                    "step {}: {}{}",
                    g.step,
                    g.detector,
                    if g.stop { " (stopped the run)" } else { "" }
                ),
            }
        })
        .collect();
    let description = format!(
        "{} steps; most tokens in one step: {}; most cost in one step: {}; {} loop-guard {}.",
        points.len(),
        super::format::format_count(max_tokens),
        super::format::format_cost(max_cost),
        guards.len(),
        if guards.len() == 1 { "mark" } else { "marks" },
    );
    ChartLayout {
        bars,
        cost_path,
        marks,
        max_tokens,
        max_cost_usd: max_cost,
        description,
    }
}
