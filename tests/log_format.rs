//! The stored formats, pinned by golden files: a record of every `Event` variant (and every
//! variant of the enums they carry), a fold snapshot's head and a session digest, as written on
//! 2026-12-04 by the build that stored them in people's browsers. A change to a logged type that
//! moves one byte fails here; a real format change needs a schema bump, a migration and new
//! golden files (`TABLOOP_WRITE_FIXTURES=1 cargo test --test log_format` rewrites them).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod core_support;

use core_support::config;
use pretty_assertions::assert_eq;
use serde_json::json;
use tabloop::core::{
    parse_jsonl, to_jsonl, Agent, ApprovalScope, BudgetKind, BudgetLimits, CallPurpose, Detector,
    Event, EvidenceDelta, HandoffReport, HumanReason, InterruptCause, Ledger, PauseReason,
    Permission, Phase, Price, Record, Rejection, RunOutcome, SessionDigest, StopProposal,
    StopReason, StopVerdict, ToolDecl, ToolKind, TransitionReason, DIGEST_SCHEMA, SCHEMA_VERSION,
};
use tabloop::protocol::{
    FinishReason, ModelError, ModelErrorKind, ModelReply, ToolCall, ToolSpec, Usage,
};

/// The name of `event`'s variant. Exhaustive: a new variant does not compile until it is given
/// a golden record below.
fn variant(event: &Event) -> &'static str {
    match event {
        Event::SessionStarted { .. } => "session_started",
        Event::UserMessage { .. } => "user_message",
        Event::RunStarted { .. } => "run_started",
        Event::StepStarted { .. } => "step_started",
        Event::ModelCallStarted { .. } => "model_call_started",
        Event::ModelReplied { .. } => "model_replied",
        Event::ModelFailed { .. } => "model_failed",
        Event::ModelRetryScheduled { .. } => "model_retry_scheduled",
        Event::RunPaused { .. } => "run_paused",
        Event::RunUnpaused => "run_unpaused",
        Event::StopHookAsked { .. } => "stop_hook_asked",
        Event::StopHookDecided { .. } => "stop_hook_decided",
        Event::ModelCallAbandoned { .. } => "model_call_abandoned",
        Event::Compacted { .. } => "compacted",
        Event::ToolCallRejected { .. } => "tool_call_rejected",
        Event::ApprovalRequested { .. } => "approval_requested",
        Event::ApprovalDecided { .. } => "approval_decided",
        Event::ToolCallStarted { .. } => "tool_call_started",
        Event::ToolCallFinished { .. } => "tool_call_finished",
        Event::ToolCallInterrupted { .. } => "tool_call_interrupted",
        Event::GuardTriggered { .. } => "guard_triggered",
        Event::CompletionRejected { .. } => "completion_rejected",
        Event::StepFinished { .. } => "step_finished",
        Event::BudgetExtended { .. } => "budget_extended",
        Event::Suspended => "suspended",
        Event::Resumed => "resumed",
        Event::RunFinished { .. } => "run_finished",
    }
}

const EVERY_VARIANT: [&str; 27] = [
    "session_started",
    "user_message",
    "run_started",
    "step_started",
    "model_call_started",
    "model_replied",
    "model_failed",
    "model_retry_scheduled",
    "run_paused",
    "run_unpaused",
    "stop_hook_asked",
    "stop_hook_decided",
    "model_call_abandoned",
    "compacted",
    "tool_call_rejected",
    "approval_requested",
    "approval_decided",
    "tool_call_started",
    "tool_call_finished",
    "tool_call_interrupted",
    "guard_triggered",
    "completion_rejected",
    "step_finished",
    "budget_extended",
    "suspended",
    "resumed",
    "run_finished",
];

/// Usage with every field set.
fn usage(n: u64) -> Usage {
    Usage {
        input_tokens: 1000 + n,
        output_tokens: 20 + n,
        cached_input_tokens: n,
        cache_write_tokens: 2 * n,
    }
}

/// A ledger whose cost is a float that is hard to print (0.1 + 0.2) or tiny.
fn ledger(step: u32, cost_usd: f64) -> Ledger {
    Ledger {
        steps: step,
        tool_calls: 2 * step,
        usage: usage(u64::from(step)),
        cost_usd,
        active_ms: 1234 * u64::from(step),
        suspended_ms: 17,
    }
}

