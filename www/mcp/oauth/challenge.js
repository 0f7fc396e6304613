// Owns reading a Bearer challenge from a `WWW-Authenticate` header (RFC 6750 §3, RFC 9728 §5.1):
// `resource_metadata`, `scope`, `error`, `error_description`. The header may hold several
// challenges (`Basic realm="x", Bearer scope="a b"`); only the Bearer one is read. Pure.

/**
 * The Bearer challenge's parameters, lower-cased names, unquoted values; {} when there is none.
 * @param {string|null} header
 * @returns {{resource_metadata?: string, scope?: string, error?: string, error_description?: string}}
 */
export function bearerChallenge(header) {
  if (!header) return {};
  const text = String(header);
  const start = text.search(/(^|[\s,])Bearer(\s|$)/i);
  if (start === -1) return {};
  let rest = text.slice(start).replace(/^[\s,]*Bearer\s*/i, '');
  const params = {};
  const pair = /^\s*([A-Za-z0-9_-]+)\s*=\s*("((?:[^"\\]|\\.)*)"|[^\s,]*)\s*(,|$)/;
  for (;;) {
    const match = rest.match(pair);
    if (!match) break;
    const value = match[3] !== undefined ? match[3].replace(/\\(.)/g, '$1') : match[2];
    params[match[1].toLowerCase()] = value;
    rest = rest.slice(match[0].length);
    // The next scheme of a multi-challenge header ends this one.
    if (/^\s*[A-Za-z0-9_-]+\s+[A-Za-z0-9_-]+\s*=/.test(rest) || /^\s*[A-Za-z0-9_-]+\s*$/.test(rest)) break;
  }
  return params;
}

/** The space-separated scopes of a challenge or token answer, as a list. */
export function scopeList(scope) {
  return typeof scope === 'string' ? scope.split(/\s+/).filter(Boolean) : [];
}
