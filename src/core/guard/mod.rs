//! Knowing when a run is beaten. Every tool observation is normalised (volatile spans masked,
//! see [`normalize`]) and compared with what the run has seen before, by exact form and by
//! SimHash similarity ([`simhash`]). An observation is *new evidence* when nothing near it was
//! seen before (for a tool with side effects: when that action never had that result before);
//! an error is never evidence. Five detectors read the stream:
//!
//! - repetition: the same action with the same (normalised) result, no new evidence since;
//! - thrashing: the trajectory repeats in cycles of 2 to 6 observations ([`cycle`]);
//! - stagnation: near-identical observations while the actions vary (a streak, or a window of
//!   eight observations with at most one new one);
//! - repeated errors: near-identical errors from one tool, whatever the arguments;
//! - and, after a forced reflection, still no new evidence: the run is stuck for good.
//!
//! The state is folded from the log (so it survives reloads and compaction), costs O(1) per
//! observation and holds a fixed number of entries however long the run.

mod cycle;
mod normalize;
mod simhash;

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fingerprint::{action_arguments, hash64};
use super::log::{Detector, GuardThresholds};
use super::recent_map::RecentMap;
use cycle::Trajectory;
pub use normalize::normalize;
pub use simhash::{near_error, shape, simhash};

/// Distinct fingerprints remembered for the repetition count.
const REMEMBERED: usize = 128;
/// Successful results remembered for novelty (their [`shape`]s, compared one by one).
const RESULTS: usize = 64;
/// Error kinds remembered per run.
const ERRORS: usize = 32;
/// Observations in the stagnation window, and the most of them that may be new.
const WINDOW: usize = 8;
const WINDOW_NEW: usize = 1;
/// Recent calls described for the report.
const DESCRIBED: usize = 6;

/// How strongly a detector fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Nothing wrong.
    Continue,
    /// Something repeats: time to reflect.
    Diagnose,
    /// It kept repeating: stop (after a reflection).
    Stop,
}

/// What a detector saw: which one, and the calls and observations that repeat, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The detector.
    pub detector: Detector,
    /// Diagnose or stop.
    pub level: Level,
    /// The repeating calls and observations, one line each.
    pub evidence: Vec<String>,
}

/// One observation to judge.
pub struct Observation<'a> {
    /// Tool name.
    pub tool: &'a str,
    /// Parsed arguments (`Value::Null` when they did not parse).
    pub args: &'a Value,
    /// Raw argument text, used when `args` is null.
    pub raw_args: &'a str,
    /// Result text.
    pub content: &'a str,
    /// Whether the result is an error.
    pub is_error: bool,
    /// The tool has side effects (not idempotent): a new action with the usual result is news
    /// (the first rules' [`LoopGuard`](super::LoopGuard) does not look at it).
    pub effect: bool,
}

/// What the guard says of one observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// It was new evidence.
    pub novel: bool,
    /// The strongest finding, if a detector fired.
    pub finding: Option<Finding>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Seen {
    count: u32,
    evidence_at: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct ErrorKind {
    tool: u64,
    hash: u64,
    count: u32,
}

/// The detectors' memory for one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guard {
    /// Per (action, normalised result): occurrences since the evidence last grew.
    seen: RecentMap<u64, Seen>,
    /// SimHashes of successful results seen, newest last.
    results: VecDeque<u64>,
    /// (action, result) pairs of tools with side effects.
    effects: RecentMap<u64, ()>,
    /// New observations so far.
    evidence: u32,
    /// Recent (action, result) keys.
    trajectory: Trajectory,
    /// Observations in a row that were not new, and the distinct actions among them.
    streak: u32,
    streak_actions: Vec<u64>,
    /// Novelty of the most recent observations, and their actions.
    window: VecDeque<(u64, bool)>,
    /// Error kinds by tool and SimHash, with their counts.
    errors: VecDeque<ErrorKind>,
    /// Observations in a row with no new evidence since the last forced reflection (`None`
    /// before the first).
    since_reflection: Option<u32>,
    /// Detectors (and their target) that already asked for a diagnosis.
    diagnosed: RecentMap<(Detector, u64), ()>,
    /// The latest calls in words, for the report.
    described: VecDeque<String>,
}

