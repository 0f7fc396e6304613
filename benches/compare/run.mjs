// The side-by-side benchmark: tabloop and the Vercel AI SDK in ONE headless Chromium page, so
// machine noise falls on both alike. Writes the figures as JSON; scripts/bench.sh turns them
// into BENCHMARKS.md (benches/compare/report.mjs). Prints figures; asserts nothing, except
// that each loop really ran the steps it was asked for (a bench that silently ran 1 step would
// report nonsense).
//   node benches/compare/run.mjs --out FILE [--smoke] [--max-steps N] [--only harness,loopback,disk,parse,sessions,tti]
// Needs pkg/ (scripts/build-package.sh), dist/ (trunk build --release) and the AI SDK bundle
// (node benches/compare/build.mjs target/bench/aisdk).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../tests/e2e/support/server.mjs';
import { launchBrowser } from '../../tests/e2e/support/browser.mjs';
import { killChromium, newProfile, removeProfile, startChromium } from '../../tests/e2e/support/persistent.mjs';
import { measureSessions, median } from '../browser/sessions.mjs';
import { loopbackMock } from './loopback.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const smoke = flag('--smoke');
const outFile = path.resolve(option('--out', path.join(repo, 'target/bench/result.json')));
const pkg = path.resolve(option('--pkg', path.join(repo, 'pkg')));
const dist = path.resolve(option('--dist', path.join(repo, 'dist')));
const aisdk = path.resolve(option('--aisdk', path.join(repo, 'target/bench/aisdk')));
// --only harness,loopback (while working on one figure): skips the other sections (and dist/
// when none of them needs it).
const only = option('--only', null)?.split(',') ?? null;
const wanted = (section) => only === null || only.includes(section);

// Steps per run and repetitions per size (the median is reported).
// --max-steps N leaves out the longer runs (10,000 steps take minutes per loop on 2 cores).
const maxSteps = Number(option('--max-steps', Infinity));
// 1,000 steps, the size the goals are set at, gets the most repetitions: on a shared machine one
// run's ratio moves by a tenth from one run to the next.
const HARNESS = (smoke ? [[10, 1]] : [[10, 5], [100, 3], [1000, 7], [10000, 1]]).filter(([n]) => n <= maxSteps);
const LOOPBACK = (smoke ? [[10, 1]] : [[10, 5], [100, 3], [1000, 5]]).filter(([n]) => n <= maxSteps);
// At this size each repetition also measures the commit a step waits for, right after its runs:
// the storage floor beside the step it bounds, not minutes later.
const FLOOR_AT = smoke ? 10 : 1000;
// The harness once more in a browser on a profile on disk (see onDisk).
const DISK_STEPS = smoke ? 10 : Math.min(1000, maxSteps);
const DISK_REPS = smoke ? 1 : 3;
const SESSION_SIZES = smoke ? [1000] : [1000, 10000];
const SESSION_SAMPLES = smoke ? 1 : 5;
const TTI_SAMPLES = smoke ? 1 : 5;

// The site build (dist/) serves the sections that need the diagnostics, and the playground.
const needsSite = ['parse', 'sessions', 'tti'].some(wanted);
const needed = [['pkg/', pkg, 'tabloop_bg.wasm'], ['the AI SDK bundle', aisdk, 'aisdk.js'], ...(needsSite ? [['dist/', dist, 'tabloop_bg.wasm']] : [])];
for (const [what, dir, file] of needed) {
  if (!fs.existsSync(path.join(dir, file))) throw new Error(`${what} is missing (${path.join(dir, file)}): run scripts/bench.sh, which builds it`);
}

const log = (...xs) => console.log('[bench]', ...xs);
const gz = (file) => zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
const jsFiles = (dir) => fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.js')).map((f) => path.join(dir, f));

