// Owns the outbound-URL policy of the fetch tool: scheme and userinfo checks, classification of
// loopback/private/link-local/reserved addresses in every IPv4 and IPv6 spelling, and host
// allow-list matching. Pure functions: no network, usable by the runtime before asking the user.

const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'lan', 'home.arpa', 'localdomain', 'intranet'];
// Public DNS names that are documented to resolve to 127.0.0.1.
const LOOPBACK_NAMES = ['localtest.me', 'lvh.me'];

// [first address, prefix length, label] for IPv4 ranges that must not be reached by default.
const V4_BLOCKS = [
  ['0.0.0.0', 8, 'unspecified/"this network"'],
  ['10.0.0.0', 8, 'private (10/8)'],
  ['100.64.0.0', 10, 'carrier-grade NAT (100.64/10)'],
  ['127.0.0.0', 8, 'loopback (127/8)'],
  ['169.254.0.0', 16, 'link-local (169.254/16, cloud metadata)'],
  ['172.16.0.0', 12, 'private (172.16/12)'],
  ['192.0.0.0', 24, 'IETF protocol assignments (192.0.0/24)'],
  ['192.0.2.0', 24, 'documentation (192.0.2/24)'],
  ['192.168.0.0', 16, 'private (192.168/16)'],
  ['198.18.0.0', 15, 'benchmarking (198.18/15)'],
  ['198.51.100.0', 24, 'documentation (198.51.100/24)'],
  ['203.0.113.0', 24, 'documentation (203.0.113/24)'],
  ['224.0.0.0', 4, 'multicast (224/4)'],
  ['240.0.0.0', 4, 'reserved (240/4, broadcast)'],
].map(([base, bits, label]) => [parseIPv4(base), bits, label]);

/**
 * Parses an IPv4 host the way the WHATWG URL parser does: one to four dot-separated parts, each
 * decimal, octal (leading 0) or hex (0x); the last part fills the remaining bytes.
 * @param {string} host
 * @returns {number|null} the address as an unsigned 32-bit number, or null if not IPv4
 */
export function parseIPv4(host) {
  let parts = host.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts = parts.slice(0, -1);
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers = [];
  for (const part of parts) {
    let n;
    if (/^0x[0-9a-f]*$/i.test(part)) n = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) n = parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) n = Number(part);
    else return null;
    if (!Number.isFinite(n)) return null;
    numbers.push(n);
  }
  const last = numbers.pop();
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return null;
  let value = last;
  numbers.forEach((n, i) => {
    value += n * 256 ** (3 - i);
  });
  return value;
}

/**
 * Parses an IPv6 address (without brackets), including '::' and a dotted IPv4 tail.
 * @param {string} host
 * @returns {number[]|null} eight 16-bit groups, or null
 */
