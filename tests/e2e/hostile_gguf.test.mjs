// The hostile-GGUF corpus in the browser (scripts/hostile_gguf.py writes it into
// target/hostile-gguf/): a valid model is loaded first and answers; then each hostile file is
// loaded as a page loads a model from a URL, on the tabloop engine. Each must end in an error that
// names what is wrong, within a time limit, with the page alive, and the valid model must still
// answer afterwards. The files the engine refuses as models it does not run are loaded once more
// the default way, where the page hands them to wllama: whatever wllama makes of them, the page
// must live and the valid model still answer.
// The renderer's peak resident memory (VmHWM, which covers the page and its workers) is
// reported, and must stay under a bound.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from './support/browser.mjs';
import { serveStatic } from './support/server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
const CORPUS = path.join(REPO, 'target/hostile-gguf');
const PAGE = path.join(HERE, 'pages/local-model.html');
const ISOLATION = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin',
};
const PER_FILE_MS = 20_000;
const PEAK_BOUND_BYTES = 1536 * 1024 * 1024;
const REQUEST = { messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 3 };

let browser;
let server;

function renderers() {
  const out = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.includes('--type=renderer')) out.push(pid);
    } catch {
      // gone
    }
  }
  return out;
}

function peakKb(pids) {
  let peak = 0;
  for (const pid of pids) {
    try {
      const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
      if (m) peak = Math.max(peak, Number(m[1]));
    } catch {
      // gone
    }
  }
  return peak;
}

before(async () => {
  if (!fs.existsSync(path.join(CORPUS, 'manifest.json'))) {
    throw new Error('target/hostile-gguf is missing: run scripts/synthetic-models.sh (it writes the corpus)');
  }
  const html = fs.readFileSync(PAGE);
  const routes = {
    '/local-test.html': (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...ISOLATION });
      res.end(html);
    },
  };
  for (const file of fs.readdirSync(CORPUS).filter((f) => f.endsWith('.gguf'))) {
    routes[`/hostile/${file}`] = (req, res) => {
      const bytes = fs.readFileSync(path.join(CORPUS, file));
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length, ...ISOLATION });
      res.end(bytes);
    };
  }
  server = await serveStatic(path.join(REPO, 'www'), { isolated: true, routes });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('every hostile GGUF ends in a clear error; the page lives and the previous model still answers', { timeout: 900_000 }, async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(CORPUS, 'manifest.json'), 'utf8'));
  assert.ok(manifest.files.length >= 30, `${manifest.files.length} files`);
  const before = new Set(renderers());
  const context = await browser.newContext();
  const page = await context.newPage();
  const crashes = [];
  page.on('crash', () => crashes.push('page crashed'));
  page.on('pageerror', (e) => crashes.push(`pageerror: ${e.message}`));
  await page.goto(`${server.url}/local-test.html`);
  await page.waitForFunction(() => window.tabloopLocalReady === true, null, { timeout: 20_000 });
  const ours = renderers().filter((p) => !before.has(p));

  const answer = () => page.evaluate(async (request) => {
    const out = await window.previous.complete(request, {});
    return out.usage.output_tokens;
  }, REQUEST);
  await page.evaluate(async () => {
    window.previous = await window.tabloopLocal.loadLocalModel({ url: '/hostile/valid.gguf', engine: 'tabloop', threads: 1, store: 'none' });
  });
  assert.ok((await answer()) > 0, 'the valid model answers');

  const outcomes = [];
  const runs = [
    ...manifest.files.map((f) => ({ ...f, engine: 'tabloop' })),
    ...manifest.files.filter((f) => f.expect.includes('does not run')).map((f) => ({ ...f, engine: 'auto', anyOutcome: true })),
  ];
  for (const entry of runs) {
    const started = Date.now();
    const result = await Promise.race([
      page.evaluate(async ({ url, engine }) => {
        const notes = [];
        try {
          const m = await window.tabloopLocal.loadLocalModel({
            url, engine, threads: 1, store: 'none', onProgress: (p) => { if (p.note) notes.push(p.note); },
          });
          // A model another runtime took: it must answer or refuse, not hang.
          const reply = await m.complete({ messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 2 }, {})
            .then((out) => `answered (${out.usage?.output_tokens} tokens)`, (e) => `refused: ${e?.message ?? e}`);
          await m.unload?.();
          return { loaded: true, notes, reply };
        } catch (e) {
          return { loaded: false, error: String(e?.message ?? e), notes };
        }
      }, { url: `/hostile/${entry.file}`, engine: entry.engine }),
      new Promise((resolve) => setTimeout(() => resolve({ hang: true }), PER_FILE_MS)),
    ]);
    const ms = Date.now() - started;
    const alive = await page.evaluate(() => 1 + 1).catch(() => 0);
    const answered = alive === 2 ? await answer().catch((e) => `no answer: ${e.message}`) : 'page dead';
    outcomes.push({ file: entry.file, engine: entry.engine, anyOutcome: !!entry.anyOutcome, ms, ...result, answered, expect: entry.expect });
    console.log(`${entry.file} (${entry.engine}): ${ms} ms ${result.hang ? 'HANG' : result.loaded ? 'LOADED' : JSON.stringify(result.error).slice(0, 160)}`);
  }
  const peak = peakKb(ours) * 1024;
  await context.close();
  const problems = outcomes.flatMap((o) => {
    const p = [];
    if (o.hang) p.push(`${o.file}: no answer within ${PER_FILE_MS} ms`);
    if (o.loaded && !o.anyOutcome) p.push(`${o.file}: loaded`);
    // What wllama takes and then cannot run, it refuses with the engine's reason beside its own.
    if (o.loaded && o.reply?.startsWith('refused') && !o.reply.includes('does not run this model')) p.push(`${o.file}: unclear refusal "${o.reply}"`);
    const named = o.error && o.expect.split('|').some((x) => o.error.toLowerCase().includes(x.toLowerCase()));
    if (!o.hang && !o.loaded && !o.anyOutcome && !named) p.push(`${o.file}: "${o.error}" does not say "${o.expect}"`);
    if (typeof o.answered !== 'number' || o.answered <= 0) p.push(`${o.file}: the previous model ${o.answered}`);
    return p;
  });
  const figures = {
    files: manifest.files.length,
    loads: outcomes.length,
    engine_errors: outcomes.filter((o) => o.error && o.engine === 'tabloop').length,
    handed_to_wllama: outcomes.filter((o) => o.engine === 'auto').map((o) => `${o.file}: ${o.loaded ? `loaded, ${o.reply}` : o.error}`),
    hangs: outcomes.filter((o) => o.hang).length,
    page_crashes: crashes.length,
    previous_model_answered: outcomes.filter((o) => typeof o.answered === 'number' && o.answered > 0).length,
    slowest_ms: Math.max(...outcomes.map((o) => o.ms)),
    renderer_peak_rss_mb: Math.round(peak / 1048576),
  };
  console.log(JSON.stringify({ hostile_gguf_figures: figures }));
  fs.mkdirSync(path.join(REPO, 'target/hostile-gguf-result'), { recursive: true });
  fs.writeFileSync(path.join(REPO, 'target/hostile-gguf-result/figures.json'), JSON.stringify({ figures, outcomes }, null, 1));
  assert.deepEqual(crashes, []);
  assert.deepEqual(problems, []);
  assert.ok(peak > 0 && peak < PEAK_BOUND_BYTES, `renderer peak ${figures.renderer_peak_rss_mb} MB`);
});
