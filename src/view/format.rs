//! Short human texts for numbers the playground shows: token counts, costs, byte sizes, ledger
//! summaries and model download progress. Pure, so the UI stays free of formatting logic.

use crate::core::SpentSummary;

/// A count with thousands separators: `12345` → `12,345`.
pub fn format_count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A USD amount with four decimals: `$0.0123`.
pub fn format_cost(usd: f64) -> String {
    format!("${usd:.4}")
}

/// A byte size in binary units with one decimal: `1.5 MiB`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// `n` followed by the singular or plural noun: `1 step`, `2 steps`.
pub fn plural(n: u64, singular: &str, plural: &str) -> String {
    format!(
        "{} {}",
        format_count(n),
        if n == 1 { singular } else { plural }
    )
}

/// What a run had spent at some point, as the timeline and status bar show it.
pub type LedgerSummary = SpentSummary;

impl SpentSummary {
    /// One line: `2 steps · 1 tool call · 1,234 tokens · $0.0012`.
    pub fn text(&self) -> String {
        format!(
            "{} · {} · {} · {}",
            plural(u64::from(self.steps), "step", "steps"),
            plural(u64::from(self.tool_calls), "tool call", "tool calls"),
            plural(self.tokens, "token", "tokens"),
            format_cost(self.cost_usd)
        )
    }
}

/// The spend line of a step marker: what the step used and the run's total after it, or the
/// total before it while the step is still running.
pub fn step_spend_text(before: &LedgerSummary, after: Option<&LedgerSummary>) -> String {
    let Some(after) = after else {
        return format!("in progress · run so far: {}", before.text());
    };
    let tool_calls = after.tool_calls.saturating_sub(before.tool_calls);
    let tokens = after.tokens.saturating_sub(before.tokens);
    let cost = (after.cost_usd - before.cost_usd).max(0.0);
    format!(
        "this step: {}, {}, {} · run total: {}",
        plural(u64::from(tool_calls), "tool call", "tool calls"),
        plural(tokens, "token", "tokens"),
        format_cost(cost),
        after.text()
    )
}

/// Progress of the in-tab model, copied from its report: loading it (`download`, `cache`,
/// `init`; bytes), then each call (`prompt`: tokens of the prompt read; `writing`: pieces
/// generated and their rate; `idle` once it ended, with what it wrote).
#[derive(Debug, Clone, PartialEq)]
pub struct DownloadProgress {
    /// `download`, `cache`, `init`, `prompt`, `writing` or `idle`; `ready` once the page's
    /// warm-up has read the prompt's start; `stopped` or `failed` when a load ended without a
    /// model.
    pub phase: String,
    /// Bytes loaded, prompt tokens read, or pieces written so far.
    pub loaded: u64,
    /// Total bytes or prompt tokens, when known.
    pub total: Option<u64>,
    /// Whether the bytes come from browser storage rather than the network.
    pub from_cache: bool,
    /// While writing: pieces per second.
    pub per_second: Option<f64>,
    /// When starting: where the model runs, and why there (e.g. no WebGPU adapter).
    pub note: Option<String>,
}

impl DownloadProgress {
    /// Share done, from 0 to 1, when the total is known.
    pub fn fraction(&self) -> Option<f64> {
        self.total
            .filter(|t| *t > 0)
            .map(|t| (self.loaded as f64 / t as f64).clamp(0.0, 1.0))
    }

    /// What the progress bar says: `Downloading model: 12.0 MiB of 80.0 MiB (15%)`.
    pub fn text(&self) -> String {
        let what = match (self.phase.as_str(), self.from_cache) {
            ("init", _) => {
                return match &self.note {
                    Some(note) => format!("Starting the model ({note})…"),
                    None => "Starting the model…".to_string(),
                }
            }
            ("prompt", _) => {
                return match self.total {
                    Some(total) => format!(
                        "Reading the prompt: {} of {}",
                        self.loaded,
                        plural(total, "token", "tokens")
                    ),
                    None => "Reading the prompt…".to_string(),
                }
            }
            ("stopped", _) => {
                return match (self.loaded, self.total) {
                    (0, _) => "Model loading stopped".to_string(),
                    (loaded, Some(total)) => format!(
                        "Model loading stopped at {} of {}",
                        format_bytes(loaded),
                        format_bytes(total)
                    ),
                    (loaded, None) => {
                        format!("Model loading stopped at {}", format_bytes(loaded))
                    }
                }
            }
            ("failed", _) => return "The model could not be loaded (see the error)".to_string(),
            ("ready", _) => {
                return format!(
                    "Ready: {} of the prompt read ahead",
                    plural(self.loaded, "token", "tokens")
                )
            }
            // A completion ended (done, failed or stopped): the model waits for the next.
            ("idle", _) => {
                return match self.loaded {
                    0 => "Ready".to_string(),
                    _ => format!("Ready: the last reply was {}", self.pieces_written()),
                };
            }
            ("writing", _) => return format!("Writing: {}", self.pieces_written()),
            (_, true) | ("cache", false) => "Loading model from browser storage",
            (_, false) => "Downloading model",
        };
        match (self.total, self.fraction()) {
            (Some(total), Some(fraction)) => format!(
                "{what}: {} of {} ({:.0}%)",
                format_bytes(self.loaded),
                format_bytes(total),
                fraction * 100.0
            ),
            (Some(_), None) | (None, _) => format!("{what}: {}", format_bytes(self.loaded)),
        }
    }

    /// `18 pieces (34.8/s)`: what a call wrote, with its rate when known.
    fn pieces_written(&self) -> String {
        let written = plural(self.loaded, "piece", "pieces");
        match self.per_second {
            Some(rate) if rate > 0.0 => format!("{written} ({rate:.1}/s)"),
            Some(_) | None => written,
        }
    }

    /// Whether the model is ready to start (all bytes are in).
    pub fn done(&self) -> bool {
        self.total.is_some_and(|t| self.loaded >= t)
    }
}
