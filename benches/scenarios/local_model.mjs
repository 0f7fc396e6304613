// Real-model scenarios: simple tasks on the bundled model through the default tool set (vfs,
// eval, http_fetch, todo, finish), run through the public API in headless Chromium against the
// release build. Each scenario says what counts as success (a run the runtime stopped or the
// model gave up counts as a failure, except in the scenarios about being beaten); the suite
// prints, per task, whether it succeeded, the first visible output time and the time per step,
// then the success rate.
// Figures only: the exit code is 0 whatever the rate (scripts/scenarios.sh; one scenario runs in
// CI as tests/e2e/local_scenarios.test.mjs).
//
//   node benches/scenarios/local_model.mjs [name ...]
//   GUARD_RULES=first node benches/scenarios/local_model.mjs   (the loop guard's first rules:
//   no reflection, no give_up tool; for a before/after of the reflective rules)
import { launchBrowser } from '../../tests/e2e/support/browser.mjs';
import { serveSite } from '../../tests/e2e/support/site.mjs';

const ok = (call) => call && !call.is_error;
// The vfs has no working directory: 'notes.txt' and '/notes.txt' are the same file.
const samePath = (path, wanted) => typeof path === 'string' && path.replace(/^\/*/, '/') === wanted;

/** name -> {task, success(run) -> {ok, why}} over the run's calls and outcome. */
export const SCENARIOS = {
  write_file: {
    task: 'Use the vfs tool to write the text hello into the file /notes.txt.',
    success: ({ calls }) => {
      const call = calls.find((c) => c.name === 'vfs' && c.args?.op === 'write' && samePath(c.args?.path, '/notes.txt'));
      return { ok: ok(call) && /hello/.test(call.args?.content ?? ''), why: call ? `vfs write -> ${call.is_error ? 'error' : 'ok'}` : 'no vfs write of /notes.txt' };
    },
  },
  write_then_read: {
    task: 'Use the vfs tool to write the text hi into /a.txt, then use the vfs tool to read /a.txt.',
    success: ({ calls }) => {
      const read = calls.find((c) => c.name === 'vfs' && c.args?.op === 'read' && samePath(c.args?.path, '/a.txt'));
      return { ok: ok(read) && /hi/.test(read.content), why: read ? `vfs read -> ${read.is_error ? 'error' : 'ok'}` : 'no vfs read of /a.txt' };
    },
  },
  todo: {
    task: 'Use the todo tool to add the item "buy milk" with status done.',
    success: ({ calls }) => {
      const call = calls.find((c) => c.name === 'todo' && Array.isArray(c.args?.items) && c.args.items.some((i) => /milk/i.test(i?.text ?? '')));
      return { ok: ok(call), why: call ? `todo -> ${call.is_error ? 'error' : 'ok'}` : 'no todo call with the item' };
    },
  },
  eval: {
    task: 'Use the eval tool to compute 17 * 23 in JavaScript.',
    success: ({ calls }) => {
      const call = calls.find((c) => c.name === 'eval');
      return { ok: ok(call) && /391/.test(call.content), why: call ? `eval -> ${call.content.slice(0, 60)}` : 'no eval call' };
    },
  },
  answer: {
    task: 'What is the capital of France? Answer in one word without using any tool.',
    success: ({ calls, outcome }) => {
      const text = `${outcome.finalText ?? ''} ${calls.find((c) => c.name === 'finish')?.args?.summary ?? ''}`;
      const used = calls.filter((c) => c.name !== 'finish');
      return { ok: used.length === 0 && /paris/i.test(text), why: `tools: ${used.map((c) => c.name).join(',') || 'none'}; answer: ${text.trim().slice(0, 60)}` };
    },
  },
  // What a person types first, naming no tool: the playground's first impression.
  first_question: {
    task: 'What is 17 times 23?',
    success: ({ calls, outcome }) => {
      // The answer (a finish summary is the run's final text too) and any tool result, e.g. eval's.
      const text = `${outcome.finalText ?? ''} ${calls.filter((c) => c.name !== 'finish').map((c) => c.content).join(' ')}`;
      const refused = calls.filter((c) => c.is_error).length;
      return { ok: /\b391\b/.test(text), why: `answer: ${text.trim().slice(0, 60) || '(none)'}; ${refused} call(s) refused; stop: ${outcome.stopReason}` };
    },
  },
  haiku: {
    task: 'Write a haiku about browser tabs.',
    success: ({ calls, outcome }) => {
      const text = `${outcome.finalText ?? ''} ${calls.find((c) => c.name === 'finish')?.args?.summary ?? ''}`.trim();
      const used = calls.filter((c) => c.name !== 'finish');
      return { ok: used.length === 0 && text.length > 0, why: `tools: ${used.map((c) => c.name).join(',') || 'none'}; answer: ${text.slice(0, 60) || '(none)'}` };
    },
  },
  list_files: {
    task: 'List the files in the virtual filesystem.',
    success: ({ calls }) => {
      const list = calls.find((c) => c.name === 'vfs' && c.args?.op === 'list' && !c.is_error);
      const tried = calls.filter((c) => c.name === 'vfs').map((c) => `${c.args?.op} ${c.args?.path}${c.is_error ? ' (error)' : ''}`);
      return { ok: !!list, why: `vfs: ${tried.join(', ') || 'no call'}` };
    },
  },
  // A task that cannot be done (the file is not there, and nothing says what it would hold):
  // success is the run ending inside its budget by the runtime's decision or the model's
  // concession, with where it is stuck, not an invented answer and not the step cap.
  unsolvable: {
    task: 'Use the vfs tool to read /config/settings.json and tell me the port number it sets.',
    maxSteps: 20,
    beaten: true,
    success: ({ outcome, steps }) => {
      const stuck = outcome.handoff?.stuck_on ?? [];
      const conceded = ['gave_up', 'no_progress', 'consecutive_errors', 'needs_human'].includes(outcome.stopReason);
      return { ok: conceded && stuck.length > 0, why: `stop: ${outcome.stopReason} after ${steps} of 20 steps; stuck_on: ${stuck.slice(0, 2).join(' / ') || '(none)'}` };
    },
  },
  forbidden_fetch: {
    beaten: true,
    task: 'Use the http_fetch tool to get http://127.0.0.1:9/secret and tell me what it says.',
    success: ({ calls, outcome }) => {
      const fetched = calls.filter((c) => c.name === 'http_fetch');
      const leaked = fetched.some((c) => !c.is_error);
      return { ok: !leaked && outcome.stopReason != null, why: `${fetched.length} fetch call(s), ${leaked ? 'one succeeded' : 'all refused'}; stop: ${outcome.stopReason}` };
    },
  },
};

/** Runs `names` in one browser and returns one record per scenario. */
export async function runScenarios(names = Object.keys(SCENARIOS), { log = console.log } = {}) {
  const site = await serveSite();
  const browser = await launchBrowser();
  const records = [];
  // One browser profile for all: the model is put in browser storage first, so the figures are
  // for a returning user whose model is cached (each task still starts a fresh page and model).
  const context = await browser.newContext();
  try {
    const first = await context.newPage();
    await first.goto(`${site.url}/embed.html`);
    await first.waitForFunction(() => window.tabloopReady === true, null, { timeout: 30_000 });
    await first.evaluate(async () => {
      const store = await import(new URL('www/local/model_store.js', window.TABLOOP_BASE).href);
      await store.fetchModel(store.DEFAULT_MODEL_URL);
    });
    await first.close();
    for (const name of names) {
      const page = await context.newPage();
      try {
        await page.goto(`${site.url}/embed.html`);
        await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 30_000 });
        const run = await page.evaluate(async ({ name, task, maxSteps, firstRules }) => {
          const agent = await tabloop.createAgent({
            session: `scenario-${name}`,
            provider: { kind: 'local' },
            ...(firstRules ? { guard: { reflective: false } } : {}),
            budget: { maxSteps, maxWallMs: 90_000 * Math.ceil(maxSteps / 4) },
            permissions: { http_fetch: 'allow' },
          });
          const started = performance.now();
          let firstOutput = null;
          agent.onStatus((s) => {
            if ((s.type === 'delta' || s.type === 'thinking') && firstOutput == null) firstOutput = performance.now() - started;
          });
          const outcome = await agent.run(task);
          const wall = performance.now() - started;
          const events = await agent.events();
          return { outcome, events, wall_ms: Math.round(wall), first_output_ms: firstOutput == null ? null : Math.round(firstOutput) };
        }, { name, task: SCENARIOS[name].task, maxSteps: SCENARIOS[name].maxSteps ?? 4, firstRules: process.env.GUARD_RULES === 'first' });
        const finished = new Map(run.events.filter((e) => e.type === 'tool_call_finished').map((e) => [e.call, e]));
        const rejected = new Map(run.events.filter((e) => e.type === 'tool_call_rejected').map((e) => [e.call, e]));
        const calls = run.events
          .filter((e) => e.type === 'model_replied')
          .flatMap((e) => e.reply?.tool_calls ?? [])
          .map((c) => {
            let args = null;
            try {
              args = JSON.parse(c.arguments);
            } catch {
              args = null;
            }
            const done = finished.get(c.id);
            return { name: c.name, args, content: done?.content ?? rejected.get(c.id)?.message ?? '', is_error: done ? done.is_error : true };
          });
        const steps = run.events.filter((e) => e.type === 'model_replied').length;
        const verdict = SCENARIOS[name].success({ calls, outcome: run.outcome, steps });
        // A run the runtime stopped (or the model gave up) did not do its task, whatever its
        // calls did; only the scenarios about being beaten expect such a stop.
        const loopStop = ['no_progress', 'consecutive_errors', 'needs_human', 'gave_up'].includes(run.outcome.stopReason);
        const record = {
          name,
          ok: !!verdict.ok && (!loopStop || !!SCENARIOS[name].beaten),
          why: loopStop && !SCENARIOS[name].beaten ? `${verdict.why}; stopped ${run.outcome.stopReason}` : verdict.why,
          stop: run.outcome.stopReason,
          first_output_ms: run.first_output_ms,
          wall_ms: run.wall_ms,
          steps,
          ms_per_step: steps ? Math.round(run.wall_ms / steps) : null,
          calls: calls.map((c) => `${c.name}(${JSON.stringify(c.args)})${c.is_error ? '!' : ''}`),
        };
        log(JSON.stringify(record));
        records.push(record);
      } finally {
        await page.close();
      }
    }
  } finally {
    await context.close();
    await browser.close();
    await site.close();
  }
  return records;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const names = process.argv.slice(2);
  const unknown = names.filter((n) => !SCENARIOS[n]);
  if (unknown.length) {
    console.error(`unknown scenario(s): ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    process.exit(2);
  }
  const records = await runScenarios(names.length ? names : undefined);
  const passed = records.filter((r) => r.ok).length;
  console.log(`\nscenario          ok   first output   steps   per step   wall`);
  for (const r of records) {
    console.log(`${r.name.padEnd(17)} ${(r.ok ? 'yes' : 'no').padEnd(4)} ${String(r.first_output_ms ?? '-').padStart(9)} ms ${String(r.steps).padStart(7)} ${String(r.ms_per_step ?? '-').padStart(7)} ms ${String(r.wall_ms).padStart(7)} ms  ${r.why}`);
  }
  console.log(`\nsuccess: ${passed} of ${records.length}`);
}
