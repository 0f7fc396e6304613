// The ceiling of the engine's prefill against native llama.cpp on this CPU: Q8_0 dot-product
// loops (benches/local_model/dot_peak/) over operands that stay in L1, so only the arithmetic
// counts. llama.cpp's AVX2 loop shape natively (4 weight rows × 2 tokens); the engine's own
// kernels (its crate, its packing) in headless Chromium: relaxed SIMD on 8 tokens per weight
// load and on batches of 4, and its SIMD128 build. Rounds run the four in turn (the order turning each
// round), so a shared machine's load falls on all alike; each loop's rate is its best call of
// about 25 ms in the round, in G multiply-adds per second on one core, and every loop's result
// is checked against a plain scalar product before its rate counts. Prints each round with the
// load average, the medians over rounds, then one JSON line.
//
//   node benches/local_model/dot_peak.mjs [SECONDS]
//
// SECONDS (default 60): the whole measuring time, shared by ROUNDS (env, default 5) rounds of
// the four loops. Builds the crate first (cargo, into target/dot-peak*).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from '../../tests/e2e/support/browser.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const CRATE = path.join(HERE, 'dot_peak');
const seconds = Number(process.argv[2] ?? 60) || 60;
const rounds = Math.max(1, Number(process.env.ROUNDS ?? 5) || 5);
const slot = seconds / rounds / 4;
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
/** Worst gap to the scalar product (as a share of the terms' magnitudes) a loop may show. */
const BOUND = 1e-5;

