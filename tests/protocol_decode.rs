//! Every variant of every persisted enum reads back as it was written, and the readers are
//! lenient where the writer leaves room (unknown fields, absent options, defaults, aliases) and
//! strict where a value is wrong (wrong kinds, unknown variants, out-of-range numbers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(not(target_arch = "wasm32"))]

use pretty_assertions::assert_eq;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::json;
use tabloop::core::{
    AgentConfig, ApprovalScope, BatchSummary, BudgetKind, BudgetLimits, CallPurpose, Detector,
    Event, EvidenceDelta, FinishResult, HandoffReport, HumanReason, InterruptCause, Ledger,
    ModelRetry, PauseReason, Permission, Phase, Record, Rejection, RunOutcome, Slot, SlotState,
    StopProposal, StopReason, StopVerdict, ToolBatch, ToolDecl, ToolKind, TransitionReason,
};
use tabloop::protocol::{
    FinishReason, Message, ModelError, ModelErrorKind, ModelReply, ToolCall, ToolSpec, Usage,
};

/// Written as JSON text and read back, the same value.
fn round_trip<T>(value: &T)
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let text = serde_json::to_string(value).unwrap();
    let read: T = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(&read, value, "{text}");
}

fn reply(tool_calls: Vec<ToolCall>) -> ModelReply {
    ModelReply {
        text: "done".into(),
        tool_calls,
        finish: FinishReason::ToolUse,
        usage: Usage {
            input_tokens: 10,
            output_tokens: 5,
            cached_input_tokens: 2,
            cache_write_tokens: 1,
        },
        model: "m".into(),
        reasoning: String::new(),
    }
}

fn call() -> ToolCall {
    ToolCall {
        id: "c1".into(),
        name: "vfs".into(),
        arguments: r#"{"op":"read"}"#.into(),
    }
}

fn config() -> AgentConfig {
    let spec = ToolSpec {
        name: "http_fetch".into(),
        description: "fetch".into(),
        parameters: json!({"type": "object"}),
        local_parameters: Some(json!({"oneOf": []})),
    };
    AgentConfig {
        system: Some("be brief".into()),
        tools: vec![
            ToolDecl {
                spec: spec.clone(),
                permission: Permission::Ask,
                idempotent: false,
                parallel_safe: true,
                kind: ToolKind::Host,
                approval_scope: Some(ApprovalScope::UrlHost("url".into())),
            },
            ToolDecl {
                spec: ToolSpec {
                    local_parameters: None,
                    ..spec
                },
                permission: Permission::Deny,
                idempotent: true,
                parallel_safe: false,
                kind: ToolKind::Finish,
                approval_scope: None,
            },
        ],
        budget: BudgetLimits {
            max_cost_usd: Some(0.25),
            ..BudgetLimits::default()
        },
        price: tabloop::core::Price {
            input_per_mtok: 0.1,
            output_per_mtok: 0.2,
            cached_input_per_mtok: 0.05,
        },
        provider: json!({"kind": "local", "nested": [1, 2.5, null]}),
        ..AgentConfig::default()
    }
}

fn ledger() -> Ledger {
    Ledger {
        steps: 3,
        tool_calls: 4,
        usage: Usage::default(),
        cost_usd: 0.125,
        active_ms: 1_000,
        suspended_ms: 7,
    }
}

fn stop_reasons() -> Vec<StopReason> {
    let mut reasons = vec![
        StopReason::Completed,
        StopReason::VerifiedFinish,
        StopReason::UnverifiedFinish,
        StopReason::ConsecutiveErrors { count: 3 },
        StopReason::OutputLimit,
        StopReason::Cancelled,
        StopReason::FatalError,
    ];
    reasons.extend(
        budget_kinds()
            .into_iter()
            .map(|budget| StopReason::BudgetExhausted { budget }),
    );
    reasons.extend(
        detectors()
            .into_iter()
            .map(|detector| StopReason::NoProgress { detector }),
    );
    reasons.extend(
        human_reasons()
            .into_iter()
            .map(|reason| StopReason::NeedsHuman { reason }),
    );
    reasons
}

fn budget_kinds() -> Vec<BudgetKind> {
    use BudgetKind::*;
    vec![Steps, ToolCalls, InputTokens, OutputTokens, Cost, WallClock]
}

fn detectors() -> Vec<Detector> {
    use Detector::*;
    vec![
        Repetition,
        Thrashing,
        Stagnation,
        RepeatedError,
        RepeatedSuccess,
    ]
}

