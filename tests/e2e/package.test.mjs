// End-to-end test of the package for bundlers: a tiny Vite 8 app imports `tabloop` from the
// package directory (pkg/, built by scripts/build-package.sh), Vite builds it, and the built app
// runs an agent in Chromium with a custom provider, a page tool and the bundled vfs tool. Also
// checks that the module's exports are exactly the ones www/tabloop.d.ts declares, and that the
// library build leaves the playground UI out.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { launchBrowser } from './support/browser.mjs';
import { serveStatic } from './support/server.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = path.join(repo, 'pkg');

const MAIN = `
import init, * as tabloop from 'tabloop';
import { createAgent, registerTool } from 'tabloop';

async function* stream(reply) {
  if (reply.text) yield { choices: [{ index: 0, delta: { content: reply.text }, finish_reason: 'stop' }] };
  if (reply.call) {
    yield { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: reply.call.id, type: 'function', function: { name: reply.call.name, arguments: JSON.stringify(reply.call.args) } }] }, finish_reason: 'tool_calls' }] };
  }
  yield { choices: [], usage: { prompt_tokens: 5, completion_tokens: 3 } };
}

window.run = async () => {
  await init();
  await registerTool({
    name: 'shout',
    description: 'Upper-cases a text.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    permission: 'allow',
    execute: ({ text }) => text.toUpperCase(),
  });
  const script = [
    { call: { id: 'w', name: 'vfs', args: { op: 'write', path: '/n.txt', content: 'from vite' } } },
    { call: { id: 's', name: 'shout', args: { text: 'bundled' } } },
    { text: 'all done' },
  ];
  const seen = [];
  const agent = await createAgent({
    session: 'vite-1',
    provider: { kind: 'custom', model: 'vite-model', complete: (request) => { seen.push(request.messages.at(-1)); return stream(script.shift()); } },
    tools: ['vfs', 'shout'],
    permissions: { vfs: 'allow' },
  });
  const outcome = await agent.run('write and shout');
  const finished = (await agent.events()).filter((e) => e.type === 'tool_call_finished').map((e) => ({ content: e.content, is_error: e.is_error }));
  return { outcome, finished, seen, exports: Object.keys(tabloop).sort(), playgroundRoot: !!document.querySelector('#tabloop-playground *') };
};
window.ready = true;
`;

const HTML = `<!doctype html>
<meta charset="utf-8" />
<title>vite app</title>
<div id="tabloop-playground"></div>
<script type="module" src="./main.js"></script>
`;

/** The value exports www/tabloop.d.ts declares (functions, classes, consts, the default). */
function declaredExports() {
  const text = fs.readFileSync(path.join(repo, 'www/tabloop.d.ts'), 'utf8');
  const names = [...text.matchAll(/^export (?:declare )?(?:function|class|const) (\w+)/gm)].map((m) => m[1]);
  if (/^export default function/m.test(text)) names.push('default');
  return [...new Set(names)].sort();
}

let app;
let browser;
let server;

before(async () => {
  if (!fs.existsSync(path.join(pkg, 'package.json'))) {
    throw new Error('pkg/ is missing: run `scripts/build-package.sh` (scripts/test.sh does)');
  }
  app = fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-vite-'));
  fs.writeFileSync(path.join(app, 'index.html'), HTML);
  fs.writeFileSync(path.join(app, 'main.js'), MAIN);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'vite-app', private: true, type: 'module', dependencies: { tabloop: 'file:../pkg' } }));
  // What `npm install <dir>` does for a directory dependency: a symlink.
  fs.mkdirSync(path.join(app, 'node_modules'));
  fs.symlinkSync(pkg, path.join(app, 'node_modules/tabloop'), 'dir');
  await build({ root: app, logLevel: 'warn', configFile: false, build: { outDir: path.join(app, 'dist'), target: 'es2022' } });
  server = await serveStatic(path.join(app, 'dist'), { isolated: false });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

test('a Vite app imports the package, and the built app runs an agent with bundled tools', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}/index.html`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
  const result = await page.evaluate(() => window.run());
  assert.deepEqual(errors, []);
  assert.equal(result.outcome.stopReason, 'completed');
  assert.equal(result.outcome.finalText, 'all done');
  assert.deepEqual(result.finished, [
    { content: result.finished[0].content, is_error: false },
    { content: 'BUNDLED', is_error: false },
  ]);
  assert.match(result.finished[0].content, /n\.txt/);
  assert.deepEqual(result.outcome.usage, { inputTokens: 15, outputTokens: 9, cachedInputTokens: 0 });
  assert.deepEqual(result.exports, declaredExports(), 'the module exports exactly what tabloop.d.ts declares');
  assert.equal(result.playgroundRoot, false, 'the library build mounts no UI, even where the playground root exists');
});

test('the library wasm leaves the playground out; the site build has it', () => {
  const library = fs.readFileSync(path.join(pkg, 'tabloop_bg.wasm'));
  const marker = Buffer.from('tabloop-playground');
  assert.equal(library.includes(marker), false, 'no playground mount code in the package');
  const full = fs.readFileSync(path.join(repo, 'dist/tabloop_bg.wasm'));
  assert.equal(full.includes(marker), true, 'the marker is a real playground string');
  console.log(`# wasm bytes: library ${library.length}, site with playground ${full.length}`);
  const bundled = fs.readdirSync(path.join(app, 'dist/assets')).filter((f) => f.endsWith('.wasm'));
  assert.equal(bundled.length, 1, 'Vite emitted the wasm as an asset');
});
