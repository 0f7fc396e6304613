// The supply-chain checks of scripts/supply-chain.sh fail on a new advisory and only then: the
// npm audit verdict (scripts/supply-chain/npm-audit.mjs) over audit reports in npm's own shape,
// and cargo-deny over a copy of the advisory database with one advisory added against a crate the
// project uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { judge, readAllowList } from '../../scripts/supply-chain/npm-audit.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const emptyList = JSON.stringify({ allow: [] });
const report = (vulns) => ({ auditReportVersion: 2, vulnerabilities: vulns, metadata: { dependencies: { prod: 2 } } });
const wllamaVuln = {
  '@wllama/wllama': {
    name: '@wllama/wllama',
    severity: 'high',
    via: [{ source: 1099999, name: '@wllama/wllama', title: 'Heap overflow in the GGUF reader', url: 'https://example.invalid/advisories/GHSA-aaaa-bbbb-cccc', severity: 'high' }],
  },
};

test('npm audit: a new advisory fails, an allowed one with a reason passes, a missing endpoint does not fail', () => {
  assert.equal(judge(report({}), emptyList).outcome, 'clean');
  const fresh = judge(report(wllamaVuln), emptyList);
  assert.equal(fresh.outcome, 'new');
  assert.deepEqual(fresh.fresh.map((a) => [a.package, a.id]), [['@wllama/wllama', 'GHSA-aaaa-bbbb-cccc']]);
  const allowText = JSON.stringify({
    allow: [{ advisory: 'GHSA-aaaa-bbbb-cccc', package: '@wllama/wllama', reason: 'the engine reads GGUF files, not wllama' }],
  });
  assert.equal(judge(report(wllamaVuln), allowText).outcome, 'allowed');
  assert.equal(judge(report({}), allowText).unused.length, 1, 'a stale entry is reported');
  const noReason = JSON.stringify({ allow: [{ advisory: 'GHSA-aaaa-bbbb-cccc', package: '@wllama/wllama', reason: '' }] });
  assert.equal(judge(report(wllamaVuln), noReason).outcome, 'bad-list');
  const mirror = { message: '405 Method Not Allowed - POST …/advisories/bulk', statusCode: 405, error: { summary: '' } };
  assert.equal(judge(mirror, emptyList).outcome, 'unavailable');
  assert.equal(judge(null, emptyList).outcome, 'unavailable');
});

test('the checked-in npm allow-list is valid: every entry names its advisory and gives a reason', () => {
  const text = fs.readFileSync(path.join(repo, 'scripts/supply-chain/npm-audit-allow.json'), 'utf8');
  assert.deepEqual(readAllowList(text).problems, []);
});

const dbDir = path.join(os.homedir(), '.cache/tabloop/advisory-dbs/advisory-db-3157b0e258782691');
const hasDeny = spawnSync('cargo', ['deny', '--version']).status === 0 && fs.existsSync(path.join(dbDir, 'crates'));

test('cargo deny fails on a new advisory against a crate in Cargo.lock', { skip: !hasDeny && 'run scripts/supply-chain.sh first', timeout: 300_000 }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-deny-'));
  const copy = path.join(tmp, 'advisory-db-3157b0e258782691');
  fs.cpSync(dbDir, copy, { recursive: true });
  fs.mkdirSync(path.join(copy, 'crates/memchr'), { recursive: true });
  fs.writeFileSync(path.join(copy, 'crates/memchr/RUSTSEC-2099-0001.md'), [
    '```toml', '[advisory]', 'id = "RUSTSEC-2099-0001"', 'package = "memchr"', 'date = "2099-01-01"',
    'url = "https://example.invalid/memchr"', 'categories = ["memory-corruption"]', '',
    '[versions]', 'patched = []', '```', '', '# A made-up advisory for the test', '', 'memchr reads out of bounds.', '',
  ].join('\n'));
  const git = (...args) => execFileSync('git', ['-C', copy, '-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args]);
  if (!fs.existsSync(path.join(copy, '.git'))) git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'test advisory');
  const config = fs.readFileSync(path.join(repo, 'deny.toml'), 'utf8')
    .replace(/^db-path = .*$/m, `db-path = ${JSON.stringify(tmp)}`);
  assert.ok(config.includes(tmp));
  const configPath = path.join(tmp, 'deny.toml');
  fs.writeFileSync(configPath, config);
  const run = spawnSync('cargo', ['deny', '--offline', '--config', configPath, 'check', '--hide-inclusion-graph', 'advisories'], { cwd: repo, encoding: 'utf8' });
  assert.notEqual(run.status, 0, 'the new advisory fails the check');
  assert.match(run.stderr, /RUSTSEC-2099-0001/);
  const clean = spawnSync('cargo', ['deny', '--offline', 'check', '--hide-inclusion-graph', 'advisories'], { cwd: repo, encoding: 'utf8' });
  assert.equal(clean.status, 0, `without it the database passes:\n${clean.stderr.slice(-800)}`);
  fs.rmSync(tmp, { recursive: true, force: true });
});
