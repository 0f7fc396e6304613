// A short part of the official MCP conformance run (scripts/mcp-conformance.sh runs it all):
// the suite's core client scenarios and a few authorization ones, against the client running in
// headless Chromium on the built site. The script installs Node 22 and the pinned suite into
// ~/.cache/tabloop the first time (about 20 s); each scenario takes about 5 s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCENARIOS = [
  'initialize',
  'tools_call',
  'elicitation-sep1034-client-defaults',
  'sse-retry',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-step-up',
  'auth/token-endpoint-auth-basic',
];

test('the conformance suite passes its core client scenarios and a sample of the authorization ones', { timeout: 600_000 }, () => {
  const run = spawnSync('bash', ['scripts/mcp-conformance.sh', '--no-build', ...SCENARIOS.flatMap((s) => ['--scenario', s])], {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const lines = run.stdout.trim().split('\n');
  let summary;
  try {
    summary = JSON.parse(lines.at(-1));
  } catch {
    assert.fail(`no JSON summary (exit ${run.status}):\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`);
  }
  const failed = Object.entries(summary.scenarios).filter(([, s]) => s.status !== 'pass');
  assert.deepEqual(failed, [], `scenarios that failed:\n${JSON.stringify(failed, null, 2)}`);
  assert.deepEqual(Object.keys(summary.scenarios).sort(), [...SCENARIOS].sort());
  assert.equal(summary.passed, SCENARIOS.length);
  assert.equal(run.status, 0);
});
