// The drill suite: attacks the built product the way production will (crashes, provider faults,
// runaway models, hopeless tasks, sandbox escapes, injected instructions, hostile output and paths, leaked keys,
// several tabs, a full disk) and writes the figures as JSON plus a RELIABILITY.md table.
//
//   node tests/drills/run.mjs [--scale ci|full] [--seeds N] [--only kill,provider] [--out DIR] [--md FILE]
//
// `scripts/drills.sh` runs the full scale and rewrites RELIABILITY.md; CI runs the ci scale
// through tests/e2e/drills.test.mjs. Exits non-zero when a figure misses its goal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveSite } from '../e2e/support/site.mjs';
import { Figures, reliabilityMarkdown } from './figures.mjs';
import { killDrill } from './kill.mjs';
import { providerDrill } from './provider.mjs';
import { runawayDrill } from './runaway.mjs';
import { giveupDrill } from './giveup.mjs';
import { sandboxDrill } from './sandbox.mjs';
import { pathsDrill } from './paths.mjs';
import { injectionDrill } from './injection.mjs';
import { outputDrill } from './output.mjs';
import { keysDrill } from './keys.mjs';
import { tabsDrill } from './tabs.mjs';
import { quotaDrill } from './quota.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Counts per scale: `ci` keeps the whole suite near two minutes on two cores. */
export const SCALES = {
  ci: { seeds: 1, fuzz: 10_000, browserFuzz: 300, maxTabs: 3, quotaRounds: 1, giveupEvery: 5 },
  full: { seeds: 20, fuzz: 50_000, browserFuzz: 3_000, maxTabs: 5, quotaRounds: 3, giveupEvery: 1, giveupReal: true },
};

/** Every drill, in the order they run; `site`: it needs the release build served. */
export const DRILLS = {
  kill: { run: killDrill, site: true },
  provider: { run: providerDrill, site: true },
  runaway: { run: runawayDrill, site: true },
  giveup: { run: giveupDrill, site: true },
  sandbox: { run: sandboxDrill, site: false },
  injection: { run: injectionDrill, site: true },
  output: { run: outputDrill, site: true },
  paths: { run: pathsDrill, site: false },
  keys: { run: keysDrill, site: true },
  tabs: { run: tabsDrill, site: true },
  quota: { run: quotaDrill, site: true },
};

/** Runs the drills `only` (all when empty) at `scale`; resolves to the Figures. */
export async function runDrills({ scale = 'ci', seeds, only = [] } = {}) {
  const counts = { ...SCALES[scale], ...(seeds ? { seeds } : {}) };
  const figures = new Figures();
  const chosen = Object.entries(DRILLS).filter(([name]) => !only.length || only.includes(name));
  const unknown = only.filter((name) => !DRILLS[name]);
  if (unknown.length) throw new Error(`unknown drills: ${unknown.join(', ')} (known: ${Object.keys(DRILLS).join(', ')})`);
  const site = chosen.some(([, d]) => d.site) ? await serveSite() : null;
  try {
    for (const [name, drill] of chosen) {
      const started = Date.now();
      try {
        await drill.run({ site, figures, ...counts });
      } catch (error) {
        figures.add(name, 'drill crashed', 1, { eq: 0 }, String(error.stack ?? error).split('\n').slice(0, 3).join(' '));
      }
      figures.add(name, 'drill wall time s', Math.round((Date.now() - started) / 100) / 10);
    }
  } finally {
    await site?.close();
  }
  return { figures, counts };
}

function parseArgs(argv) {
  const args = { scale: 'full', only: [], out: path.join(repo, 'target/drills'), md: null };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--scale') args.scale = value;
    else if (flag === '--seeds') args.seeds = Number(value);
    else if (flag === '--only') args.only = value.split(',');
    else if (flag === '--out') args.out = value;
    else if (flag === '--md') args.md = value;
    else throw new Error(`unknown argument ${flag}`);
    i += 1;
  }
  if (!SCALES[args.scale]) throw new Error(`--scale is ci or full, got ${args.scale}`);
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const { figures, counts } = await runDrills(args);
  const meta = {
    when: new Date().toISOString(), scale: args.scale, seeds: counts.seeds,
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()}`,
  };
  fs.mkdirSync(args.out, { recursive: true });
  fs.writeFileSync(path.join(args.out, 'figures.json'), `${JSON.stringify({ meta, figures: figures.list, details: figures.details }, null, 2)}\n`);
  const md = reliabilityMarkdown(figures.list, meta);
  fs.writeFileSync(path.join(args.out, 'RELIABILITY.md'), md);
  if (args.md) {
    // Sections after the drills' table (## Fuzzing, ## Hostile GGUF files) are other commands'
    // figures: kept as they are.
    const old = fs.existsSync(args.md) ? fs.readFileSync(args.md, 'utf8') : '';
    const at = old.indexOf('\n## ');
    fs.writeFileSync(args.md, at >= 0 ? md + old.slice(at) : md);
  }
  const failures = figures.failures();
  console.log(`\n${figures.list.length} figures, ${failures.length} missing their goal; written to ${args.out}`);
  for (const f of failures) console.log(`  MISSED ${f.drill}: ${f.name} = ${JSON.stringify(f.value)} (goal ${JSON.stringify(f.goal)}) ${f.note}`);
  process.exitCode = failures.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 2;
  });
}
