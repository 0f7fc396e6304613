// Chromium on a persistent profile, started as its own process group so a test can kill the
// whole browser with SIGKILL (a real crash: no unload, no flush) and start it again on the same
// profile. Connected over CDP with playwright-core.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from './browser.mjs';

/** A fresh profile directory under the system temp dir. */
export function newProfile() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-profile-'));
}

/** Deletes a profile made by `newProfile` (after its browser is gone). */
export function removeProfile(profile) {
  fs.rmSync(profile, { recursive: true, force: true });
}

/** Starts Chromium on `profile` and connects to it over CDP. */
export async function startChromium(profile) {
  const child = spawn(process.env.CHROMIUM ?? '/usr/bin/chromium', [...CHROMIUM_ARGS, `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank'], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const endpoint = await new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no DevTools endpoint:\n${text}`)), 30_000);
    child.stderr.on('data', (d) => {
      text += d;
      const match = text.match(/DevTools listening on (ws:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  const browser = await chromium.connectOverCDP(endpoint);
  return { child, browser, context: browser.contexts()[0] };
}

/** SIGKILLs the browser's whole process group and waits for it to exit (a no-op when gone). */
export async function killChromium(run) {
  if (!run) return;
  const exited = run.child.exitCode !== null || run.child.signalCode !== null;
  const gone = exited ? Promise.resolve() : new Promise((r) => run.child.once('exit', r));
  try {
    process.kill(-run.child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  await gone;
}
