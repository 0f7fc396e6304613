// Where the open of a 10,000-event session spends its time, in headless Chromium on the release
// build: a timeline of the IndexedDB requests, transactions and Web Lock requests the open makes
// (from the page's own prototypes), the phases createAgent and the first persisted record end,
// and a CPU profile's heaviest functions. Prints figures; asserts nothing.
//   TABLOOP_DIST=<dist> node benches/browser/open_profile.mjs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../tests/e2e/support/server.mjs';
import { launchBrowser } from '../../tests/e2e/support/browser.mjs';
import { scriptedOpenAi } from '../../tests/e2e/support/scripted_openai.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-profile-'));
fs.symlinkSync(path.resolve(process.env.TABLOOP_DIST ?? path.join(repo, 'dist')), path.join(root, 'tabloop'));
fs.copyFileSync(path.join(repo, 'benches/browser/sessions.html'), path.join(root, 'sessions.html'));
const RUNS = Number(process.env.RUNS ?? 3);

// Wraps IndexedDB and Web Locks in the page so each request logs when it was made and how long
// it took to answer, relative to `window.__t0`.
function instrument() {
  const log = [];
  window.__log = log;
  const at = () => performance.now() - (window.__t0 ?? 0);
  for (const name of ['get', 'getAll', 'put']) {
    const orig = IDBObjectStore.prototype[name];
    IDBObjectStore.prototype[name] = function (...args) {
      const request = orig.apply(this, args);
      const start = at();
      const store = this.name;
      request.addEventListener('success', () => {
        const size = name === 'put' ? JSON.stringify(args[0]).length : JSON.stringify(request.result ?? null).length;
        log.push({ what: `${name} ${store}`, start, took: at() - start, size });
      });
      return request;
    };
  }
  const transaction = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (stores, mode, options) {
    const tx = transaction.call(this, stores, mode, options);
    const start = at();
    tx.addEventListener('complete', () => log.push({ what: `tx ${[].concat(stores).join('+')} ${mode}${options?.durability ? ' ' + options.durability : ''}`, start, took: at() - start }));
    return tx;
  };
  const open = indexedDB.open.bind(indexedDB);
  indexedDB.open = (...args) => {
    const request = open(...args);
    const start = at();
    request.addEventListener('success', () => log.push({ what: 'indexedDB.open', start, took: at() - start }));
    return request;
  };
  const request = navigator.locks.request.bind(navigator.locks);
  navigator.locks.request = (...args) => {
    const start = at();
    const callback = args[args.length - 1];
    args[args.length - 1] = (lock) => {
      log.push({ what: `lock ${args[0]} ${lock ? 'granted' : 'not granted'}`, start, took: at() - start });
      return callback(lock);
    };
    return request(...args);
  };
}

const mock = await scriptedOpenAi();
const provider = { kind: 'openai', baseUrl: mock.url, apiKey: 'sk-bench', model: 'scripted' };
const server = await serveStatic(root, { isolated: true });
const browser = await launchBrowser();
try {
  const context = await browser.newContext();
  const setup = await context.newPage();
  await setup.goto(`${server.url}/sessions.html`);
  await setup.waitForFunction(() => window.tabloopReady === true, null, { timeout: 60_000 });
  await setup.evaluate(async () => {
    await tabloop.importSession(tabloop.benchSessionLog(10000, 'bench-big'));
  });
  await setup.close();
  for (let run = 0; run < RUNS; run += 1) {
    mock.script.push({ text: 'done' });
    const page = await context.newPage();
    await page.addInitScript(instrument);
    await page.goto(`${server.url}/sessions.html`);
    await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 60_000 });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    const phases = await page.evaluate(async (provider) => {
      window.__t0 = performance.now();
      window.__log.length = 0;
      const agent = await tabloop.createAgent({ session: 'bench-big', provider });
      const created = performance.now() - window.__t0;
      const recorded = new Promise((resolve) => agent.onEvent((e) => e.type === 'user_message' && resolve(performance.now() - window.__t0)));
      const finished = agent.run('one more');
      const ready = await recorded;
      await finished;
      agent.close();
      // Module scripts fetched during the open (the tool registry is loaded on first use).
      for (const entry of performance.getEntriesByType('resource')) {
        const start = entry.startTime - window.__t0;
        if (start < 0) continue;
        window.__log.push({ what: `fetch ${entry.name.split('/').slice(-2).join('/')}`, start, took: entry.duration });
      }
      return { created, ready, log: window.__log };
    }, provider);
    const { profile } = await cdp.send('Profiler.stop');
    await page.close();
    console.log(`\nrun ${run + 1}: createAgent resolved ${phases.created.toFixed(1)} ms, next task recorded ${phases.ready.toFixed(1)} ms`);
    for (const e of phases.log.sort((a, b) => a.start - b.start)) {
      if (e.start > phases.ready + 5) continue;
      console.log(`  ${e.start.toFixed(1).padStart(7)} +${e.took.toFixed(1).padStart(6)} ms  ${e.what}${e.size ? `  (${e.size} chars)` : ''}`);
    }
    const self = new Map();
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const dt = profile.timeDeltas;
    profile.samples.forEach((id, i) => {
      const n = byId.get(id);
      const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop()}`;
      self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000);
    });
    const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12);
    console.log('  heaviest (self ms):');
    for (const [k, v] of top) console.log(`    ${v.toFixed(1).padStart(7)}  ${k}`);
  }
  await context.close();
} finally {
  await browser.close();
  await server.close();
  await mock.close();
}
