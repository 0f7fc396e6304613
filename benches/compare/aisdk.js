// The Vercel AI SDK side of the side-by-side benchmark, bundled for the page by
// benches/compare/build.mjs. The same workload as the tabloop side: a loop of `steps` model
// calls, each but the last asking for one call of a no-op tool, the last answering in text.
//   harness:  streamText with MockLanguageModelV4 (an instant in-page model)
//   loopback: streamText with the OpenAI provider's Chat Completions model over HTTP
import { streamText, tool, jsonSchema, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createOpenAI } from '@ai-sdk/openai';

const usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
};

// The no-op tool: echoes its argument (so each observation differs, as on the tabloop side).
const noop = tool({
  description: 'Does nothing and says so.',
  inputSchema: jsonSchema({ type: 'object', properties: { i: { type: 'integer' } }, required: ['i'] }),
  execute: async ({ i }) => `ok ${(i * 7919) % 100_003}`,
});

function parts(step, steps) {
  const out = [{ type: 'stream-start', warnings: [] }];
  if (step < steps - 1) {
    const id = `call_${step}`;
    out.push({ type: 'tool-call', toolCallId: id, toolName: 'noop', input: JSON.stringify({ i: step }) });
    out.push({ type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } });
  } else {
    out.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'done' }, { type: 'text-end', id: 't' });
    out.push({ type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } });
  }
  return out;
}

async function loop(model, steps) {
  const result = streamText({
    model,
    tools: { noop },
    stopWhen: stepCountIs(steps),
    prompt: 'call noop until told otherwise',
  });
  const text = await result.text;
  const done = await result.steps;
  return { steps: done.length, text };
}

/** `steps` model calls through MockLanguageModelV4; resolves to {ms, steps, text}. */
export async function aiSdkHarness(steps) {
  let step = 0;
  const model = new MockLanguageModelV4({
    doStream: async () => {
      const chunks = parts(step, steps);
      step += 1;
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk);
            controller.close();
          },
        }),
      };
    },
  });
  const t0 = performance.now();
  const out = await loop(model, steps);
  return { ms: performance.now() - t0, ...out };
}

/** `steps` streaming Chat Completions calls to `baseURL`; resolves to {ms, steps, text}. */
export async function aiSdkLoopback(baseURL, steps) {
  const openai = createOpenAI({ baseURL, apiKey: 'sk-bench' });
  const t0 = performance.now();
  const out = await loop(openai.chat('bench-model'), steps);
  return { ms: performance.now() - t0, ...out };
}
