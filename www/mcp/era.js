// Owns telling which era of MCP a server speaks, as a dual-era client over Streamable HTTP does
// (2026-07-28, "Backward Compatibility"): a modern request (`server/discover` with per-request
// `_meta` and the modern headers) first; a DiscoverResult naming a modern version we speak
// means modern; a recognised modern error (UnsupportedProtocolVersion, MissingRequiredClient-
// Capability, HeaderMismatch) means modern with another version or fix; anything else (an
// HTTP error without one, a JSON-RPC "method not found", a result that is no DiscoverResult, a
// preflight the browser refused for the modern headers) means legacy: `initialize`. The answer
// is kept per server URL (in memory and localStorage), as the spec suggests, so the probe is
// not repeated on every connection; a remembered era that fails is probed again.

/** Modern protocol versions this client speaks, newest first. */
export const MODERN_VERSIONS = ['2026-07-28'];
/** Legacy (initialize-based) protocol versions this client speaks, newest first. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];

const MODERN_ERRORS = new Set([-32022, -32021, -32020]);
const STORAGE_PREFIX = 'tabloop-mcp-era:';
const remembered = new Map();

/** The era last seen for `url`, if any. */
function recall(url) {
  if (remembered.has(url)) return remembered.get(url);
  try {
    const value = globalThis.localStorage?.getItem(STORAGE_PREFIX + url);
    return value === 'modern' || value === 'legacy' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the era `url` spoke. */
export function rememberEra(url, era) {
  remembered.set(url, era);
  try {
    globalThis.localStorage?.setItem(STORAGE_PREFIX + url, era);
  } catch {
    // Storage may be off; the probe is only repeated.
  }
}

/** Forgets what `url` spoke (it failed to connect as remembered). */
export function forgetEra(url) {
  remembered.delete(url);
  try {
    globalThis.localStorage?.removeItem(STORAGE_PREFIX + url);
  } catch {
    // Nothing was kept.
  }
}

/**
 * Probes with `server/discover` in `version`. Resolves the discover result when the server is
 * modern, `{retryWith}` when it is modern but wants another version, or null when legacy.
 */
async function discover(connection, version) {
  connection.transport.era = 'modern';
  connection.transport.protocolVersion = version;
  try {
    const result = await connection.request('server/discover', {}, { diagnose: false });
    const versions = Array.isArray(result?.supportedVersions) ? result.supportedVersions : [];
    if (versions.includes(version)) return { result };
    const other = MODERN_VERSIONS.find((v) => versions.includes(v));
    return other ? { retryWith: other } : null;
  } catch (error) {
    const rpc = error?.rpcError;
    if (rpc && MODERN_ERRORS.has(rpc.code)) {
      const supported = Array.isArray(rpc.data?.supported) ? rpc.data.supported : [];
      // The version to send again may be the one just refused: the list is the server's word.
      const other = MODERN_VERSIONS.find((v) => supported.includes(v));
      if (other) return { retryWith: other };
      if (rpc.code === -32022) return null;
      throw error;
    }
    // A person cancelled, or the sign-in failed: no point trying the other era. A fetch that
    // failed outright may be a preflight refusing the modern headers: the legacy attempt
    // follows, and reports (and diagnoses) a server that is really down.
    if (error?.name === 'AbortError' || error?.timedOut || error?.status === 401 || error?.status === 403 || error?.authFailed) throw error;
    return null;
  }
}

/**
 * The era to speak with the connection's server: 'modern' (the connection has adopted the
 * discover result) or 'legacy' (the caller initialises). `connection.protocol` may force one.
 */
export async function chooseEra(connection) {
  if (connection.protocol === 'legacy') return 'legacy';
  if (connection.protocol !== 'modern' && recall(connection.url) === 'legacy') return 'legacy';
  let version = MODERN_VERSIONS[0];
  for (let tries = 0; tries < MODERN_VERSIONS.length + 1; tries++) {
    const found = await discover(connection, version);
    if (found?.result) {
      connection.adoptDiscovery(version, found.result);
      return 'modern';
    }
    if (!found?.retryWith) break;
    version = found.retryWith;
  }
  if (connection.protocol === 'modern') throw new Error('the MCP server does not speak protocol 2026-07-28');
  connection.transport.era = 'legacy';
  connection.transport.protocolVersion = undefined;
  return 'legacy';
}
