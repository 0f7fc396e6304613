// Owns the end-to-end tests of the built-in JavaScript tools (www/tools/, www/sandbox/): path
// resolver corpus and fuzz, URL policy (SSRF) corpus and registry semantics in Node, then the
// VFS, eval sandbox and http_fetch tools in real headless Chromium, with and without COOP/COEP.
// Figures named by the research anchors (D1, D3, D4, D5, D9, D10) are printed as JSON lines.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { serveStatic } from './support/server.mjs';
import { launchBrowser } from './support/browser.mjs';
import { resolvePath, isWithin, compileGlob } from '../../www/tools/vfs.js';
import { checkUrl } from '../../www/tools/http_fetch.js';
import { createRegistry, builtinTools, validateSpec } from '../../www/tools/registry.js';
import { PATH_REJECT, PATH_ACCEPT, fuzzStrings, pathViolations } from './support/path_corpus.mjs';
import { probeCode, startCanary, watchRendererPeak } from './support/sandbox_probes.mjs';

const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const HARNESS = '/tests/e2e/pages/tools-harness.html';
const SANDBOX_HTML = path.join(ROOT, 'www/sandbox/sandbox.html');

/** Prints one figure line for the test log. */
function report(figures) {
  console.log(JSON.stringify({ suite: 'tools', ...figures }));
}

// ---------------------------------------------------------------------------------------------
// Hostile inputs shared by the Node and browser runs.

const ALLOWED = ['allowed.example', '*.allowed.example'];
const SSRF_REFUSE = [
  'http://127.0.0.1/', 'http://127.1/', 'http://127.0.0.1:8080/', 'http://127.255.255.254/', 'http://localhost/',
  'http://LOCALHOST./', 'http://foo.localhost/', 'http://[::1]/', 'http://[0:0:0:0:0:0:0:1]/', 'http://[::]/',
  'http://0.0.0.0/', 'http://0.0.0.0:80/', 'http://0/', 'http://10.0.0.1/', 'http://10.255.255.255/', 'http://172.16.0.1/',
  'http://172.31.255.255/', 'http://192.168.1.1/', 'http://169.254.169.254/latest/meta-data/', 'http://169.254.0.1/',
  'http://100.64.0.1/', 'http://224.0.0.1/', 'http://255.255.255.255/', 'http://[fc00::1]/', 'http://[fd12:3456::1]/',
  'http://[fe80::1]/', 'http://[febf::1]/', 'http://[ff02::1]/', 'http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/',
  'http://[::ffff:169.254.169.254]/', 'http://[::ffff:10.0.0.1]/', 'http://[::ffff:192.168.0.1]/', 'http://[::127.0.0.1]/',
  'http://[64:ff9b::7f00:1]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[2002:7f00:1::]/', 'http://[2002:a9fe:a9fe::1]/',
  'http://2130706433/', 'http://0x7f000001/', 'http://0x7f.1/', 'http://017700000001/', 'http://0177.0.0.1/',
  'http://0x7f.0x0.0x0.0x1/', 'http://0177.1/', 'http://3232235777/', 'http://0xa9.0xfe.0xa9.0xfe/', 'http://2852039166/',
  'http://127.0.0.1.nip.io/', 'http://10-0-0-1.sslip.io/', 'http://app.169.254.169.254.nip.io/', 'http://localtest.me/',
  'http://allowed.example@127.0.0.1/', 'http://allowed.example:pw@evil.test/', 'http://user@allowed.example/',
  'http://allowed.example%40127.0.0.1/', 'ftp://allowed.example/', 'file:///etc/passwd', 'javascript:alert(1)',
  'data:text/plain,hi', 'ws://allowed.example/', 'blob:http://allowed.example/x', 'http://router/', 'http://printer.local/',
  'http://metadata.google.internal/', 'http://nas.lan/', 'http://box.home.arpa/', 'http://[::1%25eth0]/',
  'not a url', '', 'http://', '//allowed.example/',
];
const SSRF_APPROVAL = ['https://other.example/', 'https://allowed.example.evil.test/', 'https://evilallowed.example/'];
const SSRF_ALLOW = ['https://allowed.example/x', 'http://allowed.example/', 'https://api.allowed.example/v1?q=1',
  'http://allowed.example\\@127.0.0.1/'];

function classify(url, policy) {
  const verdict = checkUrl(url, policy);
  if (verdict.allowed) return 'allowed';
  return verdict.needsApproval ? 'approval' : 'refused';
}

// ---------------------------------------------------------------------------------------------
// Node-only tests (pure modules).

