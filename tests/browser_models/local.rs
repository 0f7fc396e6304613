//! The local client through `www/local_bridge.js`, against a fake model module loaded from a
//! `data:` URL (the real model takes seconds per call; its own tests live with the JS module).

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::{select, Either};
use pretty_assertions::assert_eq;
use tabloop::ports::ModelClient;
use tabloop::protocol::{
    FinishReason, Message, ModelErrorKind, ModelReply, StreamDelta, ToolCall, Usage,
};
use tabloop::web::timer::{now_ms, sleep};
use tabloop::web::{LoadProgress, LocalLoadOptions, LocalModel};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

use crate::support::{call, request};

/// A stand-in for `www/local/local_model.js` with the same API. The last user message selects
/// the behaviour: `slow` streams until aborted (and reports one more piece after, as a worker's
/// message on its way would); `silent` and `stall` wait for the abort, `late` too and then
/// writes one more piece (see `late_reports.rs`); otherwise it answers at once (a tool call when a response format is
/// given, else text). Each written piece is reported as progress.
const FAKE_MODULE: &str = r#"
export async function loadLocalModel({ url, onProgress, signal }) {
  globalThis.__fakeModelUrl = url ?? null;
  onProgress({ phase: 'download', loaded: 50, total: 100, from_cache: false });
  onProgress({ phase: 'download', loaded: 100, total: 100, from_cache: false });
  onProgress({ phase: 'init', loaded: 100, total: 100, from_cache: false });
  return {
    async complete(request, { onDelta, onProgress, signal }) {
      globalThis.__fakeRequest = JSON.stringify(request);
      // the last message before the start of the model's turn (which a grammar request ends with)
      const last = request.messages.filter((m) => m.role !== 'assistant').at(-1).content;
      if (last === 'silent' || last === 'stall') {
        if (last === 'stall') onDelta('x');
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        globalThis.__fakeStalledAbort = true;
        return { text: '', finish: 'abort', usage: { input_tokens: 3, output_tokens: 0 } };
      }
      if (last === 'late') {
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        // a piece already on its way when the abort came
        setTimeout(() => { globalThis.__fakeLateDelta = true; onDelta('late'); }, 0);
        return { text: '', finish: 'abort', usage: { input_tokens: 3, output_tokens: 0 } };
      }
      if (last === 'slow') {
        signal.addEventListener('abort', () => { globalThis.__fakeAbortEventAt = Date.now(); });
        let text = '';
        for (let i = 0; i < 400; i += 1) {
          if (signal.aborted) {
            globalThis.__fakeStoppedAt = Date.now();
            setTimeout(() => onProgress?.({ phase: 'writing', loaded: i + 1, total: null, per_second: 50 }), 10);
            return { text, finish: 'abort', usage: { input_tokens: 3, output_tokens: i } };
          }
          onProgress?.({ phase: 'writing', loaded: i + 1, total: null, per_second: 50 });
          onDelta('tok ');
          text += 'tok ';
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return { text, finish: 'stop', usage: { input_tokens: 3, output_tokens: 400 } };
      }
      const pieces = request.grammar
        ? ['read_file",', '"arguments":{"path":"notes.txt"}}']
        : ['Hi ', 'there.'];
      pieces.forEach((piece, i) => {
        onProgress?.({ phase: 'writing', loaded: i + 1, total: null, per_second: 12.5 });
        onDelta(piece);
      });
      const finish = last === 'long' ? 'length' : 'stop';
      return { text: pieces.join(''), finish, usage: { input_tokens: 21, output_tokens: 7 }, timings: {} };
    },
    async unload() { globalThis.__fakeUnloaded = true; },
  };
}
"#;

fn fake_module_url(source: &str) -> String {
    format!(
        "data:text/javascript,{}",
        String::from(js_sys::encode_uri_component(source))
    )
}

pub(crate) fn global(name: &str) -> JsValue {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str(name)).unwrap()
}

pub(crate) async fn load_fake() -> (LocalModel, Vec<LoadProgress>) {
    let (model, progress) = load_fake_watched().await;
    let reports = progress.borrow().clone();
    (model, reports)
}

/// The fake model, and every progress report it makes from its load on.
async fn load_fake_watched() -> (LocalModel, Rc<RefCell<Vec<LoadProgress>>>) {
    let progress = Rc::new(RefCell::new(Vec::new()));
    let sink = progress.clone();
    let options = LocalLoadOptions {
        module_url: Some(fake_module_url(FAKE_MODULE)),
        model_url: Some("models/tiny-model.gguf".into()),
    };
    let model = LocalModel::load(&options, move |p| sink.borrow_mut().push(p))
        .await
        .unwrap();
    (model, progress)
}

