// A long session in the playground: the bench's synthetic log (≥ 10,000 events, ~3,300
// timeline items) opens with only the visible part of its timeline in the page, scrolls to
// its start, and jumps to a step. Open time, DOM size and frame times are printed as figures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { outDir } from './support/site.mjs';
import { openPlayground, importSynthetic, usePlaygroundSuite } from './support/playground.mjs';

const suite = usePlaygroundSuite();

const frames = (page, n = 2) =>
  page.evaluate((n) => new Promise((r) => {
    const step = (k) => (k === 0 ? r() : requestAnimationFrame(() => step(k - 1)));
    step(n);
  }), n);

test('a 10,000-event session opens with a small page, scrolls, and jumps to a step', async () => {
  const context = await suite.browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await openPlayground(context, suite.site);
    const session = await importSynthetic(page, 10_004);
    await page.reload();
    const row = `[data-testid=session-item][data-session="${session}"]`;
    await page.waitForSelector(row);
    const meta = await page.textContent(`${row} .session-meta`);
    // Click, then wait until the end of the run is drawn (the list opens at the bottom).
    const openMs = await page.evaluate((row) => new Promise((resolve) => {
      const start = performance.now();
      document.querySelector(row).click();
      const poll = () => {
        const end = document.querySelector('[data-testid=timeline] [data-kind=run_finished]');
        if (end && end.getBoundingClientRect().height > 0) resolve(performance.now() - start);
        else requestAnimationFrame(poll);
      };
      poll();
    }), row);
    await frames(page, 4);
    const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
    const drawn = await page.locator('[data-testid=timeline] > li').count();
    console.log(`# long session (${meta}): opened in ${openMs.toFixed(0)} ms, ${nodes} DOM nodes, ${drawn} items drawn`);
    assert.ok(nodes <= 3_000, `${nodes} DOM nodes`);
    assert.ok(drawn < 200, `${drawn} items drawn`);
    const endBox = await page.locator('[data-kind=run_finished]').boundingBox();
    const scrollBox = await page.locator('.timeline-scroll').boundingBox();
    assert.ok(endBox.y < scrollBox.y + scrollBox.height, 'the end of the run is in view');
    await page.screenshot({ path: path.join(outDir, 'long-session.png') });

    // Scroll to the top a screen at a time from the bottom; record frame times.
    const scroll = await page.evaluate(() => new Promise((resolve) => {
      const el = document.querySelector('.timeline-scroll');
      el.scrollTop = el.scrollHeight - el.clientHeight - 20_000;
      const times = [];
      let last = performance.now();
      let k = 0;
      const step = () => {
        const now = performance.now();
        times.push(now - last);
        last = now;
        el.scrollTop -= 150;
        if (++k < 120) requestAnimationFrame(step);
        else resolve({ times, nodes: document.getElementsByTagName('*').length });
      };
      requestAnimationFrame(step);
    }));
    const sorted = [...scroll.times.slice(2)].sort((a, b) => a - b);
    const p95 = sorted[Math.floor(sorted.length * 0.95)];
    console.log(`# scrolling: median frame ${sorted[sorted.length >> 1].toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, ${scroll.nodes} DOM nodes`);
    assert.ok(scroll.nodes <= 3_000, `${scroll.nodes} DOM nodes while scrolling`);
    await page.$eval('.timeline-scroll', (el) => { el.scrollTop = 0; });
    await frames(page, 6);
    assert.equal(await page.locator('[data-testid=timeline] > li[data-index="0"]').count(), 1, 'the first item is drawn at the top');
    assert.match(await page.textContent('[data-testid=timeline] > li[data-index="0"]'), /task/);

    // Jump to a step far down the list.
    await page.fill('[data-testid=jump-step]', '1000');
    await page.click('[data-testid=jump-go]');
    const target = page.locator('[data-testid=timeline] > li.jumped');
    await target.waitFor({ timeout: 5_000 });
    assert.match(await target.textContent(), /^Step 1000(?!\d)/);
    const box = await target.boundingBox();
    const view = await page.locator('.timeline-scroll').boundingBox();
    assert.ok(box.y >= view.y - 1 && box.y < view.y + view.height, `step 1000 is in view (${box.y} in ${view.y}+${view.height})`);
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('jumped')), true, 'focus moved to it');
    await page.fill('[data-testid=jump-step]', '999999');
    await page.click('[data-testid=jump-go]');
    assert.match(await page.textContent('[data-testid=jump-message]'), /No step 999999/);
    await page.screenshot({ path: path.join(outDir, 'long-session-jump.png') });
  } finally {
    await context.close();
  }
});
