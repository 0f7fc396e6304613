// Paths: the traversal corpus and seeded fuzz (separators, encodings, controls, Unicode
// look-alikes, depth) against the VFS resolver in Node, then through the real vfs tool in
// Chromium: every file written by session A must land in A's volume and nowhere else.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../e2e/support/server.mjs';
import { launchBrowser } from '../e2e/support/browser.mjs';
import { PATH_REJECT, PATH_ACCEPT, fuzzStrings, pathViolations } from '../e2e/support/path_corpus.mjs';
import { resolvePath } from '../../www/tools/vfs.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function pathsDrill({ figures, fuzz, browserFuzz }) {
  // Node: the resolver alone.
  const seed = 0x13d7;
  const inputs = [...PATH_REJECT, ...PATH_ACCEPT.map(([p]) => p), ...fuzzStrings(seed, fuzz)];
  let accepted = 0;
  let wrongRefusals = 0;
  const violations = [];
  for (const input of inputs) {
    let segments;
    try {
      segments = resolvePath(input);
    } catch (error) {
      if (error.name !== 'PathError') wrongRefusals += 1;
      continue;
    }
    accepted += 1;
    violations.push(...pathViolations(input, segments));
  }
  const escapes = violations.filter((v) => v.includes('escapes')).length;
  figures.add('paths', 'inputs (traversal corpus + fuzz)', inputs.length, { min: fuzz }, `seed ${seed}, ${accepted} accepted`);
  figures.add('paths', 'escapes of the volume root (resolver)', escapes, { eq: 0 });
  figures.add('paths', 'accepted paths breaking an invariant (dot segment, separator, control, encoding, NFC)', violations.length - escapes, { eq: 0 }, violations.slice(0, 3).join(' | '));
  figures.add('paths', 'refusals that were not a PathError', wrongRefusals, { eq: 0 });

  // Browser: write through the vfs tool as session A, then look at every volume.
  const server = await serveStatic(ROOT, { isolated: false });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}/tests/e2e/pages/tools-harness.html`);
    await page.waitForFunction(() => window.toolsReady === true);
    const tried = [...PATH_REJECT.filter((x) => typeof x === 'string'), ...fuzzStrings(seed + 1, browserFuzz)];
    const out = await page.evaluate(async (paths) => {
      const reg = T.registry.createRegistry();
      reg.registerTool(T.vfs.vfsTool({ dbName: 'vfs-drill' }));
      const call = (args, session) => reg.callTool('vfs', args, { session, callId: 'c', signal: new AbortController().signal });
      await call({ op: 'write', path: '/guard.txt', content: 'B' }, 'B');
      await call({ op: 'write', path: '/guard.txt', content: 'shared', volume: 'shared' }, 'B');
      let written = 0;
      for (const p of paths) {
        const r = await call({ op: 'write', path: p, content: 'A' }, 'A');
        if (r.ok) written += 1;
      }
      const db = await new Promise((ok) => {
        const r = indexedDB.open('vfs-drill');
        r.onsuccess = () => ok(r.result);
      });
      const rows = await new Promise((ok) => {
        const q = db.transaction(db.objectStoreNames[0]).objectStore(db.objectStoreNames[0]).getAll();
        q.onsuccess = () => ok(q.result.map((r) => ({ volume: r.volume, path: r.path, content: r.content })));
      });
      const guardB = await call({ op: 'read', path: '/guard.txt' }, 'B');
      const guardShared = await call({ op: 'read', path: '/guard.txt', volume: 'shared' }, 'B');
      return { written, rows, guards: [guardB.value?.text ?? '', guardShared.value?.text ?? ''] };
    }, tried);
    const outside = out.rows.filter((r) => r.content === 'A' && r.volume !== 'session:A');
    const overwritten = out.guards.filter((t) => !/\b(B|shared)\b/.test(t)).length;
    const inA = out.rows.filter((r) => r.content === 'A' && r.volume === 'session:A').length;
    figures.add('paths', 'paths tried through the vfs tool in Chromium', tried.length, null, `${out.written} writes accepted, ${inA} files stored in A's volume`);
    figures.add('paths', 'files of session A outside its volume', outside.length, { eq: 0 }, outside.slice(0, 3).map((r) => `${r.volume}:${r.path}`).join(' | '));
    figures.add('paths', 'other volumes changed', overwritten, { eq: 0 });
  } finally {
    await browser.close();
    await server.close();
  }
}
