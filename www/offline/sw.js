// The playground's service worker: it keeps every file of one build in a cache of its own and
// serves the site from it, so a reload without a network starts the playground (the model
// itself is in the model store, not here). Nothing else is ever cached: only GET requests for
// the exact URLs of the build's file list are answered from the cache; anything else (a model
// provider, an MCP server, a model download, another origin) goes to the network untouched.
//
// The file list below is written into this file at build time (scripts/precache.mjs), each
// file with a digest of its bytes: a new build is a new service worker. It installs beside the
// old one into its own cache, checking every file against its digest (a half-deployed site
// fails the install and is tried again later), and waits; the page offers the reload, and only
// then does it take over and delete the older caches. An open tab keeps getting the files of
// the build it started with until it reloads, never a mix.
//
// Paths are relative to the worker's scope, so the site works from any sub-path.

/**
 * Filled in by scripts/precache.mjs: { build, files: [[path, sha256-hex, lazy?], ...] }. A lazy
 * file is cached the first time the page asks for it (with the same digest check), not at
 * install.
 */
const PRECACHE = self.__TABLOOP_PRECACHE ?? { build: 'dev', files: [] };

const PREFIX = 'tabloop-site-';
const CACHE = `${PREFIX}${PRECACHE.build}`;
const scope = () => self.registration.scope;

let urls = null;
/** Absolute URL of each listed file → { digest, lazy }. */
function listed() {
  if (!urls) {
    urls = new Map();
    for (const [path, digest, lazy] of PRECACHE.files) urls.set(new URL(path, scope()).href, { digest, lazy: !!lazy });
  }
  return urls;
}

async function sha256(buffer) {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', buffer));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Fetches `url` past the HTTP cache; keeps it in `cache` and returns it if its bytes are this
 * build's, else throws (the server holds another build's file).
 */
async function fetchChecked(cache, url, digest) {
  const response = await fetch(new Request(url, { cache: 'reload', credentials: 'same-origin' }));
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const got = await sha256(await response.clone().arrayBuffer());
  if (got !== digest) throw new Error(`${url}: the server has other bytes than this build (${got.slice(0, 12)} ≠ ${digest.slice(0, 12)})`);
  await cache.put(url, response.clone());
  return response;
}

/** Fetches every file that is not lazy, checked, into this build's cache. */
async function precache() {
  const cache = await caches.open(CACHE);
  const files = [...listed()].filter(([, file]) => !file.lazy);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const [url, { digest }] = files[next++];
      if (!(await cache.match(url))) await fetchChecked(cache, url, digest);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

self.addEventListener('install', (event) => {
  // A worker with no files (a `trunk serve` build) takes over at once and serves nothing.
  if (PRECACHE.files.length === 0) self.skipWaiting();
  event.waitUntil(precache());
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('message', (event) => {
  if (event.data?.type === 'tabloop:skip-waiting') self.skipWaiting();
  if (event.data?.type === 'tabloop:build') event.source?.postMessage({ type: 'tabloop:build', build: PRECACHE.build });
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  url.hash = '';
  let key = url.href;
  // A navigation to the scope itself (or with a query) is the playground's page.
  if (request.mode === 'navigate' && url.origin === self.location.origin && `${url.origin}${url.pathname}` === scope()) {
    key = new URL('index.html', scope()).href;
  }
  const file = listed().get(key);
  if (!file) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      const cached = await cache.match(key);
      if (cached) return cached;
      // A lazy file's first use (or storage was cleared): from the network, kept when it is
      // this build's; another build's bytes are served as they are, never kept.
      try {
        return await fetchChecked(cache, key, file.digest);
      } catch {
        return fetch(request);
      }
    })(),
  );
});
