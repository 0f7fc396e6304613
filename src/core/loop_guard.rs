//! Loop detection over tool observations. Every observation is fingerprinted as
//! hash(tool, normalised arguments, digest of the result), so the same grep on a changed file
//! is a new fingerprint (progress) and the same grep on the same state is a repeat.
//!
//! Four detectors, each with a diagnose threshold and a stop threshold:
//! repetition (same fingerprint, no new evidence since its first occurrence), thrashing (two
//! fingerprints alternating), stagnation (identical results while the actions vary) and repeated
//! errors (the same error from a tool whatever its arguments). The state is folded from the event
//! log, so it survives reloads and compaction. Each observation costs O(1), and the state
//! remembers only the most recent distinct observations, so its size does not grow with the run.

use serde::{Deserialize, Serialize};

use std::collections::VecDeque;

use super::fingerprint::{action_arguments, hash64};
use super::guard::Observation;
use super::log::GuardThresholds;
use super::log::{Detector, EvidenceDelta};
use super::recent_map::RecentMap;

/// Distinct observations, results and errors the guard remembers (see [`RecentMap`]).
const REMEMBERED: usize = 256;

/// What the guard says about one observation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// Nothing wrong.
    Continue,
    /// Tell the model to diagnose before retrying.
    Diagnose(Detector),
    /// Stop the run with `no_progress`.
    Stop(Detector),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Seen {
    /// Occurrences since the evidence last grew.
    count: u32,
    /// Distinct results seen in the run when counting (re)started.
    evidence_after_first: usize,
}

/// Guard state of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopGuard {
    seen: RecentMap<u64, Seen>,
    /// Recent distinct results, and how many distinct results the run has seen in all.
    evidence: RecentMap<u64, ()>,
    evidence_total: usize,
    errors: RecentMap<u64, u32>,
    /// Fingerprints of the most recent observations (thrash window).
    recent: VecDeque<u64>,
    /// Length of the current run of identical results, and that result's digest.
    same_result_streak: u32,
    last_result: Option<u64>,
    /// Distinct actions within the current identical-result streak (capped, for the "actions
    /// vary" condition).
    streak_actions: Vec<u64>,
    /// Detectors that have already asked for a diagnosis (asked once per detector and target).
    diagnosed: RecentMap<(Detector, u64), ()>,
}

impl LoopGuard {
    /// Records an observation and judges it; updates `delta` with whether it was new evidence.
    pub fn observe(
        &mut self,
        obs: &Observation<'_>,
        limits: &GuardThresholds,
        delta: &mut EvidenceDelta,
    ) -> Verdict {
        let args = action_arguments(obs.args, obs.raw_args);
        let action = hash64(&[obs.tool, &args]);
        let result = hash64(&[if obs.is_error { "err" } else { "ok" }, obs.content.trim()]);
        let fingerprint = hash64(&[&action.to_string(), &result.to_string()]);

        if self.evidence.get_or_insert(result, REMEMBERED, || ()).1 {
            self.evidence_total += 1;
            delta.new_observations += 1;
        } else {
            delta.repeated_observations += 1;
        }
        let evidence_now = self.evidence_total;
        let (seen, _) = self.seen.get_or_insert(fingerprint, REMEMBERED, || Seen {
            count: 0,
            evidence_after_first: evidence_now,
        });
        if seen.evidence_after_first != evidence_now {
            // New evidence arrived since this action was last seen: count afresh from here.
            seen.count = 0;
            seen.evidence_after_first = evidence_now;
        }
        seen.count += 1;
        let repeat = seen.count;

        self.recent.push_back(fingerprint);
        if self.recent.len() > limits.thrash_stop.max(limits.thrash_diagnose) as usize {
            self.recent.pop_front();
        }
        self.track_streak(action, result);

        let mut verdicts = vec![
            self.ladder(
                Detector::Repetition,
                fingerprint,
                repeat,
                limits.repeat_diagnose,
                limits.repeat_stop,
            ),
            self.ladder(
                Detector::Thrashing,
                0,
                self.alternation(),
                limits.thrash_diagnose,
                limits.thrash_stop,
            ),
        ];
        let stagnant = if self.streak_actions.len() > 1 {
            self.same_result_streak
        } else {
            0
        };
        verdicts.push(self.ladder(
            Detector::Stagnation,
            result,
            stagnant,
            limits.stagnation_diagnose,
            limits.stagnation_stop,
        ));
        if obs.is_error {
            let key = hash64(&[obs.tool, obs.content.trim()]);
            let (count, _) = self.errors.get_or_insert(key, REMEMBERED, || 0);
            *count += 1;
            let count = *count;
            verdicts.push(self.ladder(
                Detector::RepeatedError,
                key,
                count,
                limits.error_repeat_diagnose,
                limits.error_repeat_stop,
            ));
        }
        strongest(verdicts)
    }

