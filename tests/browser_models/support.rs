//! Shared helpers: the mock provider's address and counters, clients, requests, and a call
//! runner that records deltas and elapsed time.

use serde::Deserialize;
use tabloop::ports::ModelClient;
use tabloop::protocol::{
    Message, ModelError, ModelErrorKind, ModelReply, ModelRequest, StreamDelta, ToolSpec,
};
use tabloop::providers::RetryPolicy;
use tabloop::web::timer::now_ms;
use tabloop::web::{Provider, RemoteModel, Timeouts};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The API key every test client sends. It must never appear in an error or outside its header.
pub const KEY: &str = "sk-test-tabloop-SECRET-4f9a";

/// The mock provider's base URL.
pub fn mock_url() -> &'static str {
    option_env!("MOCK_PROVIDER_URL").unwrap_or("http://127.0.0.1:8791")
}

/// A scenario name unique to this run: `<behaviour>.<test>-<time>`, so counters never mix.
pub fn scenario(behaviour: &str, test: &str) -> String {
    format!("{behaviour}.{test}-{}", now_ms())
}

/// A client for `name` with the default policy and 5 s timeouts.
pub fn client(provider: Provider, name: &str) -> RemoteModel {
    let mut client = RemoteModel::new(
        provider,
        format!("{}/scenario/{name}", mock_url()),
        KEY,
        "mock-model",
    );
    client.timeouts = Timeouts {
        first_byte_ms: 5_000,
        idle_ms: 5_000,
    };
    client
}

/// A retry policy with 10 ms backoff, for tests about something other than waiting.
pub fn fast_policy(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        initial_delay_ms: 10,
        max_delay_ms: 10,
        ..RetryPolicy::default()
    }
}

/// A one-message request, with two tools when `with_tools`.
pub fn request(with_tools: bool) -> ModelRequest {
    let tools = if with_tools {
        vec![
            ToolSpec {
                local_parameters: None,
                name: "read_file".into(),
                description: "Read a file".into(),
                parameters: serde_json::json!({
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"]
                }),
            },
            ToolSpec {
                local_parameters: None,
                name: "list_dir".into(),
                description: "List a directory".into(),
                parameters: serde_json::json!({
                    "type": "object",
                    "properties": {"dir": {"type": "string"}},
                    "required": ["dir"]
                }),
            },
        ]
    } else {
        Vec::new()
    };
    ModelRequest {
        system: Some("You are a test.".into()),
        messages: vec![Message::User {
            text: "Say hello.".into(),
        }]
        .into(),
        tools,
        max_output_tokens: 64,
    }
}

/// The outcome of one `complete` call.
pub struct Run {
    /// What `complete` returned.
    pub result: Result<ModelReply, ModelError>,
    /// Every delta forwarded, in order.
    pub deltas: Vec<StreamDelta>,
    /// Wall time of the call.
    pub elapsed_ms: u64,
}

/// Runs one call to completion.
pub async fn call(client: &impl ModelClient, request: &ModelRequest) -> Run {
    let mut deltas = Vec::new();
    let started = now_ms();
    let result = client
        .complete(request, &mut |delta| deltas.push(delta))
        .await;
    Run {
        result,
        deltas,
        elapsed_ms: now_ms() - started,
    }
}

/// The visible text of the deltas, concatenated.
pub fn delta_text(deltas: &[StreamDelta]) -> String {
    deltas
        .iter()
        .filter_map(|delta| match delta {
            StreamDelta::Text(text) => Some(text.as_str()),
            StreamDelta::Thinking(_) | StreamDelta::ToolCallStarted { .. } => None,
        })
        .collect()
}

/// A short label of an outcome for tables: `ok`, `http 429`, or the error kind's name.
pub fn outcome(result: &Result<ModelReply, ModelError>) -> String {
    match result {
        Ok(_) => "ok".into(),
        Err(ModelError {
            kind: ModelErrorKind::Http { status, .. },
            ..
        }) => format!("http {status}"),
        Err(error) => format!("{:?}", error.kind),
    }
}

/// The mock's counters for one scenario.
#[derive(Debug, Deserialize)]
pub struct Stats {
    /// Requests received.
    pub attempts: u32,
    /// When each arrived (Unix ms).
    pub times_ms: Vec<u64>,
    /// When a response was closed by the client before it finished (Unix ms).
    pub closed_early_ms: Vec<u64>,
    /// For `retry-after-date`: the wait the date directed, as the server computed it.
    pub directed_wait_ms: Option<u64>,
}

/// Fetches `GET {mock}{path}` as JSON.
pub async fn get_json<T: serde::de::DeserializeOwned>(path: &str) -> T {
    let window = web_sys::window().unwrap();
    let response = JsFuture::from(window.fetch_with_str(&format!("{}{path}", mock_url())))
        .await
        .expect("the mock provider is not running (start tests/support/mock_provider.mjs)");
    let response: web_sys::Response = response.dyn_into().unwrap();
    let text = JsFuture::from(response.text().unwrap()).await.unwrap();
    serde_json::from_str(&text.as_string().unwrap()).unwrap()
}

/// The counters of `name`.
pub async fn stats(name: &str) -> Stats {
    get_json(&format!("/attempts/{name}")).await
}

/// Gaps between consecutive attempts, in ms.
pub fn gaps(stats: &Stats) -> Vec<u64> {
    stats.times_ms.windows(2).map(|w| w[1] - w[0]).collect()
}
