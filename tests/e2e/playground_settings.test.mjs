// The settings form takes effect on a run: a refused value is named beside its field, budget
// and loop-guard values stop a run at the chosen count,
// the fetch allow-list lets http_fetch reach a host (and without it the request is never sent),
// a price typed for a model is that model's (kept across a reload), charged on its runs, and the
// storage line follows what the site stores while the settings are open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { outDir } from './support/site.mjs';
import { useMock, usePlaygroundSuite, withScriptedPlayground } from './support/playground.mjs';

const suite = usePlaygroundSuite();

async function withPage(fn) {
  await withScriptedPlayground(suite, async (page, mock) => {
    await page.click('details.run-settings > summary');
    await fn(page, mock);
  }, { viewport: { width: 1280, height: 900 } });
}

/** Opens a folded panel as a person would (a click on its summary), if it is folded. */
async function unfold(page, details) {
  if (!(await page.$eval(details, (d) => d.open))) await page.click(`${details} > summary`);
}

async function run(page, task) {
  await page.fill('[data-testid=task]', task);
  await page.click('[data-testid=run]');
  await page.waitForSelector('[data-kind=run_finished]', { timeout: 20_000 });
}

/** A loopback server answering every request with a line of text (CORS open); counts requests. */
async function textServer() {
  const hits = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url);
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' });
    res.end('hello from the allowed host');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { hits, host: `127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

test('loop-guard thresholds from the form stop a repeating run at the chosen count', async () => {
  await withPage(async (page, mock) => {
    const same = { calls: [{ id: 'l', name: 'vfs', args: { op: 'list', path: '/' } }] };
    for (let i = 0; i < 6; i++) mock.script.push(structuredClone(same));
    mock.script.push({ text: 'gave up' });
    // A warning that would not come before its stop is named at once.
    await page.fill('[data-testid=guard-repeat-diagnose]', '6');
    await page.waitForSelector('[data-testid=guard-error]');
    assert.match(await page.textContent('[data-testid=guard-error]'), /repeatDiagnose \(6\) must be .* below guard\.repeatStop \(5\)/);
    await page.fill('[data-testid=guard-repeat-diagnose]', '1');
    await page.fill('[data-testid=guard-repeat-stop]', '2');
    assert.equal(await page.locator('[data-testid=guard-error]').count(), 0);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(outDir, 'state-settings-run.png'), fullPage: true });
    await run(page, 'List the root again and again');
    assert.match(await page.textContent('[data-testid=stop-reason]'), /no.progress/i);
    // The first repeat asks for a forced reflection (one request), the second stops the run; the
    // default (stop at 5) would have called the model six times before stopping.
    assert.equal(mock.requests.length, 3, 'stopped after the second identical observation');
    assert.equal(mock.requests.filter((r) => r.body.tools?.length === 1 && r.body.tools[0].function?.name === 'reflect').length, 1, 'one reflection was asked');
  });
});

test('a refused budget or guard value is named beside its field and the last good one is used', async () => {
  await withPage(async (page, mock) => {
    const fieldError = (id) => page.locator(`[data-testid=${id}] + [role=alert]`);
    await page.fill('[data-testid=budget-tool-calls]', 'two');
    assert.match(await fieldError('budget-tool-calls').textContent(), /positive whole number, not "two"/);
    await page.fill('[data-testid=guard-repeat-stop]', '-1');
    assert.match(await fieldError('guard-repeat-stop').textContent(), /-1/);
    await page.fill('[data-testid=guard-repeat-stop]', '');
    assert.equal(await fieldError('guard-repeat-stop').count(), 0, 'an empty field means the default');
    await page.fill('[data-testid=budget-tool-calls]', '1');
    assert.equal(await fieldError('budget-tool-calls').count(), 0);
    // The accepted cap holds the run to one tool call.
    mock.script.push({ calls: [{ id: 'a', name: 'vfs', args: { op: 'list', path: '/' } }] });
    mock.script.push({ calls: [{ id: 'b', name: 'vfs', args: { op: 'list', path: '/tmp' } }] });
    mock.script.push({ text: 'unreachable' });
    await run(page, 'List two folders');
    assert.match(await page.textContent('[data-testid=stop-reason]'), /budget/i);
  });
});

test('the fetch allow-list lets http_fetch reach a host; without it nothing is sent', async () => {
  const target = await textServer();
  try {
    await withPage(async (page, mock) => {
      await page.selectOption('[data-testid=permission-http_fetch]', 'allow');
      await page.fill('[data-testid=allow-hosts]', `https://x.test/`);
      assert.match(await page.textContent('details.run-settings'), /is not a host: give the host alone/);
      await page.fill('[data-testid=allow-hosts]', `example.org, ${target.host}`);
      const fetch = { calls: [{ id: 'f', name: 'http_fetch', args: { url: `http://${target.host}/page` } }] };
      mock.script.push(structuredClone(fetch), { text: 'fetched' });
      await run(page, 'Fetch the page');
      assert.deepEqual(target.hits, ['/page']);
      assert.match(await page.textContent('[data-testid=timeline]'), /hello from the allowed host/);

      // A new session without the host on the list: refused before any request is made.
      await page.click('[data-testid=new-session]');
      await page.fill('[data-testid=allow-hosts]', 'example.org');
      mock.script.push(structuredClone(fetch), { text: 'refused' });
      await run(page, 'Fetch the page again');
      assert.deepEqual(target.hits, ['/page'], 'no request without the allow-list entry');
      assert.match(await page.textContent('[data-testid=timeline]'), /request not sent: host 127\.0\.0\.1 is a .* address/);
    });
  } finally {
    await target.close();
  }
});

