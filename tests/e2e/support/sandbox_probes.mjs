// Escape and egress probes for the eval sandbox, shared by the tools tests and the sandbox
// drill, and the raw TCP canary that counts any connection a probe manages to open.
import net from 'node:net';
import { execFileSync } from 'node:child_process';

// Escape and egress probes run inside the sandbox worker. Each resolves to 'ALLOWED' only if the
// capability worked; everything else is recorded as blocked with its reason.
export function probeCode(canaryOrigin, tcpPort) {
  return `
const probes = {
  parent_document: () => parent.document.title,
  top_location: () => { top.location.href = '${canaryOrigin}/canary/top'; },
  opener: () => { if (!opener) throw new Error('no opener'); return opener.document; },
  window_document: () => document.title,
  localStorage: () => localStorage.setItem('k', 'v'),
  sessionStorage: () => sessionStorage.setItem('k', 'v'),
  document_cookie: () => document.cookie,
  indexedDB_open: () => new Promise((ok, bad) => { const r = indexedDB.open('probe'); r.onsuccess = () => ok(); r.onerror = () => bad(r.error); }),
  caches_open: () => caches.open('probe'),
  storage_estimate: () => navigator.storage.estimate(),
  locks: () => navigator.locks.request('probe', () => 1),
  service_worker: () => navigator.serviceWorker.register('${canaryOrigin}/canary/sw.js'),
  fetch_canary: () => fetch('${canaryOrigin}/canary/fetch', { mode: 'no-cors' }),
  fetch_tcp: () => fetch('http://127.0.0.1:${tcpPort}/x', { mode: 'no-cors' }),
  fetch_data: () => fetch('data:text/plain,hi'),
  xhr: () => new Promise((ok, bad) => { const x = new XMLHttpRequest(); x.open('GET', '${canaryOrigin}/canary/xhr'); x.onload = () => ok(); x.onerror = () => bad(new Error('xhr error')); x.send(); }),
  xhr_sync: () => { const x = new XMLHttpRequest(); x.open('GET', '${canaryOrigin}/canary/xhr-sync', false); x.send(); },
  websocket: () => new Promise((ok, bad) => { const w = new WebSocket('ws://127.0.0.1:${tcpPort}/ws'); w.onopen = () => ok(); w.onerror = () => bad(new Error('ws error')); }),
  event_source: () => new Promise((ok, bad) => { const e = new EventSource('${canaryOrigin}/canary/sse'); e.onopen = () => ok(); e.onerror = () => { e.close(); bad(new Error('es error')); }; }),
  send_beacon: () => { if (!navigator.sendBeacon('${canaryOrigin}/canary/beacon', 'x')) throw new Error('refused'); },
  import_scripts_remote: () => importScripts('${canaryOrigin}/canary/x.js'),
  import_scripts_tcp: () => importScripts('http://127.0.0.1:${tcpPort}/x.js'),
  import_scripts_data: () => importScripts('data:text/javascript,1'),
  dynamic_import: () => import('${canaryOrigin}/canary/mod.js'),
  worker_remote: () => new Promise((ok, bad) => { const w = new Worker('${canaryOrigin}/canary/w.js'); w.onerror = () => bad(new Error('worker error')); setTimeout(ok, 500); }),
  nested_blob_worker_fetch: () => new Promise((ok, bad) => {
    const src = "fetch('${canaryOrigin}/canary/nested', {mode:'no-cors'}).then(() => postMessage('ALLOWED'), (e) => postMessage(String(e)))";
    const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
    w.onmessage = (m) => (m.data === 'ALLOWED' ? ok() : bad(new Error(m.data)));
    w.onerror = () => bad(new Error('nested worker error'));
  }),
  web_transport: () => new WebTransport('https://127.0.0.1:${tcpPort}/wt').ready,
  broadcast_channel: () => { new BroadcastChannel('tabloop-probe').postMessage('escaped'); throw new Error('sent, the page must not receive it'); },
  shared_worker: () => new SharedWorker('${canaryOrigin}/canary/sw2.js'),
  image: () => new Promise((ok, bad) => { const i = new Image(); i.onload = ok; i.onerror = () => bad(new Error('img error')); i.src = '${canaryOrigin}/canary/img.png'; }),
  open_window: () => { if (!open('${canaryOrigin}/canary/open')) throw new Error('no window'); },
  function_constructor_fetch: () => Function('return this')().fetch('${canaryOrigin}/canary/fn', { mode: 'no-cors' }),
  prototype_fetch: () => (WorkerGlobalScope.prototype.fetch ?? DedicatedWorkerGlobalScope.prototype.fetch).call(self, '${canaryOrigin}/canary/proto', { mode: 'no-cors' }),
  request_keepalive: () => fetch(new Request('${canaryOrigin}/canary/keepalive', { keepalive: true, mode: 'no-cors', method: 'POST', body: 'x' })),
  fetch_later: () => fetchLater('${canaryOrigin}/canary/later'),
  websocket_stream: () => new WebSocketStream('ws://127.0.0.1:${tcpPort}/wss').opened,
  rtc_peer_connection: () => new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${tcpPort}' }] }).createOffer(),
  opfs_directory: () => navigator.storage.getDirectory(),
  cookie_store: () => cookieStore.get('k'),
  notification: () => new Promise((ok, bad) => { const n = new Notification('escaped'); n.onshow = () => ok(); n.onerror = () => bad(new Error('not shown, permission ' + Notification.permission)); }),
  webusb: () => navigator.usb.getDevices(),
  data_worker_fetch: () => new Promise((ok, bad) => {
    const w = new Worker("data:text/javascript,fetch('${canaryOrigin}/canary/data-worker',{mode:'no-cors'}).then(()=>postMessage('ALLOWED'),(e)=>postMessage(String(e)))");
    w.onmessage = (m) => (m.data === 'ALLOWED' ? ok() : bad(new Error(m.data)));
    w.onerror = () => bad(new Error('data worker error'));
  }),
  wasm_compile_streaming: () => WebAssembly.compileStreaming(fetch('${canaryOrigin}/canary/x.wasm')),
  timer_after_return: () => { setTimeout(() => fetch('${canaryOrigin}/canary/late', { mode: 'no-cors' }).catch(() => {}), 300); throw new Error('scheduled; the canary must stay silent'); },
  eval_allowed: () => { if (eval('1 + 1') !== 2) throw new Error('eval broken'); return 'EXPECTED'; },
};
let cspViolations = 0;
self.addEventListener('securitypolicyviolation', () => { cspViolations += 1; });
const out = { origin: String(self.origin) };
for (const [name, probe] of Object.entries(probes)) {
  try {
    const r = await Promise.race([Promise.resolve().then(probe), new Promise((_, bad) => setTimeout(() => bad(new Error('no answer in 1500 ms')), 1500))]);
    out[name] = r === 'EXPECTED' ? 'expected' : 'ALLOWED';
  } catch (error) {
    out[name] = 'blocked: ' + (error && error.name ? error.name + ': ' : '') + String(error && error.message).slice(0, 120);
  }
}
await new Promise((r) => setTimeout(r, 50));
out.csp_violations = cspViolations;
out`;
}

/** A TCP listener that counts connections (and closes them at once). */
export function startCanary() {
  return new Promise((resolve) => {
    const connections = [];
    const server = net.createServer((socket) => {
      connections.push(Date.now());
      socket.destroy();
    });
    server.listen(0, '127.0.0.1', () => resolve({
      port: server.address().port,
      count: () => connections.length,
      close: () => new Promise((done) => server.close(() => done())),
    }));
  });
}

/**
 * Samples the largest resident size of Chromium's renderer processes every 250 ms, for a memory
 * bomb's figure. `stop()` ends the sampling and returns the peak in kB (0 where `ps` is missing).
 */
export function watchRendererPeak() {
  let peakKb = 0;
  const timer = setInterval(() => {
    try {
      const out = execFileSync('ps', ['-eo', 'rss=,args='], { encoding: 'utf8' });
      for (const line of out.split('\n')) if (line.includes('--type=renderer')) peakKb = Math.max(peakKb, parseInt(line, 10) || 0);
    } catch {
      /* ps unavailable */
    }
  }, 250);
  return () => {
    clearInterval(timer);
    return peakKb;
  };
}
