// Bundles the Vercel AI SDK side of the benchmark for the browser with Vite, into the directory
// given as the first argument, one self-contained file per entry: aisdk.js (the page's loops)
// and aisdk_app.js (what an application would ship, for the bundle-size figure). Prints the
// directory.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = path.resolve(process.argv[2] ?? path.join(here, '../../target/bench/aisdk'));
fs.rmSync(outDir, { recursive: true, force: true });
for (const name of ['aisdk', 'aisdk_app']) {
  await build({
    root: here,
    logLevel: 'warn',
    configFile: false,
    build: {
      outDir,
      emptyOutDir: false,
      minify: true,
      lib: { entry: path.join(here, `${name}.js`), formats: ['es'], fileName: () => `${name}.js` },
    },
  });
}
console.log(outDir);
