//! The remote client's happy paths, stream faults, timeouts, abort and key hygiene.

use futures::future::{select, Either};
use pretty_assertions::assert_eq;
use serde::Deserialize;
use tabloop::ports::ModelClient;
use tabloop::protocol::{FinishReason, ModelErrorKind, ModelReply, StreamDelta, ToolCall, Usage};
use tabloop::web::timer::{now_ms, sleep};
use tabloop::web::{Provider, RemoteModel, Timeouts};
use wasm_bindgen_test::wasm_bindgen_test;

use crate::support::{
    call, client, delta_text, fast_policy, mock_url, request, scenario, stats, KEY,
};

fn openai_usage() -> Usage {
    Usage {
        input_tokens: 10,
        output_tokens: 5,
        cached_input_tokens: 2,
        cache_write_tokens: 0,
    }
}

fn anthropic_usage() -> Usage {
    Usage {
        input_tokens: 12,
        output_tokens: 5,
        cached_input_tokens: 2,
        cache_write_tokens: 0,
    }
}

fn expected_tool_calls() -> Vec<ToolCall> {
    vec![
        ToolCall {
            id: "call_read".into(),
            name: "read_file".into(),
            arguments: r#"{"path": "notes.txt"}"#.into(),
        },
        ToolCall {
            id: "call_list".into(),
            name: "list_dir".into(),
            arguments: r#"{"dir": "/"}"#.into(),
        },
    ]
}

fn started(index: usize, id: &str, name: &str) -> StreamDelta {
    StreamDelta::ToolCallStarted {
        index,
        id: id.into(),
        name: name.into(),
    }
}

#[wasm_bindgen_test]
async fn openai_text_streams_deltas_and_maps_usage() {
    let name = scenario("text", "openai");
    let run = call(&client(Provider::OpenAi, &name), &request(false)).await;
    let expected = ModelReply {
        text: "Hello, world!".into(),
        tool_calls: vec![],
        finish: FinishReason::EndTurn,
        usage: openai_usage(),
        model: "mock-gpt".into(),
        reasoning: String::new(),
    };
    assert_eq!(run.result, Ok(expected));
    let texts = ["Hello", ", wor", "ld!"].map(|t| StreamDelta::Text(t.into()));
    assert_eq!(run.deltas, texts.to_vec());
    assert_eq!(stats(&name).await.attempts, 1);
}

#[wasm_bindgen_test]
async fn anthropic_text_streams_deltas_and_maps_usage() {
    let name = scenario("text", "anthropic");
    let run = call(&client(Provider::Anthropic, &name), &request(false)).await;
    let expected = ModelReply {
        text: "Hello, world!".into(),
        tool_calls: vec![],
        finish: FinishReason::EndTurn,
        usage: anthropic_usage(),
        model: "mock-claude".into(),
        reasoning: String::new(),
    };
    assert_eq!(run.result, Ok(expected));
    assert_eq!(delta_text(&run.deltas), "Hello, world!");
    assert_eq!(stats(&name).await.attempts, 1);
}

#[wasm_bindgen_test]
async fn openai_interleaved_tool_calls_are_reassembled() {
    let name = scenario("tools", "openai");
    let run = call(&client(Provider::OpenAi, &name), &request(true)).await;
    let expected = ModelReply {
        text: String::new(),
        tool_calls: expected_tool_calls(),
        finish: FinishReason::ToolUse,
        usage: openai_usage(),
        model: "mock-gpt".into(),
        reasoning: String::new(),
    };
    assert_eq!(run.result, Ok(expected));
    assert_eq!(
        run.deltas,
        vec![
            started(0, "call_read", "read_file"),
            started(1, "call_list", "list_dir")
        ]
    );
}

#[wasm_bindgen_test]
async fn anthropic_tool_use_blocks_are_reassembled() {
    let name = scenario("tools", "anthropic");
    let run = call(&client(Provider::Anthropic, &name), &request(true)).await;
    let expected = ModelReply {
        text: "Let me look.".into(),
        tool_calls: expected_tool_calls(),
        finish: FinishReason::ToolUse,
        usage: anthropic_usage(),
        model: "mock-claude".into(),
        reasoning: String::new(),
    };
    assert_eq!(run.result, Ok(expected));
    assert_eq!(
        run.deltas,
        vec![
            StreamDelta::Text("Let me look.".into()),
            started(0, "call_read", "read_file"),
            started(1, "call_list", "list_dir")
        ]
    );
}

#[wasm_bindgen_test]
async fn sse_error_event_after_200_is_a_provider_error_retried_once_before_output() {
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let name = scenario("sse-error", &format!("{provider:?}"));
        let run = call(&client(provider, &name), &request(false)).await;
        let kind = run.result.map_err(|e| e.kind);
        let overloaded = ModelErrorKind::Provider {
            error_type: "overloaded_error".into(),
        };
        assert_eq!(kind, Err(overloaded), "{provider:?}");
        assert_eq!(stats(&name).await.attempts, 2, "{provider:?}");
        assert_eq!(run.deltas, vec![], "{provider:?}");
    }
}