fn phases_after(progress: &RefCell<Vec<LoadProgress>>, from: usize) -> Vec<(String, u64)> {
    progress.borrow()[from..]
        .iter()
        .map(|p| (p.phase.clone(), p.loaded))
        .collect()
}

#[wasm_bindgen_test]
async fn a_completion_ends_its_progress_idle_whether_done_or_stopped() {
    let (model, progress) = load_fake_watched().await;
    // Done: each piece, then idle with what was written (the header's "Ready: the last reply
    // was 2 pieces", not "Writing: 2 pieces" for good), a task later. A completion that
    // follows at once (an answer's text after its head) drops the first one's idle: the header
    // does not flash "Ready" between the two.
    let from = progress.borrow().len();
    call(&model, &request(false)).await.result.unwrap();
    call(&model, &request(false)).await.result.unwrap();
    sleep(50).await;
    assert_eq!(
        phases_after(&progress, from),
        vec![
            ("writing".into(), 1),
            ("writing".into(), 2),
            ("writing".into(), 1),
            ("writing".into(), 2),
            ("idle".into(), 2)
        ]
    );
    let idle = progress.borrow().last().cloned().unwrap();
    assert_eq!((idle.total, idle.per_second), (Some(2), Some(12.5)));

    // Stopped (the call dropped): idle at once, and the piece the model reports after that is
    // dropped instead of putting "Writing" back.
    let mut req = request(false);
    req.messages = vec![Message::User {
        text: "slow".into(),
    }]
    .into();
    let from = progress.borrow().len();
    let mut on_delta = |_| {};
    let future = Box::pin(model.complete(&req, &mut on_delta));
    match select(future, sleep(200)).await {
        Either::Left((result, _)) => panic!("the slow generation ended early: {result:?}"),
        Either::Right(((), future)) => drop(future),
    }
    sleep(100).await;
    assert!(
        global("__fakeStoppedAt").as_f64().is_some(),
        "the fake saw the abort"
    );
    let phases = phases_after(&progress, from);
    let (last, written) = phases.split_last().unwrap();
    assert!(!written.is_empty() && written.iter().all(|(phase, _)| phase == "writing"));
    assert_eq!(last, &("idle".to_string(), written.last().unwrap().1));
}

#[wasm_bindgen_test]
async fn local_model_loads_with_progress_and_streams_text() {
    let (model, progress) = load_fake().await;
    let phases: Vec<(String, u64, Option<u64>)> = progress
        .into_iter()
        .map(|p| (p.phase, p.loaded, p.total))
        .collect();
    assert_eq!(
        phases,
        vec![
            ("download".into(), 50, Some(100)),
            ("download".into(), 100, Some(100)),
            ("init".into(), 100, Some(100)),
        ]
    );
    assert_eq!(
        global("__fakeModelUrl").as_string().as_deref(),
        Some("models/tiny-model.gguf")
    );
    let run = call(&model, &request(false)).await;
    let expected = ModelReply {
        text: "Hi there.".into(),
        tool_calls: vec![],
        finish: FinishReason::EndTurn,
        usage: Usage {
            input_tokens: 21,
            output_tokens: 7,
            ..Usage::default()
        },
        model: "tiny-model".into(),
        reasoning: String::new(),
    };
    assert_eq!(run.result, Ok(expected));
    assert_eq!(
        run.deltas,
        vec![
            StreamDelta::Text("Hi ".into()),
            StreamDelta::Text("there.".into())
        ]
    );
    model.unload().await.unwrap();
    assert_eq!(global("__fakeUnloaded"), JsValue::TRUE);
}