describe('vfs path resolver (node)', () => {
  test('hostile corpus is rejected and sane paths resolve to segments', () => {
    for (const input of PATH_REJECT) {
      assert.throws(() => resolvePath(input), /path|string/, `accepted ${JSON.stringify(input)}`);
    }
    for (const [input, expected] of PATH_ACCEPT) assert.deepEqual(resolvePath(input), expected, JSON.stringify(input));
    assert.deepEqual(resolvePath('caf\u00e9/x'), resolvePath('cafe\u0301/x'), 'NFC and NFD name the same file');
    assert.notDeepEqual(resolvePath('A.txt'), resolvePath('a.txt'), 'paths are case-sensitive');
    assert.equal(isWithin(resolvePath('/ws'), resolvePath('/ws_evil/x')), false, 'sibling prefix is not inside');
    assert.equal(isWithin(resolvePath('/ws'), resolvePath('/ws/x')), true);
  });

  test('randomized fuzz: every accepted path stays inside the root', () => {
    const seed = 0x7ab100;
    const inputs = fuzzStrings(seed, 20000);
    let accepted = 0;
    const violations = [];
    for (const input of inputs) {
      let segments;
      try {
        segments = resolvePath(input);
      } catch (error) {
        assert.equal(error.name, 'PathError', `unexpected ${error.name} for ${JSON.stringify(input)}`);
        continue;
      }
      accepted += 1;
      violations.push(...pathViolations(input, segments));
    }
    report({ test: 'D10-node', seed, fuzz_cases: inputs.length, corpus: PATH_REJECT.length + PATH_ACCEPT.length, accepted, escapes: violations.filter((v) => v.includes('escapes')).length, invariant_violations: violations.length });
    assert.deepEqual(violations, []);
    assert.ok(accepted > inputs.length * 0.05, `fuzz must exercise accepted paths too (accepted ${accepted})`);
  });

  test('glob matching by segments', () => {
    const g = compileGlob('**/*.md');
    assert.equal(g(['a.md']), true);
    assert.equal(g(['x', 'y', 'a.md']), true);
    assert.equal(g(['x', 'a.txt']), false);
    const q = compileGlob('src/?.js');
    assert.equal(q(['src', 'a.js']), true);
    assert.equal(q(['src', 'ab.js']), false);
    assert.equal(q(['src', 'x', 'a.js']), false);
    assert.throws(() => compileGlob('../*'), /'\.\.'/);
    const slow = compileGlob(`${'*a'.repeat(40)}b`);
    const t0 = performance.now();
    assert.equal(slow(['a'.repeat(250)]), false);
    assert.ok(performance.now() - t0 < 200, 'wildcards do not backtrack exponentially');
  });
});

describe('url policy (node)', () => {
  test('SSRF corpus is refused, unknown public hosts need approval, allow-listed hosts pass', () => {
    const policy = { allowHosts: ALLOWED };
    const wrong = [];
    for (const url of SSRF_REFUSE) if (classify(url, policy) !== 'refused') wrong.push(`${url} -> ${classify(url, policy)}`);
    for (const url of SSRF_APPROVAL) if (classify(url, policy) !== 'approval') wrong.push(`${url} -> ${classify(url, policy)}`);
    for (const url of SSRF_ALLOW) if (classify(url, policy) !== 'allowed') wrong.push(`${url} -> ${classify(url, policy)}`);
    report({ test: 'D9-node', denied: SSRF_REFUSE.filter((u) => classify(u, policy) === 'refused').length, total: SSRF_REFUSE.length });
    assert.deepEqual(wrong, []);
  });

  test('private hosts need an exact allow-list entry; wildcards and approval never unlock them', () => {
    const exact = { allowHosts: ['127.0.0.1:8080', '[::1]', '*.localhost'] };
    assert.equal(classify('http://127.0.0.1:8080/', exact), 'allowed');
    assert.equal(classify('http://2130706433:8080/', exact), 'allowed', 'alternate spellings normalise to the listed address');
    assert.equal(classify('http://127.0.0.1:8081/', exact), 'refused');
    assert.equal(classify('http://[::1]:9999/', exact), 'allowed');
    assert.equal(classify('http://a.localhost/', exact), 'refused', 'a wildcard entry does not unlock a loopback name');
    assert.equal(checkUrl('http://10.0.0.1/', {}).needsApproval, false);
    assert.equal(checkUrl('https://example.org/', {}).needsApproval, true);
  });
});

