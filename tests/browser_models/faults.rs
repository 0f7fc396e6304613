//! The retry matrix, the backoff schedule and server-directed waits, against the mock provider.

use futures::future::join_all;
use pretty_assertions::assert_eq;
use tabloop::protocol::{ModelError, ModelErrorKind};
use tabloop::web::Provider;
use wasm_bindgen_test::wasm_bindgen_test;

use crate::support::{call, client, gaps, outcome, request, scenario, stats};

const RETRYABLE: [u16; 8] = [408, 409, 429, 500, 502, 503, 504, 529];
const NOT_RETRYABLE: [u16; 6] = [400, 401, 403, 404, 413, 422];

/// One matrix row: provider, scenario behaviour, attempts the server saw, outcome.
type Row = (Provider, String, u32, String);

async fn row(provider: Provider, behaviour: String) -> Row {
    let name = scenario(&behaviour, &format!("matrix-{provider:?}"));
    let run = call(&client(provider, &name), &request(false)).await;
    (
        provider,
        behaviour,
        stats(&name).await.attempts,
        outcome(&run.result),
    )
}

#[wasm_bindgen_test]
async fn fault_matrix_retries_transient_statuses_and_never_the_others() {
    let mut cases = Vec::new();
    let mut expected: Vec<Row> = Vec::new();
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        for status in RETRYABLE {
            cases.push((provider, format!("flaky-{status}")));
            expected.push((provider, format!("flaky-{status}"), 2, "ok".into()));
        }
        for status in NOT_RETRYABLE {
            cases.push((provider, format!("status-{status}")));
            expected.push((
                provider,
                format!("status-{status}"),
                1,
                format!("http {status}"),
            ));
        }
        for status in [503, 529] {
            cases.push((provider, format!("status-{status}")));
            expected.push((
                provider,
                format!("status-{status}"),
                3,
                format!("http {status}"),
            ));
        }
    }
    let table: Vec<Row> = join_all(cases.into_iter().map(|(p, b)| row(p, b))).await;
    for (provider, behaviour, attempts, outcome) in &table {
        web_sys::console::log_1(
            &format!("matrix {provider:?} {behaviour}: attempts {attempts}, {outcome}").into(),
        );
    }
    assert_eq!(table, expected);
}

#[wasm_bindgen_test]
async fn backoff_without_retry_after_follows_half_a_second_doubling_with_jitter() {
    let name = scenario("status-503", "backoff");
    let run = call(&client(Provider::OpenAi, &name), &request(false)).await;
    assert_eq!(outcome(&run.result), "http 503");
    let delays = gaps(&stats(&name).await);
    web_sys::console::log_1(&format!("backoff delays (ms): {delays:?}").into());
    assert_eq!(delays.len(), 2);
    // min(0.5 · 2^n, 8) s × jitter in [0.75, 1], plus a little scheduling slack.
    assert!((375..=750).contains(&delays[0]), "{delays:?}");
    assert!((750..=1_250).contains(&delays[1]), "{delays:?}");
}

/// Runs a retry-after scenario; returns (server-measured wait, directed wait, outcome).
async fn waited(behaviour: &str, directed_ms: Option<u64>) -> (u64, u64, String) {
    let name = scenario(behaviour, "retry-after");
    let run = call(&client(Provider::Anthropic, &name), &request(false)).await;
    let stats = stats(&name).await;
    let directed = directed_ms.or(stats.directed_wait_ms).unwrap_or(0);
    let measured = gaps(&stats).first().copied().unwrap_or(0);
    (measured, directed, outcome(&run.result))
}

#[wasm_bindgen_test]
async fn retry_after_headers_are_waited_for_before_the_retry() {
    let cases = [
        ("retry-after-ms-1500", Some(1_500)),
        ("retry-after-2", Some(2_000)),
        ("retry-after-date-2", None),
    ];
    let results = join_all(cases.iter().map(|(b, d)| waited(b, *d))).await;
    for ((behaviour, _), (measured, directed, outcome)) in cases.iter().zip(&results) {
        web_sys::console::log_1(
            &format!("{behaviour}: measured_wait_ms {measured}, directed {directed}, {outcome}")
                .into(),
        );
        assert_eq!(outcome, "ok", "{behaviour}");
        // An HTTP-date has whole seconds; allow the 100 ms the client's clock reads later.
        let floor = if behaviour.contains("date") {
            directed.saturating_sub(100)
        } else {
            *directed
        };
        assert!(*measured >= floor, "{behaviour}: {measured} < {floor}");
        assert!(
            *measured <= directed + 700,
            "{behaviour}: {measured} ≫ {directed}"
        );
    }
}

#[wasm_bindgen_test]
async fn retry_after_above_the_cap_is_surfaced_without_sleeping() {
    let name = scenario("retry-after-3600", "cap");
    let run = call(&client(Provider::OpenAi, &name), &request(false)).await;
    web_sys::console::log_1(
        &format!(
            "retry-after 3600: surfaced after {} ms, capped = true",
            run.elapsed_ms
        )
        .into(),
    );
    assert_eq!(
        run.result.map_err(|ModelError { kind, .. }| kind),
        Err(ModelErrorKind::Http {
            status: 429,
            retry_after_ms: Some(3_600_000),
            should_retry: None,
        })
    );
    assert!(run.elapsed_ms < 1_000, "took {} ms", run.elapsed_ms);
    assert_eq!(stats(&name).await.attempts, 1);
}
