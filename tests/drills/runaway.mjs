// Runaway models: one call repeated forever, an A-B-A-B thrash, varied calls that keep getting
// the same observation, and an unsolvable task. Under the default (reflective) rules a detector's
// first finding asks the model for a forced reflection, and the run stops when the pattern goes
// on after it: the diagnosis comes at the detector's threshold (repetition 3, thrashing 4,
// stagnation 4 observations with nothing new: the sixth call, since the first two results are
// new), the stop at most two observations after the reflection (repetition stops at its own 5).
// The unsolvable task (every call a new position, the same "nothing here") must end inside its
// budget with a handoff that names where it is stuck, not at the step cap. Each figure also
// says how many model requests were spent against a step cap alone.
import { launchBrowser } from '../e2e/support/browser.mjs';
import { openEmbed } from '../e2e/support/embed.mjs';
import { scriptedOpenAi } from '../e2e/support/scripted_openai.mjs';
import { runInPage, mockProvider } from './page.mjs';

const STEP_CAP = 40;

/** The model's `n`-th call (from 0) in each case, and what the `look` tool answers. */
const CASES = {
  repeat: { args: () => ({ x: 1 }), same: false, diagnose: 3, stop: 5, reason: 'no_progress' },
  thrash: { args: (n) => ({ x: 1 + (n % 2) }), same: false, diagnose: 4, stop: 7, reason: 'no_progress' },
  identical_observations: { args: (n) => ({ x: n }), same: true, diagnose: 6, stop: 8, reason: 'no_progress' },
  unsolvable: { args: (n) => ({ x: n }), same: false, maxSteps: 12, reason: 'no_progress' },
};

export async function runawayDrill({ site, figures }) {
  const browser = await launchBrowser();
  try {
    for (const [name, c] of Object.entries(CASES)) {
      let n = 0;
      const mock = await scriptedOpenAi({ respond: () => ({ calls: [{ id: `c${n}`, name: 'look', args: c.args(n++) }] }) });
      const context = await browser.newContext();
      try {
        const page = await openEmbed(context, site);
        await page.evaluate(async (same) => {
          await tabloop.registerTool({
            name: 'look',
            description: 'Looks at position x.',
            parameters: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
            permission: 'allow',
            idempotent: true,
            execute: async ({ x }) => `at ${same ? 0 : x}: nothing here`,
          });
        }, c.same);
        const r = await runInPage(page, { session: `runaway-${name}`, provider: mockProvider(mock), tools: ['look'], budget: { maxSteps: c.maxSteps ?? STEP_CAP } }, 'find the key');
        const outcome = r.end.outcome;
        const callsBefore = (event) => r.events.filter((e) => e.type === 'tool_call_finished' && e.seq < event.seq).length;
        const guards = r.events.filter((e) => e.type === 'guard_triggered');
        const diagnosis = guards.find((e) => !e.stop);
        const stop = guards.find((e) => e.stop);
        figures.add('runaway', `${name}: stop reason`, outcome?.stopReason ?? r.end.type, null);
        figures.add('runaway', `${name}: stop reason is ${c.reason}`, outcome?.stopReason === c.reason ? 1 : 0, { eq: 1 }, outcome?.stopReason ?? r.end.type);
        if (c.diagnose) {
          figures.add('runaway', `${name}: calls at the diagnosis`, diagnosis ? callsBefore(diagnosis) : -1, { eq: c.diagnose }, diagnosis?.detector ?? 'no diagnosis');
          figures.add('runaway', `${name}: calls at the stop`, stop ? callsBefore(stop) : -1, { max: c.stop }, stop?.detector ?? 'no stop');
        } else {
          figures.add('runaway', `${name}: steps inside the budget of ${c.maxSteps}`, outcome?.steps ?? -1, { max: c.maxSteps });
          const handoff = outcome?.handoff;
          figures.add('runaway', `${name}: handoff report present`, handoff && handoff.task && handoff.progress.length + handoff.stuck_on.length > 0 ? 1 : 0, { eq: 1 }, handoff ? `${handoff.progress.length} progress, ${handoff.findings.length} findings, ${handoff.stuck_on.length} stuck_on` : 'none');
          figures.add('runaway', `${name}: stuck_on names the repeating call`, (handoff?.stuck_on ?? []).some((line) => line.includes('look(')) ? 1 : 0, { eq: 1 }, (handoff?.stuck_on ?? []).slice(0, 2).join(' / '));
        }
        const reflections = r.events.filter((e) => e.type === 'step_started' && e.reason?.kind === 'reflection' && (!stop || e.seq < stop.seq)).length;
        figures.add('runaway', `${name}: forced reflections before the stop`, reflections, { min: 1 });
        figures.add('runaway', `${name}: model requests spent`, mock.requests.length, { max: c.maxSteps ?? STEP_CAP }, `a step cap of ${c.maxSteps ?? STEP_CAP} alone would spend ${c.maxSteps ?? STEP_CAP}`);
      } finally {
        await context.close();
        await mock.close();
      }
    }
  } finally {
    await browser.close();
  }
}
