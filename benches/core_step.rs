//! Per-step overhead of the loop core (no model, no I/O) after histories of 10 to 10,000 events:
//! the cost of a decision must grow with the new events only, not with the history.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use criterion::{criterion_group, BenchmarkId, Criterion};
    use serde_json::json;
    use std::hint::black_box;
    use tabloop::core::{
        Agent, AgentConfig, BudgetLimits, Effect, Input, Permission, ToolDecl, ToolKind,
    };
    use tabloop::protocol::{FinishReason, ModelReply, ToolCall, ToolSpec, Usage};

    fn config() -> AgentConfig {
        AgentConfig {
            tools: vec![ToolDecl {
                spec: ToolSpec {
                    name: "read_file".into(),
                    description: "read".into(),
                    parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
                },
                permission: Permission::Allow,
                idempotent: true,
                parallel_safe: true,
                kind: ToolKind::Host,
                approval_scope: None,
            }],
            budget: BudgetLimits {
                max_steps: None,
                max_tool_calls: None,
                max_input_tokens: None,
                max_output_tokens: None,
                max_cost_usd: None,
                max_wall_ms: None,
            },
            // A window large enough that no compaction happens: the history really is this long.
            context_window: u64::MAX / 4,
            ..AgentConfig::default()
        }
    }

    /// One loop step: the model asks for a tool call (distinct each time), the tool answers.
    /// Every step appends 6 events. Returns the number of effects drained.
    fn step(agent: &mut Agent, n: u64, request: &mut u64) -> usize {
        let reply = ModelReply {
            text: String::new(),
            tool_calls: vec![ToolCall {
                id: format!("c{n}"),
                name: "read_file".into(),
                arguments: format!(r#"{{"path":"f{n}"}}"#),
            }],
            finish: FinishReason::ToolUse,
            usage: Usage {
                input_tokens: 10,
                output_tokens: 2,
                ..Usage::default()
            },
            model: "m".into(),
        };
        let mut drained = 0;
        agent
            .handle(
                Input::ModelReplied {
                    request: *request,
                    reply,
                },
                n * 10,
            )
            .ok();
        while let Some(e) = agent.poll() {
            drained += 1;
            black_box(e);
        }
        agent
            .handle(
                Input::ToolFinished {
                    call: format!("c{n}"),
                    content: format!("contents {n}"),
                    is_error: false,
                },
                n * 10 + 5,
            )
            .ok();
        while let Some(e) = agent.poll() {
            drained += 1;
            if let Effect::CallModel { request: r, .. } = e {
                *request = r;
            }
        }
        drained
    }

    fn agent_with_history(events: usize) -> (Agent, u64, u64) {
        let mut agent = Agent::new("bench", config(), 0);
        agent
            .handle(
                Input::UserMessage {
                    text: "task".into(),
                    budget: None,
                },
                1,
            )
            .ok();
        let mut request = 0;
        while let Some(e) = agent.poll() {
            if let Effect::CallModel { request: r, .. } = e {
                request = r;
            }
        }
        let mut n = 1;
        while (agent.state().next_seq as usize) < events {
            step(&mut agent, n, &mut request);
            n += 1;
        }
        (agent, request, n)
    }

    pub fn per_step(c: &mut Criterion) {
        let mut group = c.benchmark_group("core_step");
        for events in [10usize, 100, 1_000, 10_000] {
            let (agent, request, n) = agent_with_history(events);
            group.bench_with_input(BenchmarkId::from_parameter(events), &events, |b, _| {
                b.iter_batched(
                    || {
                        // A clone has exactly-sized buffers; one untimed step lets them grow as
                        // they would in a live session, so the timed step is a steady-state one.
                        let (mut agent, mut request) = (agent.clone(), request);
                        step(&mut agent, n, &mut request);
                        (agent, request)
                    },
                    |(mut agent, mut request)| {
                        step(&mut agent, n + 1, &mut request);
                        // Returned so dropping the cloned history is not timed.
                        agent
                    },
                    criterion::BatchSize::LargeInput,
                )
            });
        }
        group.finish();
    }

    criterion_group!(benches, per_step);

    /// What `criterion_main!` would generate, callable from the cfg-gated `main`.
    pub fn run() {
        benches();
        Criterion::default().configure_from_args().final_summary();
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::run();
}

/// The benchmark is native only; on wasm32 it is an empty program.
#[cfg(target_arch = "wasm32")]
fn main() {}
