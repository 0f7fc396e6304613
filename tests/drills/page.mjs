// What the drills do inside the embedding page: register the side-effect tool (each call is a
// request to the loopback server, counted there), and run an agent to an end or a pause,
// recording every status and answering approvals as the drill says.
import { openEmbed } from '../e2e/support/embed.mjs';

/** A non-idempotent tool whose every execution is one request to `${side}/side-effect`. */
const EFFECT_TOOL = `(side, name, permission) => ({
  name,
  description: 'Charges the card (a side effect).',
  parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'], additionalProperties: false },
  permission,
  idempotent: false,
  execute: async ({ amount }, ctx) => {
    await fetch(side + '/side-effect?tool=' + name + '&key=' + encodeURIComponent(ctx.idempotencyKey) + '&amount=' + amount);
    return 'charged ' + amount;
  },
})`;

/** Opens the embedding page in a new context of `browser`, with `effect` (allow) and `effect_ask` (ask) registered. */
export async function drillPage(browser, site, side) {
  const context = await browser.newContext();
  const page = await openEmbed(context, site);
  await page.evaluate(async ({ tool, side }) => {
    const make = eval(tool);
    await tabloop.registerTool(make(side, 'effect', 'allow'));
    await tabloop.registerTool(make(side, 'effect_ask', 'ask'));
  }, { tool: EFFECT_TOOL, side });
  return { context, page };
}

/**
 * Creates an agent with `options`, runs `task`, and resolves when the run finishes, pauses
 * (provider_unreachable, storage_failed) or `timeoutMs` passes. `approvals`: 'approve', 'deny'
 * or 'none' (leave them waiting).
 */
export async function runInPage(page, options, task, { approvals = 'deny', timeoutMs = 20_000 } = {}) {
  return page.evaluate(async ({ options, task, approvals, timeoutMs }) => {
    // One agent per page at a time: the previous one lets go of its session's writer lock.
    window.drillAgent?.close();
    const agent = await tabloop.createAgent(options);
    window.drillAgent = agent;
    const statuses = [];
    const end = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ type: 'timeout' }), timeoutMs);
      agent.onStatus((s) => {
        if (s.type !== 'delta' && s.type !== 'thinking') statuses.push(s);
        if (s.type === 'approval') {
          if (approvals === 'approve') agent.approve(s.callId);
          else if (approvals === 'deny') agent.deny(s.callId, 'not approved by the drill');
        }
        if (['finished', 'provider_unreachable', 'storage_failed', 'failed'].includes(s.type)) {
          clearTimeout(timer);
          resolve(s);
        }
      });
      agent.run(task).catch((error) => resolve({ type: 'rejected', message: String(error.message ?? error) }));
    });
    return { end, statuses, events: await agent.events() };
  }, { options, task, approvals, timeoutMs });
}

/** Sends the model call again after a pause and waits for the next end, as `runInPage` does. */
export async function retryInPage(page, { timeoutMs = 20_000 } = {}) {
  return page.evaluate(async ({ timeoutMs }) => {
    const agent = window.drillAgent;
    const end = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ type: 'timeout' }), timeoutMs);
      agent.onStatus((s) => {
        if (['finished', 'provider_unreachable', 'storage_failed', 'failed'].includes(s.type)) {
          clearTimeout(timer);
          resolve(s);
        }
      });
      agent.retryProvider();
    });
    return { end, events: await agent.events() };
  }, { timeoutMs });
}

/** The provider options for a loopback mock. */
export function mockProvider(mock, apiKey = 'sk-drill') {
  return { kind: 'openai', baseUrl: mock.url, apiKey, model: 'drill' };
}
