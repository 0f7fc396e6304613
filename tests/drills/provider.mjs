// Provider faults from the loopback mock: every HTTP status against the attempts the retry rule
// promises, Retry-After, streams dropped at each phase, SSE error events, and malformed tool
// arguments. A transient fault must never end a run; broken arguments must never execute.
import { launchBrowser } from '../e2e/support/browser.mjs';
import { scriptedOpenAi } from '../e2e/support/scripted_openai.mjs';
import { drillPage, runInPage, retryInPage, mockProvider } from './page.mjs';

/** Attempts per status: the first plus two retries for 408, 409, 429 and 5xx; one otherwise. */
const MATRIX = [
  [400, 1], [401, 1], [403, 1], [404, 1], [408, 3], [409, 3], [413, 1], [422, 1],
  [429, 3], [500, 3], [502, 3], [503, 3], [504, 3], [529, 3],
];
/** The server's `x-should-retry` overrides the status rule either way. */
const OVERRIDES = [[400, 'true', 3], [503, 'false', 1]];
const DONE = { text: 'all done' };

/** A mock answering each request from `replies` in turn, then `DONE`. */
async function mockWith(replies) {
  const queue = [...replies];
  return scriptedOpenAi({ respond: () => queue.shift() ?? DONE, closeConnections: true });
}

/** Runs `fn(page, mock, effects)` against a fresh mock answering `replies`, on the drill's one page. */
async function withCase(shared, replies, fn) {
  const mock = await mockWith(replies);
  const before = shared.side.sideEffects.length;
  try {
    return await fn(shared.page, mock, () => shared.side.sideEffects.length - before);
  } finally {
    await mock.close();
  }
}

const ended = (r) => r.end.type === 'finished';
const transientEnd = (r) => ended(r) && r.end.outcome.stopReason !== 'completed';

