// Owns the sign-in's requests to authorization servers: a fetch with a deadline whose failure,
// when the browser refused the answer (CORS), says which header the server must send, as the
// MCP transport's failures do. Authorization servers are often set up for native clients only.

import { OAuthError } from './discovery_error.js';
import { diagnoseFetchFailure } from '../cors.js';

const TIMEOUT_MS = 30_000;

/**
 * `fetch(url, init)` within 30 s (or `signal`); a failure to get any answer is an OAuthError
 * naming what the server lacks (`what` says which endpoint it is).
 */
export async function oauthFetch(url, init, what, signal) {
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  try {
    return await fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  } catch (error) {
    if (signal?.aborted) throw error;
    const diagnosis = await diagnoseFetchFailure(url, init?.headers ?? {}).catch(() => null);
    throw new OAuthError(diagnosis ? `${what}: ${diagnosis}` : `${what} (${url}) is unreachable`);
  }
}
