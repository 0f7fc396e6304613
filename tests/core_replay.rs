//! Replay, fork, resume and export: the log is the state. Includes the property test that for
//! random scripts `replay(log)` equals the live state and makes the same next decision, and that
//! a fold snapshot of any prefix plus the tail after it equals it too.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::wildcard_enum_match_arm,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

mod core_support;

use core_support::*;
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::json;
use tabloop::core::{
    args_hash, parse_jsonl, to_jsonl, Agent, Effect, Event, Input, Record, ReplayError, RunPhase,
    SessionDigest, SCHEMA_VERSION, SNAPSHOT_VERSION, TITLE_CHARS,
};
use tabloop::protocol::{FinishReason, ModelReply, ToolCall};

#[test]
fn replay_rebuilds_the_live_state() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let _ = h.reply(
        &effects,
        calls(vec![call("a", "read_file", json!({"path": "1"}))]),
    );
    let effects = h.tool_result("a", "one", false);
    h.reply(&effects, text("done"));
    let replayed = Agent::replay(&h.log).unwrap();
    assert_eq!(replayed.state(), h.agent.state());
}

#[test]
fn export_and_import_as_jsonl_round_trip() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    h.reply(&effects, text("done"));
    let text = to_jsonl(&h.log);
    assert_eq!(text.lines().count(), h.log.len());
    assert_eq!(parse_jsonl(&text).unwrap(), h.log);
}

#[test]
fn a_log_from_a_newer_build_is_refused_loudly() {
    let h = Harness::new(config());
    let mut log = h.log.clone();
    if let Event::SessionStarted { schema_version, .. } = &mut log[0].event {
        *schema_version = SCHEMA_VERSION + 1;
    }
    assert_eq!(
        Agent::replay(&log).err(),
        Some(ReplayError::FutureSchema {
            found: SCHEMA_VERSION + 1,
            supported: SCHEMA_VERSION
        })
    );
    // Even when later lines hold event types this build does not know.
    let mut text = to_jsonl(&log);
    text.push_str(r#"{"seq":1,"at":5,"event":{"type":"teleported","where":"mars"}}"#);
    assert_eq!(
        parse_jsonl(&text).err(),
        Some(ReplayError::FutureSchema {
            found: SCHEMA_VERSION + 1,
            supported: SCHEMA_VERSION
        })
    );
}

#[test]
fn a_log_with_a_gap_or_garbage_is_refused_with_the_position() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    h.reply(&effects, text("done"));
    let mut log = h.log.clone();
    log.remove(3);
    assert_eq!(
        Agent::replay(&log).err(),
        Some(ReplayError::Gap {
            expected: 3,
            found: 4
        })
    );
    let text = format!("{}not json\n", to_jsonl(&h.log[..2]));
    assert!(matches!(
        parse_jsonl(&text),
        Err(ReplayError::Malformed { line: 3, .. })
    ));
}

#[test]
fn resume_reissues_an_in_flight_model_call() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let old = Harness::model_call(&effects);
    let mut agent = Agent::replay(&h.log).unwrap();
    agent.resume(h.now + 60_000);
    let effects: Vec<Effect> = std::iter::from_fn(|| agent.poll()).collect();
    let kinds: Vec<String> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Persist(r) => Some(kind(&r.event)),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        vec!["resumed", "model_call_abandoned", "model_call_started:step"]
    );
    let new = Harness::model_call(&effects);
    assert_ne!(new, old);
    let run = agent.run().unwrap();
    assert!(
        run.ledger.suspended_ms >= 60_000,
        "the closed-tab gap is not charged"
    );
}

