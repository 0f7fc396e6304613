// The tabloop side of the side-by-side benchmark, in the page: the same workload as
// aisdk.js (each model call but the last asks for one call of a no-op tool; the last answers
// in text), through the public API. The harness uses an instant in-page model through the
// custom provider; the loopback run talks to the HTTP mock as an OpenAI provider.

const NOOP = {
  name: 'noop',
  description: 'Does nothing and says so.',
  parameters: { type: 'object', properties: { i: { type: 'integer' } }, required: ['i'] },
  permission: 'allow',
  // A value of its own per call (not an echo of the argument, which the loop guard masks), so
  // every observation is new evidence and the run goes its whole length.
  execute: async ({ i }) => `ok ${(i * 7919) % 100_003}`,
};

const usage = { prompt_tokens: 100, completion_tokens: 10 };

function chunks(step, steps) {
  if (step < steps - 1) {
    const call = { index: 0, id: `call_${step}`, type: 'function', function: { name: 'noop', arguments: JSON.stringify({ i: step }) } };
    return [
      { choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [call] }, finish_reason: null }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
      { choices: [], usage },
    ];
  }
  return [
    { choices: [{ index: 0, delta: { role: 'assistant', content: 'done' }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    { choices: [], usage },
  ];
}

async function runAgent(session, provider, steps, extra = {}) {
  const agent = await tabloop.createAgent({
    session,
    provider,
    tools: ['noop'],
    permissions: { noop: 'allow' },
    budget: { maxSteps: steps + 10, maxToolCalls: steps + 10, maxWallMs: 3_600_000 },
    // No compaction: the AI SDK sends the whole history too.
    contextWindow: 1_000_000_000,
    ...extra,
  });
  let events = 0;
  agent.onEvent(() => (events += 1));
  const t0 = performance.now();
  const outcome = await agent.run('call noop until told otherwise');
  const ms = performance.now() - t0;
  agent.close();
  const listed = (await tabloop.listSessions()).find((s) => s.session === session);
  return { ms, steps: outcome.steps, stopReason: outcome.stopReason, text: outcome.finalText, events, persisted: listed?.records ?? 0 };
}

// A worker that answers each message at once: the cheapest wait for another thread a step can
// make. The harness's wait floor (run.mjs) has the tool wait for it once a step.
let echoWorker = null;

function echo() {
  echoWorker ??= new Worker(URL.createObjectURL(new Blob(['onmessage = () => postMessage(0);'], { type: 'text/javascript' })));
  return new Promise((resolve) => {
    echoWorker.onmessage = resolve;
    echoWorker.postMessage(0);
  });
}

/** The median of `n` awaited echoes, one after another, in ms. */
window.echoRoundTrip = async (n) => {
  const times = [];
  for (let i = 0; i < n; i += 1) {
    const t0 = performance.now();
    await echo();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
};

async function registerNoop(idempotent, waitsForEcho = false) {
  const execute = waitsForEcho
    ? async (args) => {
      await echo();
      return NOOP.execute(args);
    }
    : NOOP.execute;
  await tabloop.registerTool({ ...NOOP, idempotent, execute }, { replace: true });
}

/**
 * `steps` steps with an instant in-page model; the no-op tool declared idempotent or not, and
 * waiting for the echo worker first when `waitsForEcho`; `agent` adds to the createAgent options
 * (ab.mjs --first-rules passes `{ guard: { reflective: false } }`).
 * Also samples the IndexedDB counters at every model call (bytes and transactions per step).
 * The session is deleted afterwards unless `keep` (ab_sessions.mjs opens it again).
 */
window.tabloopHarness = async (steps, { idempotent = false, waitsForEcho = false, tag = '', keep = false, agent = {} } = {}) => {
  await registerNoop(idempotent, waitsForEcho);
  let step = 0;
  const samples = [];
  const complete = async () => {
    samples.push(window.idbCounters());
    const out = chunks(step, steps);
    step += 1;
    return (async function* () {
      yield* out;
    })();
  };
  const session = `harness-${steps}-${idempotent ? 'idem' : 'plain'}${waitsForEcho ? '-echo' : ''}${tag}`;
  const result = await runAgent(session, { kind: 'custom', model: 'instant', complete }, steps, agent);
  samples.push(window.idbCounters());
  if (!keep) await tabloop.deleteSession(session);
  const perStep = [];
  for (let k = 1; k < samples.length; k += 1) {
    const a = samples[k - 1];
    const b = samples[k];
    perStep.push({ bytes: b.bytes - a.bytes, puts: b.puts - a.puts, transactions: b.transactions - a.transactions, writes: b.writes - a.writes });
  }
  return { ...result, session, perStep };
};

/** `steps` steps against the loopback mock at `baseUrl` (OpenAI Chat Completions, streaming). */
window.tabloopLoopback = async (baseUrl, steps, { idempotent = false, tag = '' } = {}) => {
  await registerNoop(idempotent);
  const session = `loopback-${steps}-${idempotent ? 'idem' : 'plain'}${tag}`;
  const result = await runAgent(session, { kind: 'openai', baseUrl, apiKey: 'sk-bench', model: 'bench-model' }, steps);
  await tabloop.deleteSession(session);
  return result;
};