fn human_reasons() -> Vec<HumanReason> {
    vec![
        HumanReason::CompletionBlocked {
            blockers: vec!["open todo".into()],
        },
        HumanReason::StopHookBlocked {
            reason: "no".into(),
        },
        HumanReason::StopHookFailed {
            message: "threw".into(),
        },
    ]
}

fn model_errors() -> Vec<ModelError> {
    let kinds = vec![
        ModelErrorKind::Http {
            status: 429,
            retry_after_ms: Some(1_500),
            should_retry: Some(false),
        },
        ModelErrorKind::Http {
            status: 503,
            retry_after_ms: None,
            should_retry: None,
        },
        ModelErrorKind::Provider {
            error_type: "overloaded_error".into(),
        },
        ModelErrorKind::Network,
        ModelErrorKind::FirstByteTimeout,
        ModelErrorKind::IdleTimeout,
        ModelErrorKind::Truncated {
            partial: Some(Box::new(reply(vec![call()]))),
        },
        ModelErrorKind::Truncated { partial: None },
        ModelErrorKind::Malformed,
        ModelErrorKind::Cancelled,
        ModelErrorKind::LocalModel,
    ];
    kinds
        .into_iter()
        .map(|kind| ModelError {
            kind,
            message: "it failed".into(),
        })
        .collect()
}

/// One of every event, every nested enum's variants included.
fn every_event() -> Vec<Event> {
    let mut events = vec![
        Event::SessionStarted {
            schema_version: 1,
            session: "s".into(),
            config: config(),
        },
        Event::UserMessage {
            text: "hi \u{1F600} \"quoted\"\n".into(),
        },
        Event::RunStarted {
            run: 1,
            budget: BudgetLimits::default(),
        },
        Event::ModelReplied {
            request: 2,
            reply: reply(vec![call(), call()]),
            cost_usd: 1e-7,
        },
        Event::ModelRetryScheduled {
            attempt: 2,
            delay_ms: u64::MAX,
        },
        Event::RunUnpaused,
        Event::ModelCallAbandoned {
            request: 9,
            partial_reply: String::new(),
        },
        Event::ModelCallAbandoned {
            request: 10,
            partial_reply: "half a sent\u{e9}nce".into(),
        },
        Event::Compacted {
            summary: "so far".into(),
            upto: 12,
        },
        Event::ApprovalRequested {
            call: "c1".into(),
            args_hash: "ab".into(),
            after_interrupt: true,
        },
        Event::ApprovalDecided {
            call: "c1".into(),
            approved: false,
            reason: Some("not now".into()),
        },
        Event::ApprovalDecided {
            call: "c1".into(),
            approved: true,
            reason: None,
        },
        Event::ToolCallStarted {
            call: "c1".into(),
            attempt: 1,
        },
        Event::ToolCallFinished {
            call: "c1".into(),
            content: "ok".into(),
            is_error: true,
        },
        Event::CompletionRejected {
            blockers: vec!["a".into(), "b".into()],
        },
        Event::StepFinished {
            run: None,
            step: 2,
            budget_after: ledger(),
            evidence_delta: EvidenceDelta {
                new_observations: 1,
                repeated_observations: 2,
                ..EvidenceDelta::default()
            },
        },
        Event::BudgetExtended {
            budget: BudgetLimits {
                max_steps: None,
                ..BudgetLimits::default()
            },
        },
        Event::Suspended,
        Event::Resumed,
    ];
    for purpose in [CallPurpose::Step, CallPurpose::Compaction] {
        events.push(Event::ModelCallStarted {
            request: 1,
            purpose,
        });
        events.push(Event::RunPaused {
            reason: PauseReason::ProviderUnreachable { purpose },
            message: "offline".into(),
        });
    }
    let reasons = [
        TransitionReason::NextTurn,
        TransitionReason::ToolResults,
        TransitionReason::Compaction,
        TransitionReason::OutputTokenRecovery { attempt: 1 },
        TransitionReason::StopHookBlocked { consecutive: 2 },
        TransitionReason::BudgetContinuation,
        TransitionReason::ApprovalResumed,
        TransitionReason::Resumed,
    ];
    for reason in reasons {
        events.push(Event::StepStarted {
            run: None,
            step: 1,
            reason,
            budget_before: ledger(),
        });
    }
    events.extend(
        model_errors()
            .into_iter()
            .map(|error| Event::ModelFailed { request: 3, error }),
    );
    for stop in stop_reasons() {
        events.push(Event::StopHookAsked {
            proposal: StopProposal {
                stop: stop.clone(),
                explanation: "why".into(),
                final_text: Some("answer".into()),
            },
        });
        events.push(Event::RunFinished {
            outcome: RunOutcome {
                stop,
                explanation: "why".into(),
                final_text: None,
                steps: 2,
                usage: Usage::default(),
                cost_usd: 0.0,
                handoff: Some(HandoffReport {
                    task: "t".into(),
                    progress: vec!["p".into()],
                    findings: vec![],
                    stuck_on: vec!["s".into()],
                    last_message: "m".into(),
                }),
            },
        });
    }
    let verdicts = [
        StopVerdict::Allow,
        StopVerdict::Block { reason: "r".into() },
        StopVerdict::Failed {
            message: "m".into(),
        },
    ];
    events.extend(
        verdicts
            .into_iter()
            .map(|verdict| Event::StopHookDecided { verdict }),
    );
    use Rejection::*;
    let rejections = [
        UnknownTool,
        InvalidJson,
        SchemaViolation,
        DeniedByPolicy,
        CutAtOutputLimit,
        OverBudget,
        CompletionBlocked,
        MalformedReply,
        RepeatsSuccess,
    ];
    events.extend(
        rejections
            .into_iter()
            .map(|rejection| Event::ToolCallRejected {
                call: "c1".into(),
                rejection,
                message: "no".into(),
            }),
    );
    for cause in [
        InterruptCause::Cancelled,
        InterruptCause::Reload,
        InterruptCause::Budget,
        InterruptCause::Offline,
        InterruptCause::NetworkLost,
    ] {
        let unreachable = matches!(cause, InterruptCause::Offline | InterruptCause::NetworkLost);
        events.push(Event::ToolCallInterrupted {
            call: "c1".into(),
            cause,
            error: unreachable.then(|| "offline".into()),
        });
    }
    for detector in detectors() {
        events.push(Event::GuardTriggered {
            detector,
            stop: true,
            message: "loop".into(),
            evidence: Vec::new(),
        });
    }
    events
}