impl Guard {
    /// Records an observation and judges it.
    pub fn observe(&mut self, obs: &Observation<'_>, limits: &GuardThresholds) -> Judgement {
        let args = action_arguments(obs.args, obs.raw_args);
        let action = hash64(&[obs.tool, &args]);
        let text = normalize(obs.content, &echoes(obs.args));
        let exact = hash64(&[if obs.is_error { "err" } else { "ok" }, &text]);
        let shape = shape(&text);
        let (mut action_text, mut exact_text) = (itoa::Buffer::new(), itoa::Buffer::new());
        let key = hash64(&[action_text.format(action), exact_text.format(exact)]);
        let novel = self.is_novel(obs, key, shape);
        if novel {
            self.evidence += 1;
        }
        self.describe(obs, &args);

        let mut findings = Vec::new();
        let (seen, _) = self.seen.get_or_insert(key, REMEMBERED, || Seen {
            count: 0,
            evidence_at: self.evidence,
        });
        if seen.evidence_at != self.evidence {
            seen.count = 0;
            seen.evidence_at = self.evidence;
        }
        seen.count += 1;
        let repeats = seen.count;
        findings.push(self.ladder(
            Detector::Repetition,
            key,
            repeats,
            (limits.repeat_diagnose, limits.repeat_stop),
            || format!("the same call {repeats} times with the same result"),
        ));

        if let Some(cycle) = self.trajectory.push(key) {
            let period = cycle.period;
            let rounds = cycle.rounds;
            let target = self
                .trajectory
                .round(period)
                .iter()
                .fold(0u64, |a, k| a ^ k);
            findings.push(
                self.ladder(Detector::Thrashing, target, rounds, (2, 3), || {
                    format!("a cycle of {period} calls, {rounds} rounds with the same results")
                }),
            );
        }

        self.track_streak(action, novel);
        let varied = self.streak_actions.len() > 1;
        let streak = if varied { self.streak } else { 0 };
        let stalled_window = self.window.len() == WINDOW
            && self.window.iter().filter(|(_, new)| *new).count() <= WINDOW_NEW
            && distinct(self.window.iter().map(|(a, _)| *a)) > 1;
        let stagnation = if stalled_window {
            streak.max(limits.stagnation_diagnose)
        } else {
            streak
        };
        findings.push(self.ladder(
            Detector::Stagnation,
            0,
            stagnation,
            (limits.stagnation_diagnose, limits.stagnation_stop),
            || format!("{stagnation} observations with nothing new while the calls varied"),
        ));

        if obs.is_error {
            let errors = self.count_error(obs.tool, &digitless(&text));
            findings.push(self.ladder(
                Detector::RepeatedError,
                hash64(&[obs.tool, "error"]),
                errors,
                (limits.error_repeat_diagnose, limits.error_repeat_stop),
                || format!("the same error from {} {errors} times", obs.tool),
            ));
        }

        if let Some(quiet) = self.since_reflection.as_mut() {
            *quiet = if novel { 0 } else { *quiet + 1 };
        }
        let finding = findings
            .into_iter()
            .flatten()
            .max_by_key(|f| f.level)
            .map(|mut f| {
                f.evidence.extend(self.described.iter().cloned());
                f
            });
        Judgement { novel, finding }
    }

    /// A forced reflection happened: from now on, observations with nothing new count
    /// towards the stop after it.
    pub fn reflected(&mut self) {
        self.since_reflection = Some(0);
    }

    /// Observations in a row with nothing new since the last reflection (`None` before any).
    pub fn stuck_since_reflection(&self) -> Option<u32> {
        self.since_reflection
    }

    /// The latest calls in words.
    pub fn recent_calls(&self) -> Vec<String> {
        self.described.iter().cloned().collect()
    }

    fn is_novel(&mut self, obs: &Observation<'_>, key: u64, (shape, bits): (u64, u32)) -> bool {
        if obs.is_error {
            return false;
        }
        let seen_before = self
            .results
            .iter()
            .any(|r| (r ^ shape).count_ones() <= bits);
        if !seen_before {
            if self.results.len() == RESULTS {
                self.results.pop_front();
            }
            self.results.push_back(shape);
        }
        let new_effect = obs.effect && self.effects.get_or_insert(key, REMEMBERED, || ()).1;
        !seen_before || new_effect
    }

