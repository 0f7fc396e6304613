// Kill the tab: Chromium's whole process group gets SIGKILL at a named point of a run, then
// starts again on the same profile and resumes the session. Counts records lost (seen as
// persisted before the kill, missing after), seq gaps, side effects a non-idempotent tool made
// twice (counted by the loopback server it calls), runs that did not finish, and resume time.
import { startChromium, killChromium, newProfile, removeProfile } from '../e2e/support/persistent.mjs';
import { scriptedOpenAi } from '../e2e/support/scripted_openai.mjs';
import { mulberry32 } from '../e2e/support/path_corpus.mjs';
import { spread } from './figures.mjs';

/** The tools of the drill: each charge is a side effect on the loopback server, keyed by call. */
const TOOLS = `[
  ...['drill_charge', 'drill_ask'].map((name) => ({
    name,
    description: 'Charges the card once (a side effect that must not happen twice).',
    parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
    permission: name === 'drill_ask' ? 'ask' : 'allow',
    idempotent: false,
    execute: async ({ amount }, ctx) => {
      if (window.DRILL.preMs) await new Promise((r) => setTimeout(r, window.DRILL.preMs));
      await fetch(window.DRILL.side + '/side-effect?key=' + encodeURIComponent(ctx.idempotencyKey) + '&amount=' + amount);
      if (window.DRILL.hang) await new Promise(() => {});
      return 'charged ' + amount;
    },
  })),
]`;

/**
 * The kill points. `trigger`: what the drill waits for before the kill (a persisted event or
 * status the page logs, or what the loopback provider saw); `first`: how the provider answers the
 * first model call; `holdAfterTool`: the model call after a tool result is never answered
 * before the kill; `jitter`: the kill waits a seeded 0–25 ms after the trigger; `settle`: the
 * page is idle (a held call, a hung tool, a pending approval), so the kill waits 200 ms for the
 * console to deliver what was persisted before it.
 */
export const POINTS = {
  user_message: { trigger: 'event:user_message', first: 'hold', jitter: true },
  request_sent: { trigger: 'request', first: 'hold', settle: true },
  mid_stream: { trigger: 'chunk', first: 'stall', settle: true },
  stream_finished: { trigger: 'responded', jitter: true },
  tool_started: { trigger: 'event:tool_call_started', preMs: 500 },
  tool_executing: { trigger: 'side-effect', hang: true, settle: true },
  tool_returned: { trigger: 'side-effect', holdAfterTool: true, jitter: true },
  after_commit: { trigger: 'event:tool_call_finished', holdAfterTool: true, settle: true },
  approval: { trigger: 'status:approval', tool: 'drill_ask', settle: true },
  compaction: { trigger: 'compaction', compaction: true, settle: true },
};

const COMPACTION_MARK = "You compress an agent's working history";

/** The model of the drill: calls the tool `calls` times, then answers; summaries on compaction. */
function responder(state) {
  return (body) => {
    const system = body.messages.find((m) => m.role === 'system' || m.role === 'developer');
    const compaction = JSON.stringify(system?.content ?? '').includes(COMPACTION_MARK);
    if (state.phase === 'before-kill' && state.triggered) return 'hold';
    if (compaction) {
      if (state.phase === 'before-kill' && state.point.compaction) {
        state.fire('compaction');
        return 'hold';
      }
      return { text: 'Summary: charged once so far.' };
    }
    // A compaction summary stands for the tool results it replaced.
    const summarised = JSON.stringify(body.messages).includes('Summary: charged once so far.') ? 1 : 0;
    const results = body.messages.filter((m) => m.role === 'tool').length + summarised;
    state.ids = (state.ids ?? 0) + 1;
    const reply = results < state.calls
      ? { calls: [{ id: `c${state.ids}`, name: state.point.tool ?? 'drill_charge', args: { amount: state.amount } }] }
      : { text: `Charged ${state.amount} ${state.calls} time(s).` };
    if (state.phase === 'before-kill' && state.point.holdAfterTool && body.messages.at(-1)?.role === 'tool') return 'hold';
    if (state.phase === 'before-kill' && !state.firstDone) {
      state.firstDone = true;
      if (state.point.first === 'hold') return 'hold';
      if (state.point.first === 'stall') return { ...reply, stall: true };
    }
    return reply;
  };
}

