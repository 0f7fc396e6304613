// Registers the playground's service worker (www/offline/sw.js, served as sw.js beside
// index.html: its scope is the directory the site is served from, so a sub-path works) and
// runs the update flow. A new build installs beside the running one and waits; this module
// then marks the page (`data-tabloop-update="ready"` on <html>) and dispatches
// `tabloop:update-ready` on window, and the playground offers the reload. When the person
// accepts (the page dispatches `tabloop:apply-update`), the waiting worker takes over and the
// page reloads once, onto the new build's files only. New builds are looked for when the tab
// is shown again, when the network returns, and hourly (the browser also looks on each load).

const UPDATE_READY = 'tabloop:update-ready';
const APPLY_UPDATE = 'tabloop:apply-update';
const HOURLY_MS = 60 * 60 * 1000;

function offerUpdate(worker, apply) {
  apply.worker = worker;
  document.documentElement.dataset.tabloopUpdate = 'ready';
  dispatchEvent(new Event(UPDATE_READY));
}

async function start() {
  const container = navigator.serviceWorker;
  if (!container) return;
  const registration = await container.register('sw.js', { scope: './', updateViaCache: 'none' });
  const apply = { worker: null, accepted: false };
  // A worker installed while another one serves the page is a new build; the first worker
  // of a visit is not an update.
  const watch = (worker) =>
    worker?.addEventListener('statechange', () => {
      if (worker.state === 'installed' && container.controller) offerUpdate(worker, apply);
    });
  if (registration.waiting && container.controller) offerUpdate(registration.waiting, apply);
  watch(registration.installing);
  registration.addEventListener('updatefound', () => watch(registration.installing));
  addEventListener(APPLY_UPDATE, () => {
    const worker = apply.worker ?? registration.waiting;
    if (!worker) return;
    apply.accepted = true;
    worker.postMessage({ type: 'tabloop:skip-waiting' });
  });
  container.addEventListener('controllerchange', () => {
    if (apply.accepted) {
      apply.accepted = false;
      location.reload();
    }
  });
  const check = () => registration.update().catch(() => {});
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') check();
  });
  addEventListener('online', check);
  setInterval(check, HOURLY_MS);
}

// Registered once the page has loaded and is idle: installing fetches and hashes every file
// of the build, which should not compete with the first visit's own loading.
function startWhenIdle() {
  const go = () => start().catch((error) => console.warn('tabloop: the offline service worker is not available:', error?.message ?? error));
  const idle = () => (globalThis.requestIdleCallback ? requestIdleCallback(go, { timeout: 3000 }) : setTimeout(go, 200));
  if (document.readyState === 'complete') idle();
  else addEventListener('load', idle, { once: true });
}

startWhenIdle();
