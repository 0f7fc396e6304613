// A scripted model for the custom provider, installed in a test page as
// `window.scriptedProvider(replies, { stream })`: each call of its `complete` takes the next
// reply (`{ text }` or `{ calls: [{ id, name, args | rawArgs }] }`) and answers it as a stream of
// ChatCompletionChunks or as one ChatCompletion. `requests` keeps what each call received.

/** Defines `window.scriptedProvider` in `page`. */
export async function installScriptedModel(page) {
  await page.evaluate(() => {
    window.scriptedProvider = (replies, { stream }) => {
      const requests = [];
      const complete = async (request, { signal }) => {
        requests.push({ request: JSON.parse(JSON.stringify(request)), signalIsSignal: signal instanceof AbortSignal });
        const reply = replies.shift() ?? { text: 'out of script' };
        const toolCalls = (reply.calls ?? []).map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.rawArgs ?? JSON.stringify(c.args) } }));
        const usage = { prompt_tokens: 100, completion_tokens: 10 };
        const finish = toolCalls.length ? 'tool_calls' : 'stop';
        if (!stream) {
          return {
            id: 'c', object: 'chat.completion', model: 'page-model',
            choices: [{ index: 0, finish_reason: finish, message: { role: 'assistant', content: reply.text ?? null, tool_calls: toolCalls.length ? toolCalls : undefined } }],
            usage,
          };
        }
        return (async function* () {
          if (reply.text) {
            for (const word of reply.text.split(/(?= )/)) {
              yield { object: 'chat.completion.chunk', model: 'page-model', choices: [{ index: 0, delta: { content: word }, finish_reason: null }] };
            }
          }
          for (const [index, call] of toolCalls.entries()) {
            yield { choices: [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] } }] };
            yield { choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: call.function.arguments } }] } }] };
          }
          yield { choices: [{ index: 0, delta: {}, finish_reason: finish }] };
          yield { choices: [], usage };
        })();
      };
      return { complete, requests };
    };
  });
}
