//! Offline replay verification: a recorded session's inputs (user messages, model replies, tool
//! results, approvals, cancels, reloads) are fed back through a fresh agent, with no network and
//! no tool execution, and every record the agent writes must equal the log's, byte for byte as
//! JSON. The first difference is reported with its position. This is how a user proves that the
//! loop decided what the log says it decided.

use std::collections::VecDeque;

use serde::Serialize;

use super::agent::Agent;
use super::error::ReplayError;
use super::input::Input;
use super::log::{Event, InterruptCause, Record};
use super::phase::Phase;

/// Where a replay first differed from the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Divergence {
    /// Position in the log.
    pub seq: u64,
    /// The log's record there (JSON), or `(end of log)`.
    pub expected: String,
    /// What the fresh agent wrote there (JSON), or why it wrote nothing.
    pub got: String,
}

/// The result of a verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    /// Records in the log.
    pub records: usize,
    /// Inputs fed back to the agent.
    pub inputs: usize,
    /// The first difference; `None` when every decision matched.
    pub divergence: Option<Divergence>,
}

fn json(record: &Record) -> String {
    crate::protocol::json_text(record)
}

/// Feeds `records`' inputs to a fresh agent and compares what it writes with `records`.
pub fn verify_replay(records: &[Record]) -> Result<VerifyReport, ReplayError> {
    // Refuses what cannot be read at all (empty, newer schema, gaps) before comparing.
    Agent::replay(records)?;
    let Some(Record {
        at,
        event: Event::SessionStarted {
            session, config, ..
        },
        ..
    }) = records.first()
    else {
        return Err(ReplayError::NoSessionStart);
    };
    let mut agent = Agent::new(session.clone(), config.clone(), *at);
    let mut pending = drain(&mut agent);
    let mut inputs = 0;
    let mut next = 0;
    let report = |inputs, divergence| VerifyReport {
        records: records.len(),
        inputs,
        divergence,
    };
    while next < records.len() {
        let expected = &records[next];
        if let Some(got) = pending.front() {
            if json(got) != json(expected) && matches!(expected.event, Event::Resumed) {
                // The log was cut there (a fork ends mid-batch) and reopened: its prefix is the
                // state the reopened page started from.
                let hook = agent.stop_hook;
                agent = Agent::replay(&records[..next])?;
                agent.set_stop_hook(hook);
                pending.clear();
                continue;
            }
        }
        if let Some(got) = pending.pop_front() {
            if json(&got) != json(expected) {
                let divergence = Divergence {
                    seq: expected.seq,
                    expected: json(expected),
                    got: json(&got),
                };
                return Ok(report(inputs, Some(divergence)));
            }
            next += 1;
            continue;
        }
        // Nothing pending: the record came from an input (or a reopened page).
        if let Some(resumed) = try_resume(&agent, &records[next..]) {
            (agent, pending) = resumed;
            inputs += 1;
            continue;
        }
        let input = match input_for(&agent, records, next) {
            Some(input) => input,
            None => {
                let divergence = Divergence {
                    seq: expected.seq,
                    expected: json(expected),
                    got: "(no input of the log leads to this record)".into(),
                };
                return Ok(report(inputs, Some(divergence)));
            }
        };
        if matches!(
            input,
            Input::UserMessage {
                budget: Some(_),
                ..
            }
        ) {
            agent.set_stop_hook(run_asks_stop_hook(&records[next + 1..]));
        }
        if let Err(error) = agent.handle(input, expected.at) {
            let divergence = Divergence {
                seq: expected.seq,
                expected: json(expected),
                got: format!("(the agent refused the input: {error})"),
            };
            return Ok(report(inputs, Some(divergence)));
        }
        inputs += 1;
        pending = drain(&mut agent);
    }
    let divergence = pending.pop_front().map(|extra| Divergence {
        seq: extra.seq,
        expected: "(end of log)".into(),
        got: json(&extra),
    });
    Ok(report(inputs, divergence))
}

/// Whether the run starting at `rest[0]` put a completion to a stop hook (the tab had one).
fn run_asks_stop_hook(rest: &[Record]) -> bool {
    rest.iter()
        .enumerate()
        .take_while(|(i, r)| *i == 0 || !matches!(r.event, Event::RunStarted { .. }))
        .any(|(_, r)| matches!(r.event, Event::StopHookAsked { .. }))
}

/// The records an agent wrote since the last drain; other effects are not performed.
fn drain(agent: &mut Agent) -> VecDeque<Record> {
    let mut out = VecDeque::new();
    while let Some(effect) = agent.poll() {
        if let super::Effect::Persist(record) = effect {
            out.push_back(record);
        }
    }
    out
}

