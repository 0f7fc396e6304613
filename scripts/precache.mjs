// Writes the service worker of a site build: dist/sw.js is www/offline/sw.js (left in place,
// out of the list) with the build's file list in front ({ build, files: [[path, sha256,
// lazy]] }), so every build with other bytes in any file is a new worker. Trunk runs it after
// each build (a post_build hook, in the staging directory, TRUNK_STAGING_DIR);
// `node scripts/precache.mjs DIR` runs it on a built directory (again after changing a file).
// Left out: the models (they live in the model store), type declarations, source maps and
// CommonJS copies; everything under `trunk serve` (see `served`). Cached on first use only
// (lazy): the wllama fallback engine's wasm (10 MB that a visitor on the default model never
// loads; its module is precached, since the local model's module imports it).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const dir = path.resolve(process.env.TRUNK_STAGING_DIR ?? process.argv[2] ?? 'dist');
const SOURCE = 'www/offline/sw.js';

const skipped = (p) =>
  p === 'sw.js' ||
  p === SOURCE ||
  p.startsWith('www/models/') ||
  /\.(map|d\.ts|d\.cts|cjs)$/.test(p) ||
  /^www\/vendor\/wllama\/(index\.min\.js|wasm-from-cdn\.js)$/.test(p);
const lazy = (p) => p.endsWith('.wasm') && p.startsWith('www/vendor/');

function walk(root, rel = '') {
  const out = [];
  for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...walk(root, p));
    else if (entry.isFile() || entry.isSymbolicLink()) out.push(p);
  }
  return out;
}

// `trunk serve` reloads the page itself after each build: a worker holding the old files would
// fight it. Its build gets a worker with no files, which replaces (and clears) a release one.
const served = fs.readFileSync(path.join(dir, 'index.html'), 'utf8').includes('.well-known/trunk/ws');

const files = served ? [] : walk(dir)
  .filter((p) => !skipped(p))
  .sort()
  .map((p) => {
    const digest = crypto.createHash('sha256').update(fs.readFileSync(path.join(dir, p))).digest('hex');
    return lazy(p) ? [p, digest, true] : [p, digest];
  });
const build = crypto.createHash('sha256').update(JSON.stringify(files)).digest('hex').slice(0, 16);
const source = fs.readFileSync(path.join(dir, SOURCE), 'utf8');
const list = JSON.stringify({ build, files });
fs.writeFileSync(path.join(dir, 'sw.js'), `self.__TABLOOP_PRECACHE = ${list};\n${source}`);
const bytes = files.filter((f) => !f[2]).reduce((n, [p]) => n + fs.statSync(path.join(dir, p)).size, 0);
console.log(`[precache] build ${build}: ${files.length} files (${files.filter((f) => f[2]).length} on first use), ${(bytes / 1e6).toFixed(2)} MB precached`);