async function openDrillPage(run, site, state, onLine) {
  const page = await run.context.newPage();
  page.on('console', (msg) => onLine(msg.text()));
  await page.goto(`${site.url}/embed.html`);
  await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 30_000 });
  await page.evaluate(async ({ tools, drill }) => {
    window.DRILL = drill;
    for (const spec of eval(tools)) await tabloop.registerTool(spec);
  }, { tools: TOOLS, drill: { side: state.side, preMs: state.point.preMs ?? 0, hang: Boolean(state.point.hang) && state.phase === 'before-kill' } });
  return page;
}

/** Agent options of the drill's session (compaction forced on for the compaction point). */
function agentOptions(state, mock) {
  const options = { session: state.session, provider: { kind: 'openai', baseUrl: mock.url, apiKey: 'sk-drill', model: 'drill' }, tools: ['drill_charge', 'drill_ask'] };
  if (state.point.compaction) Object.assign(options, { contextWindow: 8000, maxOutputTokens: 4096, compactionThreshold: 0.5, compactionKeepRecent: 1 });
  return options;
}

/** One kill at `pointName` with `seed`; returns what was measured. */
export async function killOnce(site, pointName, seed) {
  const point = POINTS[pointName];
  const rand = mulberry32(seed * 7919 + pointName.length);
  const state = {
    point, phase: 'before-kill', triggered: false, firstDone: false, session: `kill-${pointName}-${seed}`,
    amount: 1 + Math.floor(rand() * 1000), calls: point.compaction ? 2 : 1 + Math.floor(rand() * 2),
  };
  let fired;
  const trigger = new Promise((resolve) => (fired = resolve));
  state.fire = (what) => {
    if (state.phase !== 'before-kill' || state.triggered || what !== point.trigger) return;
    state.triggered = true;
    fired();
  };
  const mock = await scriptedOpenAi({ respond: responder(state) });
  state.side = mock.origin;
  mock.emitter.on('request', () => state.fire('request'));
  mock.emitter.on('chunk', () => state.fire('chunk'));
  mock.emitter.on('responded', () => state.fire('responded'));
  mock.emitter.on('side-effect', () => state.fire('side-effect'));
  const seen = new Map();
  const onLine = (text) => {
    if (text.startsWith('DRILL-EVENT ')) {
      const event = JSON.parse(text.slice(12));
      if (state.phase === 'before-kill') seen.set(event.seq, JSON.stringify(event));
      state.fire(`event:${event.type}`);
    } else if (text.startsWith('DRILL-STATUS ')) {
      state.fire(`status:${JSON.parse(text.slice(13)).type}`);
    }
  };
  const profile = newProfile();
  let first;
  let second;
  try {
    first = await startChromium(profile);
    const page = await openDrillPage(first, site, state, onLine);
    await page.evaluate(async (options) => {
      const agent = await tabloop.createAgent(options);
      agent.onEvent((e) => console.log('DRILL-EVENT ' + JSON.stringify(e)));
      agent.onStatus((s) => console.log('DRILL-STATUS ' + JSON.stringify(s)));
      agent.run('charge the card');
    }, agentOptions(state, mock));
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error(`${pointName}/${seed}: trigger ${point.trigger} never came`)), 30_000));
    await Promise.race([trigger, timeout]);
    if (point.jitter) await new Promise((r) => setTimeout(r, Math.floor(rand() * 26)));
    if (point.settle) await new Promise((r) => setTimeout(r, 200));
    await killChromium(first);
    state.phase = 'after-kill';
    const effectsAtKill = mock.sideEffects.length;

    second = await startChromium(profile);
    const again = await openDrillPage(second, site, state, onLine);
    const resumed = await again.evaluate(async (options) => {
      const started = performance.now();
      const agent = await tabloop.createAgent(options);
      const resumeMs = performance.now() - started;
      let approvals = 0;
      let denied = 0;
      const finished = new Promise((resolve) => agent.onStatus((s) => {
        if (s.type === 'approval') {
          approvals += 1;
          // A call cut by the crash is not re-run: the person checks and says it happened.
          if (s.afterInterrupt) {
            denied += 1;
            agent.deny(s.callId, 'the charge already went through');
          } else agent.approve(s.callId);
        }
        if (s.type === 'finished') resolve(s.outcome);
      }));
      const outcome = await Promise.race([finished, new Promise((r) => setTimeout(() => r(null), 20_000))]);
      return { resumeMs, outcome, approvals, denied, events: await agent.events() };
    }, { ...agentOptions(state, mock), provider: { kind: 'openai', apiKey: 'sk-drill' } });
    const after = new Map(resumed.events.map((e) => [e.seq, JSON.stringify(e)]));
    const lost = [...seen].filter(([seq, json]) => after.get(seq) !== json).length;
    const gaps = resumed.events.filter((e, i) => e.seq !== i).length;
    const perKey = new Map();
    for (const url of mock.sideEffects) {
      const key = new URL(url, mock.origin).searchParams.get('key');
      perKey.set(key, (perKey.get(key) ?? 0) + 1);
    }
    const duplicated = [...perKey.values()].filter((n) => n > 1).length;
    const interrupted = resumed.events.some((e) => e.type === 'tool_call_interrupted');
    return {
      point: pointName, seed, lost, gaps, duplicated, seenBeforeKill: seen.size, effectsAtKill,
      effects: mock.sideEffects.length, resumeMs: resumed.resumeMs, interrupted,
      finished: resumed.outcome?.stopReason ?? 'not finished', logEnds: resumed.events.slice(-3).map((e) => e.type).join('/'), lastBeforeKill: JSON.parse([...seen.values()].at(-1) ?? '{"type":"none seen yet"}').type,
    };
  } finally {
    await killChromium(first);
    await killChromium(second);
    await mock.close();
    removeProfile(profile);
  }
}

