//! Offline replay verification: recorded sessions (the fixtures in `tests/fixtures/replay/`:
//! a runaway loop, approvals, compaction, a fork) replay to the same log byte for byte, and a
//! log whose decisions were edited is caught at the first edited record.
#![allow(
    clippy::wildcard_enum_match_arm,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

mod core_support;

use core_support::prelude::*;
use pretty_assertions::assert_eq;
use tabloop::core::{parse_jsonl, to_jsonl, verify_replay, Agent, Record, StopVerdict};

fn runaway() -> Vec<Record> {
    let mut h = Harness::new(config());
    let outcome = h.read_until_finished("find the bug", 20, |_| "a.txt".into(), |_| "same".into());
    assert_eq!(outcome.unwrap().stop.code(), "no_progress");
    h.log
}

fn approval() -> Vec<Record> {
    let mut h = Harness::new(config());
    let effects = h.user("write two files");
    let mut effects = h.reply(
        &effects,
        calls(vec![call(
            "w1",
            "write_file",
            json!({"path": "a", "text": "x"}),
        )]),
    );
    for (call_id, approved) in [("w1", true), ("w2", false)] {
        let hash = effects
            .iter()
            .find_map(|e| match e {
                Effect::AskApproval { args_hash, .. } => Some(args_hash.clone()),
                _ => None,
            })
            .unwrap();
        effects = h
            .send(Input::ApprovalDecided {
                call: call_id.into(),
                args_hash: hash,
                approved,
                reason: (!approved).then(|| "not that one".into()),
            })
            .unwrap();
        if approved {
            effects = h.tool_result(call_id, "written", false);
            effects = h.reply(
                &effects,
                calls(vec![call(
                    "w2",
                    "write_file",
                    json!({"path": "b", "text": "y"}),
                )]),
            );
        }
    }
    let effects = h.reply(&effects, text("a written, b refused"));
    assert!(Harness::finished(&effects).is_some());
    h.log
}

fn compaction() -> Vec<Record> {
    let mut cfg = config();
    cfg.context_window = 2_000;
    cfg.max_output_tokens = 100;
    cfg.compaction_keep_recent = 2;
    let mut h = Harness::new(cfg);
    let big = "x".repeat(1_500);
    let mut effects = h.user("go");
    let mut compacted = false;
    for i in 0..6 {
        let compaction = h.request().tools.is_empty();
        if compaction {
            compacted = true;
            effects = h.reply(&effects, text("summary of the reads"));
            continue;
        }
        let id = format!("c{i}");
        let _ = h.reply(
            &effects,
            calls(vec![call(
                &id,
                "read_file",
                json!({"path": format!("f{i}")}),
            )]),
        );
        effects = h.tool_result(&id, &format!("{i}{big}"), false);
    }
    assert!(compacted, "the scenario compacts");
    h.log
}

fn fork() -> Vec<Record> {
    let mut h = Harness::new(config());
    for task in ["first", "second"] {
        let effects = h.user(task);
        let _ = h.reply(
            &effects,
            calls(vec![call(task, "read_file", json!({"path": task}))]),
        );
        let effects = h.tool_result(task, "content", false);
        let _ = h.reply(&effects, text("done"));
    }
    let mut log = Agent::fork_run(&h.log, 1, 1, "forked").unwrap();
    // The fork is opened and its run goes on with other replies.
    let mut agent = Agent::replay(&log).unwrap();
    agent.resume(log.last().unwrap().at + 1_000);
    fn drain(agent: &mut Agent, log: &mut Vec<Record>) -> u64 {
        let mut request = 0;
        while let Some(effect) = agent.poll() {
            match effect {
                Effect::Persist(r) => log.push(r),
                Effect::CallModel { request: r, .. } => request = r,
                _ => {}
            }
        }
        request
    }
    let request = drain(&mut agent, &mut log);
    let at = log.last().unwrap().at + 50;
    agent
        .handle(
            Input::ModelReplied {
                request,
                reply: text("another ending"),
            },
            at,
        )
        .unwrap();
    drain(&mut agent, &mut log);
    assert!(matches!(
        log.last().unwrap().event,
        Event::RunFinished { .. }
    ));
    log
}