export async function providerDrill({ site, figures }) {
  const browser = await launchBrowser();
  // One page for every case (each its own session and mock); tool side effects go to `side`.
  const side = await scriptedOpenAi();
  const { page } = await drillPage(browser, site, side.origin);
  const shared = { page, side };
  try {
    // Status → attempts. A retryable status that never clears pauses the run (not an end);
    // once the provider answers, retryProvider() finishes it.
    const mismatches = [];
    let transientEnds = 0;
    let notResumed = 0;
    const cases = [...MATRIX.map(([s, n]) => [s, null, n]), ...OVERRIDES];
    for (const [status, shouldRetry, expected] of cases) {
      const headers = { 'retry-after-ms': '20', ...(shouldRetry ? { 'x-should-retry': shouldRetry } : {}) };
      const fault = { status, headers };
      await withCase(shared, Array(expected).fill(fault), async (page, mock, effects) => {
        const r = await runInPage(page, { session: `status-${status}-${shouldRetry}`, provider: mockProvider(mock), tools: [] }, 'hi');
        const attempts = mock.requests.length;
        const retryable = expected > 1;
        const rightEnd = retryable ? r.end.type === 'provider_unreachable' : ended(r) && r.end.outcome.stopReason === 'fatal_error';
        if (attempts !== expected || !rightEnd) mismatches.push(`${status}${shouldRetry ? `/x-should-retry:${shouldRetry}` : ''}: ${attempts} attempts, ${r.end.type}${r.end.outcome ? `/${r.end.outcome.stopReason}` : ''}`);
        if (retryable) {
          if (transientEnd(r)) transientEnds += 1;
          const again = r.end.type === 'provider_unreachable' ? await retryInPage(page) : r;
          if (!(ended(again) && again.end.outcome.stopReason === 'completed')) notResumed += 1;
        }
      });
    }
    figures.add('provider', 'status → attempts matrix mismatches', mismatches.length, { eq: 0 }, `${cases.length} statuses${mismatches.length ? `: ${mismatches.join('; ')}` : ''}`);
    figures.add('provider', 'runs ended by a retryable status', transientEnds, { eq: 0 });
    figures.add('provider', 'paused runs that did not finish after retryProvider', notResumed, { eq: 0 });

    // Retry-After in seconds and in ms: the retry waits at least that long.
    for (const [header, value, waitMs] of [['retry-after', '1', 1000], ['retry-after-ms', '400', 400]]) {
      await withCase(shared, [{ status: 429, headers: { [header]: value } }], async (page, mock, effects) => {
        const r = await runInPage(page, { session: `retry-after-${header}`, provider: mockProvider(mock), tools: [] }, 'hi');
        const gap = mock.requests.length >= 2 ? mock.requests[1].at - mock.requests[0].at : null;
        figures.add('provider', `${header}: ${value} → wait before the retry ms`, gap ?? -1, { min: waitMs }, `asked ${waitMs} ms; run ${r.end.outcome?.stopReason ?? r.end.type}`);
      });
    }

    // Streams dropped at every phase, then a good answer: the run completes with the answer,
    // and a tool call whose arguments were cut never runs.
    const call = { calls: [{ id: 'e1', name: 'effect', args: { amount: 7 } }] };
    const phases = [
      ['before_first_byte', { drop: 'before_first_byte' }],
      ['mid_text', { drop: 'mid_text', text: 'PARTIAL words that must not stay' }],
      ['mid_args', { drop: 'mid_args', ...call }],
      ['before_end', { drop: 'before_end', text: 'an answer without its end marker' }],
      ['cut five times', ...Array(5).fill({ drop: 'mid_text', text: 'PARTIAL again' })],
    ];
    let dropEnds = 0;
    const dropBad = [];
    let cutArgsExecuted = 0;
    for (const [phase, ...replies] of phases) {
      await withCase(shared, replies, async (page, mock, effects) => {
        let r = await runInPage(page, { session: `drop-${phase.replace(/ /g, '-')}`, provider: mockProvider(mock), tools: ['effect'] }, 'hi');
        if (r.end.type === 'provider_unreachable') r = await retryInPage(page);
        if (transientEnd(r)) dropEnds += 1;
        const finalText = r.end.outcome?.finalText;
        const context = JSON.stringify(mock.requests.at(-1)?.body.messages ?? []);
        // A stream that delivered its whole reply and finish reason but lost the end marker
        // may be taken as it is; every other cut must be sent again.
        const whole = phase === 'before_end' ? [DONE.text, replies[0].text] : [DONE.text];
        if (!(ended(r) && r.end.outcome.stopReason === 'completed' && whole.includes(finalText) && !context.includes('PARTIAL'))) {
          dropBad.push(`${phase}: ${r.end.type}/${r.end.outcome?.stopReason} ${JSON.stringify(finalText)}`);
        }
        if (phase === 'mid_args') cutArgsExecuted += effects();
      });
    }
    figures.add('provider', 'runs ended by a dropped stream (5 phases)', dropEnds, { eq: 0 });
    figures.add('provider', 'dropped streams not recovered to the full answer', dropBad.length, { eq: 0 }, dropBad.join('; '));
    figures.add('provider', 'tool calls with cut arguments executed', cutArgsExecuted, { eq: 0 });

    // SSE error events in the stream: a transient error is retried or pauses; the run still ends
    // completed once the provider answers.
    const sseCases = [
      ['overloaded before output', { sseError: { type: 'overloaded_error', message: 'busy' } }],
      ['server_error with event: error', { sseError: { type: 'server_error', message: 'oops' }, event: true }],
      ['rate limit after text', { sseError: { type: 'rate_limit_error', message: 'slow down' }, text: 'PARTIAL before the error' }],
    ];
    const sseBad = [];
    for (const [name, reply] of sseCases) {
      await withCase(shared, [reply], async (page, mock, effects) => {
        let r = await runInPage(page, { session: `sse-${name.replace(/\W+/g, '-')}`, provider: mockProvider(mock), tools: [] }, 'hi');
        if (r.end.type === 'provider_unreachable') r = await retryInPage(page);
        if (!(ended(r) && r.end.outcome.stopReason === 'completed' && r.end.outcome.finalText === DONE.text)) {
          sseBad.push(`${name}: ${r.end.type}/${r.end.outcome?.stopReason}`);
        }
      });
    }
    figures.add('provider', 'runs ended by a transient SSE error event', sseBad.length, { eq: 0 }, `${sseCases.length} cases${sseBad.length ? `: ${sseBad.join('; ')}` : ''}`);

    // Malformed tool arguments: each is reported to the model and never executed.
    const malformed = ['{"amount": ', 'not json', '{"amount":"seven"}', '[]', '', '{"amount":1,"extra":true}', 'null', '{"amount":1}}'];
    // The last call is well formed: the control that shows the counter counts.
    const calls = [...malformed.map((rawArgs, i) => ({ calls: [{ id: `m${i}`, name: 'effect', rawArgs }] })), { calls: [{ id: 'ok', name: 'effect', args: { amount: 1 } }] }];
    await withCase(shared, calls, async (page, mock, effects) => {
      // Validation is under test, not the loop guard: the first rules keep the script in order.
      const r = await runInPage(page, { session: 'malformed-args', provider: mockProvider(mock), tools: ['effect'], maxConsecutiveErrors: 20, guard: { errorRepeatDiagnose: 18, errorRepeatStop: 19, reflective: false } }, 'hi');
      const refused = r.events.filter((e) => e.type === 'tool_call_rejected' || (e.type === 'tool_call_finished' && e.is_error)).length;
      figures.add('provider', 'malformed tool arguments executed', effects() - 1, { eq: 0 }, `${malformed.length} malformed calls; run ${r.end.outcome?.stopReason ?? r.end.type}`);
      figures.add('provider', 'malformed calls refused and reported to the model', refused, { eq: malformed.length });
      figures.add('provider', 'well-formed control call executed', r.events.filter((e) => e.type === 'tool_call_finished' && e.call === 'ok' && !e.is_error).length, { eq: 1 });
    });
  } finally {
    await browser.close();
    await side.close();
  }
}