#[wasm_bindgen_test]
async fn sse_error_event_after_text_is_not_retried() {
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let name = scenario("sse-error-after-text", &format!("{provider:?}"));
        let run = call(&client(provider, &name), &request(false)).await;
        let kind = run.result.map_err(|e| e.kind);
        let overloaded = ModelErrorKind::Provider {
            error_type: "overloaded_error".into(),
        };
        assert_eq!(kind, Err(overloaded), "{provider:?}");
        assert_eq!(stats(&name).await.attempts, 1, "{provider:?}");
        assert_eq!(delta_text(&run.deltas), "Partial ", "{provider:?}");
    }
}

#[wasm_bindgen_test]
async fn stream_cut_before_output_is_retried_once_and_succeeds() {
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let name = scenario("cut-before", &format!("{provider:?}"));
        let run = call(&client(provider, &name), &request(false)).await;
        let reply = run.result.expect("the retry succeeds");
        assert_eq!(reply.text, "After the cut.", "{provider:?}");
        assert_eq!(stats(&name).await.attempts, 2, "{provider:?}");
        assert_eq!(
            run.deltas,
            vec![StreamDelta::Text("After the cut.".into())],
            "{provider:?}"
        );
    }
}

#[wasm_bindgen_test]
async fn stream_cut_after_output_is_truncated_with_the_partial_and_never_retried() {
    let cases = [
        ("cut-after", Provider::OpenAi, "The answer is "),
        ("cut-after", Provider::Anthropic, "The answer is "),
        ("reset-after", Provider::OpenAi, "Half a "),
        ("reset-after", Provider::Anthropic, "Half a "),
    ];
    for (behaviour, provider, text) in cases {
        let name = scenario(behaviour, &format!("{provider:?}"));
        let run = call(&client(provider, &name), &request(false)).await;
        let label = format!("{behaviour} {provider:?}");
        let Err(error) = run.result else {
            panic!("{label}: a cut stream must fail");
        };
        let ModelErrorKind::Truncated {
            partial: Some(partial),
        } = error.kind
        else {
            panic!(
                "{label}: expected Truncated with a partial, got {:?}",
                error.kind
            );
        };
        assert_eq!(partial.text, text, "{label}");
        assert_eq!(stats(&name).await.attempts, 1, "{label}");
        // Every visible character was forwarded exactly once.
        assert_eq!(delta_text(&run.deltas), text, "{label}");
    }
}

#[wasm_bindgen_test]
async fn no_first_byte_in_time_is_a_first_byte_timeout_and_aborts_the_request() {
    for behaviour in ["slow-headers-3000", "slow-body-3000"] {
        let name = scenario(behaviour, "ttfb");
        let mut model = client(Provider::OpenAi, &name);
        model.timeouts = Timeouts {
            first_byte_ms: 300,
            idle_ms: 5_000,
        };
        model.policy = fast_policy(1);
        let run = call(&model, &request(false)).await;
        assert_eq!(
            run.result.map_err(|e| e.kind),
            Err(ModelErrorKind::FirstByteTimeout),
            "{behaviour}"
        );
        assert!(
            run.elapsed_ms < 1_500,
            "{behaviour}: took {} ms",
            run.elapsed_ms
        );
        sleep(100).await;
        let stats = stats(&name).await;
        assert_eq!(stats.attempts, 2, "{behaviour}: retried once");
        assert_eq!(
            stats.closed_early_ms.len(),
            2,
            "{behaviour}: both attempts aborted"
        );
    }
}

#[wasm_bindgen_test]
async fn a_stall_mid_stream_is_an_idle_timeout_and_not_retried() {
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let name = scenario("stall-3000", &format!("{provider:?}"));
        let mut model = client(provider, &name);
        model.timeouts = Timeouts {
            first_byte_ms: 5_000,
            idle_ms: 300,
        };
        let run = call(&model, &request(false)).await;
        assert_eq!(
            run.result.map_err(|e| e.kind),
            Err(ModelErrorKind::IdleTimeout),
            "{provider:?}"
        );
        assert_eq!(delta_text(&run.deltas), "Before the stall.", "{provider:?}");
        assert!(
            run.elapsed_ms < 1_500,
            "{provider:?}: took {} ms",
            run.elapsed_ms
        );
        assert_eq!(stats(&name).await.attempts, 1, "{provider:?}");
    }
}

