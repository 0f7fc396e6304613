// End-to-end tests of the MCP client's features through the public API on the embedding page,
// against the reference server that exercises them all (npm @modelcontextprotocol/server-
// everything, its own process on loopback): resources (list, templates, text and binary reads,
// subscribe and unsubscribe, into the VFS and into a task's context), prompts (with arguments,
// embedded resources, completion), logging levels, progress, sampling (approval-gated),
// elicitation (form with defaults and enums, URL mode), roots, and resources/list_changed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startEmbedSuite, stopEmbedSuite, openEmbed, waitFor } from './support/embed.mjs';
import { installScriptedModel } from './support/page_model.mjs';
import { startEverythingServer } from './support/everything_server.mjs';

let site;
let browser;
let everything;

before(async () => {
  ({ site, browser } = await startEmbedSuite());
  everything = await startEverythingServer();
});
after(async () => {
  await everything?.close();
  await stopEmbedSuite({ site, browser });
});

async function open() {
  const context = await browser.newContext();
  const page = await openEmbed(context, site);
  await installScriptedModel(page);
  return { context, page };
}

test('resources: list, templates, text and binary reads, into the VFS and a task, subscribe and unsubscribe', async () => {
  const { context, page } = await open();
  try {
    const result = await page.evaluate(async ({ url }) => {
      const conn = await tabloop.connectMcp({ name: 'ev', url });
      const list = await conn.resources.list();
      const templates = await conn.resources.templates();
      const text = await conn.resources.read('demo://resource/dynamic/text/1');
      const blob = await conn.resources.read('demo://resource/dynamic/blob/2');
      const context = await conn.resources.asContext('demo://resource/dynamic/text/3');
      const written = await conn.resources.toVfs('demo://resource/dynamic/text/4', { session: 'res-session', dir: '/from-mcp' });
      const vfs = await import(new URL('www/tools/vfs.js', window.TABLOOP_BASE).href);
      const file = await vfs.createVfs().run({ op: 'read', path: written[0] }, { session: 'res-session' });
      const updates = [];
      await conn.resources.subscribe('demo://resource/dynamic/text/1', (uri) => updates.push(uri));
      await conn.callTool('toggle-subscriber-updates', {});
      const started = Date.now();
      while (updates.length < 1 && Date.now() - started < 15000) await new Promise((r) => setTimeout(r, 100));
      await conn.resources.unsubscribe('demo://resource/dynamic/text/1');
      const countAtUnsubscribe = updates.length;
      await new Promise((r) => setTimeout(r, 3000));
      await conn.callTool('toggle-subscriber-updates', {});
      await conn.close();
      return {
        names: list.map((r) => r.uri),
        templates: templates.map((t) => t.uriTemplate),
        text: text.contents[0],
        blob: { uri: blob.contents[0].uri, mimeType: blob.contents[0].mimeType, hasBlob: typeof blob.contents[0].blob === 'string', hasText: 'text' in blob.contents[0] },
        context,
        written,
        file,
        updates,
        countAtUnsubscribe,
      };
    }, { url: everything.url });
    assert.ok(result.names.some((u) => u.startsWith('demo://resource/static/document/')), `static documents listed: ${result.names}`);
    assert.ok(result.templates.includes('demo://resource/dynamic/text/{resourceId}'), `templates: ${result.templates}`);
    assert.equal(result.text.uri, 'demo://resource/dynamic/text/1');
    assert.equal(typeof result.text.text, 'string');
    assert.ok(result.text.text.length > 0);
    assert.deepEqual(result.blob, { uri: 'demo://resource/dynamic/blob/2', mimeType: result.blob.mimeType, hasBlob: true, hasText: false });
    assert.match(result.context, /^Resource demo:\/\/resource\/dynamic\/text\/3 from MCP server "ev":\n--- demo:\/\/resource\/dynamic\/text\/3/);
    assert.deepEqual(result.written, ['/from-mcp/4']);
    assert.match(JSON.stringify(result.file), /Resource 4/);
    assert.ok(result.updates.length >= 1 && result.updates.every((u) => u === 'demo://resource/dynamic/text/1'), `updates: ${result.updates}`);
    assert.ok(result.updates.length <= result.countAtUnsubscribe + 1, 'no updates after unsubscribing (one may be in flight)');
  } finally {
    await context.close();
  }
});

