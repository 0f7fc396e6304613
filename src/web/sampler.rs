//! The session's model as an MCP sampler: a JS function handed to each tool call as
//! `ctx.sample` (www/host_bridge.js), which the MCP client calls when a server's sampling request
//! belongs to that call, after a person approved it (www/mcp/server_requests.js). It takes the
//! request's parameters and resolves the sampling result, both plain objects read and written
//! by serde-wasm-bindgen; the model
//! call itself is [`crate::runtime::sampling`]'s request on the session's [`AnyModel`].

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::any_model::AnyModel;
use super::js_value::{from_js, to_js};
use crate::ports::ModelClient;
use crate::runtime::sampling::{sampling_request, sampling_result, SamplingParams};

/// A session's model, shared with the function its tool calls get.
pub struct Sampler {
    model: Rc<AnyModel>,
    name: String,
}

impl Sampler {
    /// Samples from `model`, named `name` in results when the provider names none.
    pub fn new(model: Rc<AnyModel>, name: String) -> Self {
        Self { model, name }
    }

    /// A JS function `(params) => Promise<result>` for one tool call; drop it when the call
    /// ends (calling it after that throws).
    pub fn function(&self) -> Closure<dyn FnMut(JsValue) -> js_sys::Promise> {
        let model = self.model.clone();
        let name = self.name.clone();
        Closure::new(move |params: JsValue| {
            let model = model.clone();
            let name = name.clone();
            wasm_bindgen_futures::future_to_promise(async move {
                let params: SamplingParams = from_js(&params)
                    .map_err(|e| JsValue::from_str(&format!("invalid sampling request: {e}")))?;
                let request =
                    sampling_request(&params).map_err(|e| JsValue::from_str(&e.to_string()))?;
                let reply = model
                    .complete(&request, &mut |_| {})
                    .await
                    .map_err(|e| JsValue::from_str(&format!("the model failed: {e}")))?;
                Ok(to_js(&sampling_result(&reply, &name)))
            })
        })
    }
}