/// Which variant an event is; exhaustive, so a new variant must be added to the list above.
fn variant(event: &Event) -> usize {
    match event {
        Event::SessionStarted { .. } => 0,
        Event::UserMessage { .. } => 1,
        Event::RunStarted { .. } => 2,
        Event::StepStarted { .. } => 3,
        Event::ModelCallStarted { .. } => 4,
        Event::ModelReplied { .. } => 5,
        Event::ModelFailed { .. } => 6,
        Event::ModelRetryScheduled { .. } => 7,
        Event::RunPaused { .. } => 8,
        Event::RunUnpaused => 9,
        Event::StopHookAsked { .. } => 10,
        Event::StopHookDecided { .. } => 11,
        Event::ModelCallAbandoned { .. } => 12,
        Event::Compacted { .. } => 13,
        Event::ToolCallRejected { .. } => 14,
        Event::ApprovalRequested { .. } => 15,
        Event::ApprovalDecided { .. } => 16,
        Event::ToolCallStarted { .. } => 17,
        Event::ToolCallFinished { .. } => 18,
        Event::ToolCallInterrupted { .. } => 19,
        Event::GuardTriggered { .. } => 20,
        Event::CompletionRejected { .. } => 21,
        Event::StepFinished { .. } => 22,
        Event::BudgetExtended { .. } => 23,
        Event::Suspended => 24,
        Event::Resumed => 25,
        Event::RunFinished { .. } => 26,
    }
}

#[test]
fn every_event_reads_back_as_written() {
    let events = every_event();
    let mut seen: Vec<usize> = events.iter().map(variant).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen, (0..27).collect::<Vec<_>>(), "one of every variant");
    for (seq, event) in events.into_iter().enumerate() {
        round_trip(&Record {
            seq: seq as u64,
            at: 1_700_000_000_000 + seq as u64,
            event,
        });
    }
}

