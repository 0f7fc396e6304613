// A session log written by an older build opens, resumes and verifies in this one: the log in
// tests/fixtures/log_format/migration.jsonl was recorded on 2026-12-04 with that day's package
// (scripts/record-session-log.mjs: seven runs, every event variant). It is imported into this
// build's store, verified, listed, resumed with a new task that calls one of its tools, and the
// grown log is exported and verified again; the old records come back byte for byte.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbedSuite, stopEmbedSuite, openEmbed } from './support/embed.mjs';
import { scriptedOpenAi } from './support/scripted_openai.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OLD = fs.readFileSync(path.join(repo, 'tests/fixtures/log_format/migration.jsonl'), 'utf8');

let site;
let browser;

before(async () => ({ site, browser } = await startEmbedSuite()));
after(() => stopEmbedSuite({ site, browser }));

test('a session recorded by an older build opens, resumes with a new task and verifies', async () => {
  const mock = await scriptedOpenAi();
  const context = await browser.newContext();
  try {
    mock.script.push(
      { calls: [{ id: 'm1', name: 'note', args: { text: 'after the upgrade' } }] },
      { text: 'Noted after the upgrade.' },
    );
    const page = await openEmbed(context, site);
    const result = await page.evaluate(async ({ old, provider }) => {
      const before = tabloop.verifyReplay(old);
      const session = await tabloop.importSession(old);
      const listed = (await tabloop.listSessions()).find((s) => s.session === session);
      await tabloop.registerTool({
        name: 'note',
        description: 'note tool',
        parameters: { type: 'object', properties: { text: { type: 'string' } } },
        permission: 'allow',
        idempotent: true,
        execute: ({ text }) => `noted: ${text}`,
      });
      const agent = await tabloop.createAgent({ session, provider });
      const stored = await agent.events();
      const outcome = await agent.run('One more note, please.');
      const exported = await agent.exportJsonl();
      agent.close();
      return { before, session, listed, storedCount: stored.length, firstType: stored[0].type, outcome, exported, after: tabloop.verifyReplay(exported) };
    }, { old: OLD, provider: { kind: 'openai', baseUrl: mock.url, apiKey: 'sk-migration', model: 'gpt-4o-mini' } });

    const oldLines = OLD.trim().split('\n');
    assert.equal(result.before.ok, true, JSON.stringify(result.before.divergence));
    assert.equal(result.before.records, oldLines.length);
    assert.equal(result.session, 'recorded-session');
    assert.equal(result.listed.records, oldLines.length);
    assert.equal(result.listed.title, 'Write three notes.');
    assert.equal(result.storedCount, oldLines.length);
    assert.equal(result.firstType, 'session_started');
    assert.equal(result.outcome.stopReason, 'completed');
    assert.equal(result.outcome.finalText, 'Noted after the upgrade.');
    const newLines = result.exported.trim().split('\n');
    assert.deepEqual(newLines.slice(0, oldLines.length), oldLines, 'the old records are kept byte for byte');
    assert.ok(newLines.length > oldLines.length + 5, 'the new run is appended');
    const finished = newLines.slice(oldLines.length).map((l) => JSON.parse(l).event).find((e) => e.type === 'tool_call_finished');
    assert.deepEqual(finished, { type: 'tool_call_finished', call: 'm1', content: 'noted: after the upgrade', is_error: false });
    assert.equal(result.after.ok, true, JSON.stringify(result.after.divergence));
    assert.equal(result.after.records, newLines.length);
    assert.ok(!result.exported.includes('sk-migration'), 'no key in the export');
  } finally {
    await context.close();
    await mock.close();
  }
});