#[test]
fn resume_reruns_an_interrupted_idempotent_call_and_asks_before_rerunning_the_others() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let args = json!({"path": "x", "text": "y"});
    let effects = h.reply(
        &effects,
        calls(vec![
            call("r", "read_file", json!({"path": "1"})),
            call("w", "write_file", args.clone()),
        ]),
    );
    let _ = effects;
    // read_file is allowed and runs; write_file needs approval first; the batch is sequential.
    let effects = h
        .send(Input::ApprovalDecided {
            call: "w".into(),
            args_hash: args_hash("write_file", &args),
            approved: true,
            reason: None,
        })
        .unwrap();
    assert!(
        Harness::tool_calls(&effects).is_empty(),
        "write waits behind read"
    );
    let effects = h.tool_result("r", "one", false);
    assert_eq!(Harness::tool_calls(&effects)[0].call, "w");
    // The tab dies while write_file runs. On reload it is not re-run blindly.
    let mut agent = Agent::replay(&h.log).unwrap();
    agent.resume(h.now + 1_000);
    let effects: Vec<Effect> = std::iter::from_fn(|| agent.poll()).collect();
    assert!(Harness::tool_calls(&effects).is_empty());
    assert!(effects.iter().any(
        |e| matches!(e, Effect::AskApproval { call, after_interrupt: true, .. } if call == "w")
    ));

    // An idempotent call is simply re-run, as attempt 2 with the same idempotency key.
    let mut h = Harness::new(config());
    let effects = h.user("go");
    h.reply(
        &effects,
        calls(vec![call("r", "read_file", json!({"path": "1"}))]),
    );
    let mut agent = Agent::replay(&h.log).unwrap();
    agent.resume(h.now + 1_000);
    let effects: Vec<Effect> = std::iter::from_fn(|| agent.poll()).collect();
    let rerun = Harness::tool_calls(&effects);
    assert_eq!(rerun.len(), 1);
    assert_eq!(rerun[0].idempotency_key, "s1:1:r");
    assert!(effects.iter().any(|e| matches!(
        e,
        Effect::Persist(Record {
            event: Event::ToolCallStarted { attempt: 2, .. },
            ..
        })
    )));
}

#[test]
fn resume_asks_again_for_a_pending_approval() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    h.reply(
        &effects,
        calls(vec![call(
            "w",
            "write_file",
            json!({"path": "a", "text": "b"}),
        )]),
    );
    let mut agent = Agent::replay(&h.log).unwrap();
    agent.resume(h.now + 10);
    let effects: Vec<Effect> = std::iter::from_fn(|| agent.poll()).collect();
    assert!(effects.iter().any(
        |e| matches!(e, Effect::AskApproval { call, after_interrupt: false, .. } if call == "w")
    ));
}

#[test]
fn a_fork_from_a_step_starts_a_new_session_that_redoes_the_next_step() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let _ = h.reply(
        &effects,
        calls(vec![call("a", "read_file", json!({"path": "1"}))]),
    );
    let effects = h.tool_result("a", "one", false);
    h.reply(&effects, text("done"));
    let forked = Agent::fork(&h.log, 1, "s2").unwrap();
    assert!(matches!(&forked[0].event, Event::SessionStarted { session, .. } if session == "s2"));
    assert!(matches!(
        forked.last().unwrap().event,
        Event::StepStarted { step: 2, .. }
    ));
    let mut agent = Agent::replay(&forked).unwrap();
    agent.resume(h.now);
    let effects: Vec<Effect> = std::iter::from_fn(|| agent.poll()).collect();
    Harness::model_call(&effects);
    assert_eq!(
        Agent::fork(&h.log, 9, "s3").err(),
        Some(ReplayError::NoSuchStep(9))
    );
}

// ---- property test -------------------------------------------------------------------------

/// One scripted move of the outside world; interpreted against whatever the core asked for.
#[derive(Debug, Clone)]
enum Move {
    Text(u8),
    Cut,
    Calls(Vec<(u8, u8, u8)>), // (tool index, argument choice, id salt)
    Result(u8, bool),
    /// A running call's tool cannot reach its server (sent or not).
    Unreachable(u8, bool),
    /// The person (or the network's return) asks the paused run to go on.
    Retry,
    Approve(bool),
    Cancel,
    Suspend,
    Resume,
    Tick(u32),
    User(u8),
}

fn moves() -> impl Strategy<Value = Vec<Move>> {
    let m = prop_oneof![
        3 => any::<u8>().prop_map(Move::Text),
        1 => Just(Move::Cut),
        6 => prop::collection::vec((0u8..8, 0u8..4, any::<u8>()), 1..4).prop_map(Move::Calls),
        6 => (0u8..4, any::<bool>()).prop_map(|(c, e)| Move::Result(c, e)),
        1 => (0u8..4, any::<bool>()).prop_map(|(c, sent)| Move::Unreachable(c, sent)),
        1 => Just(Move::Retry),
        2 => any::<bool>().prop_map(Move::Approve),
        1 => Just(Move::Cancel),
        1 => Just(Move::Suspend),
        1 => Just(Move::Resume),
        2 => (0u32..120_000).prop_map(Move::Tick),
        2 => (0u8..4).prop_map(Move::User),
    ];
    prop::collection::vec(m, 1..60)
}

