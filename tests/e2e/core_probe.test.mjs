// The local model's thread choice from a core probe's figures (www/local/core_probe.js): every
// core only when each worker spinning at once kept nearly the lone worker's speed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { threadChoices, threadsFromProbe } from '../../www/local/core_probe.js';

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
