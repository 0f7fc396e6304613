//! Rebuilding an agent from its log (resume after reload), forking a session from any step, and
//! reading and writing logs as JSON lines (export / import).

use super::agent::Agent;
use super::error::ReplayError;
use super::log::{Event, Record, SCHEMA_VERSION};
use super::state::AgentState;
use crate::protocol::{into_text, write_json, TEXT_CAPACITY};

impl Agent {
    /// Folds a log back into an agent with the same state the live agent had. Call
    /// [`Agent::resume`] afterwards to pick up work that was in flight.
    pub fn replay(records: &[Record]) -> Result<Agent, ReplayError> {
        let first = records.first().ok_or(ReplayError::Empty)?;
        let Event::SessionStarted {
            schema_version,
            session,
            config,
        } = &first.event
        else {
            return Err(ReplayError::NoSessionStart);
        };
        if *schema_version > SCHEMA_VERSION {
            return Err(ReplayError::FutureSchema {
                found: *schema_version,
                supported: SCHEMA_VERSION,
            });
        }
        let mut state = AgentState::new(session.clone(), config.clone(), first.at);
        for (expected, record) in records.iter().enumerate().skip(1) {
            if record.seq != expected as u64 {
                return Err(ReplayError::Gap {
                    expected: expected as u64,
                    found: record.seq,
                });
            }
            state.apply(record);
        }
        Ok(Agent::from_state(state))
    }

    /// A new session `session` whose log is a copy of `records` up to and including the end of
    /// step `step` of the last run that reached it (or the whole log before the first step when
    /// `step` is 0). Returns the new log; replay it to get the agent.
    pub fn fork(records: &[Record], step: u32, session: &str) -> Result<Vec<Record>, ReplayError> {
        let end = cut_after(records, 0..records.len(), step)?;
        fork_prefix(records, end, session)
    }

    /// Like [`Agent::fork`], from step `step` of run `run` (numbered from 1), whichever run of
    /// the session it is: the copy ends there and resumes as that run.
    pub fn fork_run(
        records: &[Record],
        run: u32,
        step: u32,
        session: &str,
    ) -> Result<Vec<Record>, ReplayError> {
        let start = records
            .iter()
            .position(|r| matches!(r.event, Event::RunStarted { run: n, .. } if n == run))
            .ok_or(ReplayError::NoSuchRun(run))?;
        let end = records[start + 1..]
            .iter()
            .position(|r| matches!(r.event, Event::RunStarted { .. }))
            .map_or(records.len(), |i| start + 1 + i);
        let cut = cut_after(records, start..end, step)?;
        fork_prefix(records, cut, session)
    }
}

/// Where a fork at the end of `step` within `range` of the log cuts: before the range's first
/// step for step 0; else after the step's end and what directly follows it (the next step's
/// start, or the run's end), so the fork resumes exactly at that point.
fn cut_after(
    records: &[Record],
    range: std::ops::Range<usize>,
    step: u32,
) -> Result<usize, ReplayError> {
    let slice = &records[range.clone()];
    if step == 0 {
        return Ok(slice
            .iter()
            .position(|r| matches!(r.event, Event::StepStarted { .. }))
            .map_or(range.end, |i| range.start + i));
    }
    let last = slice
        .iter()
        .rposition(|r| matches!(r.event, Event::StepFinished { step: s, .. } if s == step))
        .ok_or(ReplayError::NoSuchStep(step))?;
    let mut end = range.start + last + 1;
    while let Some(Record {
        event: Event::StepStarted { .. } | Event::RunFinished { .. },
        ..
    }) = records.get(end)
    {
        end += 1;
    }
    Ok(end)
}

/// The first `end` records renamed to `session`, checked by replaying them.
fn fork_prefix(records: &[Record], end: usize, session: &str) -> Result<Vec<Record>, ReplayError> {
    let mut out: Vec<Record> = records[..end].to_vec();
    if let Some(Record {
        event: Event::SessionStarted { session: s, .. },
        ..
    }) = out.first_mut()
    {
        *s = session.to_string();
    }
    Agent::replay(&out)?;
    Ok(out)
}

/// Reads a JSON-lines log. The schema version of the first line is checked before anything else
/// is parsed, so a log from a newer build is refused with a clear error, not a parse failure.
pub fn parse_jsonl(text: &str) -> Result<Vec<Record>, ReplayError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .peekable();
    let Some((_, first)) = lines.peek() else {
        return Err(ReplayError::Empty);
    };
    let version = serde_json::from_str::<serde_json::Value>(first)
        .ok()
        .and_then(|v| v.get("event")?.get("schema_version")?.as_u64());
    if let Some(found) = version {
        if found > u64::from(SCHEMA_VERSION) {
            return Err(ReplayError::FutureSchema {
                found: found as u32,
                supported: SCHEMA_VERSION,
            });
        }
    }
    lines
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| ReplayError::Malformed {
                line: i + 1,
                message: e.to_string(),
            })
        })
        .collect()
}

/// Writes a log as JSON lines (one record per line).
pub fn to_jsonl(records: &[Record]) -> String {
    let mut out = records_as_lines(records);
    if !records.is_empty() {
        out.push('\n');
    }
    out
}

/// The records' JSON texts joined by newlines, with no newline after the last: what the
/// IndexedDB store hands its JS side per append. Written straight into one buffer (a record's
/// text is about 100 to 400 bytes), so no record's text is allocated and copied on its own on
/// every step's path.
pub fn records_as_lines(records: &[Record]) -> String {
    let mut out = Vec::with_capacity(TEXT_CAPACITY * records.len());
    for (i, record) in records.iter().enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        write_json(&mut out, record);
    }
    into_text(out)
}
