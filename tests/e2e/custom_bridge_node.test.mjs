// The custom-provider bridge (www/custom_bridge.js) in Node: what each hop hands the Rust client.
// Items a provider has in hand go over in one hop; an item that keeps it waiting, or fails, is
// left for the next; a cancel stops the reading. The whole path through the runtime is in
// custom_provider.test.mjs.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { customOpen, customNext } from '../../www/custom_bridge.js';

const chunk = (n) => ({ choices: [{ index: 0, delta: { content: `c${n}` }, finish_reason: null }] });

/** The items of one hop's text: `{chunk}` or `{completion}` for each line, null for `end`. */
function items(text) {
  return text.split('\n').map((line) => {
    if (line === 'end') return null;
    const colon = line.indexOf(':');
    return { [line.slice(0, colon)]: JSON.parse(line.slice(colon + 1)) };
  });
}

/** Every hop of a call, each as the list of items it handed over. */
async function hops(complete, signal = new AbortController().signal) {
  const handle = customOpen(complete, { messages: [] }, signal);
  const out = [];
  for (;;) {
    const text = await customNext(handle);
    if (text === null) return out;
    out.push(items(text));
  }
}

const contents = (items) => items.map((item) => (item === null ? null : item.chunk.choices[0].delta.content));

describe('custom provider bridge (node)', () => {
  test('chunks a provider has in hand go over in one hop, with the end', async () => {
    const got = await hops(async () => (async function* () {
      yield* [chunk(0), chunk(1), chunk(2)];
    })());
    assert.deepEqual(got.map(contents), [['c0', 'c1', 'c2', null]]);
  });

  test('a chunk whose text holds newlines and item words stays one item', async () => {
    const tricky = { choices: [{ index: 0, delta: { content: 'end\nchunk:{}\nend' }, finish_reason: null }] };
    const got = await hops(async () => (async function* () {
      yield tricky;
      yield chunk(1);
    })());
    assert.deepEqual(got, [[{ chunk: tricky }, { chunk: chunk(1) }, null]]);
  });

  test('a chunk that keeps the provider waiting starts a new hop; nothing is lost or reordered', async () => {
    const got = await hops(async () => (async function* () {
      yield chunk(0);
      yield chunk(1);
      await new Promise((resolve) => setTimeout(resolve, 5));
      yield chunk(2);
      await new Promise((resolve) => setTimeout(resolve, 5));
    })());
    assert.deepEqual(got.map(contents), [['c0', 'c1'], ['c2'], [null]]);
  });

  test('a single ChatCompletion is one item and the end', async () => {
    const completion = { choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] };
    const got = await hops(async () => completion);
    assert.deepEqual(got, [[{ completion }, null]]);
  });

  test('a provider that fails after two chunks hands both over first, then the failure', async () => {
    const handle = customOpen(async () => (async function* () {
      yield chunk(0);
      yield chunk(1);
      throw new Error('stream cut');
    })(), { messages: [] }, new AbortController().signal);
    assert.deepEqual(contents(items(await customNext(handle))), ['c0', 'c1']);
    await assert.rejects(customNext(handle), /stream cut/);
  });

  test('a chunk that is not JSON fails the hop after the chunks before it', async () => {
    const handle = customOpen(async () => (async function* () {
      yield chunk(0);
      yield { choices: [], usage: { prompt_tokens: 10n } };
    })(), { messages: [] }, new AbortController().signal);
    assert.deepEqual(contents(items(await customNext(handle))), ['c0']);
    await assert.rejects(customNext(handle), /not JSON/);
  });

  test('a provider that throws as it starts fails the first hop', async () => {
    const handle = customOpen(() => {
      throw new TypeError('no model');
    }, { messages: [] }, new AbortController().signal);
    await assert.rejects(customNext(handle), /no model/);
    assert.throws(() => customOpen(undefined, {}, new AbortController().signal), /no complete/);
  });

  test('a provider that never waits is still read in parts of at most 256 items', async () => {
    const got = await hops(async () => (async function* () {
      for (let i = 0; i < 600; i += 1) yield chunk(i);
    })());
    assert.deepEqual(got.map((items) => items.length), [256, 256, 89]);
    assert.deepEqual(got.flat().slice(-2).map((item) => item?.chunk.choices[0].delta.content ?? null), ['c599', null]);
  });

  test('a call opened on a signal already aborted fails its first hop, even with a provider that never answers', async () => {
    const never = { [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => {}) }) };
    const handle = customOpen(async () => never, { messages: [] }, AbortSignal.abort());
    const hung = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 200));
    await assert.rejects(Promise.race([customNext(handle), hung]), { name: 'AbortError' });
  });

  test('a cancel rejects the hop waiting on a provider that never answers, and closes its iterator', async () => {
    const controller = new AbortController();
    let closed = false;
    const handle = customOpen(async () => ({
      [Symbol.asyncIterator]() {
        return {
          next: () => new Promise(() => {}),
          return: async () => {
            closed = true;
            return { done: true };
          },
        };
      },
    }), { messages: [] }, controller.signal);
    const waiting = customNext(handle);
    setTimeout(() => controller.abort(), 5);
    await assert.rejects(waiting, { name: 'AbortError' });
    assert.equal(closed, true);
  });
});
