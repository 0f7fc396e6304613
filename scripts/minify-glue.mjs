// Minifies, in place, the JS a bundler takes from a built package (scripts/build-package.sh):
// index.js, wasm-bindgen's tabloop.js and the snippets it imports. Exported names are kept, so
// the package's API and the wasm's imports are unchanged; the capabilities loaded by URL at run
// time (www/) stay as written. Uses the minifier that comes with the pinned Vite.
//   node scripts/minify-glue.mjs pkg
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { minifySync } from 'rolldown/utils';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node scripts/minify-glue.mjs PACKAGE_DIR');
const snippets = path.join(dir, 'snippets');
const files = [
  'index.js',
  'tabloop.js',
  ...fs.readdirSync(snippets, { recursive: true }).filter((f) => f.endsWith('.js')).map((f) => path.join('snippets', f)),
];
const gz = (text) => zlib.gzipSync(text, { level: 9 }).length;
let before = 0;
let after = 0;
for (const file of files) {
  const full = path.join(dir, file);
  const source = fs.readFileSync(full, 'utf8');
  const { code, errors } = minifySync(full, source, { module: true, compress: true, mangle: true });
  if (errors?.length) throw new Error(`${file}: ${errors.map((e) => e.message ?? String(e)).join('; ')}`);
  fs.writeFileSync(full, code);
  before += gz(source);
  after += gz(code);
}
console.log(`[package] glue JS minified: ${files.length} files, ${before} -> ${after} bytes gzipped`);
