//! The Rust side of `www/local_bridge.js`, the only JS module the local-model client binds to.
//! The bridge loads the real model module at run time, so changes there do not reach this file.

use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

#[wasm_bindgen(module = "/www/local_bridge.js")]
extern "C" {
    /// `bridgeLoad(moduleUrl, modelUrl, onProgress, signal)`: imports the model module (`""`
    /// for the default) and starts a model (`""` for the module's default GGUF); resolves to
    /// an opaque handle.
    #[wasm_bindgen(catch, js_name = bridgeLoad)]
    pub fn bridge_load(
        module_url: &str,
        model_url: &str,
        on_progress: &js_sys::Function,
        signal: &AbortSignal,
    ) -> Result<js_sys::Promise, JsValue>;

    /// `bridgeComplete(model, request, onDelta, signal)`: runs one completion; resolves to
    /// `{text, finish: 'stop'|'length'|'abort', input_tokens, output_tokens}`.
    #[wasm_bindgen(catch, js_name = bridgeComplete)]
    pub fn bridge_complete(
        model: &JsValue,
        request: &JsValue,
        on_delta: &js_sys::Function,
        signal: &AbortSignal,
    ) -> Result<js_sys::Promise, JsValue>;

    /// `bridgeIsCached(moduleUrl, modelUrl)`: resolves to whether the GGUF is already in
    /// browser storage.
    #[wasm_bindgen(catch, js_name = bridgeIsCached)]
    pub fn bridge_is_cached(module_url: &str, model_url: &str) -> Result<js_sys::Promise, JsValue>;

    /// `bridgeChatTemplate(model)`: the model's chat template (its GGUF's Jinja text), or
    /// `null` when the runtime does not say.
    #[wasm_bindgen(catch, js_name = bridgeChatTemplate)]
    pub fn bridge_chat_template(model: &JsValue) -> Result<JsValue, JsValue>;

    /// `bridgeForget(model)`: the model's later reports reach nobody (the progress callback
    /// goes away with the Rust model).
    #[wasm_bindgen(js_name = bridgeForget)]
    pub fn bridge_forget(model: &JsValue);

    /// `bridgeUnload(model)`: stops the model and frees its memory.
    #[wasm_bindgen(catch, js_name = bridgeUnload)]
    pub fn bridge_unload(model: &JsValue) -> Result<js_sys::Promise, JsValue>;
}