/// A page reopened on the log at `rest[0]`: resuming writes exactly the records that follow.
fn try_resume(agent: &Agent, rest: &[Record]) -> Option<(Agent, VecDeque<Record>)> {
    let first = rest.first()?;
    if !matches!(first.event, Event::Resumed) || agent.state().active_run().is_none() {
        return None;
    }
    let mut trial = agent.clone();
    trial.resume(first.at);
    let written = drain(&mut trial);
    let matches =
        written.len() <= rest.len() && written.iter().zip(rest).all(|(a, b)| json(a) == json(b));
    // A lone `Resumed` is also what `Input::Resume` writes after a hidden tab: both agree.
    matches.then_some((trial, written))
}

/// The input that wrote `records[at]`, read from the record itself.
fn input_for(agent: &Agent, records: &[Record], at: usize) -> Option<Input> {
    let record = &records[at];
    Some(match &record.event {
        Event::UserMessage { text } => {
            let budget = match records.get(at + 1).map(|r| &r.event) {
                Some(Event::RunStarted { budget, .. }) if agent.state().active_run().is_none() => {
                    Some(*budget)
                }
                _ => None,
            };
            Input::UserMessage {
                text: text.clone(),
                budget,
            }
        }
        Event::ModelReplied { request, reply, .. } => Input::ModelReplied {
            request: *request,
            reply: reply.clone(),
        },
        Event::ModelFailed { request, error } => Input::ModelFailed {
            request: *request,
            error: error.clone(),
        },
        Event::ToolCallFinished {
            call,
            content,
            is_error,
        } => Input::ToolFinished {
            call: call.clone(),
            content: content.clone(),
            is_error: *is_error,
        },
        Event::ApprovalDecided {
            call,
            approved,
            reason,
        } => Input::ApprovalDecided {
            call: call.clone(),
            args_hash: slot_hash(agent, call)?,
            approved: *approved,
            reason: reason.clone(),
        },
        Event::BudgetExtended { budget } => Input::ExtendBudget { budget: *budget },
        Event::Suspended => Input::Suspend,
        Event::Resumed => Input::Resume,
        Event::RunUnpaused => Input::RetryPaused,
        Event::StopHookDecided { verdict } => Input::StopHookAnswered {
            verdict: verdict.clone(),
        },
        // A run stopped between events: by the user or by the wall clock.
        Event::ModelCallAbandoned { partial_reply, .. } => interruption(records, at, partial_reply),
        Event::ToolCallInterrupted {
            call,
            cause: cause @ (InterruptCause::Offline | InterruptCause::NetworkLost),
            error,
        } => Input::ToolUnreachable {
            call: call.clone(),
            error: error.clone().unwrap_or_default(),
            sent: *cause == InterruptCause::NetworkLost,
        },
        Event::ToolCallInterrupted { .. } | Event::StepFinished { .. } => {
            interruption(records, at, "")
        }
        Event::RunFinished { outcome } => {
            if outcome.stop == super::StopReason::Cancelled {
                Input::cancel()
            } else {
                Input::tick()
            }
        }
        Event::SessionStarted { .. }
        | Event::RunStarted { .. }
        | Event::StepStarted { .. }
        | Event::ModelCallStarted { .. }
        | Event::ModelRetryScheduled { .. }
        | Event::RunPaused { .. }
        | Event::Compacted { .. }
        | Event::ToolCallRejected { .. }
        | Event::ApprovalRequested { .. }
        | Event::ToolCallStarted { .. }
        | Event::GuardTriggered { .. }
        | Event::CompletionRejected { .. }
        | Event::StopHookAsked { .. } => return None,
    })
}

/// A cancel or a wall-clock stop (each keeping `partial_reply`), told apart by the cause the log
/// records.
fn interruption(records: &[Record], at: usize, partial_reply: &str) -> Input {
    let cancelled = records[at..].iter().find_map(|r| {
        if let Event::ToolCallInterrupted { cause, .. } = &r.event {
            return Some(*cause == InterruptCause::Cancelled);
        }
        if let Event::RunFinished { outcome } = &r.event {
            return Some(outcome.stop == super::StopReason::Cancelled);
        }
        None
    });
    let partial_reply = partial_reply.to_string();
    if cancelled.unwrap_or(false) {
        Input::Cancel { partial_reply }
    } else {
        Input::Tick { partial_reply }
    }
}

/// The arguments hash of a call waiting for approval.
fn slot_hash(agent: &Agent, call: &str) -> Option<String> {
    let Phase::Tools(batch) = &agent.state().active_run()?.phase else {
        return None;
    };
    batch
        .slots
        .iter()
        .find(|s| s.call.id == call)
        .map(|s| s.args_hash.clone())
}
