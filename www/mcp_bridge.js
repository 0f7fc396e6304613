// The bridge between the Rust `connectMcp` export and the MCP client (www/mcp/client.js). Like
// the tool bridge it is copied alone into wasm-bindgen's snippets folder, so it loads both the
// client and the tool registry by URL (from `globalThis.TABLOOP_BASE`, else relative to the
// page), or from `globalThis.TABLOOP_MODULES` when a bundled package provides them; the
// registry is then the same module instance the tool bridge uses.

function load(path) {
  const provided = globalThis.TABLOOP_MODULES?.[path];
  if (provided) return provided();
  const base = globalThis.TABLOOP_BASE ?? document.baseURI;
  return import(new URL(path, base).href);
}

/** Connects to an MCP server and registers its tools; resolves to the connection. */
export async function mcpConnect(options) {
  const [client, registry] = await Promise.all([load('www/mcp/client.js'), load('www/tools/registry.js')]);
  return client.connectMcp(options, registry);
}

/** The MCP sign-ins kept in this browser, without their tokens. */
export async function mcpSignIns() {
  const client = await load('www/mcp/client.js');
  return client.listTokens();
}

/** Forgets (and revokes at the server) the sign-in to `serverUrl`, or every one when undefined. */
export async function mcpRevokeSignIn(serverUrl) {
  const client = await load('www/mcp/client.js');
  return client.revokeTokens(serverUrl ?? undefined);
}
