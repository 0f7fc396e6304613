// The local provider's model chooser, driven as a person would, with no internet: the bundled
// GGUF is served again by a loopback "model host" under other URLs (a custom URL model) and
// picked from disk (the file picker). Checked: the list and its sizes, byte progress, cancel
// leaves nothing stored, a 404 / non-GGUF / cut download / full disk is refused with a message
// and keeps the previous model, remove deletes, the choice survives a reload, a run uses the
// chosen model (swapping out the one loaded before), every phase of a run shows in the page
// with where the model runs, and Stop works while downloading, starting, reading and writing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { axeSerious, openPlayground, usePlaygroundSuite } from './support/playground.mjs';
import { serveModels } from './support/model_server.mjs';
import { waitFor } from './support/embed.mjs';
import { outDir } from './support/site.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GGUF = path.join(repo, 'www/models/smollm2-135m-instruct-q8_0.gguf');
const RUN_MS = 240_000;

const suite = usePlaygroundSuite();
let models;
before(async () => {
  models = await serveModels(GGUF);
});
after(() => models?.close());

const row = (page, url) => page.locator(`[data-testid=model-row][data-url="${url}"]`);

async function cacheKeys(page) {
  return page.evaluate(async () => (await (await caches.open('tabloop-models-v1')).keys()).map((r) => r.url));
}

async function liveModels(page) {
  return page.evaluate(async () => {
    const module = await import(new URL('www/local/local_model.js', document.baseURI).href);
    return module.liveLocalModels();
  });
}

async function chosenUrl(page) {
  return page.getAttribute('[data-testid=model-row][data-chosen=true]', 'data-url');
}

/** Waits until the element's text matches `re`. */
async function waitText(page, selector, re, timeout = 30_000) {
  await page.waitForFunction(
    ({ selector, source }) => new RegExp(source).test(document.querySelector(selector)?.textContent ?? ''),
    { selector, source: re.source },
    { timeout },
  );
  return page.textContent(selector);
}

