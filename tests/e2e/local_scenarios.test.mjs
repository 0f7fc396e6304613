// The part of the real-model scenario suite (benches/scenarios/local_model.mjs, all of it with
// scripts/scenarios.sh) that runs in CI: on the bundled model through the default tools, the
// todo task ends in a successful todo call that holds the item. Timings are printed, not
// asserted. The other scenarios (write, write then read, eval, answer, forbidden fetch) are in
// scripts/scenarios.sh, and on native llama.cpp in scripts/scenarios-native.sh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runScenarios } from '../../benches/scenarios/local_model.mjs';

test('the bundled model adds a todo item with a real, successful todo call', { timeout: 400_000 }, async () => {
  const [record] = await runScenarios(['todo'], { log: (line) => console.log(`scenario: ${line}`) });
  assert.equal(record.ok, true, `${record.why}; calls: ${record.calls.join(' ')}`);
});
