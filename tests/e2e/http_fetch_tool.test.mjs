// The http_fetch tool in real headless Chromium: allow-listed loopback routes, truncation, the
// SSRF corpus refused in the browser too, redirects to denied hosts never followed, abort and
// timeout, and the same under COOP/COEP.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ALLOWED, SSRF_REFUSE } from './support/ssrf_corpus.mjs';
import { report, useToolsHarness } from './support/tools_harness.mjs';

const h = useToolsHarness();

describe('http_fetch (chromium)', () => {
  let page;
  let server;
  before(async () => {
    server = h.servers.plain;
    page = await h.openHarness(server);
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
    const tcpBefore = h.canary.count();
    const r = await call({ url: `${server.url}/api/redirect-private` });
    const m = await call({ url: `${server.url}/api/redirect-metadata` });
    await new Promise((done) => setTimeout(done, 300));
    for (const x of [r, m]) {
      assert.equal(x.ok, true);
      assert.equal(x.value.redirected, true);
      assert.equal(x.value.followed, false);
      assert.match(x.value.note, /not followed/);
    }
    assert.equal(h.canary.count() - tcpBefore, 0);
    assert.equal(server.hits.includes('/from-redirect'), false);
    report({ test: 'D9-redirect', redirects_followed_to_denied: h.canary.count() - tcpBefore });
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
    const iso = await h.openHarness(h.servers.isolated);
    try {
      const r = await iso.evaluate(async (origin) => {
        const reg = T.registry.createRegistry();
        reg.registerTool(T.http.httpFetchTool({ policy: { allowHosts: [new URL(origin).host] } }));
        return reg.callTool('http_fetch', { url: `${origin}/api/small` }, { session: 's', callId: 'c' });
      }, h.servers.isolated.url);
      assert.equal(r.value.body, '{"hello":"world"}');
    } finally {
      await iso.close();
    }
  });
});

