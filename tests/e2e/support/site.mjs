// Serves the built site (dist/) under the sub-path /tabloop/ — as static hosting would — next to
// the test pages, on loopback.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from './server.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Starts the site; fails clearly when the release build is missing. Options: `isolated`
 * (COOP/COEP, default true), `dist` (another built directory), `down` (see serveStatic).
 */
export async function serveSite(options = {}) {
  // TABLOOP_DIST points at another build (e.g. to run a new test against an older build).
  const dist = options.dist ?? process.env.TABLOOP_DIST ?? path.join(repo, 'dist');
  if (!fs.existsSync(path.join(dist, 'tabloop_bg.wasm'))) {
    throw new Error('dist/ is missing: run `trunk build --release --public-url ./` (scripts/test.sh does)');
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-site-'));
  fs.symlinkSync(dist, path.join(root, 'tabloop'));
  for (const page of fs.readdirSync(path.join(repo, 'tests/e2e/pages'))) {
    fs.copyFileSync(path.join(repo, 'tests/e2e/pages', page), path.join(root, page));
  }
  const server = await serveStatic(root, { isolated: options.isolated ?? true, down: options.down });
  return { ...server, root };
}

export const outDir = path.join(repo, 'tests/e2e/out');