/** Runs every point `seeds` times and records the figures. */
export async function killDrill({ site, figures, seeds }) {
  const results = [];
  for (const pointName of Object.keys(POINTS)) {
    for (let seed = 1; seed <= seeds; seed += 1) {
      let r;
      try {
        r = await killOnce(site, pointName, seed);
      } catch (error) {
        r = { point: pointName, seed, error: String(error.message ?? error) };
        console.log(JSON.stringify({ suite: 'drills', drill: 'kill', error: r.error }));
      }
      results.push(r);
    }
  }
  figures.details.kill = results;
  const ok = results.filter((r) => !r.error);
  figures.add('kill', 'kills', results.length, { min: Object.keys(POINTS).length * seeds }, `${Object.keys(POINTS).length} points × ${seeds} seeds`);
  figures.add('kill', 'drill errors (trigger never came, page failed)', results.length - ok.length, { eq: 0 });
  figures.add('kill', 'events_lost', ok.reduce((n, r) => n + r.lost, 0), { eq: 0 }, `of ${ok.reduce((n, r) => n + r.seenBeforeKill, 0)} records the page had reported as persisted before the kills`);
  figures.add('kill', 'seq gaps', ok.reduce((n, r) => n + r.gaps, 0), { eq: 0 });
  figures.add('kill', 'side effects duplicated (non-idempotent tool)', ok.reduce((n, r) => n + r.duplicated, 0), { eq: 0 });
  const unfinished = ok.filter((r) => r.finished !== 'completed');
  figures.add('kill', 'runs not completed after resume', unfinished.length, { eq: 0 },
    unfinished.map((r) => `${r.point}/${r.seed}: ${r.finished}, log ends ${r.logEnds}`).join('; '));
  figures.add('kill', 'resume ms (createAgent on the relaunched profile)', spread(ok.map((r) => r.resumeMs)));
  for (const pointName of Object.keys(POINTS)) {
    const at = ok.filter((r) => r.point === pointName);
    const last = [...new Set(at.map((r) => r.lastBeforeKill))].join('/');
    figures.add('kill', `${pointName}: lost + gaps + duplicated`, at.reduce((n, r) => n + r.lost + r.gaps + r.duplicated, 0), { eq: 0 },
      `${at.length} kills, ${at.filter((r) => r.interrupted).length} with an interrupted call; last record before the kill: ${last}`);
  }
  return results;
}