    fn track_streak(&mut self, action: u64, novel: bool) {
        if novel {
            self.streak = 0;
            self.streak_actions.clear();
        } else {
            self.streak += 1;
            if !self.streak_actions.contains(&action) && self.streak_actions.len() < 8 {
                self.streak_actions.push(action);
            }
        }
        if self.window.len() == WINDOW {
            self.window.pop_front();
        }
        self.window.push_back((action, novel));
    }

    fn count_error(&mut self, tool: &str, text: &str) -> u32 {
        let tool = hash64(&[tool]);
        let hash = simhash(text);
        if let Some(kind) = self
            .errors
            .iter_mut()
            .find(|k| k.tool == tool && near_error(k.hash, hash))
        {
            kind.count += 1;
            return kind.count;
        }
        if self.errors.len() == ERRORS {
            self.errors.pop_front();
        }
        self.errors.push_back(ErrorKind {
            tool,
            hash,
            count: 1,
        });
        1
    }

    fn describe(&mut self, obs: &Observation<'_>, args: &str) {
        let result = brief(obs.content.trim(), 90);
        let line = format!(
            "{}({}) → {}{result}",
            obs.tool,
            brief(args, 70),
            if obs.is_error { "error: " } else { "" }
        );
        if self.described.len() == DESCRIBED {
            self.described.pop_front();
        }
        self.described.push_back(line);
    }

    /// A finding at the level `count` reaches; a diagnosis is asked once per detector and
    /// target.
    fn ladder(
        &mut self,
        detector: Detector,
        target: u64,
        count: u32,
        (diagnose, stop): (u32, u32),
        what: impl FnOnce() -> String,
    ) -> Option<Finding> {
        let level = if count >= stop {
            Level::Stop
        } else if count >= diagnose
            && self
                .diagnosed
                .get_or_insert((detector, target), REMEMBERED, || ())
                .1
        {
            Level::Diagnose
        } else {
            return None;
        };
        Some(Finding {
            detector,
            level,
            evidence: vec![what()],
        })
    }
}

/// Whether an error looks transient (a rate limit, a timeout, a service briefly away): a
/// retry after one is honest work, not a loop.
pub fn is_transient(content: &str) -> bool {
    const SIGNS: [&str; 12] = [
        "rate limit",
        "too many requests",
        "429",
        "503",
        "502",
        "timed out",
        "timeout",
        "temporarily",
        "try again",
        "unavailable",
        "econnreset",
        "connection reset",
    ];
    let text = content.to_lowercase();
    SIGNS.iter().any(|sign| text.contains(sign))
}

/// The argument values a result may echo: strings and whole numbers, at any depth.
fn echoes(args: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![args];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(s) => out.push(s.trim().to_string()),
            Value::Number(n) if n.is_u64() || n.is_i64() => out.push(n.to_string()),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
        if out.len() > 32 {
            break;
        }
    }
    out
}

/// An error's text without its digits: line numbers and counts do not make another error.
fn digitless(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect()
}

fn distinct(items: impl Iterator<Item = u64>) -> usize {
    let mut seen = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.push(item);
        }
    }
    seen.len()
}

/// `text` on one line, cut to `max` characters with `…`. Only the words up to the cut are
/// read: a result of megabytes costs what its first line does.
pub fn brief(text: &str, max: usize) -> String {
    let mut line = String::new();
    // Characters that may still be written before the cut.
    let mut left = max;
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            if left == 0 {
                line.push('…');
                return line;
            }
            line.push(' ');
            left -= 1;
        }
        // A word of no more bytes than that has no more characters: it fits whole.
        if word.len() <= left {
            line.push_str(word);
            left -= word.chars().count();
            continue;
        }
        for c in word.chars() {
            if left == 0 {
                line.push('…');
                return line;
            }
            line.push(c);
            left -= 1;
        }
    }
    line
}

#[cfg(test)]
mod tests;
