// Launches Debian's Chromium through playwright-core with the flags measured to work on these
// machines (as root: --no-sandbox; no background networking on a closed network).
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

/** Starts a headless Chromium. `CHROMIUM` overrides the executable path. */
export async function launchBrowser(options = {}) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
    ...options,
  });
}
