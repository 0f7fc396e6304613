//! Rebuilding an agent from its log (resume after reload), forking a session from any step, and
//! reading and writing logs as JSON lines (export / import).

use super::agent::Agent;
use super::error::ReplayError;
use super::log::{Event, Record, SCHEMA_VERSION};
use super::state::AgentState;

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
        let end = if step == 0 {
            records
                .iter()
                .position(|r| matches!(r.event, Event::StepStarted { .. }))
                .unwrap_or(records.len())
        } else {
            let last = records
                .iter()
                .rposition(|r| matches!(r.event, Event::StepFinished { step: s, .. } if s == step))
                .ok_or(ReplayError::NoSuchStep(step))?;
            // Keep what directly follows the step's end (the next step's start, or the run's
            // end) so the fork resumes exactly at that point.
            let mut end = last + 1;
            while let Some(Record {
                event: Event::StepStarted { .. } | Event::RunFinished { .. },
                ..
            }) = records.get(end)
            {
                end += 1;
            }
            end
        };
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
    let mut out = String::new();
    for record in records {
        if let Ok(line) = serde_json::to_string(record) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}