describe('registry (node)', () => {
  const tool = (over = {}) => ({ name: 't', description: 'd', parameters: { type: 'object' }, execute: async () => 1, ...over });

  test('spec validation, duplicates and listing', () => {
    const reg = createRegistry();
    assert.throws(() => reg.registerTool(tool({ name: '9bad' })), /name/);
    assert.throws(() => reg.registerTool(tool({ description: '' })), /description/);
    assert.throws(() => reg.registerTool(tool({ parameters: { type: 'string' } })), /parameters/);
    assert.throws(() => reg.registerTool(tool({ execute: 'x' })), /execute/);
    assert.throws(() => reg.registerTool(tool({ permission: 'maybe' })), /permission/);
    assert.throws(() => reg.registerTool(tool({ timeoutMs: -1 })), /timeoutMs/);
    reg.registerTool(tool());
    assert.throws(() => reg.registerTool(tool()), /already registered/);
    reg.registerTool(tool({ description: 'd2' }), { replace: true });
    const [listed] = reg.listTools();
    assert.equal(listed.description, 'd2');
    assert.equal('execute' in listed, false);
    assert.equal(listed.permission, 'ask');
    assert.equal(listed.timeoutMs, 30000);
    for (const spec of builtinTools()) assert.doesNotThrow(() => validateSpec(spec), spec.name);
    assert.deepEqual(builtinTools().map((s) => s.name), ['vfs', 'eval', 'http_fetch']);
  });

  test('a narrower schema for local models is checked and listed with the tool', () => {
    const reg = createRegistry();
    assert.throws(() => reg.registerTool(tool({ localParameters: [1] })), /localParameters/);
    const local = { oneOf: [{ type: 'object', properties: { op: { const: 'a' } }, required: ['op'] }] };
    reg.registerTool(tool({ localParameters: local }));
    reg.registerTool(tool({ name: 'plain' }));
    const [listed, plain] = reg.listTools();
    assert.deepEqual(listed.localParameters, local);
    assert.equal('localParameters' in plain, false);
    // vfs's: one shape per operation, a write needing its content
    const vfs = validateSpec(builtinTools()[0]);
    const write = vfs.localParameters.oneOf.find((s) => s.properties.op.const === 'write');
    assert.deepEqual(write.required, ['op', 'path', 'content']);
    for (const shape of vfs.localParameters.oneOf) {
      for (const key of Object.keys(shape.properties)) assert.ok(key === 'op' || key in vfs.parameters.properties, key);
    }
  });

  test('callTool normalises results and never throws', async () => {
    const reg = createRegistry();
    reg.registerTool(tool({ name: 'ok', execute: async (args, ctx) => ({ got: args.x, session: ctx.session, when: new Date(0) }) }));
    reg.registerTool(tool({ name: 'sync_throw', execute: () => { throw new TypeError('bad thing'); } }));
    reg.registerTool(tool({ name: 'bigint', execute: async () => 10n }));
    reg.registerTool(tool({ name: 'undef', execute: async () => undefined }));
    reg.registerTool(tool({ name: 'denied', permission: 'deny' }));
    reg.registerTool(tool({ name: 'mutates', execute: async (args) => { args.x = 'changed'; return 1; } }));
    assert.deepEqual(await reg.callTool('ok', { x: 1 }, { session: 's' }), { ok: true, value: { got: 1, session: 's', when: '1970-01-01T00:00:00.000Z' } });
    assert.deepEqual(await reg.callTool('sync_throw', {}), { ok: false, error: 'TypeError: bad thing' });
    assert.equal((await reg.callTool('bigint', {})).ok, false);
    assert.deepEqual(await reg.callTool('undef', {}), { ok: true, value: null });
    assert.equal((await reg.callTool('nope', {})).code, 'unknown_tool');
    assert.equal((await reg.callTool('denied', {})).code, 'denied');
    assert.equal((await reg.callTool('ok', [1])).code, 'bad_args');
    const args = { x: 'original' };
    await reg.callTool('mutates', args);
    assert.equal(args.x, 'original', 'tools get a copy of the arguments');
  });

  test('callTool enforces timeoutMs by aborting the signal, and honours the caller abort', async () => {
    const reg = createRegistry();
    let sawAbort = null;
    reg.registerTool(tool({
      name: 'slow',
      timeoutMs: 80,
      execute: (args, ctx) => new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          sawAbort = ctx.signal.reason?.name;
          resolve('late');
        });
      }),
    }));
    const t0 = performance.now();
    const timed = await reg.callTool('slow', {});
    assert.equal(timed.ok, false);
    assert.equal(timed.code, 'timeout');
    assert.match(timed.error, /timed out after 80 ms/);
    assert.equal(sawAbort, 'TimeoutError');
    assert.ok(performance.now() - t0 < 1000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const aborted = await reg.callTool('slow', {}, { signal: controller.signal });
    assert.equal(aborted.code, 'aborted');
    assert.equal((await reg.callTool('slow', {}, { signal: AbortSignal.abort() })).code, 'aborted');
  });
});

// ---------------------------------------------------------------------------------------------
// Browser tests.

let browser;
let canary;
const servers = {};
const reports = [];

