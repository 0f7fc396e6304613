// Keys: sessions run with an API key (through the API and typed into the playground), including a provider that echoes the key back in a 401
// error and in an SSE error event (as real providers do: "Incorrect API key provided: sk-…").
// Afterwards the key must appear 0 times in IndexedDB, localStorage, exports, errors and
// outcomes, console output, and any request except the provider's auth header.
import crypto from 'node:crypto';
import { launchBrowser } from '../e2e/support/browser.mjs';
import { scriptedOpenAi } from '../e2e/support/scripted_openai.mjs';
import { openPlayground } from '../e2e/support/playground.mjs';
import { drillPage, runInPage } from './page.mjs';

const count = (text, key) => String(text).split(key).length - 1;

export async function keysDrill({ site, figures }) {
  const key = `sk-drill-${crypto.randomBytes(12).toString('hex')}`;
  const queue = [
    { calls: [{ id: 'w', name: 'vfs', args: { op: 'write', path: '/k.txt', content: 'no key here' } }] },
    { calls: [{ id: 'e', name: 'effect', args: { amount: 1 } }] },
    { text: 'done' },
    { status: 401, body: { error: { message: `Incorrect API key provided: ${key}. You can find your API key at https://example.invalid.`, type: 'invalid_request_error', code: 'invalid_api_key' } } },
    { sseError: { message: `rate limited for key ${key}`, type: 'invalid_request_error' } },
    { status: 400, body: { error: { message: `bad request (key ${key.slice(0, 12)}…${key.slice(-4)} and full ${key})` } } },
  ];
  const mock = await scriptedOpenAi({ respond: () => queue.shift() ?? { text: 'done' } });
  const browser = await launchBrowser();
  try {
    const { context, page } = await drillPage(browser, site, mock.origin);
    const consoleText = [];
    page.on('console', (m) => consoleText.push(m.text()));
    page.on('pageerror', (e) => consoleText.push(String(e.stack ?? e)));
    const leaks = { request_outside_auth_header: 0, request_other_origin: 0 };
    context.on('request', (r) => {
      const fromProvider = new URL(r.url()).origin === mock.origin;
      const headers = Object.entries(r.headers()).filter(([name]) => !(fromProvider && name === 'authorization'));
      const n = count(r.url() + JSON.stringify(headers) + (r.postData() ?? ''), key);
      if (fromProvider) leaks.request_outside_auth_header += n;
      else leaks.request_other_origin += n + count(JSON.stringify(r.headers()), key);
    });
    const provider = { kind: 'openai', baseUrl: mock.url, apiKey: key, model: 'drill' };
    const outcomes = [];
    for (const session of ['keys-1', 'keys-401', 'keys-sse', 'keys-400']) {
      const r = await runInPage(page, { session, provider, tools: ['vfs', 'effect'] }, 'write k.txt', { approvals: 'approve' });
      outcomes.push(r);
    }
    // The same key typed into the playground's settings for a run, then a reload.
    const ui = await openPlayground(context, site);
    ui.on('console', (m) => consoleText.push(m.text()));
    await ui.selectOption('[data-testid=provider-kind]', 'openai');
    await ui.fill('[data-testid=base-url]', mock.url);
    await ui.fill('[data-testid=api-key]', key);
    await ui.fill('[data-testid=model-name]', 'drill');
    await ui.fill('[data-testid=task]', 'say done');
    await ui.click('[data-testid=run]');
    await ui.waitForSelector('[data-kind=run_finished]', { timeout: 20_000 });
    await ui.reload();
    await ui.waitForSelector('h1');
    const uiText = await ui.evaluate(() => document.documentElement.outerHTML);
    await ui.close();
    const sent = mock.requests.filter((r) => r.headers.authorization === `Bearer ${key}`).length;
    const stored = await page.evaluate(async () => {
      const dump = [];
      for (const { name } of await indexedDB.databases()) {
        const db = await new Promise((ok, bad) => {
          const r = indexedDB.open(name);
          r.onsuccess = () => ok(r.result);
          r.onerror = () => bad(r.error);
        });
        for (const store of db.objectStoreNames) {
          const rows = await new Promise((ok) => {
            const q = db.transaction(store).objectStore(store).getAll();
            q.onsuccess = () => ok(q.result);
          });
          dump.push(JSON.stringify(rows));
        }
        db.close();
      }
      const exports = [];
      for (const s of await tabloop.listSessions()) {
        const agent = await tabloop.createAgent({ session: s.session });
        exports.push(await agent.exportJsonl());
        agent.close();
      }
      return { idb: dump.join('\n'), local: JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }), exports: exports.join('\n'), sessions: exports.length };
    });
    const errors = outcomes.map((o) => JSON.stringify([o.end, o.statuses])).join('\n');
    const echoed = outcomes[1].events.find((e) => e.type === 'model_failed');
    figures.add('keys', 'provider requests that carried the key', sent, { min: 5 }, `${stored.sessions} sessions exported (four through the API, one typed into the playground)`);
    figures.add('keys', 'key in IndexedDB', count(stored.idb, key), { eq: 0 });
    figures.add('keys', 'key in localStorage / sessionStorage', count(stored.local, key), { eq: 0 });
    figures.add('keys', 'key in the playground page after a reload', count(uiText, key), { eq: 0 });
    figures.add('keys', 'key in exports', count(stored.exports, key), { eq: 0 });
    figures.add('keys', 'key in errors, statuses and outcomes', count(errors, key), { eq: 0 }, `the 401 that echoed the key was recorded as: ${JSON.stringify(echoed?.error?.message ?? echoed ?? null).slice(0, 110)}`);
    figures.add('keys', 'key in console output', consoleText.reduce((n, t) => n + count(t, key), 0), { eq: 0 });
    figures.add('keys', 'key in provider requests outside the auth header', leaks.request_outside_auth_header, { eq: 0 });
    figures.add('keys', 'key in requests to other origins', leaks.request_other_origin, { eq: 0 });
    await context.close();
  } finally {
    await browser.close();
    await mock.close();
  }
}
