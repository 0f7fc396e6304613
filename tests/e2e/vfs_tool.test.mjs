// The vfs tool in real headless Chromium over IndexedDB: the path corpus and fuzz agree with the
// Node resolver, volumes cannot reach each other or escape their root, quotas roll back.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { resolvePath } from '../../www/tools/vfs.js';
import { PATH_REJECT, PATH_ACCEPT, fuzzStrings, pathViolations } from './support/path_corpus.mjs';
import { report, useToolsHarness } from './support/tools_harness.mjs';

const h = useToolsHarness();

describe('vfs in IndexedDB (chromium)', () => {
  let page;
  before(async () => {
    page = await h.openHarness(h.servers.plain);
    await page.evaluate(() => {
      const reg = T.registry.createRegistry();
      reg.registerTool(T.vfs.vfsTool({ dbName: 'vfs-e2e' }));
      const small = T.registry.createRegistry();
      small.registerTool(T.vfs.vfsTool({ dbName: 'vfs-e2e-quota', quotaBytes: 1000 }));
      const ctx = (session) => ({ session, callId: 'c', signal: new AbortController().signal });
      window.vfs = (args, session = 's1') => reg.callTool('vfs', args, ctx(session));
      window.vfsSmall = (args, session = 's1') => small.callTool('vfs', args, ctx(session));
    });
  });
  after(() => page.close());
  const call = (args, session) => page.evaluate(([a, s]) => window.vfs(a, s), [args, session]);

  test('path corpus and fuzz in the browser agree with the invariants', async () => {
    const inputs = [...PATH_REJECT.filter((x) => typeof x === 'string'), ...PATH_ACCEPT.map(([p]) => p), ...fuzzStrings(99, 2000)];
    const results = await page.evaluate((list) => list.map((p) => {
      try {
        return { ok: T.vfs.resolvePath(p) };
      } catch (error) {
        return { err: error.name };
      }
    }), inputs);
    let violations = 0;
    results.forEach((r, i) => {
      if (r.ok) {
        const v = pathViolations(inputs[i], r.ok);
        violations += v.length;
        assert.deepEqual(v, []);
        assert.deepEqual(r.ok, resolvePath(inputs[i]), 'browser and node resolve identically');
      } else {
        assert.equal(r.err, 'PathError');
        assert.throws(() => resolvePath(inputs[i]));
      }
    });
    report({ test: 'D10-browser', cases: inputs.length, accepted: results.filter((r) => r.ok).length, invariant_violations: violations });
  });

  test('traversal attempts through the tool are refused and never touch storage', async () => {
    await call({ op: 'write', path: '/ws/a.txt', content: 'inside' });
    await call({ op: 'write', path: '/ws_evil/secret.txt', content: 'sibling' });
    for (const p of ['../ws_evil/secret.txt', '/ws/../ws_evil/secret.txt', '/ws/..%2fws_evil/secret.txt', '/ws/%2e%2e/ws_evil/secret.txt', '/ws/....//ws_evil', 'ws\\..\\ws_evil\\secret.txt', '/ws/a.txt\u0000.png']) {
      const r = await call({ op: 'read', path: p });
      assert.equal(r.ok, false, p);
      assert.match(r.error, /invalid path/, p);
    }
    const list = await call({ op: 'list', path: '/ws' });
    assert.deepEqual(list.value.entries, [{ name: 'a.txt', type: 'file', size: 6 }]);
    const glob = await call({ op: 'glob', path: '/ws', pattern: '**' });
    assert.deepEqual(glob.value.matches, ['/ws/a.txt']);
    const grep = await call({ op: 'grep', path: '/ws', pattern: 'sibling' });
    assert.equal(grep.value.total_matches, 0);
    const del = await call({ op: 'delete', path: '/ws', recursive: true });
    assert.equal(del.value.files, 1);
    const survivor = await call({ op: 'read', path: '/ws_evil/secret.txt' });
    assert.match(survivor.value.text, /sibling/);
  });

  test('browsing (files, content) goes through the same checks: no traversal, one volume each', async () => {
    await call({ op: 'write', path: '/br/a.txt', content: 'mine' }, 'browse-1');
    await call({ op: 'write', path: '/br/b.txt', content: 'theirs' }, 'browse-2');
    const out = await page.evaluate(async () => {
      const fs = T.vfs.createVfs({ dbName: 'vfs-e2e' });
      const attempt = async (body) => {
        try {
          return { ok: await body() };
        } catch (error) {
          return { code: error.code, error: error.message };
        }
      };
      const ctx = { session: 'browse-1' };
      const traversal = [];
      for (const path of ['../browse-2/br/b.txt', '/br/../../b.txt', '/br/%2e%2e/b.txt', 'br\\..\\b.txt', '/br/a.txt\u0000']) {
        traversal.push(await attempt(() => fs.content({ path, volume: 'session' }, ctx)));
      }
      return {
        files: await fs.files({ volume: 'session' }, ctx),
        content: await fs.content({ path: '/br/a.txt', volume: 'session' }, ctx),
        other: await attempt(() => fs.content({ path: '/br/b.txt', volume: 'session' }, ctx)),
        traversal,
        noSession: await attempt(() => fs.files({ volume: 'session' }, {})),
        badVolume: await attempt(() => fs.files({ volume: '../shared' }, ctx)),
      };
    });
    assert.deepEqual(out.files.map((f) => [f.path, f.size]), [['/br/a.txt', 4]]);
    assert.equal(out.content, 'mine');
    assert.equal(out.other.code, 'not_found', "another session's file is not in this volume");
    for (const r of out.traversal) assert.equal(r.code, 'bad_path', JSON.stringify(r));
    assert.equal(out.noSession.code, 'bad_context');
    assert.equal(out.badVolume.code, 'bad_args');
  });

  test('NFC/NFD names are one file, case variants are two, sessions are separate volumes', async () => {
    await call({ op: 'write', path: '/caf\u00e9.txt', content: 'nfc' });
    const nfd = await call({ op: 'read', path: '/cafe\u0301.txt' });
    assert.match(nfd.value.text, /nfc/);
    await call({ op: 'write', path: '/Case.txt', content: 'upper' });
    assert.equal((await call({ op: 'read', path: '/case.txt' })).ok, false);
    assert.equal((await call({ op: 'read', path: '/Case.txt' }, 's2')).ok, false, 'another session cannot see it');
    await call({ op: 'write', path: '/both.txt', content: 'shared!', volume: 'shared' });
    assert.match((await call({ op: 'read', path: '/both.txt', volume: 'shared' }, 's2')).value.text, /shared!/);
    assert.equal((await call({ op: 'read', path: '/both.txt' }, 's2')).ok, false);
    const noSession = await call({ op: 'list' }, '');
    assert.match(noSession.error, /no valid session id/);
  });

  test('read returns a numbered window with a continuation note', async () => {
    const content = Array.from({ length: 500 }, (_, i) => `line ${i + 1}`).join('\n');
    const w = await call({ op: 'write', path: '/big.txt', content });
    assert.equal(w.value.lines, 500);
    assert.equal(w.value.created, true);
    const first = await call({ op: 'read', path: '/big.txt' });
    assert.equal(first.value.start_line, 1);
    assert.equal(first.value.end_line, 200);
    assert.equal(first.value.total_lines, 500);
    assert.match(first.value.text, /^ {3}1\tline 1\n/);
    assert.match(first.value.note, /300 more lines; call read with offset=201/);
    const mid = await call({ op: 'read', path: '/big.txt', offset: 201, limit: 3 });
    assert.equal(mid.value.text, ' 201\tline 201\n 202\tline 202\n 203\tline 203\n');
    const tail = await call({ op: 'read', path: '/big.txt', offset: 451 });
    assert.equal(tail.value.end_line, 500);
    assert.equal(tail.value.note, undefined);
    assert.match((await call({ op: 'read', path: '/big.txt', offset: 501 })).error, /past the end/);
    assert.match((await call({ op: 'read', path: '/missing.txt' })).error, /not found/);
  });

  test('edit fails on 0 and on several matches with counts, and replace_all works', async () => {
    await call({ op: 'write', path: '/e.txt', content: 'foo bar foo baz foo $&' });
    const none = await call({ op: 'edit', path: '/e.txt', old_string: 'qux', new_string: 'x' });
    assert.equal(none.ok, false);
    assert.match(none.error, /0 matches/);
    const many = await call({ op: 'edit', path: '/e.txt', old_string: 'foo', new_string: 'x' });
    assert.match(many.error, /matches 3 times/);
    assert.match((await call({ op: 'read', path: '/e.txt' })).value.text, /foo bar foo baz foo/, 'failed edits change nothing');
    const one = await call({ op: 'edit', path: '/e.txt', old_string: 'bar', new_string: '$&$1' });
    assert.equal(one.value.replacements, 1);
    const all = await call({ op: 'edit', path: '/e.txt', old_string: 'foo', new_string: 'F', replace_all: true });
    assert.equal(all.value.replacements, 3);
    assert.match((await call({ op: 'read', path: '/e.txt' })).value.text, /\tF \$&\$1 F baz F \$&\n/);
  });

  test('grep caps at 50 with a note; glob, list, move, delete and stat', async () => {
    await call({ op: 'write', path: '/g/a.md', content: Array.from({ length: 120 }, (_, i) => `needle ${i}`).join('\n') });
    await call({ op: 'write', path: '/g/sub/b.md', content: 'Needle here\nnone' });
    await call({ op: 'write', path: '/g/sub/c.txt', content: 'needle txt' });
    const grep = await call({ op: 'grep', path: '/g', pattern: 'needle' });
    assert.equal(grep.value.matches.length, 50);
    assert.equal(grep.value.total_matches, 121);
    assert.match(grep.value.note, /71 more matches/);
    const ci = await call({ op: 'grep', path: '/g/sub', pattern: '^needle', regex: true, ignore_case: true, include: '*.md' });
    assert.deepEqual(ci.value.matches, [{ path: '/g/sub/b.md', line: 1, text: 'Needle here' }]);
    assert.match((await call({ op: 'grep', pattern: '(', regex: true })).error, /invalid regular expression/);
    assert.deepEqual((await call({ op: 'glob', pattern: '**/*.md' })).value.matches, ['/g/a.md', '/g/sub/b.md']);
    assert.deepEqual((await call({ op: 'glob', pattern: 'g/sub/?.txt' })).value.matches, ['/g/sub/c.txt']);
    assert.deepEqual((await call({ op: 'list', path: '/g' })).value.entries.map((e) => e.name), ['a.md', 'sub/']);
    assert.match((await call({ op: 'list', path: '/g/a.md' })).error, /is a file/);
    // A miss names the closest directory that exists and what it holds.
    assert.equal((await call({ op: 'list', path: '/g/nope/deeper' })).error, 'VfsError: no such directory: /g/nope/deeper; /g holds a.md, sub/');
    assert.equal((await call({ op: 'read', path: '/g/sub/a.md' })).error, 'VfsError: not found: /g/sub/a.md; /g/sub holds b.md, c.txt');
    assert.match((await call({ op: 'list', path: 'vfs' })).error, /^VfsError: no such directory: \/vfs; \/ holds (.+, )?g\//);
    assert.match((await call({ op: 'move', path: '/g/sub/b.md', to: '/g/a.md' })).error, /destination exists/);
    assert.equal((await call({ op: 'move', path: '/g/sub/b.md', to: '/g/moved.md' })).value.files, 1);
    assert.equal((await call({ op: 'move', path: '/g/sub', to: '/h/sub2' })).value.files, 1);
    assert.match((await call({ op: 'move', path: '/g', to: '/g/inner' })).error, /into itself/);
    assert.deepEqual((await call({ op: 'glob', pattern: '**' })).value.matches.filter((p) => p.startsWith('/g') || p.startsWith('/h')), ['/g/a.md', '/g/moved.md', '/h/sub2/c.txt']);
    const stat = await call({ op: 'stat', path: '/g/a.md' });
    assert.equal(stat.value.type, 'file');
    assert.equal(stat.value.lines, 120);
    assert.ok(stat.value.size > 1000);
    assert.ok(Date.parse(stat.value.mtime) > Date.now() - 60000);
    assert.equal((await call({ op: 'stat', path: '/g' })).value.files, 2);
    assert.match((await call({ op: 'delete', path: '/g' })).error, /recursive: true/);
    assert.equal((await call({ op: 'delete', path: '/g/a.md' })).value.files, 1);
    assert.match((await call({ op: 'stat', path: '/g/a.md' })).error, /not found/);
    assert.match((await call({ op: 'write', path: '/g/moved.md/child', content: 'x' })).error, /is a file/);
    assert.match((await call({ op: 'nope' })).error, /'op' must be one of/);
    assert.match((await call({ op: 'write', path: '/x', content: 5 })).error, /must be a string/);
  });

  test('per-volume quota: a clear error and nothing already written is lost', async () => {
    const small = (args) => page.evaluate((a) => window.vfsSmall(a), args);
    assert.equal((await small({ op: 'write', path: '/a', content: 'a'.repeat(600) })).ok, true);
    const over = await small({ op: 'write', path: '/b', content: 'b'.repeat(600) });
    assert.equal(over.ok, false);
    assert.equal(over.code, 'quota_exceeded');
    assert.match(over.error, /quota exceeded: volume 'session:s1' would hold 1200 bytes, over its quota of 1000 bytes/);
    assert.equal((await small({ op: 'read', path: '/a' })).value.text.length, '   1\t'.length + 600 + 1);
    assert.equal((await small({ op: 'stat', path: '/b' })).ok, false);
    assert.equal((await small({ op: 'write', path: '/a', content: 'c'.repeat(900) })).ok, true, 'replacing frees the old size first');
    assert.equal((await small({ op: 'edit', path: '/a', old_string: 'c', new_string: 'dd', replace_all: true })).code, 'quota_exceeded');
    assert.equal((await small({ op: 'delete', path: '/a' })).ok, true);
    assert.equal((await small({ op: 'read', path: '/a' })).error, 'VfsError: not found: /a; / exists and is empty');
    assert.equal((await small({ op: 'write', path: '/b', content: 'b'.repeat(600) })).ok, true, 'deleting frees quota');
    assert.equal((await small({ op: 'write', path: '/b', content: 'é'.repeat(501) })).code, 'quota_exceeded', 'quota counts UTF-8 bytes');
  });

  test("the browser's QuotaExceededError is reported clearly and rolls back", async () => {
    const qpage = await h.openHarness(h.servers.plain);
    try {
      const cdp = await qpage.context().newCDPSession(qpage);
      await cdp.send('Storage.overrideQuotaForOrigin', { origin: h.servers.plain.url, quotaSize: 1024 * 1024 });
      const out = await qpage.evaluate(async () => {
        const reg = T.registry.createRegistry();
        reg.registerTool(T.vfs.vfsTool({ dbName: 'vfs-browser-quota' }));
        const ctx = { session: 'q', callId: 'c', signal: new AbortController().signal };
        const first = await reg.callTool('vfs', { op: 'write', path: '/keep.txt', content: 'keep me' }, ctx);
        const big = await reg.callTool('vfs', { op: 'write', path: '/big.bin', content: 'z'.repeat(4 * 1024 * 1024) }, ctx);
        const kept = await reg.callTool('vfs', { op: 'read', path: '/keep.txt' }, ctx);
        const gone = await reg.callTool('vfs', { op: 'stat', path: '/big.bin' }, ctx);
        const root = await reg.callTool('vfs', { op: 'stat', path: '/' }, ctx);
        return { first, big, kept, gone, root };
      });
      assert.equal(out.first.ok, true);
      assert.equal(out.big.ok, false);
      assert.equal(out.big.code, 'browser_quota_exceeded');
      assert.match(out.big.error, /QuotaExceededError/);
      assert.match(out.kept.value.text, /keep me/);
      assert.equal(out.gone.ok, false);
      assert.equal(out.root.value.size, 7, 'usage accounting was rolled back with the write');
      report({ test: 'B3-vfs', browser_quota_error_reported: true, partial_writes: 0 });
    } finally {
      await qpage.close();
    }
  });
});
