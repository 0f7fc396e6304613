// The eval sandbox in real headless Chromium, with and without COOP/COEP: its CSP pin, timeouts,
// hung promises, memory bombs with the app alive, escape and egress probes against a canary,
// forged messages.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import crypto from 'node:crypto';
import { probeCode, watchRendererPeak } from './support/sandbox_probes.mjs';
import { SANDBOX_HTML, canaryHits, report, useToolsHarness } from './support/tools_harness.mjs';

const h = useToolsHarness();

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
      server = h.servers[mode];
      page = await h.openHarness(server);
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
        // (the longtask observer h.reports nothing in headless Chromium).
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
        // page h.reports its own state through the /report route instead of page.evaluate.
        const bombPage = await h.openHarness(server);
        h.reports.length = 0;
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
          for (let i = 0; i < 120 && h.reports.length === 0; i += 1) await new Promise((r) => setTimeout(r, 250));
        } finally {
          peakKb = stopWatch();
          await bombPage.close().catch(() => {});
        }
        assert.equal(h.reports.length, 1, 'the app page survived and reported back');
        const [{ bomb, ms, next, ticks }] = h.reports;
        assert.ok(['SandboxError', 'TimeoutError'].includes(bomb.error?.name), JSON.stringify(bomb));
        assert.equal(next.value, 'alive', 'a new sandbox works after the crash');
        report({ test: 'D2-memory-bomb', isolation: mode, tab_survived: true, stopped_by: bomb.error.name, detect_ms: Math.round(ms), peak_renderer_MB: Math.round(peakKb / 1024), page_timer_ticks: ticks });
      });
    }

    for (const harden of [false, true]) {
      test(`escape and egress probes all fail (${harden ? 'hardened globals' : 'CSP and opaque origin alone'})`, async () => {
        const before = { hits: canaryHits(server).length, tcp: h.canary.count() };
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
        }, [probeCode(server.url, h.canary.port), harden]);
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
        const tcp = h.canary.count() - before.tcp;
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
