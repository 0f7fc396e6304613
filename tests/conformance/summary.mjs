// Reads one run of scripts/mcp-conformance.sh (for each release of the suite it ran, the
// suite's `<scenario>-<time>/checks.json` files and the exit codes of the scenarios run one by
// one) and prints the summary as one JSON line: {"passed":N,"failed":N,"scenarios":{name:
// {status,checks,...}}}, each release's names with its prefix. A scenario
// passes as the suite itself judges it: no FAILURE and no WARNING check, and, when it ran alone,
// the suite's exit code 0 (which also covers a client that failed or timed out where the
// scenario expects success). Exits 1 when any scenario failed.
import fs from 'node:fs';
import path from 'node:path';

const [out, ...releases] = process.argv.slice(2);
if (!out || releases.length === 0) {
  console.error('usage: node tests/conformance/summary.mjs <results dir> <release>=<name prefix> ...');
  process.exit(2);
}

/** Every `checks.json` under `dir`, by scenario name (the folder path without its time suffix). */
function findChecks(dir, prefix = '') {
  const found = {};
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const full = path.join(dir, entry.name);
    const file = path.join(full, 'checks.json');
    const match = entry.name.match(/^(.*)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/);
    if (match && fs.existsSync(file)) found[`${prefix}${match[1]}`] = JSON.parse(fs.readFileSync(file, 'utf8'));
    else Object.assign(found, findChecks(full, `${prefix}${entry.name}/`));
  }
  return found;
}

const scenarios = {};
for (const release of releases) {
  const [sub, prefix = ''] = release.split('=');
  const dir = path.join(out, sub);
  if (!fs.existsSync(dir)) continue;
  const exitCodes = {};
  const codesFile = path.join(dir, 'exit-codes.txt');
  if (fs.existsSync(codesFile)) {
    for (const line of fs.readFileSync(codesFile, 'utf8').split('\n').filter(Boolean)) {
      const [name, code] = line.split(' ');
      exitCodes[name] = Number(code);
    }
  }
  for (const [name, checks] of Object.entries(findChecks(dir)).sort(([a], [b]) => a.localeCompare(b))) {
    const count = (status) => checks.filter((c) => c.status === status).length;
    const counts = { passed: count('SUCCESS'), failed: count('FAILURE'), warnings: count('WARNING') };
    const exit = exitCodes[name];
    const ok = counts.failed === 0 && counts.warnings === 0 && (exit === undefined || exit === 0);
    const problems = checks
      .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
      .map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
    if (exit !== undefined && exit !== 0 && problems.length === 0) problems.push(`the suite exited ${exit} (see ${sub}/${name.replace('/', '_')}.log)`);
    scenarios[`${prefix}${name}`] = { status: ok ? 'pass' : 'fail', checks: counts, ...(exit === undefined ? { suite: 'auth' } : {}), ...(problems.length ? { problems } : {}) };
  }
  // A scenario that ran alone but left no checks (the suite could not start it) is a failure too.
  for (const [name, code] of Object.entries(exitCodes)) {
    if (!name.startsWith('suite:') && !scenarios[`${prefix}${name}`]) {
      scenarios[`${prefix}${name}`] = { status: 'fail', checks: { passed: 0, failed: 0, warnings: 0 }, problems: [`no checks.json; the suite exited ${code}`] };
    }
  }
}

const values = Object.values(scenarios);
const summary = {
  passed: values.filter((s) => s.status === 'pass').length,
  failed: values.filter((s) => s.status === 'fail').length,
  scenarios,
};
fs.writeFileSync(path.join(out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
console.log(JSON.stringify(summary));
process.exit(summary.failed === 0 ? 0 : 1);