export function parseIPv6(host) {
  let text = host.toLowerCase();
  if (text.includes('%')) return null; // zone ids are never accepted
  const groups = [];
  const v4 = text.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  let tail = [];
  if (v4) {
    if (!/^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(v4[2])) return null;
    const n = v4[2].split('.').map(Number);
    tail = [n[0] * 256 + n[1], n[2] * 256 + n[3]];
    text = v4[1].endsWith('::') ? v4[1] : v4[1].slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (s) => (s === '' ? [] : s.split(':').map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  if ([...head, ...rest].some(Number.isNaN)) return null;
  const known = head.length + rest.length + tail.length;
  if (halves.length === 2) {
    if (known > 7) return null;
    groups.push(...head, ...new Array(8 - known).fill(0), ...rest, ...tail);
  } else {
    if (known !== 8) return null;
    groups.push(...head, ...tail);
  }
  return groups;
}

function classifyV4(value) {
  for (const [base, bits, label] of V4_BLOCKS) {
    const size = 2 ** (32 - bits);
    if (value >= base && value < base + size) return label;
  }
  if (value === 0xffffffff) return 'broadcast';
  return null;
}

function v4From(high, low) {
  return high * 65536 + low;
}

function classifyV6(g) {
  const zeroUntil = (n) => g.slice(0, n).every((x) => x === 0);
  if (zeroUntil(8)) return 'unspecified (::)';
  if (zeroUntil(7) && g[7] === 1) return 'loopback (::1)';
  if (zeroUntil(5) && g[5] === 0xffff) return prefixed('IPv4-mapped', classifyV4(v4From(g[6], g[7])));
  if (zeroUntil(6)) return prefixed('IPv4-compatible', classifyV4(v4From(g[6], g[7])) ?? 'deprecated form');
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return prefixed('NAT64', classifyV4(v4From(g[6], g[7])));
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'local-use NAT64 (64:ff9b:1::/48)';
  if (g[0] === 0x2002) return prefixed('6to4', classifyV4(v4From(g[1], g[2])));
  if (g[0] === 0x2001 && g[1] === 0) return 'Teredo (2001::/32)';
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 'documentation (2001:db8::/32)';
  if (g[0] === 0x100 && g.slice(1, 4).every((x) => x === 0)) return 'discard (100::/64)';
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique local (fc00::/7)';
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local (fe80::/10)';
  if ((g[0] & 0xffc0) === 0xfec0) return 'site-local (fec0::/10)';
  if ((g[0] & 0xff00) === 0xff00) return 'multicast (ff00::/8)';
  return null;
}

function prefixed(kind, inner) {
  return inner ? `${kind} ${inner}` : null;
}

function stripDot(host) {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/**
 * Says why a host must not be reached without an explicit allow-list entry, or null for an
 * ordinary public host. Accepts hostnames as `URL.hostname` gives them ('[::1]' bracketed).
 * @param {string} hostname
 * @returns {string|null}
 */
export function privateHostReason(hostname) {
  const host = stripDot(hostname.toLowerCase());
  if (host === '') return 'empty host';
  if (host.startsWith('[') && host.endsWith(']')) {
    const groups = parseIPv6(host.slice(1, -1));
    return groups ? classifyV6(groups) : 'unparseable IPv6 address';
  }
  if (host.includes(':')) {
    const groups = parseIPv6(host);
    return groups ? classifyV6(groups) : 'unparseable address';
  }
  const v4 = parseIPv4(host);
  if (v4 !== null) return classifyV4(v4);
  if (/^[0-9.]+$/.test(host) || /^0x/i.test(host.split('.').pop())) return 'malformed numeric address';
  const labels = host.split('.');
  if (labels.length === 1) return `single-label name '${host}' (resolves on the local network)`;
  for (const suffix of LOCAL_SUFFIXES) {
    if (host === suffix || host.endsWith(`.${suffix}`)) return `local-network name (.${suffix})`;
  }
  for (const name of LOOPBACK_NAMES) {
    if (host === name || host.endsWith(`.${name}`)) return `name that resolves to loopback (${name})`;
  }
  // Wildcard-DNS services (nip.io, sslip.io …) map names embedding an address to that address.
  for (const match of host.matchAll(/(?:^|[.-])(\d{1,3})[.-](\d{1,3})[.-](\d{1,3})[.-](\d{1,3})(?=$|[.-])/g)) {
    const quad = match.slice(1, 5).map(Number);
    if (quad.every((n) => n <= 255)) {
      const inner = classifyV4(((quad[0] * 256 + quad[1]) * 256 + quad[2]) * 256 + quad[3]);
      if (inner) return `name embedding a ${inner} address`;
    }
  }
  return null;
}

function parseEntry(raw) {
  if (typeof raw !== 'string') return null;
  let text = raw.trim().toLowerCase();
  if (text === '') return null;
  let wildcard = false;
  let port = null;
  let host;
  try {
    if (text.includes('://')) {
      const u = new URL(text);
      host = u.hostname;
      port = u.port || null;
    } else {
      if (text.startsWith('*.')) {
        wildcard = true;
        text = text.slice(2);
      }
      const m = text.match(/^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/);
      if (!m) return null;
      port = m[2] ?? null;
      host = new URL(`http://${m[1]}/`).hostname;
    }
  } catch {
    return null;
  }
  return { host: stripDot(host), port, wildcard };
}

function effectivePort(url) {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

function matchesEntry(entry, host, url, isPrivate) {
  if (entry.port !== null && entry.port !== effectivePort(url)) return false;
  if (entry.wildcard) return !isPrivate && host.endsWith(`.${entry.host}`);
  return host === entry.host;
}

/**
 * Decides whether the fetch tool may request `url` under `policy`.
 * - Only http: and https:; no `user:pass@` userinfo; the host is taken from the parsed URL, so
 *   `http://allowed@evil/` is judged as `evil` (and refused for its userinfo anyway).
 * - Loopback, private, link-local, reserved and local-network hosts (in any IP spelling) are
 *   refused unless an exact (non-wildcard) allow-list entry names them; approval cannot unlock
 *   them (`needsApproval: false`).
 * - Other hosts are allowed when on the allow-list; otherwise `needsApproval: true`.
 * Allow-list entries: 'example.com', '*.example.com' (subdomains only), 'host:port',
 * '127.0.0.1:8080', '[::1]:3000', or a URL whose host and port are used.
 * DNS is invisible to a page, so a public name that resolves to a private address (DNS
 * rebinding) cannot be detected here; the allow-list is the real control.
 * @param {string} url
 * @param {{allowHosts?: string[]}} [policy]
 * @returns {{allowed: true, url: string, host: string} | {allowed: false, reason: string, needsApproval: boolean, host?: string}}
 */
export function checkUrl(url, policy = {}) {
  if (typeof url !== 'string' || url.length === 0) return { allowed: false, reason: 'url must be a non-empty string', needsApproval: false };
  if (url.length > 8192) return { allowed: false, reason: 'url is longer than 8192 characters', needsApproval: false };
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return { allowed: false, reason: `not a valid absolute URL: ${JSON.stringify(url.slice(0, 200))}`, needsApproval: false };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { allowed: false, reason: `scheme ${parsed.protocol} is not allowed; only http and https`, needsApproval: false };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { allowed: false, reason: 'URLs with credentials (user@host) are not allowed', needsApproval: false };
  }
  const host = stripDot(parsed.hostname.toLowerCase());
  const privateReason = privateHostReason(host);
  const entries = (Array.isArray(policy?.allowHosts) ? policy.allowHosts : []).map(parseEntry).filter(Boolean);
  const listed = entries.some((entry) => matchesEntry(entry, host, parsed, privateReason !== null));
  if (privateReason !== null) {
    if (listed) return { allowed: true, url: parsed.href, host };
    return {
      allowed: false,
      reason: `host ${host} is a ${privateReason} address; such hosts are refused unless the user adds it to the allow-list`,
      needsApproval: false,
      host,
    };
  }
  if (listed) return { allowed: true, url: parsed.href, host };
  return { allowed: false, reason: `host ${host} is not on the allow-list; the user must approve it`, needsApproval: true, host };
}