const TOOLS: [&str; 8] = [
    "read_file",
    "grep",
    "write_file",
    "delete_all",
    "todo",
    "finish",
    "nope",
    "read_file",
];

fn make_call(tool: u8, arg: u8, salt: u8, n: usize) -> ToolCall {
    let name = TOOLS[tool as usize % TOOLS.len()];
    let arguments = match (name, arg) {
        (_, 3) => "{not json".to_string(),
        ("read_file", a) => json!({"path": format!("f{a}")}).to_string(),
        ("grep", a) => json!({"pattern": "p", "path": format!("d{a}")}).to_string(),
        ("write_file", a) => json!({"path": "w", "text": format!("t{a}")}).to_string(),
        ("todo", a) => json!({"items": [{"id": "1", "text": "t", "status": if a == 0 { "open" } else { "done" }}]}).to_string(),
        ("finish", _) => json!({"summary": "s"}).to_string(),
        _ => "{}".to_string(),
    };
    ToolCall {
        id: format!("c{n}_{salt}"),
        name: name.into(),
        arguments,
    }
}

/// Applies a move if it fits what the core is waiting for; returns the input fed, if any.
fn input_for(agent: &Agent, pending: &[Effect], mv: &Move, n: usize) -> Option<Input> {
    let model = pending.iter().rev().find_map(|e| match e {
        Effect::CallModel { request, .. } => Some(*request),
        _ => None,
    });
    let running: Vec<String> = match agent.run().map(|r| &r.phase) {
        Some(tabloop::core::Phase::Tools(b)) => b
            .slots
            .iter()
            .filter(|s| s.state == tabloop::core::SlotState::Running)
            .map(|s| s.call.id.clone())
            .collect(),
        _ => vec![],
    };
    let asking: Vec<(String, String)> = match agent.run().map(|r| &r.phase) {
        Some(tabloop::core::Phase::Tools(b)) => b
            .slots
            .iter()
            .filter(|s| matches!(s.state, tabloop::core::SlotState::AwaitingApproval { .. }))
            .map(|s| (s.call.id.clone(), s.args_hash.clone()))
            .collect(),
        _ => vec![],
    };
    let awaiting_model = matches!(
        agent.run().map(|r| &r.phase),
        Some(tabloop::core::Phase::AwaitingModel { .. })
    );
    let running_call = |c: u8| running.get(c as usize % running.len().max(1)).cloned();
    let reply = |r: ModelReply| {
        model
            .filter(|_| awaiting_model)
            .map(|request| Input::ModelReplied { request, reply: r })
    };
    match mv {
        Move::Text(t) => reply(text(&format!("answer {t} </think>"))),
        Move::Cut => reply(cut_text("partial")),
        Move::Calls(list) => {
            let mut seen = std::collections::HashSet::new();
            let tool_calls: Vec<ToolCall> = list
                .iter()
                .map(|(t, a, s)| make_call(*t, *a, *s, n))
                .filter(|c| seen.insert(c.id.clone()))
                .collect();
            reply(ModelReply {
                text: String::new(),
                tool_calls,
                finish: FinishReason::ToolUse,
                usage: usage(50, 5),
                model: "m".into(),
                reasoning: String::new(),
            })
        }
        Move::Result(c, is_error) => running_call(*c).map(|call| Input::ToolFinished {
            call,
            content: format!("result {c}"),
            is_error: *is_error,
        }),
        Move::Unreachable(c, sent) => running_call(*c).map(|call| Input::ToolUnreachable {
            call,
            error: format!("offline {c}"),
            sent: *sent,
        }),
        Move::Retry => Some(Input::RetryPaused),
        Move::Approve(yes) => asking.first().map(|(call, hash)| Input::ApprovalDecided {
            call: call.clone(),
            args_hash: hash.clone(),
            approved: *yes,
            reason: None,
        }),
        Move::Cancel => Some(Input::cancel()),
        Move::Suspend => Some(Input::Suspend),
        Move::Resume => Some(Input::Resume),
        Move::Tick(_) => Some(Input::tick()),
        Move::User(u) => Some(Input::UserMessage {
            text: format!("task {u}"),
            budget: None,
        }),
    }
}