test('a price typed for a model is charged on its runs and kept for that model only', async () => {
  await withPage(async (page, mock) => {
    assert.match(await page.textContent('[data-testid=price-model]'), /^scripted/);
    await page.fill('[data-testid=price-input]', '1000');
    await page.fill('[data-testid=price-output]', '2000');
    // A refused price is named beside its own field; the last good one is what is charged.
    const fieldError = (id) => page.locator(`[data-testid=${id}] + [role=alert]`);
    await page.fill('[data-testid=price-output]', 'free');
    assert.match(await fieldError('price-output').textContent(), /not "free"/);
    assert.equal(await fieldError('price-input').count(), 0);
    mock.script.push({ text: 'priced' });
    await run(page, 'One priced step');
    // 20 input tokens at $1000/Mtok + 5 output tokens at $2000/Mtok.
    assert.match(await page.textContent('[data-testid=status-cost]'), /\$0\.0300/);

    // Another model has its own (empty) price; the first keeps its own.
    await unfold(page, 'details.settings');
    await unfold(page, 'details.run-settings');
    await page.fill('[data-testid=model-name]', 'gpt-4o');
    await page.waitForFunction(() => document.querySelector('[data-testid=price-model]')?.textContent.startsWith('gpt-4o'));
    assert.equal(await page.inputValue('[data-testid=price-input]'), '');
    assert.match(await page.textContent('[data-testid=price-model]'), /built-in price: 2\.5 in \/ 10 out/);
    await page.fill('[data-testid=model-name]', 'scripted');
    await page.waitForFunction(() => document.querySelector('[data-testid=price-model]')?.textContent.startsWith('scripted'));
    assert.equal(await page.inputValue('[data-testid=price-input]'), '1000');

    // Kept across a reload, for the same model.
    await page.reload();
    await page.waitForSelector('h1');
    await unfold(page, 'details.settings');
    await useMock(page, mock);
    await unfold(page, 'details.run-settings');
    assert.equal(await page.inputValue('[data-testid=price-input]'), '1000');
    assert.equal(await page.inputValue('[data-testid=price-output]'), '2000');
  });
});

test('a task whose session cannot open stays in the form, with the settings open where the gap is', async () => {
  await withPage(async (page, mock) => {
    // The model name left out: the provider cannot be built, nothing is recorded.
    await page.fill('[data-testid=model-name]', '');
    const task = 'Summarise the notes I wrote yesterday into three bullet points.';
    await page.fill('[data-testid=task]', task);
    await page.click('[data-testid=run]');
    await page.waitForSelector('[data-testid=error]');
    assert.match(await page.textContent('[data-testid=error]'), /needs a model/);
    assert.equal(await page.inputValue('[data-testid=task]'), task, 'the task is back in the form');
    assert.equal(await page.$eval('details.settings', (d) => d.open), true, 'the settings are open');
    // With the model named, the same task runs as it is.
    mock.script.push({ text: 'Done.' });
    await page.fill('[data-testid=model-name]', 'scripted');
    await page.click('[data-testid=run]');
    await page.waitForSelector('[data-kind=run_finished]', { timeout: 20_000 });
    assert.equal(mock.requests.length, 1);
    assert.equal(await page.inputValue('[data-testid=task]'), '', 'the form is empty once the task is sent');
  });
});