/** Builds with cargo into target/NAME (RUSTFLAGS as given, nothing inherited). */
function cargo(name, args, rustflags) {
  const env = { ...process.env, CARGO_TARGET_DIR: path.join(ROOT, 'target', name), RUSTFLAGS: rustflags };
  env.PATH = `${os.homedir()}/.cargo/bin:${env.PATH}`;
  const r = spawnSync('cargo', ['build', '--quiet', '--release', ...args], { cwd: CRATE, env, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const WASM_FLAGS = '+simd128,+bulk-memory,+nontrapping-fptoint';
cargo('dot-peak', ['--bin', 'dot-peak-native'], '');
// the engine's two wasm builds' features (scripts/build-engine.sh)
cargo('dot-peak-relaxed', ['--lib', '--target', 'wasm32-unknown-unknown'], `-C target-feature=${WASM_FLAGS},+relaxed-simd`);
cargo('dot-peak-simd128', ['--lib', '--target', 'wasm32-unknown-unknown'], `-C target-feature=${WASM_FLAGS}`);
const native = path.join(ROOT, 'target/dot-peak/release/dot-peak-native');
const wasm = (name) => fs.readFileSync(path.join(ROOT, `target/${name}/wasm32-unknown-unknown/release/dot_peak.wasm`)).toString('base64');

/** Times llama.cpp's loop shape natively for `s` seconds. */
function runNative(s) {
  const r = spawnSync(native, [String(s)], { encoding: 'utf8' });
  const out = JSON.parse(r.stdout.trim());
  if (out.error) throw new Error(`native: ${out.error}`);
  return { gmacs: out.gmacs, gmacs_mean: out.gmacs_mean, gap: out.worst_gap };
}

/** Puts both wasm builds in the page, with a timer and a scalar check of their results. */
async function preparePage(page) {
  await page.evaluate(async (builds) => {
    const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const modules = {};
    for (const [name, b64] of Object.entries(builds)) {
      // The engine's module brings its imports (the model file's reads, a clock); the loops
      // timed here call none of them.
      const env = new Proxy({}, { get: (_, name) => () => { throw new Error(`${String(name)} is not provided here`); } });
      const { instance } = await WebAssembly.instantiate(bytes(b64), { env });
      modules[name] = { e: instance.exports, d: instance.exports.dp_new(0x5eed) };
    }
    // the worst gap of the results to a plain scalar product over the operands in memory
    const check = ({ e, d }) => {
      const [R, C, T, B] = [0, 1, 2, 3].map((i) => e.dp_shape(i));
      const mem = e.memory.buffer;
      const offset = e.dp_at(d, 5);
      const w = new Int8Array(mem, e.dp_at(d, 0), R * C);
      const ws = new Float32Array(mem, e.dp_at(d, 1), R * B);
      const x = offset ? new Uint8Array(mem, e.dp_at(d, 2), T * C) : new Int8Array(mem, e.dp_at(d, 2), T * C);
      const xs = new Float32Array(mem, e.dp_at(d, 3), T * B);
      const out = new Float32Array(mem, e.dp_at(d, 4), T * R);
      let worst = 0;
      for (let t = 0; t < T; t += 1) {
        for (let r = 0; r < R; r += 1) {
          let sum = 0;
          let size = 0;
          for (let b = 0; b < B; b += 1) {
            let dot = 0;
            for (let k = b * 32; k < (b + 1) * 32; k += 1) dot += w[r * C + k] * (x[t * C + k] - offset);
            const term = dot * ws[r * B + b] * xs[t * B + b];
            sum += term;
            size += Math.abs(term);
          }
          worst = Math.max(worst, Math.abs(out[t * R + r] - sum) / Math.max(size, 1));
        }
      }
      return worst;
    };
    window.timeLoop = (build, fn, seconds) => {
      const m = modules[build];
      const run = (n) => {
        const start = performance.now();
        m.e[fn](m.d, n);
        return performance.now() - start;
      };
      // calls of about 25 ms: short enough that one often runs unpreempted
      let n = 1;
      while (run(n) < 10) n *= 2;
      n = Math.max(1, Math.round((n * 25) / run(n)));
      let best = Infinity;
      let total = 0;
      let calls = 0;
      while (total < seconds * 1000) {
        const took = run(n);
        best = Math.min(best, took);
        total += took;
        calls += 1;
      }
      m.e[fn](m.d, 1);
      const macs = m.e.dp_shape(0) * m.e.dp_shape(1) * m.e.dp_shape(2) * n;
      return { gmacs: macs / best / 1e6, gmacs_mean: (macs * calls) / total / 1e6, gap: check(m) };
    };
  }, { relaxed: wasm('dot-peak-relaxed'), simd128: wasm('dot-peak-simd128') });
}

const LOOPS = [
  { name: 'native 4x2', run: () => runNative(slot) },
  { name: 'relaxed t4', build: 'relaxed', fn: 'dp_relaxed_t4' },
  { name: 'relaxed t8', build: 'relaxed', fn: 'dp_relaxed_t8' },
  { name: 'simd128', build: 'simd128', fn: 'dp_simd128' },
];

const browser = await launchBrowser();
const rows = [];
let wrong = false;
try {
  const page = await browser.newPage();
  await preparePage(page);
  const cpu = os.cpus()[0]?.model ?? '?';
  console.log(`dot_peak: ${cpu}, Chromium ${browser.version()}, ${rounds} rounds, ${slot.toFixed(2)} s per loop per round`);
  console.log(`load average at start: ${load()}`);
  // wasm starts in the baseline compiler; hot functions move to the optimizing one
  for (const l of LOOPS.filter((l) => l.build)) await page.evaluate((a) => window.timeLoop(...a), [l.build, l.fn, 0.5]);
  for (let round = 1; round <= rounds; round += 1) {
    const order = LOOPS.map((_, i) => LOOPS[(i + round - 1) % LOOPS.length]);
    const row = { round, rates: {} };
    for (const l of order) {
      const r = l.run ? l.run() : await page.evaluate((a) => window.timeLoop(...a), [l.build, l.fn, slot]);
      if (!(r.gap <= BOUND)) {
        console.log(`round ${round}: ${l.name} is WRONG (worst gap ${r.gap} to the scalar product): no rate`);
        wrong = true;
        continue;
      }
      row.rates[l.name] = r;
    }
    row.load = load();
    const n = row.rates['native 4x2']?.gmacs;
    const fig = LOOPS.map((l) => {
      const r = row.rates[l.name];
      if (!r) return `${l.name} -`;
      return l.name === 'native 4x2' || !n ? `${l.name} ${r.gmacs.toFixed(1)}` : `${l.name} ${r.gmacs.toFixed(1)} (${(r.gmacs / n).toFixed(3)})`;
    });
    console.log(`round ${round} (load ${row.load}): ${fig.join(', ')}`);
    rows.push(row);
  }
} finally {
  await browser.close();
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const range = (xs) => (xs.length ? `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}` : '-');
console.log(`load average at end: ${load()}`);
console.log('\n| loop | G multiply-adds/s per core, median (range) | ÷ native 4×2 in the same round, median (range) |');
console.log('|---|---|---|');
const summary = LOOPS.map((l) => {
  const rates = rows.map((r) => r.rates[l.name]?.gmacs).filter((x) => x !== undefined);
  const ratios = rows
    .filter((r) => r.rates[l.name] && r.rates['native 4x2'])
    .map((r) => r.rates[l.name].gmacs / r.rates['native 4x2'].gmacs);
  const s = { loop: l.name, gmacs_median: median(rates), ratio_median: median(ratios), gmacs: rates, ratios };
  const ratio = l.name === 'native 4x2' ? '1' : `${s.ratio_median.toFixed(3)} (${range(ratios)})`;
  console.log(`| ${l.name} | ${s.gmacs_median.toFixed(1)} (${range(rates)}) | ${ratio} |`);
  return s;
});
console.log(JSON.stringify({ dot_peak: { rounds: rows, summary } }));
if (wrong) process.exit(1);