test('prompts: list, get with arguments and an embedded resource, completion, and as a task', async () => {
  const { context, page } = await open();
  try {
    const result = await page.evaluate(async ({ url }) => {
      const conn = await tabloop.connectMcp({ name: 'ev', url });
      const prompts = await conn.prompts.list();
      const simple = await conn.prompts.get('simple-prompt');
      const args = await conn.prompts.get('args-prompt', { city: 'Lyon', state: 'Rhône' });
      let missing;
      try {
        await conn.prompts.get('args-prompt', {});
      } catch (error) {
        missing = error.message;
      }
      const embedded = await conn.prompts.get('resource-prompt', { resourceType: 'Text', resourceId: '2' });
      const departments = await conn.prompts.complete('completable-prompt', 'department', 'E');
      const task = await conn.prompts.asTask('args-prompt', { city: 'Oslo' });
      await conn.close();
      return { names: prompts.map((p) => p.name), simple, args, missing, embedded, departments, task };
    }, { url: everything.url });
    for (const name of ['simple-prompt', 'args-prompt', 'completable-prompt', 'resource-prompt']) assert.ok(result.names.includes(name), name);
    assert.equal(result.simple.messages[0].role, 'user');
    assert.match(JSON.stringify(result.args.messages), /Lyon/);
    assert.match(result.missing, /prompt args-prompt needs city/);
    const resourceMessage = result.embedded.messages.find((m) => m.content.type === 'resource');
    assert.ok(resourceMessage, 'the prompt embeds a resource');
    assert.equal(resourceMessage.content.resource.uri, 'demo://resource/dynamic/text/2');
    assert.ok(result.departments.values.length > 0 && result.departments.values.every((v) => v.startsWith('E')), `completions: ${result.departments.values}`);
    assert.match(result.task, /Oslo/);
  } finally {
    await context.close();
  }
});

test('logging levels, progress of a long call, and a call a person cancels', async () => {
  const { context, page } = await open();
  try {
    const result = await page.evaluate(async ({ url }) => {
      const conn = await tabloop.connectMcp({ name: 'ev', url });
      const progress = [];
      conn.on('progress', (p) => progress.push(p));
      const long = await conn.callTool('trigger-long-running-operation', { duration: 2, steps: 4 });
      await conn.setLogLevel('debug');
      await conn.callTool('toggle-simulated-logging', {});
      let started = Date.now();
      while (conn.logs().length < 3 && Date.now() - started < 20000) await new Promise((r) => setTimeout(r, 100));
      const debugLogs = conn.logs();
      await conn.setLogLevel('emergency');
      await new Promise((r) => setTimeout(r, 500));
      const before = conn.logs().length;
      await new Promise((r) => setTimeout(r, 4000));
      const quiet = conn.logs().slice(before);
      await conn.callTool('toggle-simulated-logging', {});
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      started = Date.now();
      let cancelled;
      try {
        await conn.callTool('trigger-long-running-operation', { duration: 20, steps: 2 }, { signal: controller.signal });
      } catch (error) {
        cancelled = { name: error.name, ms: Date.now() - started };
      }
      await conn.close();
      return { long, progress, levels: [...new Set(debugLogs.map((l) => l.level))], quiet: quiet.map((l) => l.level), cancelled };
    }, { url: everything.url });
    assert.match(JSON.stringify(result.long.content), /Long running operation completed/);
    assert.deepEqual(result.progress.map((p) => [p.progress, p.total]), [[1, 4], [2, 4], [3, 4], [4, 4]]);
    assert.equal(result.progress[0].tool, 'trigger-long-running-operation');
    assert.ok(result.levels.length >= 1, 'log messages arrived at level debug');
    assert.ok(result.quiet.every((level) => level === 'emergency'), `only emergency after raising the level: ${result.quiet}`);
    assert.equal(result.cancelled.name, 'AbortError');
    assert.ok(result.cancelled.ms < 5000);
  } finally {
    await context.close();
  }
});