    fn track_streak(&mut self, action: u64, result: u64) {
        if self.last_result == Some(result) {
            self.same_result_streak += 1;
        } else {
            self.last_result = Some(result);
            self.same_result_streak = 1;
            self.streak_actions.clear();
        }
        if !self.streak_actions.contains(&action) && self.streak_actions.len() < 8 {
            self.streak_actions.push(action);
        }
    }

    /// Length of the A-B-A-B tail of recent fingerprints (0 unless at least A-B-A-B... with A≠B).
    fn alternation(&self) -> u32 {
        let n = self.recent.len();
        if n < 2 {
            return 0;
        }
        let a = self.recent[n - 1];
        let b = self.recent[n - 2];
        if a == b {
            return 0;
        }
        let len = self
            .recent
            .iter()
            .rev()
            .enumerate()
            .take_while(|(i, fp)| **fp == if i % 2 == 0 { a } else { b })
            .count();
        len as u32
    }

    fn ladder(
        &mut self,
        detector: Detector,
        target: u64,
        count: u32,
        diagnose: u32,
        stop: u32,
    ) -> Verdict {
        if count >= stop {
            Verdict::Stop(detector)
        } else if count >= diagnose
            && self
                .diagnosed
                .get_or_insert((detector, target), REMEMBERED, || ())
                .1
        {
            Verdict::Diagnose(detector)
        } else {
            Verdict::Continue
        }
    }
}

fn strongest(verdicts: Vec<Verdict>) -> Verdict {
    let mut best = Verdict::Continue;
    for v in verdicts {
        best = match (&best, &v) {
            (Verdict::Stop(_), _) => best,
            (_, Verdict::Stop(_)) => v,
            (Verdict::Diagnose(_), _) => best,
            (Verdict::Continue, _) => v,
        };
    }
    best
}

/// The message a detector injects or stops with.
pub fn message(detector: Detector, stop: bool) -> String {
    let what = match detector {
        Detector::Repetition => "Repeated action detected: the same tool call returned the same result with no new evidence",
        Detector::Thrashing => "Thrashing detected: two actions keep alternating with unchanged results",
        Detector::Stagnation => "Stagnation detected: the results stopped changing although the actions vary",
        Detector::RepeatedError => "Repeated error detected: the same error keeps coming back",
        Detector::RepeatedSuccess => {
            "Repeated success detected: the call that just succeeded was asked for again, unchanged"
        }
        Detector::ConsecutiveErrors => "Tool calls keep failing",
        Detector::OverdueMilestone => {
            "An open todo item is overdue: many steps brought nothing new"
        }
        Detector::BudgetEndgame => {
            "Most of the budget is spent and the last steps brought nothing new"
        }
    };
    if detector == Detector::RepeatedSuccess {
        format!("{what}. The run ended with that call's result as the answer.")
    } else if stop {
        format!("{what}. The run stopped with no progress.")
    } else {
        format!(
            "{what}. Diagnose before retrying: say why it did not work and change the approach."
        )
    }
}
