// The local model's threads: chosen from a core probe's figures (www/local/core_probe.js), every
// core only when each worker spinning at once kept nearly the lone worker's speed; and given up
// (a restart on fewer threads) when generation later slows down sharply (wllama_model.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { probeRates, threadChoices, threadsFromProbe } from '../../www/local/core_probe.js';
import { WllamaModel } from '../../www/local/wllama_model.js';

test('the choices are half the cores (safe) and all of them, or all but one (fast)', () => {
  assert.deepEqual(threadChoices(1), { safe: 1, fast: 1 });
  assert.deepEqual(threadChoices(2), { safe: 1, fast: 2 });
  assert.deepEqual(threadChoices(4), { safe: 2, fast: 3 });
  assert.deepEqual(threadChoices(16), { safe: 8, fast: 8 });
  assert.deepEqual(threadChoices(0), { safe: 1, fast: 1 });
});

test('free cores get every thread; busy ones keep half', () => {
  // Idle 2-core machine: both workers ran as fast as one alone.
  assert.equal(threadsFromProbe({ single: 1000, concurrent: [990, 960] }, 2).threads, 2);
  // One other busy process: two workers share a core and a half.
  assert.equal(threadsFromProbe({ single: 1000, concurrent: [700, 650] }, 2).threads, 1);
  // Only one of them slowed: the slowest decides (llama.cpp waits for its slowest thread).
  assert.equal(threadsFromProbe({ single: 1000, concurrent: [1000, 1000, 500] }, 4).threads, 2);
  assert.equal(threadsFromProbe({ single: 1000, concurrent: [900, 880, 860] }, 4).threads, 3);
  // A probe that measured nothing is no evidence of free cores.
  assert.equal(threadsFromProbe({ single: 0, concurrent: [0, 0] }, 2).threads, 1);
  assert.match(threadsFromProbe({ single: 1000, concurrent: [700, 650] }, 2).reason, /kept 65% of one alone: the cores are busy, 1 thread/);
});

test('every worker is warmed up before it is timed, so a cold start does not read as a busy core', async () => {
  // Workers on free cores whose first run does 20% less work per millisecond (compiling).
  const runs = new Map();
  const spinFor = async (worker, ms) => {
    const run = runs.get(worker) ?? 0;
    runs.set(worker, run + 1);
    return Math.round(ms * 100 * (run === 0 ? 0.8 : 1));
  };
  const rates = await probeRates(['a', 'b'], spinFor);
  assert.deepEqual(rates.concurrent, [rates.single, rates.single], 'both timed warm, as fast as one alone');
  assert.equal(threadsFromProbe(rates, 2).threads, 2);
  assert.deepEqual([...runs.values()], [3, 2], 'the lone worker ran three times, the other twice');
});

/** A stand-in for wllama whose completions write 20 tokens at the given rates, in turn. */
class FakeWllama {
  constructor(threads, rates) {
    this.threads = threads;
    this.rates = rates;
    this.exited = false;
  }
  getNumThreads() {
    return this.threads;
  }
  async createChatCompletion(params) {
    params.onData({ choices: [{ delta: { content: 'x' } }] });
    const timings = { predicted_n: 20, predicted_per_second: this.rates.shift(), prompt_n: 5, cache_n: 0 };
    params.onData({ choices: [{ delta: {}, finish_reason: 'stop' }], timings });
  }
  async exit() {
    this.exited = true;
  }
}

const REQUEST = { messages: [{ role: 'user', content: 'hi' }] };

test('a sharp slowdown on the probed threads restarts the model on the safe ones, once', async () => {
  const fast = new FakeWllama(2, [20, 18, 5]);
  const safe = new FakeWllama(1, [9, 9]);
  let restarts = 0;
  const model = new WllamaModel(fast, { threads: 2 }, { threads: 1, start: async () => ((restarts += 1), safe) });
  await model.complete(REQUEST);
  await model.complete(REQUEST);
  assert.equal(restarts, 0, 'a rate within the usual spread changes nothing');
  await model.complete(REQUEST);
  assert.equal(restarts, 0, 'the slow completion itself finishes on its threads');
  await model.complete(REQUEST);
  assert.equal(restarts, 1, 'the next one runs on the safe threads');
  assert.ok(fast.exited);
  assert.equal(model.info.threads, 1);
  assert.match(model.info.threads_reason, /generation fell from 20\.0 to 5\.0 tokens\/s on 2 threads .*: restarted on 1/);
  await model.complete(REQUEST);
  assert.equal(restarts, 1);
  await model.unload();
});

test('without a fallback (threads asked for, or already safe) a slowdown changes nothing', async () => {
  const wllama = new FakeWllama(2, [20, 2, 2]);
  const model = new WllamaModel(wllama, { threads: 2 });
  for (let i = 0; i < 3; i += 1) await model.complete(REQUEST);
  assert.equal(wllama.exited, false);
  await model.unload();
  assert.equal(wllama.exited, true);
});