function bundle() {
  const glue = [path.join(pkg, 'index.js'), path.join(pkg, 'tabloop.js'), ...jsFiles(path.join(pkg, 'snippets'))];
  const all = jsFiles(pkg);
  const sum = (files, f) => files.reduce((n, file) => n + f(file), 0);
  const size = (file) => fs.statSync(file).size;
  const wasm = path.join(pkg, 'tabloop_bg.wasm');
  const siteWasm = path.join(dist, 'tabloop_bg.wasm');
  const site = fs.existsSync(siteWasm) ? { raw: size(siteWasm), gzip: gz(siteWasm) } : null;
  return {
    library_wasm: { raw: size(wasm), gzip: gz(wasm) },
    library_glue_js: { raw: sum(glue, size), gzip: sum(glue, gz), files: glue.length },
    library_all_js: { raw: sum(all, size), gzip: sum(all, gz), files: all.length },
    library_wasm_plus_glue_gzip: gz(wasm) + sum(glue, gz),
    site_wasm: site,
    aisdk_bundle: { raw: size(path.join(aisdk, 'aisdk_app.js')), gzip: gz(path.join(aisdk, 'aisdk_app.js')) },
  };
}

function siteRoot() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-compare-'));
  fs.symlinkSync(pkg, path.join(root, 'tabloop'));
  fs.symlinkSync(dist, path.join(root, 'site'));
  fs.symlinkSync(aisdk, path.join(root, 'aisdk'));
  for (const file of ['compare.html', 'compare_tabloop.js']) fs.copyFileSync(path.join(repo, 'benches/compare', file), path.join(root, file));
  fs.copyFileSync(path.join(repo, 'benches/browser/sessions.html'), path.join(root, 'sessions.html'));
  return root;
}

function check(name, result, steps) {
  if (result.steps !== steps) throw new Error(`${name}: ran ${result.steps} steps, not ${steps} (${JSON.stringify({ ...result, perStep: undefined })})`);
  if (result.text !== 'done') throw new Error(`${name}: final text ${JSON.stringify(result.text)}`);
}

// Per step figures of the IndexedDB counters: the mean over steps [from, to) of the run.
function window(perStep, from, to) {
  const slice = perStep.slice(from, to);
  const mean = (key) => slice.reduce((n, s) => n + s[key], 0) / Math.max(1, slice.length);
  return { from: from + 1, to: Math.min(to, perStep.length), bytes: mean('bytes'), puts: mean('puts'), transactions: mean('transactions'), writes: mean('writes'), max_bytes: Math.max(...slice.map((s) => s.bytes)) };
}

/**
 * How long an idle core of this (virtual) machine polls before it halts, where Linux's
 * haltpoll idle driver says (null elsewhere): a step that waits for a commit wakes threads that
 * idled, and with no polling each wake is a halted core's.
 */
function haltPollNs() {
  try {
    return Number(fs.readFileSync('/sys/module/haltpoll/parameters/guest_halt_poll_ns', 'utf8').trim());
  } catch {
    return null;
  }
}

/** Each run of `a` over the run of `b` in the same repetition. */
function paired(a, b) {
  return a.length === b.length ? a.map((x, i) => x / b[i]) : [];
}

/**
 * The storage floor in the page, the median of `n` awaited commits of each kind asked for:
 * `strict` and `relaxed`, one small record in its own read-write transaction (what a step waits
 * for before a tool that is not safe to run twice, with and without the flush to disk); and
 * `step_strict`, the commit a harness step actually waits for, shaped as tabloop writes it (a
 * row of a step's records the harness added mid-run, the records store in scope, strict). A
 * kind that needs that row is null until the page has seen one.
 */
