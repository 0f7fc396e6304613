// Custom-provider adapters for two in-browser models, as the README shows them: WebLLM (its
// engine already speaks Chat Completions) and Chrome's built-in Prompt API (which does not, so
// the adapter describes the tools, constrains the answer with a JSON schema and maps it back to
// a tool call). The two engines' APIs are declared here by the parts the adapters use.
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest, ChatMessage, CustomProviderOptions } from 'tabloop';

// ---- WebLLM: `const engine = await CreateMLCEngine(modelId)` from '@mlc-ai/web-llm' ----
export interface WebLlmEngine {
  chat: { completions: { create(request: ChatCompletionRequest): Promise<AsyncIterable<ChatCompletionChunk> | ChatCompletion> } };
  interruptGenerate(): void;
}

export function webLlmProvider(engine: WebLlmEngine, model: string): CustomProviderOptions {
  return {
    kind: 'custom',
    model,
    complete: (request, { signal }) => {
      signal.addEventListener('abort', () => engine.interruptGenerate(), { once: true });
      return engine.chat.completions.create(request);
    },
  };
}

// ---- Chrome's Prompt API: the global `LanguageModel` ----
type PromptRole = 'system' | 'user' | 'assistant';
export interface PromptSession {
  prompt(input: { role: PromptRole; content: string }[], options?: { signal?: AbortSignal; responseConstraint?: object }): Promise<string>;
  destroy(): void;
}
export interface PromptApi {
  create(options?: { initialPrompts?: { role: PromptRole; content: string }[]; signal?: AbortSignal }): Promise<PromptSession>;
}

function text(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (message.content === null) return '';
  return message.content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('');
}

export function promptApiProvider(languageModel: PromptApi): CustomProviderOptions {
  return {
    kind: 'custom',
    model: 'chrome-prompt-api',
    complete: async (request, { signal }) => {
      const tools = request.tools ?? [];
      const system = request.messages.filter((m) => m.role === 'system' || m.role === 'developer').map(text);
      if (tools.length) {
        system.push(`You may call one of these tools by answering {"tool": name, "arguments": {...}}, or answer {"final": text}.\n${JSON.stringify(tools.map((t) => t.function))}`);
      }
      const turns = request.messages.flatMap((m): { role: PromptRole; content: string }[] => {
        switch (m.role) {
          case 'system':
          case 'developer':
            return [];
          case 'user':
            return [{ role: 'user', content: text(m) }];
          case 'assistant':
            return [{ role: 'assistant', content: m.tool_calls?.length ? JSON.stringify({ tool: m.tool_calls[0]?.function.name, arguments: JSON.parse(m.tool_calls[0]?.function.arguments ?? '{}') }) : text(m) }];
          case 'tool':
            return [{ role: 'user', content: `Tool result for ${m.tool_call_id}: ${text(m)}` }];
        }
      });
      const session = await languageModel.create({ initialPrompts: [{ role: 'system', content: system.join('\n\n') }], signal });
      try {
        const schema = { oneOf: [
          { type: 'object', properties: { tool: { enum: tools.map((t) => t.function.name) }, arguments: { type: 'object' } }, required: ['tool', 'arguments'] },
          { type: 'object', properties: { final: { type: 'string' } }, required: ['final'] },
        ] };
        const answer = await session.prompt(turns, tools.length ? { signal, responseConstraint: schema } : { signal });
        const parsed: { tool?: string; arguments?: object; final?: string } = tools.length ? JSON.parse(answer) : { final: answer };
        const completion: ChatCompletion = {
          model: 'chrome-prompt-api',
          choices: [parsed.tool
            ? { index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ id: `call_${Date.now()}`, type: 'function', function: { name: parsed.tool, arguments: JSON.stringify(parsed.arguments ?? {}) } }] } }
            : { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: parsed.final ?? '' } }],
        };
        return completion;
      } finally {
        session.destroy();
      }
    },
  };
}
