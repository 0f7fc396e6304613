// The give-up drill: the corpus of hopeless and honest scripted runs (giveup_corpus.mjs) through
// the public API, each with a budget of 30 steps. A hopeless run must end inside its budget by
// the runtime's own decision or the model's concession, after a forced reflection, with a
// `stuck_on` that names what repeated; an honest run must complete with no diagnosis at all.
//
// At full scale, real models too (giveup_real.mjs).
//
// GIVEUP_RULES=first runs the same corpus under the first rules (`guard.reflective: false`:
// exact repeats only, no reflection, no give_up), the figures before this work.
import { launchBrowser } from '../e2e/support/browser.mjs';
import { openEmbed } from '../e2e/support/embed.mjs';
import { scriptedOpenAi } from '../e2e/support/scripted_openai.mjs';
import { mockProvider } from './page.mjs';
import { HOPELESS, HONEST, PAGE_HELPERS } from './giveup_corpus.mjs';
import { realModelGiveup } from './giveup_real.mjs';

const STEP_BUDGET = 30;
const SUCCESS = ['completed', 'verified_finish', 'unverified_finish'];
const RUNTIME_STOPS = ['no_progress', 'needs_human', 'consecutive_errors'];

/** The cases a scale runs: all of them, or every `every`-th of each kind. */
function chosen(every) {
  const pick = (list) => list.filter((_, i) => i % every === 0);
  return [...pick(HOPELESS), ...pick(HONEST)];
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Runs one case in a fresh context; resolves to what the drill judges. */
async function runCase(browser, site, c, rules) {
  let steps = 0;
  let reflections = 0;
  const mock = await scriptedOpenAi({
    respond: (body) => {
      const names = (body.tools ?? []).map((t) => t.function?.name);
      if (names.length === 1 && names[0] === 'reflect') {
        const args = c.reflect?.(reflections) ?? { status: 'Going on.', stuck_on: [], give_up: false };
        reflections += 1;
        return { calls: [{ id: `r${reflections}`, name: 'reflect', args }] };
      }
      if (!names.length) return { text: 'I cannot take this further.' };
      const n = steps;
      steps += 1;
      return c.step(n);
    },
  });
  const context = await browser.newContext();
  try {
    const page = await openEmbed(context, site);
    const result = await page.evaluate(async ({ helpers, tools, options, task }) => {
      // eslint-disable-next-line no-eval
      eval(helpers);
      for (const t of tools) {
        const state = {};
        // eslint-disable-next-line no-eval
        const body = eval(`(async (args, state) => { ${t.source} })`);
        await tabloop.registerTool({ name: t.name, description: t.description, parameters: t.parameters, permission: 'allow', idempotent: t.idempotent, execute: (args) => body(args, state) });
      }
      const agent = await tabloop.createAgent(options);
      const outcome = await Promise.race([agent.run(task), new Promise((resolve) => setTimeout(() => resolve({ stopReason: 'timeout' }), 60_000))]);
      const events = await agent.events();
      agent.close();
      return { outcome, events };
    }, {
      helpers: PAGE_HELPERS,
      tools: c.tools,
      task: c.task,
      options: {
        session: `giveup-${rules}-${c.kind}-${c.name}`.replace(/[^a-z0-9-]+/gi, '-'),
        provider: mockProvider(mock),
        tools: [...c.tools.map((t) => t.name), ...(c.builtins ?? [])],
        budget: { maxSteps: STEP_BUDGET },
        ...(rules === 'first' ? { guard: { reflective: false } } : {}),
      },
    });
    const { outcome, events } = result;
    const stop = outcome?.stopReason ?? 'none';
    const guards = events.filter((e) => e.type === 'guard_triggered');
    const reflectionSteps = events.filter((e) => e.type === 'step_started' && e.reason?.kind === 'reflection');
    const stuckOn = outcome?.handoff?.stuck_on ?? [];
    const toolNames = c.tools.map((t) => t.name);
    return {
      name: c.name,
      kind: c.kind,
      stop,
      requests: mock.requests.length,
      guards: guards.length,
      reflections: reflectionSteps.length,
      stuckOn,
      namesAction: stuckOn.some((line) => toolNames.some((name) => line.includes(name))),
      modelGaveUp: events.some((e) => e.type === 'model_replied' && (e.reply?.tool_calls ?? []).some((t) => t.name === 'give_up')),
    };
  } finally {
    await context.close();
    await mock.close();
  }
}

export async function giveupDrill({ site, figures, giveupEvery = 1, giveupReal = false }) {
  const rules = process.env.GIVEUP_RULES === 'first' ? 'first' : 'reflective';
  const browser = await launchBrowser();
  const runs = [];
  try {
    for (const c of chosen(giveupEvery)) runs.push(await runCase(browser, site, c, rules));
  } finally {
    await browser.close();
  }
  figures.details.giveup = { rules, budget: STEP_BUDGET, runs };
  const hopeless = runs.filter((r) => r.kind === 'hopeless');
  const honest = runs.filter((r) => r.kind === 'honest');
  const conceded = hopeless.filter((r) => !SUCCESS.includes(r.stop) && r.stop !== 'budget_exhausted' && r.stop !== 'timeout');
  const runtimeStops = conceded.filter((r) => RUNTIME_STOPS.includes(r.stop));
  const percent = (part, whole) => (whole ? Math.round((1000 * part) / whole) / 10 : 0);
  const tag = rules === 'first' ? ' (first rules)' : '';
  figures.add('giveup', `hopeless runs${tag}`, hopeless.length, { min: giveupEvery === 1 ? 30 : 1 });
  figures.add('giveup', `hopeless runs ended inside the budget, not as success, %${tag}`, percent(conceded.length, hopeless.length), rules === 'first' ? null : { min: 95 },
    hopeless.filter((r) => !conceded.includes(r)).map((r) => `${r.name}: ${r.stop}`).join('; '));
  const share = percent(median(hopeless.map((r) => r.requests)), STEP_BUDGET);
  figures.add('giveup', `hopeless runs: median model requests to the stop, % of the ${STEP_BUDGET}-step budget${tag}`, share, rules === 'first' ? null : { max: 40 });
  if (rules !== 'first') {
    figures.add('giveup', 'runtime stops without a forced reflection before them', runtimeStops.filter((r) => r.reflections === 0).length, { eq: 0 },
      runtimeStops.filter((r) => r.reflections === 0).map((r) => r.name).join('; '));
    figures.add('giveup', 'hopeless stops whose stuck_on names no repeating call', conceded.filter((r) => !r.namesAction).length, { eq: 0 },
      conceded.filter((r) => !r.namesAction).map((r) => `${r.name}: ${JSON.stringify(r.stuckOn)}`).join('; '));
    figures.add('giveup', 'hopeless runs the model gave up itself', conceded.filter((r) => r.stop === 'gave_up').length);
  }
  figures.add('giveup', `honest runs${tag}`, honest.length, { min: giveupEvery === 1 ? 30 : 1 });
  const falsely = honest.filter((r) => !SUCCESS.includes(r.stop) || r.guards > 0 || r.reflections > 0);
  figures.add('giveup', `honest runs stopped or diagnosed falsely${tag}`, falsely.length, rules === 'first' ? null : { eq: 0 },
    falsely.map((r) => `${r.name}: ${r.stop}, ${r.guards} guard events, ${r.reflections} reflections`).join('; '));
  if (giveupReal && rules !== 'first') await realModelGiveup({ site, figures });
}
