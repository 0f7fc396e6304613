//! The `connectMcp` export: connects to an MCP server over Streamable HTTP and registers its
//! tools in the page's tool registry. The client itself is JavaScript (`www/mcp/`), reached
//! through `www/mcp_bridge.js`; this file only forwards the call.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/www/mcp_bridge.js")]
extern "C" {
    #[wasm_bindgen(js_name = mcpConnect, catch)]
    fn mcp_connect(options: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

/// Connects to an MCP server: `{ name, url, headers?, permission?, permissions?, timeoutMs? }`.
/// Resolves to the connection (`tools()`, `refresh()`, `accept()`, `onToolsChanged()`,
/// `close()`); its tools are registered as `mcp__<name>__<tool>`.
#[wasm_bindgen(js_name = connectMcp)]
pub async fn connect_mcp(options: JsValue) -> Result<JsValue, JsValue> {
    JsFuture::from(mcp_connect(&options)?).await
}