fn drain(agent: &mut Agent, log: &mut Vec<Record>) -> Vec<Effect> {
    let mut actions = Vec::new();
    while let Some(e) = agent.poll() {
        match e {
            Effect::Persist(r) => log.push(r),
            other => actions.push(other),
        }
    }
    actions
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn replay_of_any_script_equals_the_live_state_and_makes_the_same_next_decision(script in moves(), next in moves()) {
        let mut cfg = config();
        cfg.budget.max_wall_ms = Some(300_000);
        cfg.context_window = 3_000;
        let mut agent = Agent::new("p", cfg, 0);
        let mut log = Vec::new();
        let mut now = 0u64;
        let mut pending = drain(&mut agent, &mut log);
        for (n, mv) in script.iter().enumerate() {
            now += match mv { Move::Tick(ms) => u64::from(*ms), _ => 7 };
            if let Some(input) = input_for(&agent, &pending, mv, n) {
                if agent.handle(input, now).is_ok() {
                    pending = drain(&mut agent, &mut log);
                }
            }
        }
        let mut replayed = Agent::replay(&log).unwrap();
        prop_assert_eq!(replayed.state(), agent.state());
        // Offline verification feeds the log's inputs back and gets the same log.
        let report = tabloop::core::verify_replay(&log).unwrap();
        prop_assert_eq!(report.divergence, None);
        // Same next decision: feed both the same inputs and compare what they ask for.
        let mut live = agent.clone();
        let (mut log_a, mut log_b) = (Vec::new(), Vec::new());
        for (n, mv) in next.iter().enumerate() {
            now += 5;
            let input = input_for(&live, &pending, mv, 1_000 + n);
            if let Some(input) = input {
                let a = live.handle(input.clone(), now);
                let b = replayed.handle(input, now);
                prop_assert_eq!(&a, &b);
                let ea = drain(&mut live, &mut log_a);
                let eb = drain(&mut replayed, &mut log_b);
                prop_assert_eq!(&ea, &eb);
                if !ea.is_empty() {
                    pending = ea;
                }
            }
        }
        prop_assert_eq!(log_a, log_b);
    }

    #[test]
    fn a_snapshot_of_any_prefix_plus_its_tail_equals_the_live_state(script in moves(), cut in 0.0f64..1.0) {
        let mut cfg = config();
        cfg.budget.max_wall_ms = Some(300_000);
        cfg.context_window = 3_000;
        let mut agent = Agent::new("p", cfg, 0);
        let mut log = Vec::new();
        let mut now = 0u64;
        let mut pending = drain(&mut agent, &mut log);
        for (n, mv) in script.iter().enumerate() {
            now += match mv { Move::Tick(ms) => u64::from(*ms), _ => 7 };
            if let Some(input) = input_for(&agent, &pending, mv, n) {
                if agent.handle(input, now).is_ok() {
                    pending = drain(&mut agent, &mut log);
                }
            }
        }
        // Every record reads back as written.
        for record in &log {
            let read: Record = serde_json::from_str(&serde_json::to_string(record).unwrap()).unwrap();
            prop_assert_eq!(&read, record);
        }
        let k = 1 + ((log.len() - 1) as f64 * cut) as usize;
        let prefix = Agent::replay(&log[..k]).unwrap();
        let write = prefix.snapshot(&log[k - 1], 0).unwrap();
        let (resumed, parts) = Agent::from_snapshot_parts(&write.head, &write.parts, &log[k - 1..]).unwrap();
        prop_assert_eq!(parts, write.parts.len() as u64);
        prop_assert_eq!(resumed.state(), agent.state());
        // The tail as a store hands it back: through JSON.
        let stored = parse_jsonl(&to_jsonl(&log)).unwrap();
        let resumed = Agent::from_snapshot(&write.head, &write.parts, &stored[k - 1..]).unwrap();
        prop_assert_eq!(resumed.state(), agent.state());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    /// The sessions digest decides "in flight" with the agent's own fold, so after every input
    /// of any script they agree, and the agent's active run is there exactly then; the phase the
    /// digest reads from the event table is the one the agent's `Phase` reads as.
    #[test]
    fn the_digest_and_the_agent_agree_on_the_run_in_flight_and_its_phase_after_every_input(script in moves()) {
        let mut cfg = config();
        cfg.budget.max_wall_ms = Some(300_000);
        cfg.context_window = 3_000;
        let mut agent = Agent::new("p", cfg, 0);
        let mut log = Vec::new();
        let mut now = 0u64;
        let mut pending = drain(&mut agent, &mut log);
        let mut digest = SessionDigest::default();
        let mut seen = 0;
        for (n, mv) in script.iter().enumerate() {
            now += match mv { Move::Tick(ms) => u64::from(*ms), _ => 7 };
            if let Some(input) = input_for(&agent, &pending, mv, n) {
                if agent.handle(input, now).is_ok() {
                    pending = drain(&mut agent, &mut log);
                }
            }
            for record in &log[seen..] {
                digest.push(record);
            }
            seen = log.len();
            let read: SessionDigest = serde_json::from_str(&serde_json::to_string(&digest).unwrap()).unwrap();
            prop_assert_eq!(&read, &digest);
            prop_assert_eq!(digest.flight, agent.state().flight);
            prop_assert_eq!(digest.in_flight(), agent.state().active_run().is_some());
            prop_assert_eq!(digest.phase(), &RunPhase::of(agent.state().run.as_ref()), "after {:?}", mv);
        }
    }
}

/// A snapshot head's JSON (these test logs are too short for parts).
fn head_of(agent: &Agent, last: &Record) -> String {
    let write = agent.snapshot(last, 0).unwrap();
    assert!(write.parts.is_empty());
    write.head
}

#[test]
fn a_snapshot_that_does_not_match_the_log_is_refused() {
    let h = support_run();
    let k = h.len() / 2;
    let json = head_of(&Agent::replay(&h[..k]).unwrap(), &h[k - 1]);
    assert!(
        Agent::from_snapshot(&json, &[], &h[k - 1..]).is_some(),
        "the matching tail"
    );
    // The log holds another record where the snapshot ended.
    let mut other = h.clone();
    if let Event::UserMessage { text } = &mut other[1].event {
        text.push('!');
    }
    let json_other = head_of(&Agent::replay(&other[..2]).unwrap(), &other[1]);
    assert!(
        Agent::from_snapshot(&json_other, &[], &h[1..]).is_none(),
        "another last record"
    );
    // A tail that starts elsewhere, or has a gap.
    assert!(
        Agent::from_snapshot(&json, &[], &h[k..]).is_none(),
        "tail starts after"
    );
    let mut gap = h[k - 1..].to_vec();
    gap.remove(1);
    assert!(
        Agent::from_snapshot(&json, &[], &gap).is_none(),
        "gap in the tail"
    );
    // Another version, or garbage.
    let current = format!("\"version\":{SNAPSHOT_VERSION}");
    let older = json.replacen(&current, "\"version\":0", 1);
    assert_ne!(older, json);
    assert!(
        Agent::from_snapshot(&older, &[], &h[k - 1..]).is_none(),
        "older layout"
    );
    assert!(Agent::from_snapshot("{not json", &[], &h[k - 1..]).is_none());
    // A snapshot is only taken of the record the agent folded last.
    assert_eq!(Agent::replay(&h[..k]).unwrap().snapshot(&h[0], 0), None);
}

/// A finished run with tool calls, as a log.
fn support_run() -> Vec<Record> {
    let mut h = Harness::new(config());
    let effects = h.user("look around");
    let _ = h.reply(
        &effects,
        calls(vec![call("a", "read_file", json!({"path": "x"}))]),
    );
    let effects = h.tool_result("a", "content", false);
    h.reply(&effects, text("done"));
    h.log.clone()
}

#[test]
fn a_session_s_title_is_its_task_or_the_task_s_start_marked_as_cut() {
    let title = |task: &str| {
        let mut digest = SessionDigest::default();
        digest.push(&Record {
            seq: 0,
            at: 0,
            event: Event::UserMessage { text: task.into() },
        });
        digest.title
    };
    assert_eq!(title("write the notes"), "write the notes");
    let exact = "x".repeat(TITLE_CHARS);
    assert_eq!(
        title(&exact),
        exact,
        "a task of the title's length is whole"
    );
    let long =
        "Use the vfs tool to write the text hi into /a.txt, then use the vfs tool to read /a.txt.";
    let cut = title(long);
    assert_eq!(
        cut,
        "Use the vfs tool to write the text hi into /a.txt, then use the vfs tool to…"
    );
    assert!(cut.chars().count() <= TITLE_CHARS);
    // One long word: cut inside it, still within the length.
    let word = title(&"y".repeat(200));
    assert_eq!(word, format!("{}…", "y".repeat(TITLE_CHARS - 1)));
}