function routes(canaryPort) {
  const big = 'x'.repeat(300 * 1024);
  return {
    '/api/small': (req, res) => res.writeHead(200, { 'content-type': 'application/json', 'x-test': 'yes' }).end('{"hello":"world"}'),
    '/api/big': (req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(big),
    '/api/echo': (req, res) => {
      let body = '';
      req.on('data', (chunk) => { body += chunk; });
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, body, header: req.headers['x-custom'] ?? null })));
    },
    '/api/binary': (req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(1000)),
    '/api/redirect-private': (req, res) => res.writeHead(302, { location: `http://127.0.0.1:${canaryPort}/from-redirect` }).end(),
    '/api/redirect-metadata': (req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
    '/api/slow': (req, res) => {
      const timer = setTimeout(() => res.writeHead(200).end('late'), 5000);
      req.on('close', () => clearTimeout(timer));
    },
    '/report': (req, res) => {
      reports.push(JSON.parse(decodeURIComponent(new URL(req.url, 'http://x').search.slice(1))));
      res.writeHead(204).end();
    },
    // The sandbox page served WITHOUT any isolation headers, to prove `credentialless` lets it load
    // under the app's COEP anyway.
    '/nocoep/sandbox.html': (req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(fs.readFileSync(SANDBOX_HTML)),
  };
}

before(async () => {
  canary = await startCanary();
  servers.plain = await serveStatic(ROOT, { isolated: false, routes: routes(canary.port) });
  servers.isolated = await serveStatic(ROOT, { isolated: true, routes: routes(canary.port) });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await Promise.all(Object.values(servers).map((s) => s.close()));
  await canary?.close();
});

