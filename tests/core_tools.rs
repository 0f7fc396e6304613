//! Tool scenarios: parallel and sequential execution, results in call order, invalid calls never
//! executed, and approvals bound to the exact arguments.

#![allow(
    clippy::wildcard_enum_match_arm,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

mod core_support;

use core_support::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use tabloop::core::{args_hash, Effect, Event, Input, InputError, Rejection};
use tabloop::protocol::{Message, ToolCall};

fn rejections(h: &Harness) -> Vec<(String, Rejection)> {
    h.events()
        .filter_map(|e| match e {
            Event::ToolCallRejected {
                call, rejection, ..
            } => Some((call.clone(), *rejection)),
            _ => None,
        })
        .collect()
}

#[test]
fn parallel_safe_calls_start_together_and_results_return_in_call_order() {
    let mut h = Harness::new(config());
    let effects = h.user("read two files");
    let effects = h.reply(
        &effects,
        calls(vec![
            call("a", "read_file", json!({"path": "1"})),
            call("b", "read_file", json!({"path": "2"})),
        ]),
    );
    let started: Vec<_> = Harness::tool_calls(&effects)
        .into_iter()
        .map(|i| i.call)
        .collect();
    assert_eq!(started, vec!["a", "b"], "both started before any result");
    assert!(
        h.tool_result("b", "two", false).is_empty(),
        "waits for the other call"
    );
    h.tool_result("a", "one", false);
    let request = h.request();
    let tool_messages: Vec<_> = request
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool {
                call_id, content, ..
            } => Some((call_id.as_str(), content.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(tool_messages, vec![("a", "one"), ("b", "two")]);
}

#[test]
fn a_call_to_a_tool_that_is_not_parallel_safe_runs_the_batch_in_order() {
    let mut cfg = config();
    cfg.tools[0].parallel_safe = false; // read_file
    let mut h = Harness::new(cfg);
    let effects = h.user("go");
    let effects = h.reply(
        &effects,
        calls(vec![
            call("a", "read_file", json!({"path": "1"})),
            call("b", "grep", json!({"pattern": "x", "path": "2"})),
        ]),
    );
    let started: Vec<_> = Harness::tool_calls(&effects)
        .into_iter()
        .map(|i| i.call)
        .collect();
    assert_eq!(started, vec!["a"]);
    let effects = h.tool_result("a", "one", false);
    let started: Vec<_> = Harness::tool_calls(&effects)
        .into_iter()
        .map(|i| i.call)
        .collect();
    assert_eq!(started, vec!["b"]);
}

#[test]
fn invalid_calls_are_never_executed_and_are_reported_to_the_model() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let reply = calls(vec![
        call("u", "rm_rf", json!({})),
        ToolCall {
            id: "j".into(),
            name: "read_file".into(),
            arguments: r#"{"path": "a"#.into(),
        },
        call("s", "read_file", json!({"path": 7})),
        call("x", "read_file", json!({"path": "a", "mode": "w"})),
        ToolCall {
            id: "n".into(),
            name: "read_file".into(),
            arguments: "[1,2]".into(),
        },
        call("d", "delete_all", json!({})),
        call("ok", "read_file", json!({"path": "fine"})),
    ]);
    let effects = h.reply(&effects, reply);
    let started: Vec<_> = Harness::tool_calls(&effects)
        .into_iter()
        .map(|i| i.call)
        .collect();
    assert_eq!(started, vec!["ok"], "only the valid call runs");
    assert_eq!(
        rejections(&h),
        vec![
            ("u".into(), Rejection::UnknownTool),
            ("j".into(), Rejection::InvalidJson),
            ("s".into(), Rejection::SchemaViolation),
            ("x".into(), Rejection::SchemaViolation),
            ("n".into(), Rejection::SchemaViolation),
            ("d".into(), Rejection::DeniedByPolicy),
        ]
    );
    h.tool_result("ok", "fine", false);
    let request = h.request();
    let errors: Vec<_> = request
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool {
                call_id,
                is_error: true,
                content,
                ..
            } => Some((call_id.clone(), content.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 6);
    assert!(errors[0]
        .1
        .starts_with("Unknown tool \"rm_rf\". Available tools: read_file, grep, write_file"));
    assert!(
        errors[2]
            .1
            .contains("arguments.path: expected string, got number"),
        "{}",
        errors[2].1
    );
    assert!(
        errors[3].1.contains("unknown property \"mode\""),
        "{}",
        errors[3].1
    );
}

#[test]
fn an_ask_tool_waits_for_an_approval_bound_to_its_exact_arguments() {
    let mut h = Harness::new(config());
    let effects = h.user("write it");
    let args = json!({"path": "out.txt", "text": "hello"});
    let effects = h.reply(&effects, calls(vec![call("w", "write_file", args.clone())]));
    let expected_hash = args_hash("write_file", &args);
    assert_eq!(
        effects.last().unwrap(),
        &Effect::AskApproval {
            call: "w".into(),
            tool: "write_file".into(),
            args: args.clone(),
            args_hash: expected_hash.clone(),
            after_interrupt: false
        }
    );
    assert_eq!(Harness::tool_calls(&effects), vec![]);
    let other_args = args_hash(
        "write_file",
        &json!({"path": "/etc/passwd", "text": "hello"}),
    );
    assert_eq!(
        h.send(Input::ApprovalDecided {
            call: "w".into(),
            args_hash: other_args.clone(),
            approved: true,
            reason: None
        }),
        Err(InputError::ApprovalMismatch {
            call: "w".into(),
            expected: expected_hash.clone(),
            got: other_args
        })
    );
    let effects = h
        .send(Input::ApprovalDecided {
            call: "w".into(),
            args_hash: expected_hash,
            approved: true,
            reason: None,
        })
        .unwrap();
    assert_eq!(Harness::tool_calls(&effects)[0].args, args);
    let effects = h.tool_result("w", "written", false);
    assert!(h
        .kinds(0)
        .contains(&"step_started:approval_resumed".to_string()));
    Harness::model_call(&effects);
}

#[test]
fn a_denied_call_becomes_an_error_observation() {
    let mut h = Harness::new(config());
    let effects = h.user("write it");
    let args = json!({"path": "out.txt", "text": "hello"});
    let effects = h.reply(&effects, calls(vec![call("w", "write_file", args.clone())]));
    let _ = effects;
    let effects = h
        .send(Input::ApprovalDecided {
            call: "w".into(),
            args_hash: args_hash("write_file", &args),
            approved: false,
            reason: Some("not now".into()),
        })
        .unwrap();
    assert_eq!(Harness::tool_calls(&effects), vec![]);
    let request = h.request();
    assert_eq!(
        request.messages.last().unwrap(),
        &Message::Tool {
            call_id: "w".into(),
            name: "write_file".into(),
            content: "Denied by the user: not now. The call was not run.".into(),
            is_error: true
        }
    );
}

#[test]
fn a_pending_approval_blocks_completion_of_the_batch() {
    let mut h = Harness::new(config());
    let effects = h.user("go");
    let effects = h.reply(
        &effects,
        calls(vec![
            call("w", "write_file", json!({"path": "a", "text": "b"})),
            call("f", "finish", json!({"summary": "done"})),
        ]),
    );
    assert_eq!(
        Harness::tool_calls(&effects),
        vec![],
        "finish waits behind the approval"
    );
    assert!(matches!(
        h.agent.run().unwrap().phase,
        tabloop::core::Phase::Tools(_)
    ));
}

#[test]
fn an_approval_scoped_to_a_host_covers_later_calls_to_that_host_only() {
    use tabloop::core::ApprovalScope;
    let mut cfg = config();
    let mut fetch = host_tool(
        "http_fetch",
        &["url"],
        tabloop::core::Permission::Ask,
        true,
        false,
    );
    fetch.approval_scope = Some(ApprovalScope::UrlHost("url".into()));
    cfg.tools.push(fetch);
    let mut h = Harness::new(cfg);
    let effects = h.user("fetch things");
    let a1 = json!({"url": "https://Example.org/a"});
    let effects = h.reply(
        &effects,
        calls(vec![
            call("f1", "http_fetch", a1.clone()),
            call("f2", "http_fetch", json!({"url": "https://example.org/b"})),
        ]),
    );
    let asked: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::AskApproval { call, .. } => Some(call.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(asked, vec!["f1", "f2"]);
    // One approval answers both: same host.
    let effects = h
        .send(Input::ApprovalDecided {
            call: "f1".into(),
            args_hash: args_hash("http_fetch", &a1),
            approved: true,
            reason: None,
        })
        .unwrap();
    let started = Harness::tool_calls(&effects);
    assert_eq!(
        started
            .iter()
            .map(|i| (i.call.as_str(), i.approved))
            .collect::<Vec<_>>(),
        vec![("f1", true), ("f2", true)]
    );
    h.tool_result("f1", "a", false);
    let effects = h.tool_result("f2", "b", false);
    // Later: the same host runs without asking; another host asks.
    let effects = h.reply(
        &effects,
        calls(vec![
            call(
                "f3",
                "http_fetch",
                json!({"url": "https://user@example.org:443/c"}),
            ),
            call(
                "f4",
                "http_fetch",
                json!({"url": "https://evil.example.net/"}),
            ),
        ]),
    );
    let started: Vec<_> = Harness::tool_calls(&effects)
        .into_iter()
        .map(|i| i.call)
        .collect();
    assert_eq!(started, vec!["f3"]);
    assert!(effects
        .iter()
        .any(|e| matches!(e, Effect::AskApproval { call, .. } if call == "f4")));
    // The approval is folded from the log, so it survives a reload.
    let replayed = tabloop::core::Agent::replay(&h.log).unwrap();
    let scopes: Vec<_> = replayed.state().approved_scopes.iter().cloned().collect();
    assert_eq!(scopes, vec!["http_fetch\u{0}example.org".to_string()]);
}
