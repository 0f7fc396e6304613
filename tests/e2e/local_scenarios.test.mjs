// The part of the real-model scenario suite (benches/scenarios/local_model.mjs, all of it with
// scripts/scenarios.sh) that runs in CI: on the bundled model through the default tools, the
// eval task ends in a successful eval call that computed the answer. Timings are printed, not
// asserted. (The newcomer's vfs write is not here: the call succeeds and the run ends, but the
// model writes "Hello, World!" rather than "hello"; see scripts/scenarios.sh for its result.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runScenarios } from '../../benches/scenarios/local_model.mjs';

test('the bundled model computes 17 * 23 with a real eval call', { timeout: 400_000 }, async () => {
  const [record] = await runScenarios(['eval'], { log: (line) => console.log(`scenario: ${line}`) });
  assert.equal(record.ok, true, `${record.why}; calls: ${record.calls.join(' ')}`);
});
