// The path corpus shared by the tools tests and the path drill: inputs a volume must refuse,
// inputs it must accept (with their segments), a seeded fuzz generator over separators,
// encodings, controls, Unicode look-alikes and depth, and the invariants an accepted path keeps.
import path from 'node:path';
import { resolvePath, isWithin } from '../../../www/tools/vfs.js';

export const PATH_REJECT = [
  '../etc/passwd', '..', '../', 'a/../../b', 'a/..', '/..', '/../x', './a', 'a/./b', '.', '...', '....//x',
  '..../x', 'a/..../b', '..%2fx', '..%2Fx', '%2e%2e/x', '%2E%2E%2Fx', 'a%2fb', '%2e', 'a%00b', '%5c', '%252e%252e',
  '..\\x', 'a\\b', '\\\\server\\share', 'C:\\x', 'a\u0000b', '\u0000', 'a\nb', 'a\rb', 'a\tb', '\u001b[31m', 'a\u007fb',
  'a\u0085b', '\u202eevil', 'a\u2028b', '\ufeffa', ' a', 'a /b', 'x/ ', '\ud800', 'a\udc00b', 'a\uffff',
  'x'.repeat(300), `${'a/'.repeat(70)}a`, 'x'.repeat(5000), 12, null, undefined, {}, ['a'],
];
export const PATH_ACCEPT = [
  ['/a/b', ['a', 'b']], ['a/b', ['a', 'b']], ['//a///b//', ['a', 'b']], ['/', []], ['', []], ['/ws', ['ws']],
  ['/ws_evil', ['ws_evil']], ['.hidden', ['.hidden']], ['a..b', ['a..b']], ['..a', ['..a']], ['100%.txt', ['100%.txt']],
  ['C:/x', ['C:', 'x']], ['notes/My File.md', ['notes', 'My File.md']], ['caf\u00e9', ['caf\u00e9']],
  ['cafe\u0301', ['caf\u00e9']], ['\u212b', ['\u00c5']], ['😀/x', ['😀', 'x']],
];
export const FUZZ_TOKENS = ['.', '..', '/', '//', '\\', '%', '%2f', '%2e', '%2F', '%5c', '%00', '%25', 'a', 'b', 'ws', 'ws_evil',
  '\u0000', '\u0001', '\u001f', '\u007f', '\u0085', ' ', '\t', '\n', 'e\u0301', 'é', '\u212b', '\u202e', '\ud800', '\udc00',
  '😀', '~', ':', 'C:', '*', '?', '\uffff', '\u2028', '..%2f', '....//', '/..', '%252e', 'x.txt', '-', '_',
  // Look-alikes of '/', '\\' and '.', overlong and %u encodings.
  '\uff0f', '\u2215', '\u2044', '\uff3c', '\u29f5', '\uff0e', '\u2024', '\u3002', '%c0%af', '%c0%ae', '%u002e', '%u2215', '\u0338'];

/** Deterministic PRNG so a failing fuzz case can be replayed from its seed. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function fuzzStrings(seed, count) {
  const rand = mulberry32(seed);
  const out = [];
  for (let i = 0; i < count; i += 1) {
    let s = rand() < 0.5 ? '/' : '';
    const n = 1 + Math.floor(rand() * 12);
    for (let k = 0; k < n; k += 1) s += FUZZ_TOKENS[Math.floor(rand() * FUZZ_TOKENS.length)];
    out.push(s);
  }
  return out;
}

/** Returns a list of invariant violations for one accepted path (empty when fine). */
export function pathViolations(input, segments) {
  const problems = [];
  if (!Array.isArray(segments)) return ['not an array'];
  for (const seg of segments) {
    if (typeof seg !== 'string' || seg === '') problems.push('empty segment');
    else {
      if (/^\.+$/.test(seg)) problems.push(`dot segment ${seg}`);
      if (/[/\\]/.test(seg)) problems.push('separator inside segment');
      if (/[\u0000-\u001f\u007f-\u009f]/.test(seg)) problems.push('control character');
      if (/%[0-9a-f]{2}/i.test(seg)) problems.push('percent escape');
      if (seg !== seg.normalize('NFC')) problems.push('not NFC');
      if (seg.trim() !== seg) problems.push('edge whitespace');
    }
  }
  const again = resolvePath(`/${segments.join('/')}`);
  if (JSON.stringify(again) !== JSON.stringify(segments)) problems.push('not idempotent');
  // Independent escape check with POSIX semantics: the jail is /ws.
  const resolved = path.posix.resolve('/ws', ...segments);
  if (resolved !== '/ws' && !resolved.startsWith('/ws/')) problems.push(`escapes to ${resolved}`);
  if (!isWithin(['ws'], ['ws', ...segments])) problems.push('isWithin false');
  if (problems.length) problems.unshift(JSON.stringify(input));
  return problems;
}