#[test]
fn transcript_messages_and_tool_batches_read_back_as_written() {
    let messages = [
        Message::User { text: "u".into() },
        Message::Assistant {
            text: "a".into(),
            tool_calls: vec![call()],
        },
        Message::Assistant {
            text: "a".into(),
            tool_calls: vec![],
        },
        Message::Tool {
            call_id: "c1".into(),
            name: "vfs".into(),
            content: "x".into(),
            is_error: false,
        },
    ];
    for message in &messages {
        round_trip(message);
    }
    let states = [
        SlotState::Pending,
        SlotState::AwaitingApproval {
            after_interrupt: true,
        },
        SlotState::Running,
        SlotState::Done {
            content: "c".into(),
            is_error: true,
        },
    ];
    let slots: Vec<Slot> = states
        .into_iter()
        .map(|state| Slot {
            call: call(),
            args: json!({"op": "read"}),
            kind: Some(ToolKind::Todo),
            args_hash: "h".into(),
            scope: None,
            state,
            approved: true,
            interrupted: false,
            attempts: 2,
        })
        .collect();
    let batch = ToolBatch {
        slots,
        parallel: true,
        cut: false,
        approval_decided: true,
        malformed: false,
        waits_for_network: false,
    };
    round_trip(&Phase::Tools(ToolBatch {
        waits_for_network: true,
        ..batch.clone()
    }));
    round_trip(&Phase::Tools(batch));
    round_trip(&Phase::Between);
    let retry = ModelRetry {
        attempt: 2,
        delay_ms: 1_000,
    };
    round_trip(&Phase::ResendDue(retry));
    for retry in [None, Some(retry)] {
        round_trip(&Phase::AwaitingModel {
            request: 4,
            purpose: CallPurpose::Compaction,
            cut: Some(3),
            retry,
        });
    }
    round_trip(&Phase::ProviderDown {
        purpose: CallPurpose::Step,
    });
    round_trip(&Phase::AwaitingStopHook(StopProposal {
        stop: StopReason::Completed,
        explanation: "done".into(),
        final_text: Some("text".into()),
    }));
    for finish in [
        None,
        Some(FinishResult::Verified("v".into())),
        Some(FinishResult::Failed),
        Some(FinishResult::Unverified("u".into())),
    ] {
        round_trip(&Phase::BatchDone(BatchSummary {
            approval_decided: false,
            cut: true,
            finish,
            gave_up: None,
        }));
    }
}

#[test]
fn readers_follow_serde_rules_for_what_the_writer_leaves_out() {
    // Unknown fields are ignored; absent options are None; `default` fields keep their default.
    let reply: ModelReply = serde_json::from_str(
        r#"{"text":"t","finish":"end_turn","usage":{"input_tokens":1,"output_tokens":2},"later":true}"#,
    )
    .unwrap();
    assert_eq!(reply.tool_calls, vec![]);
    assert_eq!(reply.model, "");
    assert_eq!(reply.usage.cached_input_tokens, 0);
    let decision: Event =
        serde_json::from_str(r#"{"type":"approval_decided","call":"c","approved":true}"#).unwrap();
    assert_eq!(
        decision,
        Event::ApprovalDecided {
            call: "c".into(),
            approved: true,
            reason: None
        }
    );
    // Pages register tools with `localParameters`.
    let spec: ToolSpec = serde_json::from_value(
        json!({"name": "t", "description": "d", "parameters": {}, "localParameters": {"x": 1}}),
    )
    .unwrap();
    assert_eq!(spec.local_parameters, Some(json!({"x": 1})));
}

#[test]
fn a_bad_value_is_refused_with_why() {
    let error = |text: &str| serde_json::from_str::<Event>(text).unwrap_err().to_string();
    let refused = |text: &str, why: &str| {
        let message = error(text);
        assert!(message.contains(why), "{text}: {message}");
    };
    refused(r#"{"type":"user_message"}"#, "missing field `text`");
    refused(
        r#"{"type":"user_mesage","text":"x"}"#,
        "unknown variant `user_mesage`",
    );
    refused(r#"{"text":"x"}"#, "missing field `type`");
    refused(r#"{"type":"run_started","run":-1,"budget":{}}"#, "-1");
    refused(
        r#"{"type":"run_started","run":4294967296,"budget":{}}"#,
        "4294967296",
    );
    refused(
        r#"{"type":"completion_rejected","blockers":["a",2]}"#,
        "expected a string",
    );
    refused(
        r#"{"type":"model_failed","request":1,"error":{"kind":"http","message":"m"}}"#,
        "ModelErrorKind",
    );
    refused("[1]", "type");
    let unit = serde_json::from_str::<Permission>(r#""maybe""#).unwrap_err();
    assert!(
        unit.to_string().contains("unknown variant `maybe`"),
        "{unit}"
    );
    let phase = serde_json::from_value::<Phase>(json!({"Unknown": 1})).unwrap_err();
    assert!(
        phase.to_string().contains("unknown variant `Unknown`"),
        "{phase}"
    );
}
