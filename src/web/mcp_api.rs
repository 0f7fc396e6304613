//! The MCP exports: `connectMcp` connects to an MCP server over Streamable HTTP and registers its
//! tools in the page's tool registry; `mcpSignIns` and `revokeMcpSignIn` list and revoke the
//! OAuth sign-ins the client keeps (in its own browser storage, never in a session's log). The
//! client itself is JavaScript (`www/mcp/`), reached through `www/mcp_bridge.js`; this file only
//! forwards the calls.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/www/mcp_bridge.js")]
extern "C" {
    #[wasm_bindgen(js_name = mcpConnect, catch)]
    fn mcp_connect(options: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(js_name = mcpSignIns, catch)]
    fn mcp_sign_ins() -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(js_name = mcpRevokeSignIn, catch)]
    fn mcp_revoke_sign_in(server_url: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

/// Connects to an MCP server: `{ name, url, headers?, permission?, permissions?, timeoutMs?,
/// protocol?, oauth?, elicitation?, sampling?, roots? }`. Resolves to the connection (tools,
/// resources, prompts, completion, logging, pending requests, events, `close()`); its tools are
/// registered as `mcp__<name>__<tool>`.
#[wasm_bindgen(js_name = connectMcp)]
pub async fn connect_mcp(options: JsValue) -> Result<JsValue, JsValue> {
    JsFuture::from(mcp_connect(&options)?).await
}

/// The MCP sign-ins kept in this browser: `[{ serverUrl, issuer, scopes, expiresAt, obtained,
/// refreshable }]`, never a token.
#[wasm_bindgen(js_name = mcpSignIns)]
pub async fn mcp_sign_ins_export() -> Result<JsValue, JsValue> {
    JsFuture::from(mcp_sign_ins()?).await
}

/// Forgets the sign-in to `serverUrl` (every one when omitted) and asks its authorization server
/// to revoke the tokens where it can: `[{ serverUrl, revokedAtServer }]`.
#[wasm_bindgen(js_name = revokeMcpSignIn)]
pub async fn revoke_mcp_sign_in(server_url: JsValue) -> Result<JsValue, JsValue> {
    JsFuture::from(mcp_revoke_sign_in(&server_url)?).await
}
