// Owns showing what changed in an MCP tool's definition since a person accepted it: both
// definitions as indented JSON with sorted keys, compared line by line (longest common
// subsequence), printed as a unified-style list of "- " removed and "+ " added lines with a
// line of context around each change. Pure.

/** JSON with sorted keys at every level, indented, so equal definitions print the same. */
export function prettyCanonical(value) {
  const sort = (v) => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).filter((k) => v[k] !== undefined).sort().map((k) => [k, sort(v[k])]));
    return v;
  };
  return JSON.stringify(sort(value ?? null), null, 2);
}

/** The edit script from lines `a` to lines `b`: `[{op: ' '|'-'|'+', line}]`. */
function editScript(a, b) {
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const script = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      script.push({ op: ' ', line: a[i++] });
      j++;
    } else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) script.push({ op: '-', line: a[i++] });
    else script.push({ op: '+', line: b[j++] });
  }
  return script;
}

/**
 * The changed lines between two definitions with `context` lines around each change; "" when
 * they are the same. Long definitions are compared at most 2,000 lines a side.
 */
export function definitionDiff(before, after, context = 1) {
  const a = prettyCanonical(before).split('\n').slice(0, 2000);
  const b = prettyCanonical(after).split('\n').slice(0, 2000);
  const script = editScript(a, b);
  const keep = new Array(script.length).fill(false);
  script.forEach((step, k) => {
    if (step.op === ' ') return;
    for (let d = Math.max(0, k - context); d <= Math.min(script.length - 1, k + context); d++) keep[d] = true;
  });
  const out = [];
  let skipped = false;
  script.forEach((step, k) => {
    if (!keep[k]) {
      skipped = true;
      return;
    }
    if (skipped && out.length > 0) out.push('  …');
    skipped = false;
    out.push(`${step.op} ${step.line}`);
  });
  return out.join('\n');
}
