// Uses every export of the public API with its declared types, so `tsc` catches a declaration
// that drifts from what pages are told to write.
import init, {
  AgentHandle, connectMcp, createAgent, deleteSession, importSession, initSync, mcpSignIns, revokeMcpSignIn,
  listSessions, registerTool,
} from 'tabloop';
import type { Agent, ChatCompletionChunk, EventRecord, McpToolsChange, Outcome, Status, ToolDescription } from 'tabloop';
import { promptApiProvider, webLlmProvider, type PromptApi, type WebLlmEngine } from './adapters.ts';

declare const engine: WebLlmEngine;
declare const LanguageModel: PromptApi;
declare const wasmBytes: ArrayBuffer;

export async function main(): Promise<void> {
  await init();
  await init({ module_or_path: new URL('tabloop_bg.wasm', import.meta.url) });
  initSync({ module: wasmBytes });

  const registered: ToolDescription = await registerTool({
    name: 'lookup',
    description: 'Looks a word up.',
    parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
    execute: async (args: { word: string }, ctx) => (ctx.approved ? `approved: ${args.word}` : ctx.signal.aborted ? 'aborted' : args.word),
    permission: 'ask',
    approvalScope: null,
    timeoutMs: 5000,
  }, { replace: true });
  console.log(registered.permission, registered.timeoutMs);

  const mcp = await connectMcp({ name: 'docs', url: 'https://mcp.example.com/mcp', headers: { authorization: 'Bearer token' }, permission: 'ask' });
  mcp.onToolsChanged((change: McpToolsChange) => console.log(change.added, change.changed, change.removed));
  console.log(mcp.protocolVersion, mcp.serverInfo?.name, mcp.tools().map((t) => t.changedSinceAccepted), mcp.skipped());
  await mcp.accept();
  await mcp.refresh();
  const mcpWithPeople = await connectMcp({
    name: 'notes', url: 'https://notes.example.com/mcp', elicitation: 'ask', sampling: 'ask',
    roots: [{ uri: 'file:///project', name: 'project' }], oauth: { mode: 'popup', clientName: 'my app' },
  });
  mcpWithPeople.on('request', ({ request }) => {
    if (request.kind === 'form') mcpWithPeople.respond(request.id, { action: 'accept', content: { name: request.fields[0]?.name ?? '' } });
    else mcpWithPeople.respond(request.id, { action: 'decline' });
  });
  mcpWithPeople.on('progress', (p) => console.log(p.tool, p.progress, p.total));
  const read = await mcpWithPeople.resources.read('file:///project/README.md');
  console.log(read.contents[0]?.text, await mcpWithPeople.resources.toVfs('file:///project/README.md', { session: 'notes' }));
  const unsubscribe = await mcpWithPeople.resources.subscribe('file:///project/README.md', (uri) => console.log('changed', uri));
  await unsubscribe();
  const promptTask = await mcpWithPeople.prompts.asTask('summarise', { topic: 'tabloop' });
  const suggestions = await mcpWithPeople.prompts.complete('summarise', 'topic', 'ta');
  await mcpWithPeople.setLogLevel('warning');
  const called = await mcpWithPeople.callTool('search', { query: 'x' });
  console.log(promptTask, suggestions.values, mcpWithPeople.logs().length, called.isError, mcpWithPeople.era, mcpWithPeople.tools()[0]?.diff);
  console.log(await mcpSignIns(), await revokeMcpSignIn('https://notes.example.com/mcp'));

  const streaming = async function* (): AsyncGenerator<ChatCompletionChunk> {
    yield { choices: [{ index: 0, delta: { content: 'hello' }, finish_reason: 'stop' }] };
  };
  const agent: Agent = await createAgent({
    provider: { kind: 'custom', model: 'page-model', complete: () => streaming() },
    budget: { maxSteps: 5, maxCostUsd: 0.1 },
    guard: { repeatStop: 6, endOnRepeatedSuccess: true },
    tools: ['lookup', 'vfs', ...mcp.tools().map((t) => t.name)],
    permissions: { vfs: 'allow' },
  });
  const withWebLlm = await createAgent({ provider: webLlmProvider(engine, 'Llama-3.2-1B-Instruct-q4f16_1-MLC') });
  const withChrome = await createAgent({ provider: promptApiProvider(LanguageModel), tools: ['vfs'] });
  const remote = await createAgent({ provider: { kind: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-…', model: 'gpt-4o-mini' } });
  console.log(agent instanceof AgentHandle, withWebLlm.session, withChrome.isWriter, remote.session);

  agent.onEvent((event: EventRecord) => console.log(event.seq, event.type));
  agent.onStatus((status: Status) => {
    if (status.type === 'approval') agent.approve(status.callId);
  });
  const outcome: Outcome = await agent.run('Say hello.');
  console.log(outcome.stopReason, outcome.finalText, outcome.usage.inputTokens, outcome.costUsd);
  // A page that cannot wait through a provider outage bounds the wait; the run stays paused.
  const bounded = await agent.run('Say hello again.', { pauseTimeoutMs: 30_000, signal: AbortSignal.timeout(120_000) });
  if (bounded.stopReason === 'paused') console.log('paused:', bounded.explanation, bounded.detail.reason);
  else console.log(bounded.steps);
  agent.extendBudget({ maxSteps: 10 });
  agent.retryStorage();
  agent.deny('call-1', 'not now');
  agent.cancel();
  const forked = await agent.fork(1);
  const jsonl = await agent.exportJsonl();
  console.log((await agent.events()).length, forked);
  agent.close();
  await deleteSession(await importSession(jsonl));
  for (const s of await listSessions()) console.log(s.session, s.records, s.updatedAt, s.title);
  await mcp.close();
}
