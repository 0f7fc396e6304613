// Owns path parsing for the virtual filesystem: turns untrusted path text into a checked segment
// array (or a glob pattern's segments) so nothing can name a location outside a volume's root.
// Paths are compared and stored as segment arrays joined by '/', never as prefixes of raw text.

/** Longest accepted path text, in UTF-16 code units. */
export const MAX_PATH_LENGTH = 4096;
/** Longest accepted single segment. */
export const MAX_SEGMENT_LENGTH = 255;
/** Deepest accepted path. */
export const MAX_DEPTH = 64;

// C0 and C1 controls, DEL, bidi embeddings/overrides/isolates, line/paragraph separators and the
// noncharacters U+FFFE/U+FFFF (U+FFFF is also the end marker used for IndexedDB key ranges).
const FORBIDDEN_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ufffe\uffff]/u;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const PERCENT_ESCAPE = /%[0-9a-f]{2}/i;
const DOTS_ONLY = /^\.+$/;

/** Error thrown for a path the filesystem refuses. */
export class PathError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'PathError';
  }
}

function describe(input) {
  const shown = JSON.stringify(String(input).slice(0, 80));
  return String(input).length > 80 ? `${shown}…` : shown;
}

/**
 * Parses a volume-relative path into checked segments. A leading '/' means the volume root (there
 * is no working directory, so 'a/b' and '/a/b' are the same file); repeated or trailing '/' are
 * collapsed. Paths are case-sensitive and normalised to Unicode NFC.
 * Rejected: non-strings, over-long paths, NUL and control or bidi characters, lone surrogates,
 * backslashes, any percent escape such as '%2f' or '%2e%2e' (escapes are never decoded), segments
 * made only of dots ('.', '..', '....'), and segments with leading or trailing whitespace.
 * @param {unknown} input
 * @returns {string[]} segments; `[]` is the root
 * @throws {PathError}
 */
export function resolvePath(input) {
  if (typeof input !== 'string') throw new PathError('path must be a string');
  if (input.length > MAX_PATH_LENGTH) throw new PathError(`path is longer than ${MAX_PATH_LENGTH} characters`);
  if (LONE_SURROGATE.test(input)) throw new PathError(`path ${describe(input)} is not well-formed Unicode`);
  const text = input.normalize('NFC');
  if (FORBIDDEN_CHARS.test(text)) throw new PathError(`path ${describe(input)} contains a control or invisible formatting character`);
  if (text.includes('\\')) throw new PathError(`path ${describe(input)} contains a backslash; use '/' as the separator`);
  if (PERCENT_ESCAPE.test(text)) throw new PathError(`path ${describe(input)} contains a percent escape; escapes are not decoded, write the character itself`);
  const segments = text.split('/').filter((segment) => segment !== '');
  if (segments.length > MAX_DEPTH) throw new PathError(`path is deeper than ${MAX_DEPTH} segments`);
  for (const segment of segments) {
    if (DOTS_ONLY.test(segment)) throw new PathError(`path ${describe(input)} contains a '${segment}' segment; '.' and '..' are not supported, give the full path from the root`);
    if (segment.trim() !== segment) throw new PathError(`path ${describe(input)} has a segment with leading or trailing whitespace`);
    if (segment.length > MAX_SEGMENT_LENGTH) throw new PathError(`path has a segment longer than ${MAX_SEGMENT_LENGTH} characters`);
  }
  return segments;
}

/**
 * Joins checked segments into the storage key form ('a/b/c'; '' is the root).
 * @param {string[]} segments
 * @returns {string}
 */
export function joinSegments(segments) {
  return segments.join('/');
}

/**
 * Formats checked segments for display to the model ('/a/b/c'; '/' is the root).
 * @param {string[]} segments
 * @returns {string}
 */
export function displayPath(segments) {
  return `/${segments.join('/')}`;
}

/**
 * True when `inner` equals `outer` or lies below it, compared segment by segment.
 * @param {string[]} outer
 * @param {string[]} inner
 * @returns {boolean}
 */
export function isWithin(outer, inner) {
  return inner.length >= outer.length && outer.every((segment, i) => inner[i] === segment);
}

// Wildcard match of one segment ('*' any run, '?' one code point) without regular expressions,
// using the classic last-star backtrack so hostile patterns stay O(pattern × name).
function segmentMatcher(pattern) {
  const pat = Array.from(pattern);
  if (!pat.some((ch) => ch === '*' || ch === '?')) return (name) => name === pattern;
  return (name) => {
    const str = Array.from(name);
    let p = 0;
    let s = 0;
    let star = -1;
    let mark = 0;
    while (s < str.length) {
      if (p < pat.length && (pat[p] === '?' || pat[p] === str[s])) {
        p += 1;
        s += 1;
      } else if (p < pat.length && pat[p] === '*') {
        star = p;
        mark = s;
        p += 1;
      } else if (star !== -1) {
        p = star + 1;
        mark += 1;
        s = mark;
      } else {
        return false;
      }
    }
    while (p < pat.length && pat[p] === '*') p += 1;
    return p === pat.length;
  };
}

/**
 * Compiles a glob ('*' within a segment, '?' one character, '**' any number of whole segments)
 * into a matcher over segment arrays. The pattern passes the same checks as a path.
 * @param {string} pattern
 * @returns {(segments: string[]) => boolean}
 * @throws {PathError}
 */
export function compileGlob(pattern) {
  const parts = resolvePath(pattern).map((part) => (part === '**' ? null : segmentMatcher(part)));
  if (parts.length === 0) throw new PathError('glob pattern is empty');
  return (segments) => {
    // reachable[si] says whether parts[0..pi) can consume segments[0..si); one pass per part.
    let reachable = new Array(segments.length + 1).fill(false);
    reachable[0] = true;
    for (const part of parts) {
      const next = new Array(segments.length + 1).fill(false);
      for (let si = 0; si <= segments.length; si += 1) {
        if (!reachable[si]) continue;
        if (part === null) {
          for (let k = si; k <= segments.length; k += 1) next[k] = true;
          break;
        }
        if (si < segments.length && part(segments[si])) next[si + 1] = true;
      }
      reachable = next;
    }
    return reachable[segments.length];
  };
}
