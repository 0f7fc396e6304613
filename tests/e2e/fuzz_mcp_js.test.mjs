// Replays the MCP client fuzzer's seed corpus (fuzz/corpus/mcp_js) and every input it ever
// failed on (fuzz/regressions/mcp_js) through its check (fuzz/js/mcp_fuzz.mjs), in Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { check } from '../../fuzz/js/mcp_fuzz.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('the MCP client reads every kept fuzz input without breaking a promise', async () => {
  const files = ['fuzz/corpus/mcp_js', 'fuzz/regressions/mcp_js']
    .map((d) => path.join(repo, d))
    .filter((d) => fs.existsSync(d))
    .flatMap((d) => fs.readdirSync(d).map((f) => path.join(d, f)));
  assert.ok(files.length >= 4, `${files.length} inputs`);
  const failures = [];
  for (const file of files) {
    await check(fs.readFileSync(file)).catch((e) => failures.push(`${path.basename(file)}: ${e.message}`));
  }
  assert.deepEqual(failures, []);
});
