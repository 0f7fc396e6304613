// A run that is beaten, as a person sees it in the playground: a model going round a cycle of
// calls whose results differ only by a clock time gets a forced reflection (shown as the model's
// account, with the evidence that asked for it), and its concession ends the run as `gave_up`
// with where it is stuck, never as a finished answer. A model that will not concede is stopped
// by the runtime after its reflection, `no_progress`, with the repeating calls named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { outDir } from './support/site.mjs';
import { usePlaygroundSuite, withScriptedPlayground } from './support/playground.mjs';

const suite = usePlaygroundSuite();

/** A model cycling list → read → list of the VFS; asked to reflect, it answers `reflection`. */
function cyclingModel(reflection) {
  let n = 0;
  return (body) => {
    const names = (body.tools ?? []).map((t) => t.function?.name);
    if (names.length === 1 && names[0] === 'reflect') return { calls: [{ id: `r${n}`, name: 'reflect', args: reflection }] };
    n += 1;
    const calls = [
      { name: 'vfs', args: { op: 'list', path: '/' } },
      { name: 'vfs', args: { op: 'read', path: '/missing.txt' } },
      { name: 'vfs', args: { op: 'list', path: '/tmp' } },
    ];
    return { calls: [{ id: `c${n}`, ...calls[n % calls.length] }] };
  };
}

async function run(page, task) {
  await page.fill('[data-testid=task]', task);
  await page.click('[data-testid=run]');
  await page.waitForSelector('[data-kind=run_finished]', { timeout: 30_000 });
}

test('a reflection and a give-up are shown as what they are', async () => {
  const respond = cyclingModel({ status: 'The file the task names does not exist.', tried: ['listing /', 'reading /missing.txt'], stuck_on: ['/missing.txt is not there'], next: '', give_up: true });
  await withScriptedPlayground(suite, async (page, mock) => {
    await run(page, 'Fix the typo in /missing.txt');
    const reflection = page.locator('[data-kind=reflection]');
    assert.equal(await reflection.count(), 1, 'one forced reflection');
    assert.equal((await reflection.locator('[data-testid=reflection-verdict]').textContent()).trim(), 'gives up');
    assert.match(await reflection.textContent(), /does not exist/);
    assert.match(await reflection.textContent(), /Stuck on.*missing\.txt is not there/s);
    // The guard's notice says what repeated.
    const guard = page.locator('[data-kind=guard]').first();
    assert.match(await guard.locator('.guard-evidence').textContent(), /vfs\(/);
    assert.equal((await page.textContent('[data-testid=stop-reason]')).trim(), 'gave_up');
    const end = page.locator('[data-kind=run_finished] .run-end');
    assert.match(await end.getAttribute('class'), /stopped/, 'a give-up is not drawn as a success');
    assert.equal(await page.locator('[data-kind=run_finished] .final').count(), 0, 'no final answer is shown');
    await page.click('[data-kind=run_finished] details.handoff > summary');
    assert.match(await page.textContent('[data-kind=run_finished] details.handoff'), /missing\.txt is not there/);
    assert.ok(mock.requests.length < 20, `conceded inside the 20-step budget (${mock.requests.length} requests)`);
    await page.screenshot({ path: path.join(outDir, 'state-gave-up.png'), fullPage: true });
  }, {}, { respond });
});

test('a model that goes on after its reflection is stopped by the runtime with the calls named', async () => {
  const respond = cyclingModel({ status: 'Still looking.', tried: ['listing'], stuck_on: [], next: 'Look again.', give_up: false });
  await withScriptedPlayground(suite, async (page, mock) => {
    await run(page, 'Fix the typo in /missing.txt');
    assert.equal((await page.textContent('[data-testid=stop-reason]')).trim(), 'no_progress');
    assert.equal((await page.locator('[data-kind=reflection] [data-testid=reflection-verdict]').first().textContent()).trim(), 'goes on');
    await page.click('[data-kind=run_finished] details.handoff > summary');
    const handoff = await page.textContent('[data-kind=run_finished] details.handoff');
    assert.match(handoff, /vfs\(/, 'stuck_on names the repeating calls');
    assert.ok(mock.requests.length < 20, `stopped inside the 20-step budget (${mock.requests.length} requests)`);
  }, {}, { respond });
});
