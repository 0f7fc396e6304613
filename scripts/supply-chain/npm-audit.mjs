#!/usr/bin/env node
// Judges `npm audit --omit=dev --json` against the allow-list next to this file: exit 1 on an
// advisory the list does not name (or an entry with no reason), 0 otherwise. When the registry
// has no audit endpoint (some mirrors answer 404/405) or cannot be reached, it says so and exits
// 0: the check fails on a new advisory, never on the network. TABLOOP_REQUIRE_NPM_AUDIT=1 makes
// an unanswered audit fail too.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The allow-list's entries, checked: each names an advisory and a package and gives a reason. */
export function readAllowList(text) {
  const list = JSON.parse(text);
  const entries = list.allow ?? [];
  const problems = [];
  for (const [i, e] of entries.entries()) {
    if (typeof e.advisory !== 'string' || !e.advisory) problems.push(`entry ${i}: no advisory`);
    if (typeof e.package !== 'string' || !e.package) problems.push(`entry ${i}: no package`);
    if (typeof e.reason !== 'string' || e.reason.trim().length < 10) problems.push(`entry ${i} (${e.advisory}): no reason given`);
  }
  return { entries, problems };
}

/** The advisories in an `npm audit --json` report: { id, url, package, severity, title }. */
export function advisories(report) {
  const out = new Map();
  for (const [name, vuln] of Object.entries(report.vulnerabilities ?? {})) {
    for (const via of vuln.via ?? []) {
      if (typeof via !== 'object') continue; // a package vulnerable through another: listed there
      const id = String(via.url ?? via.source ?? `${name}:${via.title}`).replace(/^.*\/advisories\//, '');
      out.set(`${via.name ?? name}|${id}`, { id, url: via.url, package: via.name ?? name, severity: via.severity, title: via.title });
    }
  }
  return [...out.values()];
}

/**
 * The verdict on one audit run: `{ outcome: 'clean' | 'allowed' | 'new' | 'unavailable' | 'bad-list',
 * fresh, allowed, unused, problems, note }`.
 */
export function judge(report, allowText) {
  const { entries, problems } = readAllowList(allowText);
  if (problems.length) return { outcome: 'bad-list', problems, fresh: [], allowed: [], unused: [] };
  if (!report || report.error || (report.message && !report.vulnerabilities)) {
    const status = report?.statusCode ?? report?.error?.code ?? 'no answer';
    return { outcome: 'unavailable', note: `${report?.message ?? 'no report'} (${status})`, problems: [], fresh: [], allowed: [], unused: [] };
  }
  const found = advisories(report);
  const matches = (a, e) => e.package === a.package && (e.advisory === a.id || e.advisory === a.url);
  const fresh = found.filter((a) => !entries.some((e) => matches(a, e)));
  const allowed = found.filter((a) => entries.some((e) => matches(a, e)));
  const unused = entries.filter((e) => !found.some((a) => matches(a, e)));
  const outcome = fresh.length ? 'new' : allowed.length ? 'allowed' : 'clean';
  return { outcome, fresh, allowed, unused, problems: [] };
}

function runAudit() {
  try {
    return execFileSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 120_000 });
  } catch (error) {
    return error.stdout ?? ''; // npm audit exits 1 when it finds something; the report is on stdout
  }
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const allowText = fs.readFileSync(path.join(here, 'npm-audit-allow.json'), 'utf8');
  let report = null;
  try {
    report = JSON.parse(runAudit() || 'null');
  } catch {
    report = null;
  }
  const verdict = judge(report, allowText);
  const say = (s) => console.log(`[npm-audit] ${s}`);
  for (const a of verdict.allowed) say(`allowed: ${a.package} ${a.id} (${a.severity}) ${a.title}`);
  for (const e of verdict.unused) say(`allow-list entry no longer needed: ${e.package} ${e.advisory}`);
  switch (verdict.outcome) {
    case 'clean':
    case 'allowed': {
      const counted = report?.metadata?.dependencies?.prod ?? '?';
      say(`no advisory outside the allow-list (${counted} shipped packages audited)`);
      break;
    }
    case 'new':
      for (const a of verdict.fresh) say(`NEW ADVISORY: ${a.package} ${a.id} (${a.severity}) ${a.title} ${a.url ?? ''}`);
      say('add an upgrade, or an entry with its reason to scripts/supply-chain/npm-audit-allow.json');
      process.exit(1);
      break;
    case 'bad-list':
      for (const p of verdict.problems) say(`allow-list: ${p}`);
      process.exit(1);
      break;
    case 'unavailable':
      say(`the registry did not answer the audit: ${verdict.note}; npm packages not audited on this machine`);
      if (process.env.TABLOOP_REQUIRE_NPM_AUDIT === '1') process.exit(1);
      break;
  }
}
