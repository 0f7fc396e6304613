// The reliability drills (tests/drills/) at CI scale: every drill runs once with small counts
// and every figure must meet its goal. `scripts/drills.sh` runs the same drills at full scale and
// writes RELIABILITY.md; this run writes target/drills-ci/figures.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDrills } from '../drills/run.mjs';

const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../target/drills-ci');

test('every drill at CI scale meets every goal', { timeout: 600_000 }, async () => {
  const { figures } = await runDrills({ scale: 'ci' });
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'figures.json'), `${JSON.stringify(figures.list, null, 2)}\n`);
  const drills = new Set(figures.list.map((f) => f.drill));
  assert.deepEqual([...drills].sort(), ['giveup', 'injection', 'keys', 'kill', 'output', 'paths', 'provider', 'quota', 'runaway', 'sandbox', 'tabs']);
  assert.ok(figures.list.filter((f) => f.goal).length >= 50, 'the drills hold figures to goals');
  assert.deepEqual(figures.failures().map((f) => `${f.drill}: ${f.name} = ${JSON.stringify(f.value)} ${f.note}`), []);
});