test('a key the provider refused is corrected in the settings and the same session runs again with it', async () => {
  await withScriptedPlayground(suite, async (page, mock) => {
    mock.script.push(
      { status: 401, body: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } } },
      { text: 'Hello, team!' },
    );
    await page.fill('[data-testid=task]', 'Say hello to the team in one sentence');
    await page.click('[data-testid=run]');
    await page.waitForSelector('[data-kind=run_finished]', { timeout: 20_000 });
    assert.match(await page.textContent('[data-testid=timeline]'), /The provider refused the API key \(HTTP 401\): enter the right one under Model & budget/);
    await page.click('text=Model & budget');
    await page.fill('[data-testid=api-key]', 'sk-the-right-one');
    await page.fill('[data-testid=task]', 'Say hello to the team in one sentence');
    await page.click('[data-testid=run]');
    await page.waitForFunction(() => document.querySelectorAll('[data-kind=run_finished]').length === 2, null, { timeout: 20_000 });
    assert.deepEqual(mock.requests.map((r) => r.headers.authorization), ['Bearer sk-ui-SECRET', 'Bearer sk-the-right-one']);
    assert.equal(await page.locator('[data-testid=session-item]').count(), 1, 'the same session ran again');
    assert.match(await page.locator('[data-testid=stop-reason]').last().textContent(), /completed/i);
  });
});

test('a provider that keeps failing pauses the run with one message and Retry carries on', async () => {
  let up = false;
  const respond = () => (up ? { text: 'Back and answering.' } : { status: 500 });
  await withScriptedPlayground(suite, async (page) => {
    await page.fill('[data-testid=task]', 'Say hello to the team in one sentence');
    await page.click('[data-testid=run]');
    const banner = page.locator('[data-testid=provider-error]');
    await banner.waitFor({ timeout: 30_000 });
    const text = await banner.textContent();
    assert.match(text, /^The model provider is unreachable \(The model call failed: HTTP 500/);
    assert.equal(text.split('nothing is lost').length, 2, `said once: ${text}`);
    assert.equal(await page.textContent('[data-testid=status-phase]'), 'paused: retry when the network or provider is back');
    await page.waitForFunction(() => /^paused ·/.test(document.querySelector('[data-testid=session-item] .session-meta')?.textContent ?? ''));
    up = true;
    await page.click('[data-testid=retry-provider]');
    await page.waitForSelector('[data-kind=run_finished]', { timeout: 20_000 });
    assert.match(await page.textContent('[data-testid=stop-reason]'), /completed/i);
    assert.equal(await banner.count(), 0);
  }, {}, { respond });
});

test('the storage line in the open settings follows what the site stores, with no reopening', async () => {
  await withScriptedPlayground(suite, async (page) => {
    await unfold(page, 'details.settings');
    /** The line's usage in MiB, or null while it is not read yet. */
    const usedMiB = () =>
      page.evaluate(() => {
        const m = /([\d.]+) (KiB|MiB|GiB) used of /.exec(document.querySelector('[data-testid=storage-use]')?.textContent ?? '');
        return m ? Number(m[1]) * { KiB: 1 / 1024, MiB: 1, GiB: 1024 }[m[2]] : null;
      });
    await page.waitForFunction(() => /used of /.test(document.querySelector('[data-testid=storage-use]')?.textContent ?? ''));
    const before = await usedMiB();
    // 24 MiB lands in the Cache API while the settings stay open.
    await page.evaluate(async () => {
      const cache = await caches.open('storage-line-test');
      await cache.put('/big', new Response(new Uint8Array(24 * 1024 * 1024)));
    });
    const deadline = Date.now() + 20_000;
    let after = before;
    while (after < before + 20 && Date.now() < deadline) {
      await page.waitForTimeout(500);
      after = await usedMiB();
    }
    assert.ok(after >= before + 20, `the line went from ${before} MiB to ${after} MiB`);
  });
});