function commitFloor(page, n, kinds) {
  return page.evaluate(async ([n, kinds]) => {
    const name = `commit-floor-${Math.random()}`;
    const db = await new Promise((resolve, reject) => {
      const open = indexedDB.open(name, 1);
      open.onupgradeneeded = () => {
        open.result.createObjectStore('r', { keyPath: 'seq' });
        open.result.createObjectStore('records', { keyPath: ['session', 'seq'] });
        open.result.createObjectStore('sessions', { keyPath: 'session' });
      };
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const row = window.stepRow ?? null;
    const commit = (seq, durability, stepShaped) => new Promise((resolve, reject) => {
      const tx = stepShaped
        ? db.transaction(['records'], 'readwrite', { durability })
        : db.transaction(['r'], 'readwrite', { durability });
      if (stepShaped) tx.objectStore('records').add({ ...row, session: 'floor', seq });
      else tx.objectStore('r').put({ seq, json: '{"seq":0,"event":{"type":"tool_call_started"}}' });
      tx.commit();
      tx.oncomplete = resolve;
      tx.onabort = () => reject(tx.error);
    });
    const out = {};
    let seq = 0;
    for (const kind of kinds) {
      const stepShaped = kind === 'step_strict';
      if (stepShaped && row === null) {
        out[`${kind}_ms`] = null;
        continue;
      }
      const times = [];
      for (let i = 0; i < n; i += 1) {
        const t0 = performance.now();
        await commit(seq++, stepShaped ? 'strict' : kind, stepShaped);
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      out[`${kind}_ms`] = times[Math.floor(times.length / 2)];
    }
    out.step_row_bytes = row ? JSON.stringify(row).length : null;
    db.close();
    indexedDB.deleteDatabase(name);
    return out;
  }, [n, kinds]);
}

/**
 * One harness run of `who` (aisdk, tabloop, tabloop_idempotent or tabloop_waiting) at `steps`
 * steps in `page`, repetition `r`, checked to have run every step (and tabloop's to have
 * persisted every event). `countBytes`: the page also serialises every value written to count
 * its bytes (slower: only on the run whose growth is reported).
 */
async function harnessRun(page, who, steps, r, countBytes) {
  const result = await page.evaluate(({ who, steps, r, countBytes }) => (who === 'aisdk'
    ? window.aisdk.aiSdkHarness(steps)
    : (window.countIdbBytes(countBytes), window.tabloopHarness(steps, { idempotent: who !== 'tabloop', waitsForEcho: who === 'tabloop_waiting', tag: `-${r}` }))), { who, steps, r, countBytes });
  check(`${who} harness`, result, steps);
  if (who !== 'aisdk' && result.persisted !== result.events) throw new Error(`${who}: ${result.events} events but ${result.persisted} persisted`);
  return result;
}

/**
 * The harness at one size again, in a browser on a profile on disk: what a person's browser
 * has (the side-by-side page runs in a fresh context, whose IndexedDB lives in memory). There a
 * strict commit is flushed to the disk; a relaxed one is handed to the operating system.
 */
async function onDisk(page) {
  const runs = { tabloop: [], tabloop_idempotent: [], aisdk: [] };
  for (let r = 0; r < DISK_REPS; r += 1) {
    const kinds = Object.keys(runs);
    for (const who of r % 2 === 0 ? kinds : [...kinds].reverse()) {
      runs[who].push((await harnessRun(page, who, DISK_STEPS, r, false)).ms / DISK_STEPS);
    }
  }
  const floor = await commitFloor(page, smoke ? 5 : 200, ['strict', 'relaxed', 'step_strict']);
  const row = { steps: DISK_STEPS, tabloop_ms_per_step: median(runs.tabloop), tabloop_idempotent_ms_per_step: median(runs.tabloop_idempotent), aisdk_ms_per_step: median(runs.aisdk), samples: runs, paired_ratios: paired(runs.tabloop, runs.aisdk), commit_floor: floor };
  log(`on disk, harness ${DISK_STEPS} steps: tabloop ${row.tabloop_ms_per_step.toFixed(3)} ms/step (idempotent tool ${row.tabloop_idempotent_ms_per_step.toFixed(3)}), AI SDK ${row.aisdk_ms_per_step.toFixed(3)} ms/step; one awaited commit: strict ${floor.strict_ms.toFixed(2)} ms, relaxed ${floor.relaxed_ms.toFixed(2)} ms`);
  return row;
}

async function sideBySide(openPage, mock) {
  let page = await openPage();
  const harness = [];
  for (const [steps, reps] of wanted('harness') ? HARNESS : []) {
    const runs = { tabloop: [], tabloop_idempotent: [], aisdk: [] };
    if (steps === FLOOR_AT) runs.tabloop_waiting = [];
    const stepCommits = [];
    const echoes = [];
    // A loop whose page crashed at this size (out of memory): reported as such, not retried.
    const crashed = {};
    let growth = null;
    for (let r = 0; r < reps; r += 1) {
      // Alternate who goes first, so neither always runs on a warmer page.
      const kinds = ['aisdk', 'tabloop', 'tabloop_idempotent', ...(runs.tabloop_waiting ? ['tabloop_waiting'] : [])];
      const order = r % 2 === 0 ? kinds : [...kinds].reverse();
      for (const who of order) {
        if (crashed[who]) continue;
        let result;
        try {
          result = await harnessRun(page, who, steps, r, r === 0 && who === 'tabloop');
        } catch (error) {
          if (!/crashed/i.test(error.message)) throw error;
          crashed[who] = true;
          log(`${who} harness ${steps} steps: the page crashed`);
          page = await openPage();
          continue;
        }
        runs[who].push(result.ms / steps);
        if (who === 'tabloop' && r === 0) {
          const p = result.perStep;
          const marks = [0, 9, 99, 999, 9999].filter((m) => m < p.length);
          growth = { events: result.events, windows: marks.map((m) => window(p, Math.max(0, m - 9), m + 1)), whole: window(p, 0, p.length) };
        }
      }
      if (steps === FLOOR_AT) {
        stepCommits.push((await commitFloor(page, smoke ? 5 : 100, ['step_strict'])).step_strict_ms);
        echoes.push(await page.evaluate((n) => window.echoRoundTrip(n), smoke ? 5 : 100));
      }
    }
    const perStep = (xs) => (xs.length ? median(xs) : null);
    const row = { steps, tabloop_ms_per_step: perStep(runs.tabloop), tabloop_idempotent_ms_per_step: perStep(runs.tabloop_idempotent), aisdk_ms_per_step: perStep(runs.aisdk), samples: runs, paired_ratios: paired(runs.tabloop, runs.aisdk), idb: growth, crashed: Object.keys(crashed) };
    if (stepCommits.length > 0 && stepCommits.every((x) => x != null)) {
      // Per repetition: the idempotent step's work plus the one commit a step whose tool is
      // not idempotent waits for, over the AI SDK's step beside it.
      const floors = runs.tabloop_idempotent.map((idem, i) => idem + stepCommits[i]);
      row.floor = { step_commit_ms: stepCommits, ms_per_step: floors, ratios: paired(floors, runs.aisdk) };
      log(`  commit a step waits for, each repetition: ${stepCommits.map((x) => x.toFixed(3)).join(' / ')} ms; floor over the AI SDK: ${row.floor.ratios.map((x) => x.toFixed(2)).join(' / ')}`);
      if (runs.tabloop_waiting?.length === stepCommits.length) {
        // Per repetition: the idempotent step waiting once for another thread (the echo
        // worker), with the echo's own round trip swapped for the commit's. A step that waits
        // pays more than the wait itself (its work runs slower after the main thread idled);
        // this floor carries that cost, the one above does not.
        const waitFloors = runs.tabloop_waiting.map((waiting, i) => waiting - echoes[i] + stepCommits[i]);
        row.wait_floor = { echo_ms: echoes, waiting_ms_per_step: runs.tabloop_waiting, ms_per_step: waitFloors, ratios: paired(waitFloors, runs.aisdk) };
        log(`  echo round trip ${echoes.map((x) => x.toFixed(3)).join(' / ')} ms; idempotent step waiting for it ${runs.tabloop_waiting.map((x) => x.toFixed(3)).join(' / ')} ms; wait floor over the AI SDK: ${row.wait_floor.ratios.map((x) => x.toFixed(2)).join(' / ')}`);
      }
    }
    const shown = (x) => (x == null ? 'crashed' : `${x.toFixed(3)} ms/step`);
    log(`harness ${steps} steps: tabloop ${shown(row.tabloop_ms_per_step)} (idempotent tool ${shown(row.tabloop_idempotent_ms_per_step)}), AI SDK ${shown(row.aisdk_ms_per_step)}`);
    harness.push(row);
  }
  const loopback = [];
  for (const [steps, reps] of wanted('loopback') ? LOOPBACK : []) {
    const runs = { tabloop: [], tabloop_idempotent: [], aisdk: [] };
    for (let r = 0; r < reps; r += 1) {
      const order = r % 2 === 0 ? ['aisdk', 'tabloop', 'tabloop_idempotent'] : ['tabloop_idempotent', 'tabloop', 'aisdk'];
      for (const who of order) {
        const url = mock.urlFor(steps);
        const result = await page.evaluate(({ who, steps, url, r }) => (who === 'aisdk'
          ? window.aisdk.aiSdkLoopback(url, steps)
          : (window.countIdbBytes(false), window.tabloopLoopback(url, steps, { idempotent: who === 'tabloop_idempotent', tag: `-${r}` }))), { who, steps, url, r });
        check(`${who} loopback`, result, steps);
        runs[who].push(result.ms / steps);
      }
    }
    const row = { steps, tabloop_ms_per_step: median(runs.tabloop), tabloop_idempotent_ms_per_step: median(runs.tabloop_idempotent), aisdk_ms_per_step: median(runs.aisdk), samples: runs, paired_ratios: paired(runs.tabloop, runs.aisdk) };
    log(`loopback ${steps} steps: tabloop ${row.tabloop_ms_per_step.toFixed(2)} ms/step (idempotent tool ${row.tabloop_idempotent_ms_per_step.toFixed(2)}), AI SDK ${row.aisdk_ms_per_step.toFixed(2)} ms/step`);
    loopback.push(row);
  }
  // The network floor: a bare fetch round trip to the same server.
  const fetchFloor = await page.evaluate(async (url) => {
    const times = [];
    for (let i = 0; i < (window.SMOKE ? 5 : 50); i += 1) {
      const t0 = performance.now();
      const res = await fetch(`${url}/chat/completions`, { method: 'POST', body: '{"messages":[]}', headers: { 'content-type': 'application/json' } });
      await res.text();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  }, mock.urlFor(1));
  log(`bare fetch round trip: ${fetchFloor.toFixed(2)} ms`);
  // The storage floor once more at the end, every kind (see commitFloor).
  const commitFloorAll = await commitFloor(page, smoke ? 5 : 200, ['strict', 'relaxed', 'step_strict']);
  const stepShaped = commitFloorAll.step_strict_ms == null ? '' : `, a step's row (${commitFloorAll.step_row_bytes} B) strict ${commitFloorAll.step_strict_ms.toFixed(2)} ms`;
  log(`one awaited IndexedDB commit: strict ${commitFloorAll.strict_ms.toFixed(2)} ms, relaxed ${commitFloorAll.relaxed_ms.toFixed(2)} ms${stepShaped}`);
  return { harness, loopback, fetch_floor_ms: fetchFloor, commit_floor: commitFloorAll };
}

// Parsing throughput in wasm, timed by the site build's diagnostics (`benchParseStream`: the
// library package leaves the diagnostics out; the parser is the same code).
async function parseInWasm(browser, server) {
  const page = await browser.newPage();
  try {
    await page.goto(`${server.url}/sessions.html?from=site`);
    await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 60_000 });
    return await page.evaluate((smoke) => ({
      wasm_mb_s: [1024, 16384].map((piece) => ({ piece, mb_s: tabloop.benchParseStream(400, piece, smoke ? 3 : 200) })),
    }), smoke);
  } finally {
    await page.close();
  }
}

// Time to interactive of the served playground: navigation start until the task form accepts
// input, on a fresh context (no cache) each time. Taken in the page when the form appears
// (Playwright's waitForSelector polls, at up to 500 ms apart, so reading the clock after it
// returns could add up to half a second).
async function timeToInteractive(browser, server) {
  const site = [];
  const embed = [];
  for (let i = 0; i < TTI_SAMPLES; i += 1) {
    const context = await browser.newContext();
    await context.addInitScript(() => {
      const ready = () => document.querySelector('[data-testid="task"]:not([disabled])');
      new MutationObserver((_, observer) => {
        if (window.interactiveAt === undefined && ready()) {
          window.interactiveAt = performance.now();
          observer.disconnect();
        }
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    const page = await context.newPage();
    await page.goto(`${server.url}/site/index.html`);
    await page.waitForFunction(() => window.interactiveAt !== undefined, null, { timeout: 60_000 });
    site.push(await page.evaluate(() => window.interactiveAt));
    await page.goto(`${server.url}/compare.html`);
    await page.waitForFunction(() => window.benchReady === true, null, { timeout: 60_000 });
    embed.push(await page.evaluate(() => window.tabloopInitMs));
    await context.close();
  }
  return { playground_ms: median(site), playground_samples: site, library_init_ms: median(embed), library_init_samples: embed };
}

/** The side-by-side page in a new tab of `context`, ready to run. */
async function comparePage(context) {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.goto(`${server.url}/compare.html`);
  await page.waitForFunction(() => window.benchReady === true, null, { timeout: 60_000 });
  if (smoke) await page.evaluate(() => (window.SMOKE = true));
  return page;
}

const root = siteRoot();
const server = await serveStatic(root, { isolated: true });
const mock = await loopbackMock();
const browser = await launchBrowser();
const readJson = (file) => (file && fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null);
// scripts/bench-local.sh ends with one JSON line: {"local_model_bench": [...]}.
const localFile = option('--local', null);
const localLine = localFile && fs.existsSync(localFile) ? fs.readFileSync(localFile, 'utf8').split('\n').reverse().find((l) => l.startsWith('{"local_model_bench"')) : null;
const versions = Object.fromEntries(['ai', '@ai-sdk/openai', 'playwright-core'].map((name) => [name, JSON.parse(fs.readFileSync(path.join(repo, 'node_modules', name, 'package.json'), 'utf8')).version]));
const result = {
  smoke,
  when: new Date().toISOString(),
  machine: { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, memory_bytes: os.totalmem(), os: `${os.type()} ${os.release()}`, node: process.version, load_before: os.loadavg(), guest_halt_poll_ns: haltPollNs() },
  versions,
  native: readJson(option('--native', null)),
  local: localLine ? JSON.parse(localLine).local_model_bench : null,
};
try {
  result.bundle = bundle();
  log(`bundle: library wasm ${result.bundle.library_wasm.gzip} B gzip + glue ${result.bundle.library_glue_js.gzip} B; AI SDK ${result.bundle.aisdk_bundle.gzip} B`);
  const context = await browser.newContext();
  // The side-by-side page (opened again only after a crash).
  const openPage = async () => {
    const page = await comparePage(context);
    result.browser ??= { version: browser.version(), userAgent: await page.evaluate(() => navigator.userAgent), cores: await page.evaluate(() => navigator.hardwareConcurrency) };
    return page;
  };
  Object.assign(result, await sideBySide(openPage, mock));
  await context.close();
  if (wanted('disk')) {
    const profile = newProfile();
    const chromium = await startChromium(profile);
    try {
      result.disk = await onDisk(await comparePage(chromium.context));
    } finally {
      await chromium.browser.close();
      await killChromium(chromium);
      removeProfile(profile);
    }
  }
  if (wanted('parse')) {
  result.parse = await parseInWasm(browser, server);
  log(`parsing in wasm: ${result.parse.wasm_mb_s.map((p) => `${p.mb_s.toFixed(1)} MB/s (${p.piece} B pieces)`).join(', ')}`);
  }
  if (wanted('sessions')) {
  const sessions = await measureSessions(browser, server, { sizes: SESSION_SIZES, small: smoke ? 5 : 100, samples: SESSION_SAMPLES, setupQuery: '?from=site' });
  result.sessions = {
    open: sessions.open.map(({ events, created, ready }) => ({ events, created_ms: median(created), ready_ms: median(ready), created, ready })),
    list: sessions.list.map(({ sessions: count, first, again, atOnce }) => ({ sessions: count, first_ms: median(first), again_ms: median(again), at_once_ms: median(atOnce), first, again, atOnce })),
  };
  for (const o of result.sessions.open) log(`open ${o.events}-event session: ${o.created_ms.toFixed(1)} ms (next task recorded ${o.ready_ms.toFixed(1)} ms)`);
  for (const l of result.sessions.list) log(`listSessions with ${l.sessions} sessions: ${l.first_ms.toFixed(1)} ms (again ${l.again_ms.toFixed(1)} ms, in init's task ${l.at_once_ms.toFixed(1)} ms)`);
  }
  if (wanted('tti')) {
  result.tti = await timeToInteractive(browser, server);
  log(`time to interactive: playground ${result.tti.playground_ms.toFixed(0)} ms, library init ${result.tti.library_init_ms.toFixed(0)} ms`);
  }
} finally {
  await browser.close();
  await server.close();
  await mock.close();
  result.machine.load_after = os.loadavg();
  // Written even when a section failed, so the figures measured so far are kept.
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${outFile}`);
}