fn reply(text: &str, tool_calls: Vec<ToolCall>, finish: FinishReason) -> ModelReply {
    ModelReply {
        text: text.into(),
        tool_calls,
        finish,
        usage: usage(3),
        model: "gpt-4o-mini-2024-07-18".into(),
        reasoning: String::new(),
    }
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

fn handoff() -> HandoffReport {
    HandoffReport {
        task: "find the bug in \"main.rs\"".into(),
        progress: vec!["3 steps".into(), "read_file ×2".into()],
        findings: vec!["a.txt: same".into()],
        stuck_on: vec![],
        last_message: "I keep reading a.txt\n".into(),
    }
}

fn outcome(stop: StopReason, handoff: Option<HandoffReport>) -> RunOutcome {
    RunOutcome {
        stop,
        explanation: "The run ended.".into(),
        final_text: Some("done — ✓".into()),
        steps: 4,
        usage: usage(9),
        cost_usd: 0.000_123_4,
        handoff,
    }
}

/// A configuration with every optional part set: a system prompt, tools of every kind and
/// permission (one with a local schema, one with an approval scope), prices and a provider.
fn full_config() -> tabloop::core::AgentConfig {
    let mut config = config();
    config.tools.push(ToolDecl {
        spec: ToolSpec {
            name: "http_fetch".into(),
            description: "Fetches a URL.\tTabs, \u{1F600} and \u{7} too.".into(),
            parameters: json!({"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}),
            local_parameters: Some(json!({"oneOf": [{"type": "object"}], "x-plain-text": true})),
        },
        permission: Permission::Ask,
        idempotent: true,
        parallel_safe: false,
        kind: ToolKind::Host,
        approval_scope: Some(ApprovalScope::UrlHost("url".into())),
    });
    config.price = Price {
        input_per_mtok: 0.15,
        output_per_mtok: 0.6,
        cached_input_per_mtok: 0.075,
    };
    config.compaction_threshold = 0.7;
    config.budget.max_cost_usd = Some(0.25);
    config.budget.max_input_tokens = Some(100_000);
    config.context_per_task = true;
    config.guard.end_on_repeated_success = true;
    config.provider = json!({"kind": "openai", "baseUrl": "https://api.example.com/v1", "model": "gpt-4o-mini", "temperature": 0.2, "n": 1e21});
    config
}

/// Every event variant, and every variant of the enums events carry, as records.
fn every_event() -> Vec<Record> {
    let transitions = [
        TransitionReason::NextTurn,
        TransitionReason::ToolResults,
        TransitionReason::Compaction,
        TransitionReason::OutputTokenRecovery { attempt: 2 },
        TransitionReason::StopHookBlocked { consecutive: 1 },
        TransitionReason::BudgetContinuation,
        TransitionReason::ApprovalResumed,
        TransitionReason::Resumed,
    ];
    let budgets = [
        BudgetKind::Steps,
        BudgetKind::ToolCalls,
        BudgetKind::InputTokens,
        BudgetKind::OutputTokens,
        BudgetKind::Cost,
        BudgetKind::WallClock,
    ];
    let detectors = [
        Detector::Repetition,
        Detector::Thrashing,
        Detector::Stagnation,
        Detector::RepeatedError,
        Detector::RepeatedSuccess,
    ];
    let mut stops = vec![
        StopReason::Completed,
        StopReason::VerifiedFinish,
        StopReason::UnverifiedFinish,
        StopReason::ConsecutiveErrors { count: 3 },
        StopReason::OutputLimit,
        StopReason::Cancelled,
        StopReason::NeedsHuman {
            reason: HumanReason::CompletionBlocked {
                blockers: vec!["2 open todo items".into()],
            },
        },
        StopReason::NeedsHuman {
            reason: HumanReason::StopHookBlocked {
                reason: "tests fail".into(),
            },
        },
        StopReason::NeedsHuman {
            reason: HumanReason::StopHookFailed {
                message: "timed out after 30000 ms".into(),
            },
        },
        StopReason::FatalError,
    ];
    stops.extend(budgets.map(|budget| StopReason::BudgetExhausted { budget }));
    stops.extend(detectors.map(|detector| StopReason::NoProgress { detector }));
    let errors = vec![
        ModelErrorKind::Http {
            status: 429,
            retry_after_ms: Some(1500),
            should_retry: None,
        },
        ModelErrorKind::Http {
            status: 429,
            retry_after_ms: None,
            should_retry: Some(false),
        },
        ModelErrorKind::Provider {
            error_type: "overloaded_error".into(),
        },
        ModelErrorKind::Network,
        ModelErrorKind::FirstByteTimeout,
        ModelErrorKind::IdleTimeout,
        ModelErrorKind::Truncated { partial: None },
        ModelErrorKind::Truncated {
            partial: Some(Box::new(reply(
                "half an ans",
                vec![call("c1", "read_file", r#"{"path":"a.txt"}"#)],
                FinishReason::ToolUse,
            ))),
        },
        ModelErrorKind::Malformed,
        ModelErrorKind::Cancelled,
        ModelErrorKind::LocalModel,
    ];

    let mut events = vec![
        Event::SessionStarted {
            schema_version: SCHEMA_VERSION,
            session: "s-golden".into(),
            config: full_config(),
        },
        Event::SessionStarted {
            schema_version: SCHEMA_VERSION,
            session: "s-default".into(),
            config: first_rules_default(),
        },
        Event::UserMessage {
            text: "Read \"a.txt\"\nthen\\ answer: ünïcödé \u{2028} \u{0} \u{1F600}".into(),
        },
        Event::RunStarted {
            run: 1,
            budget: BudgetLimits::default(),
        },
        Event::RunStarted {
            run: 2,
            budget: BudgetLimits {
                max_steps: None,
                max_tool_calls: Some(7),
                max_input_tokens: Some(u64::MAX),
                max_output_tokens: Some(0),
                max_cost_usd: Some(1e-7),
                max_wall_ms: None,
            },
        },
    ];
    for (i, reason) in transitions.into_iter().enumerate() {
        let cost = [0.1 + 0.2, 0.0, 1e-9, 123_456.789, 5e-324, 1.0, 2.5e20, 0.3][i];
        events.push(Event::StepStarted {
            run: None,
            step: i as u32 + 1,
            reason,
            budget_before: ledger(i as u32, cost),
        });
    }
    for purpose in [CallPurpose::Step, CallPurpose::Compaction] {
        events.push(Event::ModelCallStarted {
            request: 7,
            purpose,
        });
    }
    for (finish, calls) in [
        (FinishReason::EndTurn, vec![]),
        (
            FinishReason::ToolUse,
            vec![
                call("call_1", "read_file", r#"{"path": "a.txt"}"#),
                call("call_2", "grep", "{not json"),
            ],
        ),
        (FinishReason::MaxTokens, vec![]),
        (FinishReason::Refusal, vec![]),
        (FinishReason::Malformed, vec![]),
    ] {
        events.push(Event::ModelReplied {
            request: 7,
            reply: reply("Let me look.", calls, finish),
            cost_usd: 0.000_012_3,
        });
    }
    events.push(Event::ModelReplied {
        request: 8,
        reply: ModelReply {
            text: String::new(),
            tool_calls: vec![],
            finish: FinishReason::EndTurn,
            usage: Usage::default(),
            model: String::new(),
            reasoning: String::new(),
        },
        cost_usd: 0.0,
    });
    for kind in errors {
        events.push(Event::ModelFailed {
            request: 9,
            error: ModelError {
                kind,
                message: "HTTP 429: slow down".into(),
            },
        });
    }
    events.extend([
        Event::ModelRetryScheduled {
            attempt: 1,
            delay_ms: 2000,
        },
        Event::RunPaused {
            reason: PauseReason::ProviderUnreachable {
                purpose: CallPurpose::Step,
            },
            message: "The provider kept failing.".into(),
        },
        Event::RunPaused {
            reason: PauseReason::ProviderUnreachable {
                purpose: CallPurpose::Compaction,
            },
            message: String::new(),
        },
        Event::RunUnpaused,
    ]);
    for stop in [
        StopReason::Completed,
        StopReason::VerifiedFinish,
        StopReason::UnverifiedFinish,
    ] {
        events.push(Event::StopHookAsked {
            proposal: StopProposal {
                stop,
                explanation: "The model answered.".into(),
                final_text: Some("42".into()),
            },
        });
    }
    events.push(Event::StopHookAsked {
        proposal: StopProposal {
            stop: StopReason::Completed,
            explanation: "x".into(),
            final_text: None,
        },
    });
    for verdict in [
        StopVerdict::Allow,
        StopVerdict::Block {
            reason: "run the tests".into(),
        },
        StopVerdict::Failed {
            message: "the hook threw".into(),
        },
    ] {
        events.push(Event::StopHookDecided { verdict });
    }
    for partial_reply in ["", "I was say"] {
        events.push(Event::ModelCallAbandoned {
            request: 10,
            partial_reply: partial_reply.into(),
        });
    }
    events.push(Event::Compacted {
        summary: "The user asked for a bug; a.txt was read.".into(),
        upto: 12,
    });
    for rejection in [
        Rejection::UnknownTool,
        Rejection::InvalidJson,
        Rejection::SchemaViolation,
        Rejection::DeniedByPolicy,
        Rejection::CutAtOutputLimit,
        Rejection::OverBudget,
        Rejection::CompletionBlocked,
        Rejection::MalformedReply,
        Rejection::RepeatsSuccess,
    ] {
        events.push(Event::ToolCallRejected {
            call: "call_2".into(),
            rejection,
            message: "no such tool: grap".into(),
        });
    }
    for after_interrupt in [false, true] {
        events.push(Event::ApprovalRequested {
            call: "w1".into(),
            args_hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
            after_interrupt,
        });
    }
    events.extend([
        Event::ApprovalDecided {
            call: "w1".into(),
            approved: true,
            reason: None,
        },
        Event::ApprovalDecided {
            call: "w2".into(),
            approved: false,
            reason: Some("not that one".into()),
        },
        Event::ToolCallStarted {
            call: "call_1".into(),
            attempt: 1,
        },
        Event::ToolCallFinished {
            call: "call_1".into(),
            content: "{\"ok\":true,\"value\":\"line 1\\nline 2\"}".into(),
            is_error: false,
        },
        Event::ToolCallFinished {
            call: "call_3".into(),
            content: "ENOENT".into(),
            is_error: true,
        },
    ]);
    for cause in [
        InterruptCause::Cancelled,
        InterruptCause::Reload,
        InterruptCause::Budget,
    ] {
        events.push(Event::ToolCallInterrupted {
            call: "call_4".into(),
            cause,
            error: None,
        });
    }
    for (i, detector) in detectors.into_iter().enumerate() {
        events.push(Event::GuardTriggered {
            detector,
            stop: i % 2 == 1,
            message: "You are repeating yourself.".into(),
            evidence: Vec::new(),
        });
    }
    events.extend([
        Event::CompletionRejected {
            blockers: vec!["open todo: write tests".into(), "finish not called".into()],
        },
        Event::CompletionRejected { blockers: vec![] },
        Event::StepFinished {
            run: None,
            step: 3,
            budget_after: ledger(3, 0.1 + 0.2 + 0.3),
            evidence_delta: EvidenceDelta {
                new_observations: 2,
                repeated_observations: 1,
                ..EvidenceDelta::default()
            },
        },
        Event::BudgetExtended {
            budget: BudgetLimits {
                max_steps: Some(50),
                ..BudgetLimits::default()
            },
        },
        Event::Suspended,
        Event::Resumed,
    ]);
    for (i, stop) in stops.into_iter().enumerate() {
        let handoff = (i % 2 == 0).then(handoff);
        events.push(Event::RunFinished {
            outcome: outcome(stop, handoff),
        });
    }
    events.push(Event::RunFinished {
        outcome: RunOutcome {
            stop: StopReason::Completed,
            explanation: String::new(),
            final_text: None,
            steps: 0,
            usage: Usage::default(),
            cost_usd: 0.0,
            handoff: None,
        },
    });
    events.extend(reflective_rules_events());
    events
        .into_iter()
        .enumerate()
        .map(|(seq, event)| Record {
            seq: seq as u64,
            at: 1_764_860_400_000 + seq as u64 * 37,
            event,
        })
        .collect()
}

/// The default configuration as sessions stored it before the reflective rules.
fn first_rules_default() -> tabloop::core::AgentConfig {
    let mut config = tabloop::core::AgentConfig::default();
    config.guard.reflective = None;
    config.guard.stagnation_diagnose = 5;
    config.guard.stagnation_stop = 8;
    config
}

/// What the reflective rules added to the log, after everything stored before them (whose
/// bytes above stay as they were): their configuration, the step's run number, new evidence
/// by call and quiet steps, the detector's evidence, reflection steps, the new detectors and
/// the `gave_up` and overdue-milestone stops.
fn reflective_rules_events() -> Vec<Event> {
    let mut config = tabloop::core::AgentConfig::default();
    config.tools.push(tabloop::core::give_up_tool());
    let mut events = vec![Event::SessionStarted {
        schema_version: SCHEMA_VERSION,
        session: "s-reflective".into(),
        config,
    }];
    let triggers = [
        Detector::ConsecutiveErrors,
        Detector::OverdueMilestone,
        Detector::BudgetEndgame,
    ];
    for (i, reason) in [
        TransitionReason::Reflection {
            trigger: Detector::Thrashing,
        },
        TransitionReason::AfterReflection,
        TransitionReason::AnswerRequested,
    ]
    .into_iter()
    .enumerate()
    {
        events.push(Event::StepStarted {
            run: Some(2),
            step: i as u32 + 1,
            reason,
            budget_before: ledger(i as u32, 0.5),
        });
    }
    events.push(Event::ModelCallStarted {
        request: 9,
        purpose: CallPurpose::Reflection,
    });
    events.push(Event::StepFinished {
        run: Some(2),
        step: 3,
        budget_after: ledger(3, 0.75),
        evidence_delta: EvidenceDelta {
            new_observations: 1,
            repeated_observations: 2,
            new_calls: vec!["call_7".into()],
            quiet_steps: Some(4),
        },
    });
    for detector in triggers {
        events.push(Event::GuardTriggered {
            detector,
            stop: false,
            message: "reflect".into(),
            evidence: vec!["grep({\"q\":\"x\"}) → no match".into()],
        });
    }
    for stop in [
        StopReason::GaveUp,
        StopReason::NeedsHuman {
            reason: HumanReason::MilestoneOverdue {
                todos: vec!["port the parser".into()],
            },
        },
    ]
    .into_iter()
    .chain(triggers.map(|detector| StopReason::NoProgress { detector }))
    {
        events.push(Event::RunFinished {
            outcome: outcome(stop, Some(handoff())),
        });
    }
    // A tool whose server cannot be reached pauses the run (recorded after the records above,
    // which stay as they were written before).
    for cause in [InterruptCause::Offline, InterruptCause::NetworkLost] {
        events.push(Event::ToolCallInterrupted {
            call: "call_8".into(),
            cause,
            error: Some("offline: the MCP server cannot be reached".into()),
        });
    }
    events.push(Event::RunPaused {
        reason: PauseReason::ToolUnreachable,
        message: "The tool docs__search cannot reach its server.".into(),
    });
    events
}

fn golden(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/log_format")
        .join(name)
}

/// `written` is the golden file `name` (rewritten first under TABLOOP_WRITE_FIXTURES).
fn assert_golden(name: &str, written: &str) {
    let path = golden(name);
    if std::env::var_os("TABLOOP_WRITE_FIXTURES").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, written).unwrap();
    }
    let stored = std::fs::read_to_string(&path).unwrap();
    assert_eq!(written, stored, "{name} is not written as it was stored");
}

#[test]
fn the_golden_records_hold_every_event_variant() {
    let records = every_event();
    let seen: std::collections::BTreeSet<&str> =
        records.iter().map(|r| variant(&r.event)).collect();
    let every: std::collections::BTreeSet<&str> = EVERY_VARIANT.into_iter().collect();
    assert_eq!(seen, every);
}

#[test]
fn every_event_is_written_byte_for_byte_as_stored() {
    assert_golden("every_event.jsonl", &to_jsonl(&every_event()));
}

#[test]
fn the_stores_packed_lines_are_the_golden_records() {
    // What the IndexedDB store hands its JS side per append: the same texts, one per line.
    let written = tabloop::core::records_as_lines(&every_event());
    let stored = std::fs::read_to_string(golden("every_event.jsonl")).unwrap();
    assert_eq!(written, stored.strip_suffix('\n').unwrap());
    assert_eq!(tabloop::core::records_as_lines(&[]), "");
}

#[test]
fn every_stored_event_reads_back_as_the_same_value() {
    let stored = std::fs::read_to_string(golden("every_event.jsonl")).unwrap();
    let records = parse_jsonl(&stored).unwrap();
    assert_eq!(records, every_event());
    for (line, record) in stored.lines().zip(&records) {
        let one: Record = serde_json::from_str(line).unwrap();
        assert_eq!(&one, record);
    }
}

/// A short session: approvals, a tool error, a finish.
fn session() -> Vec<Record> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/replay/approval.jsonl"),
    )
    .unwrap();
    parse_jsonl(&text).unwrap()
}

#[test]
fn a_snapshot_head_is_written_as_stored_and_resumes_the_same_agent() {
    let records = session();
    let agent = Agent::replay(&records).unwrap();
    let last = records.last().unwrap();
    let write = agent.snapshot(last, 0).unwrap();
    assert_golden("snapshot_head.json", &write.head);
    let stored = std::fs::read_to_string(golden("snapshot_head.json")).unwrap();
    let resumed = Agent::from_snapshot(&stored, &[], std::slice::from_ref(last)).unwrap();
    assert_eq!(resumed.state(), agent.state());
}

/// Snapshot heads written under layouts 4 (a run's pause, stop-hook question and resend in
/// flight beside its phase) and 5 (whether a step is open beside it), recorded with those
/// layouts' builds: each still resumes, through its migration, to the state a full replay of
/// its log folds, and goes on as that state does.
#[test]
fn a_layout_4_or_5_snapshot_resumes_as_its_log_replays() {
    let finished = std::fs::read_to_string(golden("snapshot_head_v4.json")).unwrap();
    let records = session();
    let last = records.last().unwrap();
    let resumed = Agent::from_snapshot(&finished, &[], std::slice::from_ref(last)).unwrap();
    assert_eq!(resumed.state(), Agent::replay(&records).unwrap().state());

    for version in [4, 5] {
        let file = format!("snapshot_heads_v{version}.json");
        let text = std::fs::read_to_string(golden(&file)).unwrap();
        let cases: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        let names: Vec<&str> = cases.iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            [
                "resend_in_flight",
                "provider_down",
                "stop_hook_pending",
                "tool_unreachable",
                "step_ended"
            ]
        );
        for case in &cases {
            let name = format!("v{version} {}", case["name"].as_str().unwrap());
            let head = case["head"].as_str().unwrap();
            assert!(
                head.starts_with(&format!(r#"{{"version":{version},"#)),
                "{name}"
            );
            let log = parse_jsonl(case["log"].as_str().unwrap()).unwrap();
            let replayed = Agent::replay(&log).unwrap();
            let resumed =
                Agent::from_snapshot(head, &[], std::slice::from_ref(log.last().unwrap()))
                    .unwrap_or_else(|| panic!("{name}: the older head is refused"));
            assert_eq!(resumed.state(), replayed.state(), "{name}");
            let run = resumed.state().run.as_ref().unwrap();
            let held = match case["name"].as_str().unwrap() {
                "resend_in_flight" => run.model_retry().is_some_and(|r| r.attempt == 1),
                "provider_down" => {
                    matches!(run.paused(), Some(PauseReason::ProviderUnreachable { .. }))
                }
                "stop_hook_pending" => matches!(run.phase, Phase::AwaitingStopHook(_)),
                "tool_unreachable" => run.paused() == Some(PauseReason::ToolUnreachable),
                "step_ended" => run.phase == Phase::StepEnded,
                other => panic!("unknown case {other}"),
            };
            assert!(
                held,
                "{name}: the migrated phase holds what the old fields held"
            );
            // Going on from there writes what going on from the replay writes.
            let (mut a, mut b) = (resumed, replayed);
            let at = log.last().unwrap().at + 1_000;
            a.resume(at);
            b.resume(at);
            let drain = |agent: &mut Agent| std::iter::from_fn(|| agent.poll()).collect::<Vec<_>>();
            assert_eq!(drain(&mut a), drain(&mut b), "{name}");
        }
    }
}

#[test]
fn a_session_digest_is_written_as_stored_and_reads_back() {
    let digest = SessionDigest::from_records(&session());
    let written = serde_json::to_string(&digest).unwrap();
    assert_golden("session_digest.json", &written);
    let stored = std::fs::read_to_string(golden("session_digest.json")).unwrap();
    let read: SessionDigest = serde_json::from_str(&stored).unwrap();
    assert_eq!(read, digest);
    let records = digest.records;
    let read = || serde_json::from_str(&stored).ok();
    assert_eq!(
        SessionDigest::stored(Some(DIGEST_SCHEMA), records, read),
        Some(digest.clone())
    );
    assert_eq!(
        SessionDigest::stored(Some(DIGEST_SCHEMA), records + 1, read),
        None,
        "a row that counts more records than the digest folded"
    );
}

/// A digest the sessions index stored under schema 3 (a spend summary and limits where the
/// spend fold now stands) is not read back, so a listing rebuilds it from the log: by its
/// schema number, and, were that number wrong, because it does not read as this layout.
#[test]
fn a_digest_stored_under_schema_3_is_rebuilt_not_read() {
    let stored = std::fs::read_to_string(golden("session_digest_schema3.json")).unwrap();
    let read = || serde_json::from_str::<SessionDigest>(&stored).ok();
    assert_eq!(DIGEST_SCHEMA, 4);
    assert_eq!(SessionDigest::stored(Some(3), 22, read), None);
    assert_eq!(read(), None, "the old layout does not read as this one");
}

/// A session recorded on 2026-12-04 by that day's package in Chromium, through the public API
/// against a scripted provider (`scripts/record-session-log.mjs`): every event variant, seven
/// runs. The browser side of this check (import, resume, verify) is
/// `tests/e2e/log_migration.test.mjs`.
fn recorded() -> String {
    std::fs::read_to_string(golden("migration.jsonl")).unwrap()
}

#[test]
fn a_recorded_session_reads_back_and_is_written_again_byte_for_byte() {
    let text = recorded();
    let records = parse_jsonl(&text).unwrap();
    assert_eq!(records.len(), text.lines().count());
    let seen: std::collections::BTreeSet<&str> =
        records.iter().map(|r| variant(&r.event)).collect();
    assert_eq!(seen, EVERY_VARIANT.into_iter().collect());
    assert_eq!(to_jsonl(&records), text);
}

#[test]
fn a_recorded_session_replays_to_the_same_log_and_resumes() {
    let records = parse_jsonl(&recorded()).unwrap();
    let report = tabloop::core::verify_replay(&records).unwrap();
    assert_eq!(report.divergence, None);
    assert_eq!(report.records, records.len());
    let mut agent = Agent::replay(&records).unwrap();
    let now = records.last().unwrap().at + 1000;
    agent.resume(now);
    assert_eq!(agent.poll(), None, "an ended session has nothing in flight");
    agent
        .handle(
            tabloop::core::Input::UserMessage {
                text: "one more".into(),
                budget: None,
            },
            now,
        )
        .unwrap();
    let effects: Vec<_> = std::iter::from_fn(|| agent.poll()).collect();
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, tabloop::core::Effect::CallModel { .. })),
        "the resumed session calls the model for the new task: {effects:?}"
    );
}

#[test]
fn a_replys_thinking_is_stored_only_when_the_model_wrote_some_and_reads_back() {
    let event = |reasoning: &str| Event::ModelReplied {
        request: 3,
        reply: ModelReply {
            reasoning: reasoning.into(),
            ..reply("It is 4.", vec![], FinishReason::EndTurn)
        },
        cost_usd: 0.0,
    };
    let without = serde_json::to_value(event("")).unwrap();
    assert_eq!(without["reply"].get("reasoning"), None);
    let with = event("2 + 2 is 4.");
    let stored = serde_json::to_string(&with).unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&stored).unwrap()["reply"]["reasoning"],
        json!("2 + 2 is 4.")
    );
    assert_eq!(serde_json::from_str::<Event>(&stored).unwrap(), with);
}
