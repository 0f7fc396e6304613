// The page the in-tab local-model benchmarks run on: www/ served on loopback, cross-origin
// isolated (so the engine and wllama may take threads), with www/local/index.js loaded, in
// headless Chromium.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../tests/e2e/support/server.mjs';
import { launchBrowser } from '../../tests/e2e/support/browser.mjs';

const WWW = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../www');

/** Exits when www/ has no `modelPath` (a path under the site, e.g. /models/x.gguf). */
export function requireModel(modelPath) {
  if (!fs.existsSync(path.join(WWW, modelPath))) {
    console.error(`missing www${modelPath}: run scripts/fetch-model-assets.sh`);
    process.exit(1);
  }
}

/**
 * Runs `work(page)` on a fresh benchmark page, then closes the browser and the server.
 * @template T
 * @param {(page: import('playwright-core').Page) => Promise<T>} work
 * @returns {Promise<T>}
 */
export async function onBenchPage(work) {
  const page0 = '<!doctype html><meta charset="utf-8"><script type="module">import "/local/index.js"; window.ready = true;</script>';
  const server = await serveStatic(WWW, {
    isolated: true,
    routes: {
      '/bench.html': (req, res) => {
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'cross-origin-opener-policy': 'same-origin',
          'cross-origin-embedder-policy': 'require-corp',
        });
        res.end(page0);
      },
    },
  });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}/bench.html`);
    await page.waitForFunction(() => window.ready === true);
    return await work(page);
  } finally {
    await browser.close();
    await server.close();
  }
}
