// How many threads the local model should use, measured on the machine as it is: llama.cpp's
// threads wait for each other at every step of a matrix operation, so one thread on a core that
// something else is using stalls them all (measured on a busy 2-core machine: 2 threads ~10x
// slower than 1; on the same machine idle: 2 threads ~2x faster). Before the model starts, a
// short probe spins one worker alone, then several at once: when each of them keeps nearly
// the speed of the lone one, that many cores are free and the model takes them; otherwise it
// keeps to half the cores.

/** How long each probe spins, in milliseconds. */
const SPIN_MS = 60;
/** How long every worker spins first, unmeasured, so its loop is compiled before it is timed. */
const WARM_MS = 20;
/** A worker counts as having its own core when it keeps this share of the lone worker's speed. */
const FREE_SHARE = 0.85;
/** Never more threads than this. */
const MAX_THREADS = 8;

const SPINNER = `onmessage = (e) => {
  const end = performance.now() + e.data;
  let turns = 0;
  let x = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 2000; i += 1) x = (x * 31 + i) | 0;
    turns += 1;
  }
  postMessage(turns + (x & 0));
};
postMessage('ready');`;

/** The thread counts worth trying on `cores` logical cores: {safe, fast}. */
export function threadChoices(cores) {
  const n = Math.max(1, Math.floor(cores) || 1);
  const safe = Math.max(1, Math.min(Math.floor(n / 2), MAX_THREADS));
  const fast = Math.max(safe, Math.min(n <= 2 ? n : n - 1, MAX_THREADS));
  return { safe, fast };
}

/**
 * The threads to use from a probe's figures: `fast` when every one of the concurrent workers
 * kept FREE_SHARE of the lone worker's rate, else `safe`.
 * @param {{single: number, concurrent: number[]}} rates work done per probe (any unit)
 * @param {number} cores logical cores
 * @returns {{threads: number, reason: string}}
 */
export function threadsFromProbe(rates, cores) {
  const { safe, fast } = threadChoices(cores);
  if (fast === safe) return { threads: safe, reason: `${cores} core(s): ${safe} thread(s)`, short: `${cores} core(s)` };
  const slowest = Math.min(...rates.concurrent);
  const share = rates.single > 0 ? slowest / rates.single : 0;
  const kept = `${rates.concurrent.length} workers at once kept ${Math.round(share * 100)}% of one alone`;
  return share >= FREE_SHARE
    ? { threads: fast, reason: `${kept}: ${fast} cores free, ${fast} threads`, short: 'the cores are free' }
    : { threads: safe, reason: `${kept}: the cores are busy, ${safe} thread(s)`, short: 'the cores are busy' };
}

function startSpinner(url) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(url);
    worker.onerror = (event) => reject(new Error(event.message || 'the probe worker failed'));
    worker.onmessage = () => resolve(worker);
  });
}

function spin(worker, ms) {
  return new Promise((resolve) => {
    worker.onmessage = (event) => resolve(Number(event.data) || 0);
    worker.postMessage(ms);
  });
}

/**
 * The probe's figures from started workers: every worker first spins once unmeasured (a worker
 * timed on its first run is still compiling its loop: measured cold beside the warm lone one,
 * an idle machine read as busy), then the first alone, then all at once.
 * @param {unknown[]} workers
 * @param {(worker: unknown, ms: number) => Promise<number>} spinFor work one worker did in `ms`
 * @returns {Promise<{single: number, concurrent: number[]}>}
 */
export async function probeRates(workers, spinFor) {
  await Promise.all(workers.map((worker) => spinFor(worker, WARM_MS)));
  const single = await spinFor(workers[0], SPIN_MS);
  const concurrent = await Promise.all(workers.map((worker) => spinFor(worker, SPIN_MS)));
  return { single, concurrent };
}

/**
 * Measures the machine and chooses the local model's threads (see the top of this file).
 * Falls back to the safe choice when workers cannot be started.
 * @param {number} [cores] logical cores (default navigator.hardwareConcurrency)
 * @returns {Promise<{threads: number, reason: string, short: string, rates: {single: number, concurrent: number[]}|null}>}
 *   `reason` gives the measurement, `short` the gist a person reads beside the thread count
 */
export async function chooseThreads(cores = globalThis.navigator?.hardwareConcurrency || 1) {
  const { safe, fast } = threadChoices(cores);
  if (fast === safe) return { threads: safe, reason: `${cores} core(s): ${safe} thread(s)`, short: `${cores} core(s)`, rates: null };
  const url = URL.createObjectURL(new Blob([SPINNER], { type: 'text/javascript' }));
  const workers = [];
  try {
    for (let i = 0; i < fast; i += 1) workers.push(await startSpinner(url));
    const rates = await probeRates(workers, spin);
    return { ...threadsFromProbe(rates, cores), rates };
  } catch (err) {
    return { threads: safe, reason: `the probe could not run (${err?.message ?? err}): ${safe} thread(s)`, short: 'the cores could not be measured', rates: null };
  } finally {
    for (const worker of workers) worker.terminate();
    URL.revokeObjectURL(url);
  }
}
