//! What a local model reports after the Rust side let go: the bridge (`www/local_bridge.js`)
//! must drop it, not call a callback wasm-bindgen has already dropped (which throws, uncaught).

use pretty_assertions::assert_eq;
use tabloop::ports::ModelClient;
use tabloop::protocol::{Message, ModelErrorKind};
use tabloop::web::timer::sleep;
use tabloop::web::Timeouts;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::wasm_bindgen_test;

use crate::local::{global, load_fake};
use crate::support::{call, request};

// Test-only JS that counts the calls of Rust callbacks that were already dropped (wasm-bindgen
// throws them, uncaught, where the caller is a timer).
#[wasm_bindgen(inline_js = r#"
let dropped = 0;
let counting = false;
export function droppedCallbackCalls() {
  if (!counting) {
    counting = true;
    addEventListener('error', (e) => { if (/closure invoked/.test(String(e.message))) dropped += 1; });
  }
  return dropped;
}
"#)]
extern "C" {
    /// Calls of dropped callbacks seen so far (counting starts on the first call).
    #[wasm_bindgen(js_name = droppedCallbackCalls)]
    fn dropped_callback_calls() -> u32;
}

/// What a model reports after the Rust side let go reaches no callback that is gone: a
/// finished completion's idle report, a task later, once the model itself was dropped, and a
/// piece written after the liveness limit stopped the call.
#[wasm_bindgen_test]
async fn a_model_reporting_after_its_call_or_itself_is_gone_calls_no_dropped_callback() {
    let before = dropped_callback_calls();
    let (model, _) = load_fake().await;
    call(&model, &request(false)).await.result.unwrap();
    drop(model);
    sleep(50).await;
    assert_eq!(dropped_callback_calls() - before, 0, "the idle report");

    let (model, _) = load_fake().await;
    model.set_timeouts(Timeouts {
        first_byte_ms: 100,
        idle_ms: 100,
    });
    let mut req = request(false);
    req.messages = vec![Message::User {
        text: "late".into(),
    }]
    .into();
    let error = model.complete(&req, &mut |_| {}).await.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::FirstByteTimeout);
    sleep(50).await;
    assert_eq!(
        global("__fakeLateDelta"),
        JsValue::TRUE,
        "the fake wrote late"
    );
    assert_eq!(dropped_callback_calls() - before, 0, "the late piece");
}
