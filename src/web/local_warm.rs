//! Warming the in-tab model on page load, when its file is already in browser storage: load it
//! and read the prompt prefix every new session starts with (the tool prompt and the default
//! system text), so the runtime's KV cache holds it before the first task is typed. The first
//! step then reads only the task itself. Nothing is downloaded here, and a failure only means
//! the first step does the work instead.

use wasm_bindgen_futures::JsFuture;

use super::local_bridge::bridge_is_cached;
use super::local_shared::{broadcast_ready, local_model};
use super::tool_host::registered_tools;
use crate::ports::ModelClient;
use crate::providers::local_prompt::warm_up_request;
use crate::runtime::options::AgentOptions;

/// Loads the model at `url` (the default when `None`) if it is cached, and reads the default
/// prompt prefix. Returns whether it warmed.
pub async fn warm_cached_model(url: Option<String>) -> bool {
    let cached = match bridge_is_cached("", url.as_deref().unwrap_or("")) {
        Ok(promise) => JsFuture::from(promise)
            .await
            .map(|v| v.as_bool() == Some(true))
            .unwrap_or(false),
        Err(_) => false,
    };
    if !cached {
        return false;
    }
    let Ok(registered) = registered_tools().await else {
        return false;
    };
    let options = AgentOptions::default();
    let Ok(config) = options.to_config(&registered) else {
        return false;
    };
    let tools = config.tools.iter().map(|decl| decl.spec.clone()).collect();
    let request = warm_up_request(config.system.clone(), tools);
    let Ok(model) = local_model(url).await else {
        return false;
    };
    match model.complete(&request, &mut |_| {}).await {
        Ok(reply) => {
            broadcast_ready(reply.usage.input_tokens + reply.usage.cached_input_tokens);
            true
        }
        Err(_) => false,
    }
}
