// Owns telling why the browser refused an MCP request. A fetch the browser blocks for CORS
// fails exactly like an unreachable server (a TypeError, no status), so after a failure this
// probes the server with small requests: a simple CORS GET tells whether the server answers
// this origin at all (if not, a no-cors request tells a server that sends no
// Access-Control-Allow-Origin from one that is down, except on a cross-origin isolated page,
// where no-cors answers are blocked too and the two cannot be told apart); then one GET per
// request header the client sent tells which header the preflight refused. The answer names the
// header the server must send, e.g. "… must list mcp-protocol-version in
// Access-Control-Allow-Headers".

/** Request headers that never need a preflight (the CORS-safelisted ones we send). */
const SAFELISTED = new Set(['accept', 'accept-language', 'content-language']);
const PROBE_TIMEOUT_MS = 5000;

async function probe(url, init) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), PROBE_TIMEOUT_MS);
  try {
    const response = await fetch(url, { ...init, signal: controller.signal, cache: 'no-store' });
    // Only the headers matter; a GET on an MCP endpoint may open a stream.
    response.body?.cancel().catch(() => {});
    return { ok: true, response };
  } catch (error) {
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Why a fetch of `url` with `headers` failed, as a sentence naming what the server must send,
 * or null when the server cannot be reached at all (or the page cannot tell).
 * @param {string} url
 * @param {Record<string, string>} headers the request's headers
 * @returns {Promise<string|null>}
 */
export async function diagnoseFetchFailure(url, headers) {
  if (typeof location === 'undefined') return null;
  const target = new URL(url);
  if (target.origin === location.origin) return null;
  const origin = location.origin;
  const prefix = `the browser refused the MCP server's answer for this page (CORS): ${target.origin}`;
  const simple = await probe(url, { method: 'GET' });
  if (!simple.ok) {
    const opaque = await probe(url, { method: 'GET', mode: 'no-cors' });
    const allowOrigin = `"Access-Control-Allow-Origin: ${origin}" (or "*") on its answers, its preflight (OPTIONS) answers included`;
    if (opaque.ok) return `${prefix} must send ${allowOrigin}`;
    if (globalThis.crossOriginIsolated) return `the MCP server at ${target.origin} is unreachable, or it does not send ${allowOrigin} (this cross-origin isolated page cannot tell which)`;
    return null;
  }
  const refused = [];
  for (const name of Object.keys(headers).map((h) => h.toLowerCase())) {
    if (SAFELISTED.has(name)) continue;
    const value = name === 'content-type' ? 'application/json' : 'x';
    const tried = await probe(url, { method: 'GET', headers: { [name]: value } });
    if (!tried.ok) refused.push(name);
  }
  if (refused.length > 0) {
    return `${prefix} must list ${refused.join(', ')} in "Access-Control-Allow-Headers" on its preflight (OPTIONS) answers`;
  }
  const post = await probe(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  if (!post.ok) return `${prefix} must allow POST in "Access-Control-Allow-Methods" on its preflight (OPTIONS) answers`;
  return null;
}

/**
 * What a response hides from this page: the names in `wanted` the server sent but did not
 * expose. A browser shows a cross-origin page only the headers listed in
 * Access-Control-Expose-Headers (and a few safe ones), so a missing one reads as absent.
 * @returns {string} a sentence naming the header to expose
 */
export function exposeHint(url, header) {
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    // Keep the text as given.
  }
  return `${origin} must list ${header} in "Access-Control-Expose-Headers" so a web page can read it`;
}
