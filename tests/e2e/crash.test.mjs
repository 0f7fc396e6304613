// A real crash: Chromium's whole process group is killed with SIGKILL while a tool with a side
// effect runs, then relaunched on the same profile. The log survives; the non-idempotent call is
// not re-run blindly (a human is asked); after approval the run completes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startChromium, killChromium, newProfile, removeProfile } from './support/persistent.mjs';
import { serveSite } from './support/site.mjs';
import { scriptedOpenAi } from './support/scripted_openai.mjs';

const TOOL = `({
  name: 'charge_card',
  description: 'Charges the card (a side effect that must not happen twice).',
  parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
  permission: 'allow',
  idempotent: false,
  execute: async ({ amount }) => {
    await fetch(window.SIDE_EFFECT_URL + '/side-effect?amount=' + amount);
    if (window.HANG_AFTER_EFFECT) await new Promise(() => {});
    return 'charged ' + amount;
  },
})`;

test('a SIGKILL mid tool call loses no event and never repeats the side effect unasked', { timeout: 180_000 }, async () => {
  const site = await serveSite();
  const mock = await scriptedOpenAi();
  const profile = newProfile();
  let first;
  let second;
  try {
    mock.script.push({ calls: [{ id: 'pay1', name: 'charge_card', args: { amount: 5 } }] });
    first = await startChromium(profile);
    const page = await first.context.newPage();
    await page.goto(`${site.url}/embed.html`);
    await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 30_000 });
    await page.evaluate(async ({ tool, provider, sideEffectUrl }) => {
      window.SIDE_EFFECT_URL = sideEffectUrl;
      window.HANG_AFTER_EFFECT = true;
      await tabloop.registerTool(eval(tool));
      const agent = await tabloop.createAgent({ session: 'crash-1', provider, tools: ['charge_card'] });
      agent.run('charge 5');
    }, { tool: TOOL, provider: { kind: 'openai', baseUrl: mock.url, apiKey: 'k', model: 'm' }, sideEffectUrl: mock.origin });
    const deadline = Date.now() + 20_000;
    while (mock.sideEffects.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(mock.sideEffects.length, 1, 'the tool ran once');
    await killChromium(first);

    mock.script.push({ text: 'Charged 5 once.' });
    second = await startChromium(profile);
    const again = await second.context.newPage();
    await again.goto(`${site.url}/embed.html`);
    await again.waitForFunction(() => window.tabloopReady === true, null, { timeout: 30_000 });
    const resumed = await again.evaluate(async ({ tool, sideEffectUrl }) => {
      window.SIDE_EFFECT_URL = sideEffectUrl;
      await tabloop.registerTool(eval(tool));
      const agent = await tabloop.createAgent({ session: 'crash-1', provider: { kind: 'openai', apiKey: 'k' } });
      const approval = await new Promise((resolve) => agent.onStatus((s) => s.type === 'approval' && resolve(s)));
      const before = await agent.events();
      const finished = new Promise((resolve) => agent.onStatus((s) => s.type === 'finished' && resolve(s.outcome)));
      agent.approve(approval.callId);
      const outcome = await finished;
      return { approval, before, outcome, events: await agent.events() };
    }, { tool: TOOL, sideEffectUrl: mock.origin });
    const types = resumed.before.map((e) => e.type);
    assert.ok(types.includes('tool_call_started'), 'the intent record survived the crash');
    assert.deepEqual(types.slice(-3), ['resumed', 'tool_call_interrupted', 'approval_requested']);
    assert.equal(resumed.approval.afterInterrupt, true);
    assert.equal(mock.sideEffects.length, 2, 'run again only after the approval');
    assert.equal(resumed.outcome.stopReason, 'completed');
    assert.deepEqual(resumed.events.map((e) => e.seq), resumed.events.map((_, i) => i));
  } finally {
    await killChromium(first);
    await killChromium(second);
    removeProfile(profile);
    await mock.close();
    await site.close();
  }
});
