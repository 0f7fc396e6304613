// The built-in JavaScript tools' pure modules in Node: the vfs path resolver against its hostile
// corpus and fuzz, the http_fetch URL policy (SSRF) corpus, and the tool registry's semantics.
// The browser suites are vfs_tool, sandbox_tool and http_fetch_tool.test.mjs.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { resolvePath, isWithin, compileGlob } from '../../www/tools/vfs.js';
import { checkUrl } from '../../www/tools/http_fetch.js';
import { createRegistry, builtinTools, validateSpec } from '../../www/tools/registry.js';
import { PATH_REJECT, PATH_ACCEPT, fuzzStrings, pathViolations } from './support/path_corpus.mjs';
import { ALLOWED, SSRF_REFUSE, SSRF_APPROVAL, SSRF_ALLOW } from './support/ssrf_corpus.mjs';
import { report } from './support/tools_harness.mjs';

function classify(url, policy) {
  const verdict = checkUrl(url, policy);
  if (verdict.allowed) return 'allowed';
  return verdict.needsApproval ? 'approval' : 'refused';
}

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
    // vfs's: one shape per operation, a write needing its content (written before the path)
    const vfs = validateSpec(builtinTools()[0]);
    const write = vfs.localParameters.oneOf.find((s) => s.properties.op.const === 'write');
    assert.deepEqual(write.required, ['op', 'content', 'path']);
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

  test('callToolOwned answers as callTool does, with and without a commit to wait for', async () => {
    const reg = createRegistry();
    reg.registerTool(tool({ name: 'ok', execute: async (args, ctx) => ({ got: args.x, session: ctx.session, when: new Date(0) }) }));
    reg.registerTool(tool({ name: 'sync_throw', execute: () => { throw new TypeError('bad thing'); } }));
    reg.registerTool(tool({ name: 'plain', execute: (args) => `sync ${args.x}` }));
    reg.registerTool(tool({ name: 'bigint', execute: async () => 10n }));
    reg.registerTool(tool({ name: 'undef', execute: async () => undefined }));
    reg.registerTool(tool({ name: 'fn', execute: async () => () => 1 }));
    reg.registerTool(tool({ name: 'denied', permission: 'deny' }));
    const cases = [['ok', { x: 1 }], ['sync_throw', {}], ['plain', { x: 2 }], ['bigint', {}], ['undef', {}], ['fn', {}], ['nope', {}], ['denied', {}], ['ok', [1]]];
    for (const stored of [undefined, Promise.resolve()]) {
      for (const [name, args] of cases) {
        const ctx = { session: 's', stored };
        const owned = await reg.callToolOwned(name, structuredClone(args), ctx);
        assert.deepEqual(owned, await reg.callTool(name, args, ctx), `${name}, stored: ${stored !== undefined}`);
      }
    }
    assert.equal((await reg.callToolOwned('ok', 'not an object')).code, 'bad_args');
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

  test('calls share one timer: calls due later arm nothing, a nearer deadline re-arms it and fires on time, a call waiting for its commit is not due', async () => {
    // A module instance of its own: no timer left armed by the tests above.
    const { timeCall, untimeCall } = await import('../../www/tools/call_timer.js?one-timer');
    const armed = [];
    const realSetTimeout = globalThis.setTimeout;
    globalThis.setTimeout = (fn, ms, ...rest) => {
      if (fn?.name === 'fireCallTimer') armed.push(ms);
      return realSetTimeout(fn, ms, ...rest);
    };
    const sleep = (ms) => new Promise((resolve) => realSetTimeout(resolve, ms));
    const call = (timeoutMs, startedAt = performance.now()) => {
      const timed = { startedAt, timeoutMs, expiredAt: null, expire: () => (timed.expiredAt = performance.now()) };
      return timed;
    };
    try {
      const long = call(60_000);
      timeCall(long);
      assert.equal(armed.length, 1, 'the first call arms the timer');
      for (let n = 0; n < 100; n += 1) {
        const quick = call(60_000);
        timeCall(quick);
        untimeCall(quick);
      }
      assert.equal(armed.length, 1, `calls due later armed it ${armed.length - 1} more times`);
      const short = call(50);
      timeCall(short);
      await sleep(150);
      assert.ok(short.expiredAt !== null, 'the short call expired');
      const late = short.expiredAt - short.startedAt;
      assert.ok(late >= 45 && late < 150, `expired ${late.toFixed(0)} ms after it started`);
      assert.equal(long.expiredAt, null);
      // Armed for the short call (again for what was left, if it fired a hair early), then for
      // the long one.
      const shown = `armed for ${armed.map(Math.round)} ms`;
      assert.ok(armed.at(-1) > 59_000 && armed.slice(1, -1).every((ms) => ms <= 50), shown);
      // Not due while it waits for its commit, however long; due once started.
      const waiting = call(20, null);
      timeCall(waiting);
      await sleep(80);
      assert.equal(waiting.expiredAt, null, 'a call waiting for its commit expired');
      waiting.startedAt = performance.now();
      await sleep(100);
      assert.ok(waiting.expiredAt !== null && waiting.expiredAt - waiting.startedAt >= 15, 'it expired once started');
      untimeCall(long);
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
  });

  test('a tool that asks for its signal after its time was up finds it aborted', async () => {
    const reg = createRegistry();
    let ctxSeen = null;
    reg.registerTool(tool({ name: 'ignores', timeoutMs: 30, execute: (args, ctx) => new Promise((resolve) => {
      ctxSeen = ctx;
      setTimeout(() => resolve('done'), 80);
    }) }));
    const ignored = await reg.callTool('ignores', {});
    assert.equal(ignored.code, 'timeout');
    assert.equal(ctxSeen.signal.aborted, true);
    assert.equal(ctxSeen.signal.reason?.name, 'TimeoutError');
  });

  test('with ctx.stored the tool runs only once it resolves, its timeout counted from then, and never if it rejects or the call is aborted first', async () => {
    const reg = createRegistry();
    const ran = [];
    reg.registerTool(tool({ name: 'effect', timeoutMs: 60, execute: async ({ n }) => (ran.push(n), `did ${n}`) }));
    const gate = () => {
      let open;
      let fail;
      const stored = new Promise((resolve, reject) => {
        open = resolve;
        fail = reject;
      });
      return { stored, open, fail };
    };
    const settled = (promise) => Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 20))]);

    // Not before the commit, though the wait is longer than the tool's timeout.
    const first = gate();
    const call = reg.callTool('effect', { n: 1 }, { stored: first.stored });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(ran, [], 'ran before its start record was stored');
    assert.equal(await settled(call), false);
    first.open();
    assert.deepEqual(await call, { ok: true, value: 'did 1' });
    assert.deepEqual(ran, [1]);

    // Its time counts from its start: a tool that waited past its timeout for the commit, then
    // takes 40 of its 60 ms, answers; one that takes longer times out 60 ms after it started.
    reg.registerTool(tool({ name: 'takes', timeoutMs: 60, execute: ({ ms }, ctx) => new Promise((resolve) => {
      const done = setTimeout(() => resolve(`took ${ms}`), ms);
      ctx.signal.addEventListener('abort', () => clearTimeout(done));
    }) }));
    for (const [ms, answer] of [[40, 'took 40'], [200, null]]) {
      const waited = gate();
      const pending = reg.callTool('takes', { ms }, { stored: waited.stored });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const t0 = performance.now();
      waited.open();
      const outcome = await pending;
      const took = performance.now() - t0;
      if (answer === null) {
        assert.equal(outcome.code, 'timeout');
        assert.ok(took >= 55 && took < 150, `timed out ${took.toFixed(0)} ms after it started`);
      } else {
        assert.deepEqual(outcome, { ok: true, value: answer });
      }
    }

    // A failed commit: never runs.
    const second = gate();
    const refused = reg.callTool('effect', { n: 2 }, { stored: second.stored });
    second.fail(new DOMException('the disk is full', 'QuotaExceededError'));
    const outcome = await refused;
    assert.equal(outcome.ok, false);
    assert.equal(outcome.code, 'not_stored');
    assert.match(outcome.error, /not started: its start record was not stored \(the disk is full\)/);

    // Aborted while waiting, then stored: never runs either.
    const third = gate();
    const controller = new AbortController();
    const dropped = reg.callTool('effect', { n: 3 }, { stored: third.stored, signal: controller.signal });
    controller.abort();
    third.open();
    assert.equal((await dropped).code, 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(ran, [1], 'only the stored, unaborted call ran');
  });
});
