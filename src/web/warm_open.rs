//! Opening a session once on made-up input while the page is idle. The engine compiles a wasm
//! function on its first call, and on a fresh page that compiling, not the work, was most of
//! the first open of a stored session: reading the options and the tool list, reading its
//! records, folding them, reading its snapshot back (`benches/compare/ab_sessions.mjs`, see
//! BENCHMARKS.md).

use super::idb_store::parse_lines;
use super::js_value::{from_js, to_js};
use crate::core::{records_as_lines, Agent};
use crate::ports::HostToolSpec;
use crate::runtime::options::AgentOptions;
use crate::runtime::synthetic::session_log;

/// Records in the made-up log: enough for a step with a tool call and the run's end.
const WARM_RECORDS: usize = 24;

/// Writes a made-up log as the store writes it, reads it back as an open does (records, then a
/// snapshot of them with the last record as its tail) and returns whether both reads fold to
/// the same state, which they always should.
pub fn warm_opening() -> bool {
    let log = session_log(WARM_RECORDS, "warm");
    let Ok(read) = parse_lines("warm", &records_as_lines(&log), 0) else {
        return false;
    };
    let (Ok(replayed), Some(last)) = (Agent::replay(&read), read.last()) else {
        return false;
    };
    let Some(write) = replayed.snapshot(last, 0) else {
        return false;
    };
    let tail = std::slice::from_ref(last);
    Agent::from_snapshot_parts(&write.head, &write.parts, tail)
        .is_some_and(|(opened, _)| opened.state() == replayed.state())
}

/// Reads made-up `createAgent` options and a made-up tool list (a schema of the built-in tools'
/// shape) from JS objects as an open does, and turns them into a session's configuration;
/// returns whether the made-up tool was offered.
pub fn warm_launch_reading() -> bool {
    let options = to_js(&serde_json::json!({
        "session": "warm",
        "provider": { "kind": "custom", "model": "warm" },
        "budget": { "maxSteps": 1 },
        "permissions": { "warm": "ask" },
    }));
    let tools = to_js(&serde_json::json!([{
        "name": "warm",
        "description": "A made-up tool.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": { "type": "string", "description": "A path." },
                "op": { "type": "string", "enum": ["read", "write"] },
            },
            "required": ["path"],
            "additionalProperties": false,
        },
        "permission": "allow",
        "idempotent": true,
        "parallelSafe": true,
    }]));
    let (Ok(options), Ok(tools)) = (
        from_js::<AgentOptions>(&options),
        from_js::<Vec<HostToolSpec>>(&tools),
    ) else {
        return false;
    };
    options
        .to_config(&tools)
        .is_ok_and(|config| config.tools.iter().any(|tool| tool.spec.name == "warm"))
}
