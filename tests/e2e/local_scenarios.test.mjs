// The part of the real-model scenario suite (benches/scenarios/local_model.mjs, all of it with
// scripts/scenarios.sh) that runs in CI: on the bundled model through the default tools, the
// todo task ends in a successful todo call that holds the item, and a person's first question
// (naming no tool) ends in an answer with no call refused. Timings are printed, not asserted.
// The other scenarios (write, write then read, eval, answer, haiku, list files, forbidden
// fetch) are in scripts/scenarios.sh, and on native llama.cpp in scripts/scenarios-native.sh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runScenarios } from '../../benches/scenarios/local_model.mjs';

test('the bundled model adds a todo item with a real, successful todo call', { timeout: 400_000 }, async () => {
  const [record] = await runScenarios(['todo'], { log: (line) => console.log(`scenario: ${line}`) });
  assert.equal(record.ok, true, `${record.why}; calls: ${record.calls.join(' ')}`);
});

// Whether the answer is right (17 × 23 = 391) is the model's part and is reported by
// scripts/scenarios.sh; that every call it writes is one the schema check takes is the
// runtime's: the reply grammar follows the tools' bounds (finish's summary of at least one
// character), so the run ends in an answer instead of refused calls and a consecutive-errors stop.
test("a person's first question ends in an answer, with no call refused", { timeout: 400_000 }, async () => {
  const [record] = await runScenarios(['first_question'], { log: (line) => console.log(`scenario: ${line}`) });
  const refused = record.calls.filter((call) => call.endsWith('!'));
  assert.deepEqual(refused, [], `refused calls; ${record.why}`);
  assert.ok(['completed', 'unverified_finish'].includes(record.stop), `the run stopped ${record.stop}; ${record.why}`);
});