#[wasm_bindgen_test]
async fn dropping_the_future_aborts_the_request_promptly() {
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let name = scenario("slow", &format!("{provider:?}"));
        let model = client(provider, &name);
        let req = request(false);
        let mut deltas = Vec::new();
        let mut on_delta = |delta| deltas.push(delta);
        let future = Box::pin(model.complete(&req, &mut on_delta));
        let dropped_at = match select(future, sleep(450)).await {
            Either::Left((result, _)) => panic!("the slow stream ended early: {result:?}"),
            Either::Right(((), future)) => {
                drop(future);
                now_ms()
            }
        };
        let mut closed = Vec::new();
        for _ in 0..40 {
            closed = stats(&name).await.closed_early_ms;
            if !closed.is_empty() {
                break;
            }
            sleep(25).await;
        }
        let latency = closed.first().map(|at| at.saturating_sub(dropped_at));
        web_sys::console::log_1(
            &format!("abort latency {provider:?}: {latency:?} ms (drop → server saw close)").into(),
        );
        assert!(
            !deltas.is_empty(),
            "{provider:?}: text arrived before the drop"
        );
        assert!(
            latency.is_some_and(|ms| ms < 500),
            "{provider:?}: {latency:?}"
        );
        assert_eq!(stats(&name).await.attempts, 1, "{provider:?}");
    }
}

#[wasm_bindgen_test]
async fn an_unreachable_server_is_a_network_error() {
    let mut model = RemoteModel::new(Provider::OpenAi, "http://127.0.0.1:1", KEY, "m");
    model.policy = fast_policy(2);
    let run = call(&model, &request(false)).await;
    assert_eq!(run.result.map_err(|e| e.kind), Err(ModelErrorKind::Network));
}

#[derive(Debug, Deserialize)]
struct KeyHygiene {
    requests_with_key: u64,
    leaks: Vec<serde_json::Value>,
}

#[wasm_bindgen_test]
async fn the_api_key_stays_in_its_header_and_out_of_every_error() {
    let mut messages = Vec::new();
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        for behaviour in [
            "status-401",
            "status-400",
            "status-429",
            "sse-error",
            "cut-after",
        ] {
            let mut model = client(provider, &scenario(behaviour, "key"));
            model.policy = fast_policy(2);
            let error = call(&model, &request(true)).await.result.unwrap_err();
            messages.push(format!("{error} {:?}", error.kind));
        }
        let mut slow = client(provider, &scenario("slow-headers-2000", "key"));
        slow.timeouts.first_byte_ms = 100;
        slow.policy = fast_policy(0);
        let error = call(&slow, &request(false)).await.result.unwrap_err();
        messages.push(error.to_string());
        let mut offline = RemoteModel::new(provider, "http://127.0.0.1:1", KEY, "m");
        offline.policy = fast_policy(0);
        messages.push(
            call(&offline, &request(false))
                .await
                .result
                .unwrap_err()
                .to_string(),
        );
        messages.push(format!("{offline:?}"));
    }
    let leaked: Vec<&String> = messages
        .iter()
        .filter(|m| m.contains(KEY) || m.contains("SECRET"))
        .collect();
    assert_eq!(leaked, Vec::<&String>::new());
    assert!(messages[0].contains("[redacted]"), "{}", messages[0]);
    let hygiene: KeyHygiene = crate::support::get_json("/key-leaks").await;
    web_sys::console::log_1(
        &format!(
            "key hygiene: {} requests carried the key, leaks {:?}; {} error messages checked ({})",
            hygiene.requests_with_key,
            hygiene.leaks,
            messages.len(),
            mock_url()
        )
        .into(),
    );
    assert!(hygiene.requests_with_key > 0);
    assert_eq!(hygiene.leaks, Vec::<serde_json::Value>::new());
}

#[wasm_bindgen_test]
fn a_guard_aborts_when_dropped_unless_its_work_settled() {
    use tabloop::web::abort::AbortOnDrop;
    let guard = AbortOnDrop::new().unwrap();
    let signal = guard.signal();
    drop(guard);
    assert!(
        signal.aborted(),
        "dropping a guard of unfinished work aborts it"
    );
    let mut settled = AbortOnDrop::new().unwrap();
    let signal = settled.signal();
    settled.settle();
    drop(settled);
    assert!(
        !signal.aborted(),
        "finished work is not aborted after the fact"
    );
}

#[wasm_bindgen_test]
async fn a_response_read_to_its_end_is_not_aborted_when_dropped() {
    use tabloop::web::http_stream::{post_json, Timeouts};
    let url = format!(
        "{}/scenario/{}/chat/completions",
        crate::support::mock_url(),
        crate::support::scenario("text", "settle")
    );
    let headers = [("content-type".to_string(), "application/json".to_string())];
    let mut stream = post_json(
        &url,
        &headers,
        br#"{"model":"m","messages":[]}"#,
        Timeouts::default(),
    )
    .await
    .unwrap();
    assert!(
        stream.aborts_on_drop(),
        "an unread body is aborted when dropped"
    );
    while stream.next_chunk().await.unwrap().is_some() {}
    assert!(
        !stream.aborts_on_drop(),
        "a body read to its end is settled"
    );
}