async function openHarness(server) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${server.url}${HARNESS}`);
  await page.waitForFunction(() => window.toolsReady === true, null, { timeout: 15000 });
  page.errors = errors;
  return page;
}

function canaryHits(server) {
  return server.hits.filter((p) => p.startsWith('/canary') || p === '/from-redirect');
}

describe('vfs in IndexedDB (chromium)', () => {
  let page;
  before(async () => {
    page = await openHarness(servers.plain);
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
    assert.equal((await small({ op: 'write', path: '/b', content: 'b'.repeat(600) })).ok, true, 'deleting frees quota');
    assert.equal((await small({ op: 'write', path: '/b', content: 'é'.repeat(501) })).code, 'quota_exceeded', 'quota counts UTF-8 bytes');
  });

  test("the browser's QuotaExceededError is reported clearly and rolls back", async () => {
    const qpage = await openHarness(servers.plain);
    try {
      const cdp = await qpage.context().newCDPSession(qpage);
      await cdp.send('Storage.overrideQuotaForOrigin', { origin: servers.plain.url, quotaSize: 1024 * 1024 });
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

const SHA_RE = /'sha256-([A-Za-z0-9+/=]+)'/;

test('sandbox.html CSP pins the hash of its inline bootstrap', () => {
  const html = fs.readFileSync(SANDBOX_HTML, 'utf8');
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)];
  assert.equal(scripts.length, 1, 'exactly one inline script');
  assert.doesNotMatch(html, /<script[^>]+src=/, 'no external scripts');
  const expected = crypto.createHash('sha256').update(scripts[0][1], 'utf8').digest('base64');
  const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)[1];
  assert.equal(csp.match(SHA_RE)?.[1], expected, `update the CSP hash to sha256-${expected}`);
  for (const directive of ["default-src 'none'", "connect-src 'none'", 'worker-src blob:', "base-uri 'none'", "form-action 'none'"]) {
    assert.ok(csp.includes(directive), directive);
  }
  assert.doesNotMatch(csp, /'self'|https?:|\*/, 'no network sources at all');
});

for (const mode of ['plain', 'isolated']) {
  describe(`eval sandbox (chromium, ${mode === 'isolated' ? 'COOP/COEP' : 'no isolation headers'})`, () => {
    let page;
    let server;
    before(async () => {
      server = servers[mode];
      page = await openHarness(server);
      await page.evaluate(() => {
        window.reg = T.registry.createRegistry();
        window.evalSpec = T.evalTool.evalTool({ maxOutputChars: 2000 });
        window.reg.registerTool(window.evalSpec);
        window.runEval = (code) => window.reg.callTool('eval', { code }, { session: 's', callId: 'c', signal: new AbortController().signal });
      });
    });
    after(() => page.close());
    const run = (code) => page.evaluate((c) => window.runEval(c), code);

    test('page isolation state is as configured', async () => {
      assert.equal(await page.evaluate(() => crossOriginIsolated), mode === 'isolated');
    });

    test('expressions, statements, await, return, console and errors', async () => {
      assert.deepEqual((await run('1 + 2')).value.value, 3);
      const logged = await run('console.log("hi", {a: 1}); console.warn("careful"); console.error(new Error("boom")); 42');
      assert.equal(logged.value.value, 42);
      assert.deepEqual(logged.value.console, [{ level: 'log', text: 'hi {"a":1}' }, { level: 'warn', text: 'careful' }, { level: 'error', text: '{"name":"Error","message":"boom"}' }]);
      assert.equal((await run('let x = 2; x * 21')).value.value, 42);
      assert.equal((await run('const v = await new Promise((r) => setTimeout(() => r(5), 10));\nv * 2')).value.value, 10);
      assert.equal((await run('const a = [1, 2].map((n) => { return n * 3; });\nreturn a.join(",")')).value.value, '3,6');
      assert.equal((await run('const b = await Promise.all([1, 2].map(async (n) => { return n * 2; })); b.join("+")')).value.value, '2+4');
      assert.equal((await run('if (await Promise.resolve(true)) { console.log("x"); }\n"last"; // trailing comment')).value.value, null, 'a comment after the last statement hides its value (documented limit)');
      assert.equal((await run('await null; function f() { return 9; }')).value.value, null, 'a trailing declaration is not turned into an expression');
      assert.equal((await run('const t = await Promise.resolve("a;b"); t.split(";").length')).value.value, 2);
      assert.deepEqual((await run('({ n: 1n, f() {}, d: new Date(0), m: new Map([[1, 2]]), nan: NaN, self: null })')).value.value,
        { n: '1n', f: '[Function: f]', d: '1970-01-01T00:00:00.000Z', m: { '[Map]': [[1, 2]] }, nan: 'NaN', self: null });
      const cyc = await run('const o = {}; o.o = o; o');
      assert.deepEqual(cyc.value.value, { o: '[Circular]' });
      // A failure of the code is a failed call (ok: false), so the loop counts it as an error.
      const thrown = await run('console.log("before"); null.x');
      assert.equal(thrown.ok, false);
      assert.equal(thrown.code, 'eval_error');
      assert.match(thrown.error, /^TypeError: /);
      assert.match(thrown.error, /console output before the failure:\n\[log\] before/);
      const syntax = await run('let = = 1');
      assert.equal(syntax.ok, false);
      assert.match(syntax.error, /^SyntaxError: /);
      const rejected = await run('await Promise.reject(new RangeError("nope"))');
      assert.equal(rejected.ok, false);
      assert.equal(rejected.error, 'RangeError: nope');
      assert.equal((await run('self.origin')).value.value, 'null');
      assert.equal((await run('typeof globalThis.__leak')).value.value, 'undefined');
      await run('globalThis.__leak = 1');
      assert.equal((await run('typeof globalThis.__leak')).value.value, 'undefined', 'every run starts fresh');
      const parallel = await page.evaluate(() => Promise.all([1, 2, 3, 4].map((n) => window.runEval(`await new Promise((r) => setTimeout(r, 100)); ${n} * 10`))));
      assert.deepEqual(parallel.map((r) => r.value.value), [10, 20, 30, 40], 'parallel runs get their own workers');
    });

    test('output is truncated with a note', async () => {
      const big = await run('"x".repeat(50000)');
      assert.equal(big.value.truncated, true);
      assert.equal(big.value.value.length, 2000);
      assert.match(big.value.note, /value truncated/);
      const flood = await run('for (let i = 0; i < 2000; i++) console.log("line " + i); "done"');
      assert.equal(flood.value.value, 'done');
      assert.ok(flood.value.console.length < 2000);
      assert.match(flood.value.note, /console messages were dropped/);
    });

    test('while(true){} is killed at the timeout and the next eval still works', async () => {
      const out = await page.evaluate(async () => {
        // The longest main-thread stall is the longest gap between ticks of a 50 ms timer
        // (the longtask observer reports nothing in headless Chromium).
        let longest = 0;
        let ticks = 0;
        let last = performance.now();
        const ticker = setInterval(() => {
          const now = performance.now();
          longest = Math.max(longest, now - last);
          last = now;
          ticks += 1;
        }, 50);
        const t0 = performance.now();
        const result = await window.runEval('while (true) {}');
        const elapsed = performance.now() - t0;
        clearInterval(ticker);
        const after = await window.runEval('"alive"');
        return { result, elapsed, longest, ticks, after };
      });
      assert.equal(out.result.ok, false, 'a timeout is a failed call');
      assert.equal(out.result.code, 'timeout');
      assert.match(out.result.error, /^TimeoutError: execution exceeded 5000 ms/);
      assert.equal(out.after.value.value, 'alive');
      assert.ok(out.ticks > 50, 'the page kept running timers during the loop');
      report({ test: 'D1', isolation: mode, timeout_ms: 5000, elapsed_ms: Math.round(out.elapsed), kill_latency_ms: Math.round(out.elapsed - 5000), longest_timer_gap_ms: Math.round(out.longest), page_timer_ticks: out.ticks });
    });

    test('a hung promise is killed too, and abort cancels a run', async () => {
      const out = await page.evaluate(async () => {
        const sandbox = T.evalTool.createSandbox();
        const t0 = performance.now();
        const hung = await sandbox.run('await new Promise(() => {})', { timeoutMs: 500 });
        const hungMs = performance.now() - t0;
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 100);
        let abortError = null;
        const t1 = performance.now();
        try {
          await sandbox.run('while (true) {}', { timeoutMs: 10000, signal: controller.signal });
        } catch (error) {
          abortError = error.name;
        }
        const abortMs = performance.now() - t1;
        const next = await sandbox.run('"ok"');
        sandbox.dispose();
        const recreated = await sandbox.run('"recreated"');
        sandbox.dispose();
        return { hung, hungMs, abortError, abortMs, next, recreated };
      });
      assert.equal(out.hung.error.name, 'TimeoutError');
      assert.ok(out.hungMs < 2500);
      assert.equal(out.abortError, 'AbortError');
      assert.ok(out.abortMs < 1000);
      assert.equal(out.next.value, 'ok');
      assert.equal(out.recreated.value, 'recreated');
      report({ test: 'D2-hung-promise', isolation: mode, backstop_ms: Math.round(out.hungMs), abort_latency_ms: Math.round(out.abortMs) });
    });

    if (mode === 'plain') {
      test('a memory bomb takes down only the sandbox process; the app survives and recovers', async () => {
        // Playwright marks the whole page crashed when any of its frames' renderers dies, so the
        // page reports its own state through the /report route instead of page.evaluate.
        const bombPage = await openHarness(server);
        reports.length = 0;
        const stopWatch = watchRendererPeak();
        let peakKb = 0;
        try {
          await bombPage.evaluate(() => {
            const sandbox = T.evalTool.createSandbox();
            let ticks = 0;
            setInterval(() => { ticks += 1; }, 50);
            const t0 = performance.now();
            sandbox.run('const a = []; for (;;) a.push(new Array(1e6).fill(1.5))', { timeoutMs: 20000 }).then(async (bomb) => {
              const ms = performance.now() - t0;
              const next = await sandbox.run('"alive"');
              fetch(`/report?${encodeURIComponent(JSON.stringify({ bomb, ms, next, ticks }))}`);
            });
          });
          for (let i = 0; i < 120 && reports.length === 0; i += 1) await new Promise((r) => setTimeout(r, 250));
        } finally {
          peakKb = stopWatch();
          await bombPage.close().catch(() => {});
        }
        assert.equal(reports.length, 1, 'the app page survived and reported back');
        const [{ bomb, ms, next, ticks }] = reports;
        assert.ok(['SandboxError', 'TimeoutError'].includes(bomb.error?.name), JSON.stringify(bomb));
        assert.equal(next.value, 'alive', 'a new sandbox works after the crash');
        report({ test: 'D2-memory-bomb', isolation: mode, tab_survived: true, stopped_by: bomb.error.name, detect_ms: Math.round(ms), peak_renderer_MB: Math.round(peakKb / 1024), page_timer_ticks: ticks });
      });
    }

    for (const harden of [false, true]) {
      test(`escape and egress probes all fail (${harden ? 'hardened globals' : 'CSP and opaque origin alone'})`, async () => {
        const before = { hits: canaryHits(server).length, tcp: canary.count() };
        const out = await page.evaluate(async ([code, hardenGlobals]) => {
          let broadcast = 0;
          const channel = new BroadcastChannel('tabloop-probe');
          channel.onmessage = () => { broadcast += 1; };
          const sandbox = T.evalTool.createSandbox();
          const result = await sandbox.run(code, { timeoutMs: 60000, harden: hardenGlobals });
          const frameDoc = (() => {
            try {
              return sandbox.frame.contentDocument === null ? 'null' : 'READABLE';
            } catch (error) {
              return error.name;
            }
          })();
          await new Promise((r) => setTimeout(r, 300));
          channel.close();
          sandbox.dispose();
          return { result, broadcast, frameDoc, cookie: document.cookie, ls: localStorage.length };
        }, [probeCode(server.url, canary.port), harden]);
        assert.equal(out.result.error, undefined, JSON.stringify(out.result.error));
        const probes = out.result.value;
        assert.equal(probes.origin, 'null');
        delete probes.origin;
        const cspViolations = probes.csp_violations;
        delete probes.csp_violations;
        assert.equal(probes.eval_allowed, 'expected');
        delete probes.eval_allowed;
        const escapes = Object.entries(probes).filter(([, v]) => !v.startsWith('blocked'));
        assert.deepEqual(escapes, []);
        assert.equal(out.broadcast, 0, 'BroadcastChannel from the sandbox does not reach the app');
        assert.equal(out.frameDoc, 'null', 'the app cannot read the sandbox document either (opaque origin)');
        await new Promise((r) => setTimeout(r, 300));
        const hits = canaryHits(server).length - before.hits;
        const tcp = canary.count() - before.tcp;
        assert.equal(hits, 0, `canary routes were hit: ${canaryHits(server)}`);
        assert.equal(tcp, 0, 'no TCP connection reached the canary port');
        report({ test: harden ? 'D3-D4-hardened' : 'D3-D4-csp-only', isolation: mode, escapes: escapes.length, probes: Object.keys(probes).length, canary_hits: hits, canary_tcp_connections: tcp, csp_violations: cspViolations });
        if (!harden) console.log(JSON.stringify({ suite: 'tools', test: 'D3-D4-detail', isolation: mode, probes }));
      });
    }

    test('forged postMessage to the app window or to the iframe is ignored', async () => {
      const out = await page.evaluate(async () => {
        const sandbox = T.evalTool.createSandbox();
        await sandbox.run('1');
        const frame = sandbox.frame;
        const pending = sandbox.run('await new Promise((r) => setTimeout(() => r("real"), 400))');
        // Forged result to the app's own window (the app only listens on its MessagePort).
        window.postMessage({ type: 'result', id: 'x', result: { valueJson: '"forged"' } }, '*');
        // Forged run and init messages straight to the sandbox window.
        const rogue = new MessageChannel();
        let rogueAnswers = 0;
        rogue.port1.onmessage = () => { rogueAnswers += 1; };
        frame.contentWindow.postMessage({ type: 'tabloop-sandbox-init', workerSource: 'postMessage({type:"done", valueJson:"\\"pwned\\""})' }, '*', [rogue.port2]);
        frame.contentWindow.postMessage({ type: 'run', id: 'forged', code: '"pwned"' }, '*');
        // A sibling frame (not the sandbox's parent) trying the same.
        const sibling = document.createElement('iframe');
        sibling.srcdoc = '<p>sibling</p>';
        document.body.append(sibling);
        await new Promise((r) => sibling.addEventListener('load', r, { once: true }));
        const rogue2 = new MessageChannel();
        rogue2.port1.onmessage = () => { rogueAnswers += 1; };
        sibling.contentWindow.eval(`parent.frames[0].postMessage({ type: 'tabloop-sandbox-init', workerSource: '' }, '*', [])`);
        frame.contentWindow.postMessage({ type: 'tabloop-sandbox-init', workerSource: '' }, '*', [rogue2.port2]);
        const real = await pending;
        const after = await sandbox.run('"still fine"');
        await new Promise((r) => setTimeout(r, 300));
        sibling.remove();
        sandbox.dispose();
        return { real, after, rogueAnswers };
      });
      assert.equal(out.real.value, 'real');
      assert.equal(out.after.value, 'still fine');
      assert.equal(out.rogueAnswers, 0);
      report({ test: 'D5', isolation: mode, forged_messages_accepted: out.rogueAnswers + (out.real.value === 'real' ? 0 : 1) });
    });

    if (mode === 'isolated') {
      test('the credentialless sandbox frame loads under COEP even without isolation headers on sandbox.html', async () => {
        const out = await page.evaluate(async ([url, origin]) => {
          const sandbox = T.evalTool.createSandbox({ sandboxUrl: url });
          const r = await sandbox.run('self.origin + ":" + (typeof fetch)', { harden: false });
          const fetchTry = await sandbox.run(`try { await fetch("${origin}/canary/nocoep"); return "ALLOWED" } catch (e) { return "blocked" }`, { harden: false });
          sandbox.dispose();
          return { r, fetchTry };
        }, [`${server.url}/nocoep/sandbox.html`, server.url]);
        assert.equal(out.r.value, 'null:function');
        assert.equal(out.fetchTry.value, 'blocked');
        assert.equal(server.hits.includes('/canary/nocoep'), false);
        assert.ok(server.hits.includes('/nocoep/sandbox.html'));
      });
    }
  });
}

describe('http_fetch (chromium)', () => {
  let page;
  let server;
  before(async () => {
    server = servers.plain;
    page = await openHarness(server);
    await page.evaluate((origin) => {
      window.policy = { allowHosts: [new URL(origin).host] };
      window.reg = T.registry.createRegistry();
      window.reg.registerTool(T.http.httpFetchTool({ policy: () => window.policy }));
      window.httpCall = (args, signal) => window.reg.callTool('http_fetch', args, { session: 's', callId: 'c', signal: signal ?? new AbortController().signal });
    }, server.url);
  });
  after(() => page.close());
  const call = (args) => page.evaluate((a) => window.httpCall(a), args);

  test('an allow-listed loopback route works; big bodies are truncated', async () => {
    const small = await call({ url: `${server.url}/api/small` });
    assert.equal(small.ok, true, small.error);
    assert.equal(small.value.status, 200);
    assert.equal(small.value.body, '{"hello":"world"}');
    assert.equal(small.value.truncated, false);
    assert.equal(small.value.headers['x-test'], 'yes');
    const big = await call({ url: `${server.url}/api/big` });
    assert.equal(big.value.truncated, true);
    assert.equal(big.value.body.length, 100 * 1024);
    assert.match(big.value.note, /truncated to the first 102400 bytes/);
    const post = await call({ url: `${server.url}/api/echo`, method: 'POST', body: 'payload', headers: { 'x-custom': 'v' } });
    assert.deepEqual(JSON.parse(post.value.body), { method: 'POST', body: 'payload', header: 'v' });
    const bin = await call({ url: `${server.url}/api/binary` });
    assert.equal(bin.value.body, null);
    assert.match(bin.value.note, /binary content/);
    assert.match((await call({ url: `${server.url}/api/small`, headers: { cookie: 'a=b' } })).error, /cannot be set/);
    assert.match((await call({ url: `${server.url}/api/small`, body: 'x' })).error, /cannot have a body/);
  });

  test('loopback that is not allow-listed is refused before any request', async () => {
    const before = server.hits.length;
    const other = `http://localhost:${new URL(server.url).port}/api/unlisted-localhost`;
    const r1 = await page.evaluate(async (u) => {
      const saved = window.policy;
      window.policy = { allowHosts: [] };
      try {
        return await window.httpCall({ url: u });
      } finally {
        window.policy = saved;
      }
    }, `${server.url}/api/unlisted`);
    const r2 = await call({ url: other });
    const r3 = await call({ url: `http://2130706433:${new URL(server.url).port}/api/unlisted-decimal` });
    for (const r of [r1, r2]) {
      assert.equal(r.ok, false);
      assert.equal(r.code, 'refused');
      assert.equal(r.needsApproval, undefined);
      assert.match(r.error, /request not sent/);
    }
    assert.equal(r3.ok, true, 'the decimal spelling IS the allow-listed 127.0.0.1:port, so it is allowed');
    const public1 = await call({ url: 'https://example.org/' });
    assert.equal(public1.code, 'needs_approval');
    assert.equal(public1.needsApproval, true);
    const newHits = server.hits.slice(before);
    assert.deepEqual(newHits.filter((p) => p.includes('unlisted') && p !== '/api/unlisted-decimal'), []);
  });

  test('SSRF corpus is refused by checkUrl in the browser too', async () => {
    const verdicts = await page.evaluate(([urls, policy]) => urls.map((u) => T.http.checkUrl(u, policy)), [SSRF_REFUSE, { allowHosts: ALLOWED }]);
    const leaked = SSRF_REFUSE.filter((u, i) => verdicts[i].allowed || verdicts[i].needsApproval);
    report({ test: 'D9', denied: SSRF_REFUSE.length - leaked.length, total: SSRF_REFUSE.length });
    assert.deepEqual(leaked, []);
  });

  test('a redirect from an allowed host to a private address is not followed', async () => {
    const tcpBefore = canary.count();
    const r = await call({ url: `${server.url}/api/redirect-private` });
    const m = await call({ url: `${server.url}/api/redirect-metadata` });
    await new Promise((done) => setTimeout(done, 300));
    for (const x of [r, m]) {
      assert.equal(x.ok, true);
      assert.equal(x.value.redirected, true);
      assert.equal(x.value.followed, false);
      assert.match(x.value.note, /not followed/);
    }
    assert.equal(canary.count() - tcpBefore, 0);
    assert.equal(server.hits.includes('/from-redirect'), false);
    report({ test: 'D9-redirect', redirects_followed_to_denied: canary.count() - tcpBefore });
  });

  test('abort and timeout stop a hanging request', async () => {
    const out = await page.evaluate(async (u) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 150);
      const t0 = performance.now();
      const aborted = await window.httpCall({ url: u }, controller.signal);
      const abortMs = performance.now() - t0;
      const reg = T.registry.createRegistry();
      reg.registerTool(T.http.httpFetchTool({ policy: window.policy, timeoutMs: 200 }));
      const timed = await reg.callTool('http_fetch', { url: u }, { session: 's', callId: 'c' });
      return { aborted, abortMs, timed };
    }, `${server.url}/api/slow`);
    assert.equal(out.aborted.code, 'aborted');
    assert.ok(out.abortMs < 1500);
    assert.equal(out.timed.code, 'timeout');
  });

  test('works under COOP/COEP as well', async () => {
    const iso = await openHarness(servers.isolated);
    try {
      const r = await iso.evaluate(async (origin) => {
        const reg = T.registry.createRegistry();
        reg.registerTool(T.http.httpFetchTool({ policy: { allowHosts: [new URL(origin).host] } }));
        return reg.callTool('http_fetch', { url: `${origin}/api/small` }, { session: 's', callId: 'c' });
      }, servers.isolated.url);
      assert.equal(r.value.body, '{"hello":"world"}');
    } finally {
      await iso.close();
    }
  });
});