test('sampling: a page function answers, and in ask mode nothing is sent until a person approves', async () => {
  const { context, page } = await open();
  try {
    const result = await page.evaluate(async ({ url }) => {
      const seen = [];
      const answered = await tabloop.connectMcp({
        name: 'ev',
        url,
        sampling: async (params) => {
          seen.push(params);
          return { content: { type: 'text', text: 'the page model says 4' }, model: 'page-model', stopReason: 'endTurn' };
        },
      });
      const byFunction = await answered.callTool('trigger-sampling-request', { prompt: 'What is 2+2?', maxTokens: 20 });
      await answered.close();
      const asking = await tabloop.connectMcp({ name: 'ev2', url, sampling: 'ask' });
      const queued = [];
      asking.on('request', (event) => queued.push(event.request));
      const call = asking.callTool('trigger-sampling-request', { prompt: 'Say hi', maxTokens: 5 });
      const started = Date.now();
      while (queued.length === 0 && Date.now() - started < 10000) await new Promise((r) => setTimeout(r, 50));
      asking.respond(queued[0].id, { action: 'decline' });
      // The server's tool turns the refusal into an error result.
      const declined = await call;
      await asking.close();
      return { seen, byFunction, queued: queued.map((q) => ({ kind: q.kind, tool: q.tool, text: q.params.messages[0].content.text })), declined, pending: asking.requests().length };
    }, { url: everything.url });
    assert.match(result.seen[0].messages[0].content.text, /What is 2\+2\?$/);
    assert.equal(result.seen[0].maxTokens, 20);
    assert.match(JSON.stringify(result.byFunction.content), /the page model says 4/);
    assert.equal(result.queued.length, 1);
    assert.equal(result.queued[0].kind, 'sampling');
    assert.equal(result.queued[0].tool, 'trigger-sampling-request');
    assert.match(result.queued[0].text, /Say hi$/);
    assert.equal(result.declined.isError, true);
    assert.match(JSON.stringify(result.declined.content), /the person declined the sampling request/);
    assert.equal(result.pending, 0);
  } finally {
    await context.close();
  }
});

test('sampling in a run: a person approves and the session\'s own model answers the server', async () => {
  const { context, page } = await open();
  try {
    const result = await page.evaluate(async ({ url }) => {
      const conn = await tabloop.connectMcp({ name: 'ev', url, sampling: 'ask', permission: 'allow' });
      conn.on('request', (event) => conn.respond(event.request.id, { action: 'accept' }));
      const model = scriptedProvider([
        { calls: [{ id: 's1', name: 'mcp__ev__trigger-sampling-request', args: { prompt: 'Name a colour', maxTokens: 30 } }] },
        { text: 'teal' },
        { text: 'The server heard teal.' },
      ], { stream: true });
      const agent = await tabloop.createAgent({ session: 'sampling-run', provider: { kind: 'custom', model: 'page-model', complete: model.complete }, tools: ['mcp__ev__trigger-sampling-request'] });
      const outcome = await agent.run('ask the server');
      const finished = (await agent.events()).filter((e) => e.type === 'tool_call_finished').map((e) => ({ content: e.content, is_error: e.is_error }));
      await conn.close();
      return { stop: outcome.stopReason, finished, asked: model.requests[1].request };
    }, { url: everything.url });
    assert.equal(result.stop, 'completed');
    assert.equal(result.finished[0].is_error, false);
    assert.match(result.finished[0].content, /"text": "teal"/, 'the sampling result is the session model\'s reply');
    assert.deepEqual(result.asked.tools ?? [], [], 'the sampling call offers no tools');
    assert.equal(result.asked.messages[0].role, 'system');
    assert.match(JSON.stringify(result.asked.messages), /Name a colour/);
    assert.equal(result.asked.max_tokens, 30);
  } finally {
    await context.close();
  }
});