/// Builds one recorded session.
type Scenario = fn() -> Vec<Record>;

const FIXTURES: [(&str, Scenario); 4] = [
    ("runaway", runaway),
    ("approval", approval),
    ("compaction", compaction),
    ("fork", fork),
];

fn fixture_path(name: &str) -> String {
    format!(
        "{}/tests/fixtures/replay/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn the_recorded_fixtures_replay_byte_for_byte() {
    for (name, make) in FIXTURES {
        let path = fixture_path(name);
        if std::env::var_os("TABLOOP_WRITE_FIXTURES").is_some() {
            std::fs::write(&path, to_jsonl(&make())).unwrap();
        }
        let records = parse_jsonl(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let report = verify_replay(&records).unwrap();
        assert_eq!(report.divergence, None, "{name}");
        assert_eq!(report.records, records.len());
        assert!(report.inputs > 2, "{name}: inputs were fed back");
    }
}

#[test]
fn an_edited_decision_is_reported_at_its_record() {
    let mut records = runaway();
    let at = records
        .iter()
        .position(|r| matches!(r.event, Event::GuardTriggered { .. }))
        .unwrap();
    if let Event::GuardTriggered { message, .. } = &mut records[at].event {
        *message = "all good, keep going".into();
    }
    let divergence = verify_replay(&records).unwrap().divergence.unwrap();
    assert_eq!(divergence.seq, at as u64);
    assert!(divergence.expected.contains("all good, keep going"));
    assert!(!divergence.got.contains("all good"));

    let mut records = approval();
    let end = records.len() - 1;
    if let Event::RunFinished { outcome } = &mut records[end].event {
        outcome.steps += 1;
    }
    assert_eq!(
        verify_replay(&records).unwrap().divergence.unwrap().seq,
        end as u64
    );
}

#[test]
fn a_dropped_or_extra_record_is_caught() {
    let mut records = compaction();
    let step = records
        .iter()
        .position(|r| matches!(r.event, Event::Compacted { .. }))
        .unwrap();
    records.remove(step);
    for (i, r) in records.iter_mut().enumerate() {
        r.seq = i as u64;
    }
    let divergence = verify_replay(&records).unwrap().divergence.unwrap();
    assert_eq!(divergence.seq, step as u64);
    let mut records = approval();
    records.truncate(records.len() - 1);
    let divergence = verify_replay(&records).unwrap().divergence.unwrap();
    assert_eq!(divergence.expected, "(end of log)");
}

#[test]
fn a_stop_that_kept_what_the_model_had_written_replays() {
    // A cancel, and the time budget running out (a minute past it).
    for stop in [
        Input::Cancel {
            partial_reply: "half an answ".into(),
        },
        Input::Tick {
            partial_reply: "half an answ".into(),
        },
    ] {
        let mut cfg = config();
        cfg.budget.max_wall_ms = Some(60_000);
        let mut h = Harness::new(cfg);
        h.user("one");
        h.tick(61_000);
        h.send(stop).unwrap();
        assert!(h
            .events()
            .any(|e| matches!(e, Event::ModelCallAbandoned { partial_reply, .. } if partial_reply == "half an answ")));
        let effects = h.user("two");
        let _ = h.reply(&effects, text("done"));
        let report = verify_replay(&h.log).unwrap();
        assert_eq!(report.divergence, None);
    }
}

#[test]
fn cancels_stop_hooks_and_a_hidden_tab_replay_too() {
    let mut h = Harness::new(config());
    h.agent.set_stop_hook(true);
    let effects = h.user("one");
    h.send(Input::Suspend).unwrap();
    h.tick(5_000);
    h.send(Input::Resume).unwrap();
    let _ = h.reply(&effects, text("done"));
    h.send(Input::StopHookAnswered {
        verdict: StopVerdict::Block {
            reason: "more".into(),
        },
    })
    .unwrap();
    h.send(Input::cancel()).unwrap();
    let report = verify_replay(&h.log).unwrap();
    assert_eq!(report.divergence, None);
}