#[wasm_bindgen_test]
async fn local_model_maps_constrained_output_to_a_tool_call_with_the_grammar_in_order() {
    let (model, _) = load_fake().await;
    let run = call(&model, &request(true)).await;
    let reply = run.result.unwrap();
    assert_eq!(reply.finish, FinishReason::ToolUse);
    let calls: Vec<(String, String)> = reply
        .tool_calls
        .iter()
        .map(
            |ToolCall {
                 name, arguments, ..
             }| (name.clone(), arguments.clone()),
        )
        .collect();
    assert_eq!(
        calls,
        vec![("read_file".into(), r#"{"path":"notes.txt"}"#.into())]
    );
    assert!(reply.tool_calls[0].id.starts_with("local_"));
    // Raw constrained JSON is previewed as thinking, not as visible text, and the preview is
    // the whole reply: the start the request wrote for the model, then what it generated.
    assert!(run
        .deltas
        .iter()
        .all(|d| matches!(d, StreamDelta::Thinking(_))));
    let previewed: String = run
        .deltas
        .iter()
        .filter_map(|d| {
            if let StreamDelta::Thinking(text) = d {
                Some(text.as_str())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(
        previewed,
        r#"{"tool":"read_file","arguments":{"path":"notes.txt"}}"#
    );
    let sent = global("__fakeRequest").as_string().unwrap();
    let sent: serde_json::Value = serde_json::from_str(&sent).unwrap();
    let grammar = sent["grammar"].as_str().unwrap_or_default();
    assert!(
        grammar.contains(r#""read_file\",\"arguments\":""#),
        "the grammar must name the tool before its arguments: {grammar}"
    );
    let messages = sent["messages"].as_array().unwrap();
    assert_eq!(
        messages.last().unwrap(),
        &serde_json::json!({ "role": "assistant", "content": "{\"tool\":\"" }),
        "the model's turn is started for it, and the reply is that start plus what it wrote"
    );
    assert!(sent.get("response_format").is_none(), "{sent}");
}

#[wasm_bindgen_test]
async fn a_repeat_of_the_last_successful_call_comes_back_as_the_model_wrote_it() {
    // The fake writes read_file(notes.txt) whenever it is given a grammar, as SmolLM2-135M does
    // after that call succeeded. Whether that ends the run is the core's decision
    // (`core::repeat_success`, on for the local model): the client reports what was written.
    let (model, _) = load_fake().await;
    let mut req = request(true);
    req.messages.make_mut().extend([
        Message::Assistant {
            text: String::new(),
            tool_calls: vec![ToolCall {
                id: "c1".into(),
                name: "read_file".into(),
                arguments: r#"{"path":"notes.txt"}"#.into(),
            }],
        },
        Message::Tool {
            call_id: "c1".into(),
            name: "read_file".into(),
            content: "buy milk".into(),
            is_error: false,
        },
    ]);
    let reply = call(&model, &req).await.result.unwrap();
    assert_eq!(reply.finish, FinishReason::ToolUse);
    assert_eq!(reply.tool_calls.len(), 1, "{reply:?}");
    assert_eq!(reply.tool_calls[0].name, "read_file");
    let args: serde_json::Value = serde_json::from_str(&reply.tool_calls[0].arguments).unwrap();
    assert_eq!(args["path"], "notes.txt");
}

#[wasm_bindgen_test]
async fn local_model_reports_the_token_limit() {
    let (model, _) = load_fake().await;
    let mut req = request(false);
    req.messages = vec![Message::User {
        text: "long".into(),
    }]
    .into();
    let reply = call(&model, &req).await.result.unwrap();
    assert_eq!(reply.finish, FinishReason::MaxTokens);
}

#[wasm_bindgen_test]
async fn dropping_a_local_call_aborts_the_generation() {
    let (model, _) = load_fake().await;
    let mut req = request(false);
    req.messages = vec![Message::User {
        text: "slow".into(),
    }]
    .into();
    let mut deltas = Vec::new();
    let mut on_delta = |delta| deltas.push(delta);
    let future = Box::pin(model.complete(&req, &mut on_delta));
    let dropped_at = match select(future, sleep(200)).await {
        Either::Left((result, _)) => panic!("the slow generation ended early: {result:?}"),
        Either::Right(((), future)) => {
            let at = now_ms();
            drop(future);
            at
        }
    };
    sleep(100).await;
    let event = global("__fakeAbortEventAt")
        .as_f64()
        .map(|t| (t as u64).saturating_sub(dropped_at));
    let stopped = global("__fakeStoppedAt")
        .as_f64()
        .map(|t| (t as u64).saturating_sub(dropped_at));
    web_sys::console::log_1(
        &format!("local abort latency: signal {event:?} ms, generation stopped {stopped:?} ms")
            .into(),
    );
    assert!(!deltas.is_empty());
    assert!(event.is_some_and(|ms| ms < 50), "{event:?}");
    assert!(stopped.is_some_and(|ms| ms < 100), "{stopped:?}");
}

#[wasm_bindgen_test]
async fn a_module_without_the_model_api_is_a_local_model_error() {
    let options = LocalLoadOptions {
        module_url: Some(fake_module_url("export const nothing = 1;")),
        model_url: None,
    };
    let error = LocalModel::load(&options, |_| {}).await.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::LocalModel);
    let missing = LocalLoadOptions {
        module_url: Some("/no/such/module.js".into()),
        model_url: None,
    };
    let error = LocalModel::load(&missing, |_| {}).await.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::LocalModel);
}

#[wasm_bindgen_test]
async fn a_local_model_that_goes_silent_is_stopped_by_its_liveness_limits() {
    use tabloop::web::Timeouts;
    let (model, _) = load_fake().await;
    model.set_timeouts(Timeouts {
        first_byte_ms: 150,
        idle_ms: 150,
    });
    for (prompt, expected) in [
        ("silent", ModelErrorKind::FirstByteTimeout),
        ("stall", ModelErrorKind::IdleTimeout),
    ] {
        let mut req = request(false);
        req.messages = vec![Message::User {
            text: prompt.into(),
        }]
        .into();
        let started = now_ms();
        let error = model.complete(&req, &mut |_| {}).await.unwrap_err();
        assert_eq!(error.kind, expected, "{prompt}");
        assert!(
            now_ms() - started < 2_000,
            "{prompt} took {} ms",
            now_ms() - started
        );
        sleep(20).await;
        assert_eq!(
            global("__fakeStalledAbort"),
            JsValue::TRUE,
            "{prompt}: the generation was aborted"
        );
    }
}

/// A model whose chat template has Qwen's tool calls (`chatTemplate`, as the engine's model
/// gives it): it thinks, then calls `read_file` in its own format, streamed in pieces that cut
/// the tags.
const QWEN_MODULE: &str = r#"
export async function loadLocalModel() {
  return {
    chatTemplate: "{%- if tools %}{{- '<|im_start|>system\\n' }}…<tool_call>…<|im_end|>",
    async complete(request, { onDelta }) {
      globalThis.__qwenRequest = JSON.stringify(request);
      const pieces = ['<thi', 'nk>\nThe notes, then.\n</think>\n\n<tool', '_call>\n{"name": "read_file", ',
        '"arguments": {"path": "notes.txt"}}\n</tool_call>'];
      pieces.forEach((piece) => onDelta(piece));
      return { text: pieces.join(''), finish: 'stop', usage: { input_tokens: 40, output_tokens: 30 } };
    },
    async unload() {},
  };
}
"#;

#[wasm_bindgen_test]
async fn a_model_with_qwens_template_is_asked_in_its_own_format_and_its_call_and_thinking_come_apart(
) {
    let options = LocalLoadOptions {
        module_url: Some(fake_module_url(QWEN_MODULE)),
        model_url: Some("models/qwen3.gguf".into()),
    };
    let model = LocalModel::load(&options, |_| {}).await.unwrap();
    let run = call(&model, &request(true)).await;
    let reply = run.result.unwrap();
    assert_eq!(reply.finish, FinishReason::ToolUse);
    assert_eq!(reply.text, "");
    assert_eq!(reply.reasoning, "The notes, then.");
    assert_eq!(
        reply
            .tool_calls
            .iter()
            .map(|c| (c.name.as_str(), c.arguments.as_str()))
            .collect::<Vec<_>>(),
        vec![("read_file", r#"{"path":"notes.txt"}"#)]
    );
    // nothing of the thinking or the call shows as the answer; no tag shows at all
    assert_eq!(crate::support::delta_text(&run.deltas), "");
    assert!(run.deltas.iter().all(|d| match d {
        StreamDelta::Text(t) | StreamDelta::Thinking(t) => !t.contains('<'),
        StreamDelta::ToolCallStarted { .. } => true,
    }));
    let sent: serde_json::Value =
        serde_json::from_str(&global("__qwenRequest").as_string().unwrap()).unwrap();
    let messages = sent["messages"].as_array().unwrap();
    let system = messages[0]["content"].as_str().unwrap();
    assert!(
        system.contains("<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"read_file\""),
        "{system}"
    );
    // the model's turn is the template's own: no start written for it
    assert_ne!(messages.last().unwrap()["role"], "assistant");
    let grammar = sent["grammar"].as_str().unwrap();
    assert!(grammar.contains(r#""<tool_call>\n""#), "{grammar}");
    // the bridge's last progress report ("idle") comes after the call: keep the model's
    // progress callback alive until it has
    sleep(20).await;
}