test('elicitation: a form in ask mode, with defaults applied and enums checked, and URL mode', async () => {
  const { context, page } = await open();
  try {
    const result = await page.evaluate(async ({ url }) => {
      const opened = [];
      const conn = await tabloop.connectMcp({ name: 'ev', url, elicitation: 'ask', openUrl: (href) => opened.push(href) });
      const queued = [];
      conn.on('request', (event) => queued.push(event.request));
      const call = conn.callTool('trigger-elicitation-request', {});
      let started = Date.now();
      while (queued.length === 0 && Date.now() - started < 10000) await new Promise((r) => setTimeout(r, 50));
      const form = queued[0];
      let refused;
      try {
        conn.respond(form.id, { action: 'accept', content: { name: 'Ada', untitledSingleSelectEnum: 'Gunther' } });
      } catch (error) {
        refused = error.message;
      }
      conn.respond(form.id, { action: 'accept', content: { name: 'Ada', check: true, email: 'ada@example.com' } });
      const formResult = await call;
      const waitFor = async (count) => {
        const since = Date.now();
        while (queued.length < count && Date.now() - since < 10000) await new Promise((r) => setTimeout(r, 50));
        return queued[count - 1];
      };
      const urlCall = conn.callTool('trigger-url-elicitation', { url: 'https://example.com/consent' });
      const link = await waitFor(2);
      conn.respond(link.id, { action: 'accept' });
      const urlResult = await urlCall;
      // The error path: -32042 names a prerequisite URL; once visited, the call is made again.
      const errorCall = conn.callTool('trigger-url-elicitation', { url: 'https://example.com/second', errorPath: true });
      const prerequisite = await waitFor(3);
      conn.respond(prerequisite.id, { action: 'accept' });
      const retried = await waitFor(4);
      conn.respond(retried.id, { action: 'accept' });
      const errorResult = await errorCall;
      await conn.close();
      return {
        fields: form.fields.map((f) => [f.name, f.kind]),
        message: form.message,
        refused,
        formResult,
        link: { kind: link.kind, url: link.url, host: link.host },
        opened,
        urlResult,
        prerequisite: prerequisite.url,
        retried: retried.url,
        errorResult,
      };
    }, { url: everything.url });
    assert.deepEqual(result.fields.slice(0, 3), [['name', 'text'], ['check', 'boolean'], ['firstLine', 'text']]);
    assert.ok(result.fields.some(([name, kind]) => name === 'untitledMultipleSelectEnum' && kind === 'multi'));
    assert.match(result.refused, /Untitled Single Select Enum must be one of Monica/);
    const text = JSON.stringify(result.formResult.content);
    assert.match(text, /Ada/);
    assert.match(text, /It was a dark and stormy night/, 'a left-alone field keeps its default');
    assert.match(text, /42/, 'the integer default');
    assert.deepEqual(result.link, { kind: 'url', url: 'https://example.com/consent', host: 'example.com' });
    assert.match(JSON.stringify(result.urlResult.content), /User completed the URL elicitation flow/);
    assert.equal(result.prerequisite, 'https://modelcontextprotocol.io/');
    assert.equal(result.retried, 'https://example.com/second');
    assert.match(JSON.stringify(result.errorResult.content), /User completed the URL elicitation flow/);
    assert.deepEqual(result.opened, ['https://example.com/consent', 'https://modelcontextprotocol.io/', 'https://example.com/second'], 'each link opened once, on the person\'s answer');
  } finally {
    await context.close();
  }
});

test('roots: the server lists them, and hears when they change; resources/list_changed reaches the page', async () => {
  const { context, page } = await open();
  try {
    const result = await page.evaluate(async ({ url }) => {
      const conn = await tabloop.connectMcp({ name: 'ev', url, roots: [{ uri: 'file:///work/project', name: 'project' }] });
      const resourceChanges = [];
      conn.on('resources', (e) => resourceChanges.push(e.type));
      await new Promise((r) => setTimeout(r, 500));
      const first = await conn.callTool('get-roots-list', {});
      await conn.setRoots([{ uri: 'file:///work/other', name: 'other' }]);
      let second;
      const started = Date.now();
      do {
        await new Promise((r) => setTimeout(r, 200));
        second = await conn.callTool('get-roots-list', {});
      } while (!JSON.stringify(second).includes('other') && Date.now() - started < 10000);
      await conn.callTool('gzip-file-as-resource', { name: 'note.txt.gz', data: 'data:text/plain;base64,aGVsbG8=' });
      const waited = Date.now();
      while (resourceChanges.length === 0 && Date.now() - waited < 5000) await new Promise((r) => setTimeout(r, 100));
      const listed = (await conn.resources.list()).map((r) => r.uri);
      await conn.close();
      return { first: JSON.stringify(first), second: JSON.stringify(second), resourceChanges, listed };
    }, { url: everything.url });
    assert.match(result.first, /file:\/\/\/work\/project/);
    assert.match(result.second, /file:\/\/\/work\/other/);
    assert.ok(result.resourceChanges.includes('list_changed'));
    assert.ok(result.listed.includes('demo://resource/session/note.txt.gz'));
  } finally {
    await context.close();
  }
});