/** Records every text the header's model progress shows, from now on. */
async function recordProgress(page) {
  await page.evaluate(() => {
    window.progressSeen = [];
    const note = () => {
      for (const id of ['model-progress-text', 'model-backend']) {
        const text = document.querySelector(`[data-testid=${id}]`)?.textContent;
        if (text && window.progressSeen.at(-1) !== text && !window.progressSeen.includes(text)) window.progressSeen.push(text);
      }
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

/** Starts a one-step run of a fresh session on the chosen model. */
async function startRun(page, task = 'Say hello.') {
  await page.click('[data-testid=new-session]');
  await page.fill('[data-testid=max-steps]', '1');
  await page.fill('[data-testid=task]', task);
  await page.press('[data-testid=task]', 'Control+Enter');
  await page.waitForSelector('[data-testid=cancel]', { timeout: 20_000 });
}

/** Presses Stop once the header shows `re`; resolves to ms from the press to the run's end. */
async function stopDuring(page, re) {
  await waitText(page, '[data-testid=model-progress-text]', re, RUN_MS);
  const pressed = Date.now();
  await page.click('[data-testid=cancel]');
  await waitText(page, '[data-testid=stop-reason]', /cancel/i, 30_000);
  return Date.now() - pressed;
}

/**
 * Starts a one-step run and presses Stop from inside the page the moment the header shows
 * `re`: a short reply can be written in less time than a press from outside takes (polling
 * the header, then the click's visibility and stability checks), so the run would end before
 * Stop landed. Resolves to ms from the press to the run's end.
 */
async function startAndStopInPageDuring(page, re) {
  await page.evaluate((source) => {
    const pattern = new RegExp(source);
    window.stopPressedAt = null;
    const observer = new MutationObserver(() => {
      const text = document.querySelector('[data-testid=model-progress-text]')?.textContent ?? '';
      const cancel = document.querySelector('[data-testid=cancel]');
      if (window.stopPressedAt === null && cancel && pattern.test(text)) {
        window.stopPressedAt = Date.now();
        observer.disconnect();
        cancel.click();
      }
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  }, re.source);
  await startRun(page);
  await waitText(page, '[data-testid=stop-reason]', /cancel/i, RUN_MS);
  const pressedAt = await page.evaluate(() => window.stopPressedAt);
  assert.ok(pressedAt !== null, `Stop was never pressed while the header showed ${re}`);
  return Date.now() - pressedAt;
}

async function addUrl(page, url) {
  await page.fill('[data-testid=model-url]', url);
  await page.click('[data-testid=model-url-add]');
}

test('the list, a custom URL with progress, cancel, refusals, remove and a remembered choice', { timeout: 180_000 }, async () => {
  const context = await suite.browser.newContext();
  try {
    const page = await openPlayground(context, suite.site);
    await page.waitForSelector('[data-testid=model-row]');
    const rows = await page.$$eval('[data-testid=model-row]', (els) =>
      els.map((e) => ({
        url: e.dataset.url,
        chosen: e.dataset.chosen,
        title: e.querySelector('[data-testid=model-title]').textContent,
        status: e.querySelector('[data-testid=model-status]').textContent,
      })),
    );
    assert.deepEqual(rows.map((r) => r.title), [
      'SmolLM2-135M-Instruct Q8_0 (bundled)',
      'SmolLM2-360M-Instruct Q8_0',
      'Qwen2.5-0.5B-Instruct Q8_0',
      'Llama-3.2-1B-Instruct Q4_K_M',
      'Llama-3.2-1B-Instruct Q8_0',
      'Qwen3-0.6B Q8_0',
      'Qwen3-1.7B Q8_0',
      'Gemma-3-270M-IT Q8_0',
    ]);
    assert.deepEqual(rows.map((r) => r.chosen), ['true', 'false', 'false', 'false', 'false', 'false', 'false', 'false'], 'the bundled model is the default');
    assert.equal(rows[0].status, 'served with this page, works offline · 138.1 MiB');
    assert.deepEqual(rows.slice(1).map((r) => r.status), [
      'not downloaded · 368.5 MiB to download',
      'not downloaded · 644.4 MiB to download',
      'not downloaded · 770.3 MiB to download',
      'not downloaded · 1.2 GiB to download',
      'not downloaded · 610.4 MiB to download',
      'not downloaded · 1.7 GiB to download',
      'not downloaded · 278.5 MiB to download',
    ]);
    assert.ok(rows.slice(1).every((r) => r.url.startsWith('https://huggingface.co/') && r.url.includes('/resolve/main/')));

    // A download in progress shows its bytes; Cancel stops it and keeps nothing.
    const slow = `${models.url}/slow/custom-slow.gguf`;
    await addUrl(page, slow);
    const bytes = await waitText(page, `[data-testid=model-row][data-url="${slow}"] [data-testid=model-progress-bytes]`, /[1-9][\d.]* [KM]iB of 138\.1 MiB \(\d+%\)/);
    console.log(JSON.stringify({ progress_before_cancel: bytes }));
    await row(page, slow).locator('[data-testid=model-cancel]').click();
    await row(page, slow).waitFor({ state: 'detached', timeout: 10_000 });
    await waitFor(async () => models.aborted.includes('/slow/custom-slow.gguf'), 10_000, 'the host to see the download dropped');
    assert.deepEqual(await cacheKeys(page), [], 'a cancelled download leaves no cache entry');
    assert.equal(await chosenUrl(page), '');

    // Refusals: each says why, stores nothing and keeps the previous model.
    await addUrl(page, 'javascript:alert(1)');
    assert.match(await waitText(page, '[data-testid=model-url-error]', /https/), /must start with https:\/\/ or http:\/\//);
    for (const [file, why] of [
      ['/missing.gguf', /HTTP 404/],
      ['/not-gguf.gguf', /is not a GGUF file/],
      ['/cut/custom-cut.gguf', /incomplete|failed after \d+ of \d+ bytes/],
    ]) {
      await addUrl(page, models.url + file);
      const message = await waitText(page, '[data-testid=model-url-error]', why);
      console.log(JSON.stringify({ refused: file, message }));
      assert.ok(message.includes(file.split('/').pop()), message);
      assert.deepEqual(await cacheKeys(page), []);
      assert.equal(await chosenUrl(page), '', 'the previous model stays chosen');
    }
    assert.equal(await page.evaluate(() => window.pwned), undefined);
    assert.deepEqual(await axeSerious(page), [], 'the list with an error on screen passes axe');

    // A good URL: downloaded, stored, chosen, named in the summary, and kept after a reload.
    const custom = `${models.url}/m/custom-a.gguf`;
    await addUrl(page, custom);
    await page.waitForSelector(`[data-testid=model-row][data-url="${custom}"][data-chosen=true][data-stored=true]`, { timeout: 60_000 });
    assert.equal(await row(page, custom).locator('[data-testid=model-status]').textContent(), 'stored in the browser · 138.1 MiB');
    assert.match(await page.textContent('.settings-summary'), /Local model, in this tab · custom-a\.gguf/);
    assert.deepEqual(await cacheKeys(page), [custom]);
    await page.reload();
    await page.waitForSelector(`[data-testid=model-row][data-url="${custom}"][data-chosen=true][data-stored=true]`);

    // Remove deletes it from storage; a URL model stays chosen (a run downloads it again).
    await row(page, custom).locator('[data-testid=model-remove]').click();
    await page.waitForSelector(`[data-testid=model-row][data-url="${custom}"][data-stored=false]`);
    assert.equal(await row(page, custom).locator('[data-testid=model-status]').textContent(), 'not downloaded');
    assert.deepEqual(await cacheKeys(page), []);
    await row(page, '').locator('[data-testid=model-use]').click();
    assert.equal(await chosenUrl(page), '');
    await page.locator('details.settings').screenshot({ path: path.join(outDir, 'model-chooser.png') });
  } finally {
    await context.close();
  }
});

test('a full disk refuses a download with a message and keeps the previous model; a picked file is then used from memory', { timeout: 120_000 }, async () => {
  const context = await suite.browser.newContext();
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    // Applied to storage opened after it: set before the page opens any.
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(suite.site.url).origin, quotaSize: 40 * 1024 * 1024 });
    await page.goto(`${suite.site.url}/tabloop/`);
    await page.waitForSelector('[data-testid=model-row]');
    const url = `${models.url}/m/custom-quota.gguf`;
    await addUrl(page, url);
    const message = await waitText(page, '[data-testid=model-url-error]', /storage/, 60_000);
    console.log(JSON.stringify({ quota_message: message }));
    assert.match(message, /custom-quota\.gguf was not downloaded: .*not enough browser storage/);
    assert.deepEqual(await cacheKeys(page), []);
    assert.equal(await chosenUrl(page), '');

    // A picked file that does not fit is used from the file until the page closes, and says so.
    await page.setInputFiles('[data-testid=model-file]', GGUF);
    const notice = await waitText(page, '[data-testid=model-notice]', /picked file/, 60_000);
    assert.match(notice, /^smollm2-135m-instruct-q8_0\.gguf: it is used from the picked file until this page closes, as there is not enough browser storage/);
    const picked = page.locator('[data-testid=model-row][data-url*="/.tabloop-local-file/"]');
    assert.equal(await picked.getAttribute('data-chosen'), 'true');
    assert.equal(await picked.locator('[data-testid=model-status]').textContent(), 'used from the picked file until this page closes · 138.1 MiB');
    assert.deepEqual(await cacheKeys(page), []);
    // Removing a chosen picked file chooses the bundled model again (the file cannot come back).
    await picked.locator('[data-testid=model-remove]').click();
    await picked.waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await chosenUrl(page), '');
    assert.equal(await page.textContent('[data-testid=model-notice]'), 'smollm2-135m-instruct-q8_0.gguf was removed; the bundled model is chosen again.');
  } finally {
    await context.close();
  }
});

test('a picked file is checked, stored and used by a run; choosing another model swaps it out', { timeout: 2 * RUN_MS }, async () => {
  const context = await suite.browser.newContext({ acceptDownloads: true });
  try {
    const page = await openPlayground(context, suite.site);
    await page.waitForSelector('[data-testid=model-row]');
    await page.setInputFiles('[data-testid=model-file]', { name: 'notes.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from('<b>not</b> a model') });
    const refused = await waitText(page, '[data-testid=model-file-error]', /GGUF/);
    assert.equal(refused, 'notes.gguf is not a GGUF file (it does not start with "GGUF")');
    assert.equal(await chosenUrl(page), '');

    await page.evaluate(() => {
      window.fileProgress = [];
      new MutationObserver(() => {
        const text = document.querySelector('[data-testid=model-file-progress]')?.textContent;
        if (text) window.fileProgress.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.setInputFiles('[data-testid=model-file]', GGUF);
    const picked = page.locator('[data-testid=model-row][data-url*="/.tabloop-local-file/"]');
    await page.waitForSelector('[data-testid=model-row][data-url*="/.tabloop-local-file/"][data-chosen=true][data-stored=true]', { timeout: 60_000 });
    const key = await picked.getAttribute('data-url');
    assert.equal(await picked.locator('[data-testid=model-title]').textContent(), 'smollm2-135m-instruct-q8_0.gguf');
    assert.equal(await picked.locator('[data-testid=model-status]').textContent(), 'stored in the browser · 138.1 MiB');
    assert.deepEqual(await cacheKeys(page), [key]);
    const fileProgress = await page.evaluate(() => window.fileProgress);
    console.log(JSON.stringify({ picked_file_progress: fileProgress.slice(0, 3) }));
    assert.ok(fileProgress.some((t) => /Storing: [\d.]+ [KM]iB of 138\.1 MiB/.test(t)), 'storing the file showed its bytes');

    // A run on it: every phase shows in the header, then the run's end.
    await recordProgress(page);
    const started = Date.now();
    await startRun(page);
    await waitText(page, '[data-testid=stop-reason]', /\w/, RUN_MS);
    const seen = await page.evaluate(() => window.progressSeen);
    console.log(JSON.stringify({ run_ms: Date.now() - started, phases: [...new Set(seen.map((t) => t.replace(/\d[\d.,]*/g, 'n')))] }));
    assert.ok(seen.some((t) => /^Loading model from browser storage: 138\.1 MiB of 138\.1 MiB/.test(t)), seen.join(' | '));
    assert.ok(seen.some((t) => /^Starting the model \(on the CPU: this browser (offers no WebGPU|has no WebGPU adapter); tabloop engine, [12] threads?\)…$/.test(t)), seen.join(' | '));
    assert.ok(seen.some((t) => /^Reading the prompt: \d+ of \d+ tokens$/.test(t)));
    assert.ok(seen.some((t) => /^Writing: \d+ pieces? /.test(t)));
    // The reply done, the header says the model waits, not "Writing: …" for good.
    assert.match(await waitText(page, '[data-testid=model-progress-text]', /^Ready/, 10_000), /^Ready: the last reply was \d+ pieces? \([\d.]+\/s\)$/);
    assert.equal(await page.getAttribute('[data-testid=model-progress]', 'value'), '1');
    assert.match(await page.textContent('[data-testid=model-backend]'), /^Runs on the CPU: this browser (offers no WebGPU|has no WebGPU adapter); tabloop engine \(it runs llama; wasm relaxed-simd\), [12] threads?$/);
    // The header holds all of it: the bar and both lines inside its box, none cut off.
    const spilled = await page.evaluate(() => {
      const header = document.querySelector('header.app-header').getBoundingClientRect();
      return [...document.querySelectorAll('header.app-header .model-progress, header.app-header .model-progress > *')]
        .map((element) => ({ element, box: element.getBoundingClientRect() }))
        .filter(({ box }) => box.top < header.top - 0.5 || box.bottom > header.bottom + 0.5)
        .map(({ element, box }) => `${element.tagName.toLowerCase()}.${element.className} ${Math.round(box.top)}–${Math.round(box.bottom)} outside 0–${Math.round(header.bottom)}`);
    });
    assert.deepEqual(spilled, [], 'the model progress spills out of the header');
    // On a phone's width the bar and its line still show, inside the header and the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    const phone = await page.evaluate(() => {
      const header = document.querySelector('header.app-header').getBoundingClientRect();
      const inside = (selector) => {
        const box = document.querySelector(selector).getBoundingClientRect();
        return box.width > 0 && box.top >= header.top && box.bottom <= header.bottom && box.left >= 0 && box.right <= innerWidth;
      };
      return { bar: inside('[data-testid=model-progress]'), text: inside('[data-testid=model-progress-text]'), sideways: document.scrollingElement.scrollWidth - innerWidth };
    });
    assert.deepEqual(phone, { bar: true, text: true, sideways: 0 }, 'the model progress on a 390 px screen');
    await page.setViewportSize({ width: 1280, height: 720 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export]')]);
    const events = fs.readFileSync(await download.path(), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const replies = events.filter((e) => e.event?.type === 'model_replied' || e.type === 'model_replied');
    assert.ok(replies.length >= 1, 'the model replied');
    assert.equal((replies[0].event ?? replies[0]).reply.model, 'smollm2-135m-instruct-q8_0', 'the picked file answered');
    assert.equal(await liveModels(page), 1);

    // Choosing the bundled model: the next run loads it in place of the picked one.
    await page.click('[data-testid=new-session]');
    await row(page, '').locator('[data-testid=model-use]').click();
    await startRun(page);
    const stopMs = await stopDuring(page, /^Reading the prompt: \d+ of \d+ tokens$/);
    console.log(JSON.stringify({ stop_while_reading_ms: stopMs }));
    assert.equal(await liveModels(page), 1, 'the picked model was unloaded when the bundled one started');
    assert.ok(stopMs < 15_000, `stopped ${stopMs} ms after Stop`);
  } finally {
    await context.close();
  }
});

test('Stop ends a run while the model downloads, starts, and writes', { timeout: 3 * RUN_MS }, async () => {
  const context = await suite.browser.newContext();
  try {
    const page = await openPlayground(context, suite.site);
    await page.waitForSelector('[data-testid=model-row]');
    const custom = `${models.url}/m/custom-b.gguf`;
    await addUrl(page, custom);
    await page.waitForSelector(`[data-testid=model-row][data-url="${custom}"][data-chosen=true][data-stored=true]`, { timeout: 60_000 });
    await row(page, custom).locator('[data-testid=model-remove]').click();
    await page.waitForSelector(`[data-testid=model-row][data-url="${custom}"][data-stored=false][data-chosen=true]`);

    // Downloading (slowly): Stop ends the run, drops the download and stores nothing.
    models.throttle(true);
    await startRun(page);
    const downloadStop = await stopDuring(page, /^Downloading model: [1-9][\d.]* [KM]iB of 138\.1 MiB/);
    await waitFor(async () => models.aborted.includes('/m/custom-b.gguf'), 10_000, 'the host to see the download dropped');
    assert.match(await waitText(page, '[data-testid=model-progress-text]', /stopped/), /^Model loading stopped at [\d.]+ [KM]iB of 138\.1 MiB$/);
    assert.deepEqual(await cacheKeys(page), []);
    assert.equal(await liveModels(page), 0);
    models.throttle(false);

    // Starting: Stop ends the run.
    await startRun(page);
    const startStop = await stopDuring(page, /^Starting the model/);

    // Writing: Stop ends the run.
    const writeStop = await startAndStopInPageDuring(page, /^Writing: /);
    // Stopped while writing: the header says so at once, and no late piece brings "Writing" back.
    assert.match(await waitText(page, '[data-testid=model-progress-text]', /^Ready/, 10_000), /^Ready(: the last reply was \d+ pieces?( \([\d.]+\/s\))?)?$/);
    await page.waitForTimeout(1_000);
    assert.match(await page.textContent('[data-testid=model-progress-text]'), /^Ready/);
    console.log(JSON.stringify({ stop_ms: { downloading: downloadStop, starting: startStop, writing: writeStop } }));
    for (const ms of [downloadStop, startStop, writeStop]) assert.ok(ms < 15_000, `stopped ${ms} ms after Stop`);
    assert.ok(await liveModels(page) <= 1);
  } finally {
    await context.close();
  }
});

// What a person sees first: the newcomer's task on the default model, from the bundled file.
// However the run ends, its answer is on screen once: a model message just above the run's
// end, or (when the runtime ended the run on a repeat of the call that had just succeeded, as
// SmolLM2-135M does) that call's result in the run's end itself.
test("the newcomer's task on the default model ends with its answer on screen", { timeout: RUN_MS }, async () => {
  const context = await suite.browser.newContext();
  try {
    const page = await openPlayground(context, suite.site);
    await page.fill('[data-testid=task]', 'Use the vfs tool to write the text hello into the file /notes.txt.');
    await page.press('[data-testid=task]', 'Control+Enter');
    await waitText(page, '[data-testid=stop-reason]', /\w/, RUN_MS);
    assert.equal(await page.textContent('[data-testid=stop-reason]'), 'completed');
    // The in-tab model reads each task alone: the composer says so for the next one.
    assert.match(await page.textContent('[data-testid=task-alone]'), /reads this task on its own/);
    const kinds = await page.$$eval('[data-testid=timeline] > li', (items) => items.map((li) => li.dataset.kind));
    const finals = await page.locator('[data-kind=run_finished] .final').allTextContents();
    const guardEnded = (await page.locator('[data-kind=guard]').allTextContents()).some((t) => /Repeated success/.test(t));
    console.log(JSON.stringify({ kinds, guardEnded, finals: finals.map((t) => t.slice(0, 120)) }));
    if (guardEnded) {
      assert.equal(finals.length, 1, 'the result the run ended with is shown');
      assert.match(finals[0], /Its result:[\s\S]*notes\.txt/);
    } else {
      assert.equal(kinds.at(-2), 'assistant', 'the answer is the model message above the end');
      assert.equal(finals.length, 0, 'and is not shown twice');
    }
  } finally {
    await context.close();
  }
});

// A returning user (the model in browser storage): the page loads it and reads the prompt's
// start while the task is typed, then says it is ready, instead of leaving the warm-up's one
// written piece ("Writing: 1 piece") in the header as if the model were writing.
test('with the model stored, the page reads the prompt ahead and says it is ready', { timeout: RUN_MS }, async () => {
  const context = await suite.browser.newContext();
  try {
    const page = await openPlayground(context, suite.site);
    await page.evaluate(async () => {
      const store = await import(new URL('www/local/model_store.js', document.baseURI).href);
      await store.fetchModel(store.DEFAULT_MODEL_URL);
    });
    await page.reload();
    await page.waitForSelector('[data-testid=task]');
    const text = await waitText(page, '[data-testid=model-progress-text]', /^Ready/, RUN_MS);
    assert.match(text, /^Ready: \d{3} tokens of the prompt read ahead$/);
    assert.equal(await page.getAttribute('[data-testid=model-progress]', 'value'), '1');
  } finally {
    await context.close();
  }
});
