// http_fetch and the runtime's per-host approval: an approved call may reach a public host that is
// not allow-listed; loopback and private addresses stay refused even when approved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpFetchTool } from '../../www/tools/http_fetch.js';

function tool() {
  const seen = [];
  const spec = httpFetchTool({
    fetch: async (url) => {
      seen.push(url);
      return new Response('hello', { status: 200, headers: { 'content-type': 'text/plain' } });
    },
  });
  return { spec, seen };
}

test('http_fetch asks per host by default', () => {
  const { spec } = tool();
  assert.equal(spec.permission, 'ask');
  assert.deepEqual(spec.approvalScope, { urlHost: 'url' });
});

test('an unapproved call to a new public host is not sent', async () => {
  const { spec, seen } = tool();
  await assert.rejects(spec.execute({ url: 'https://example.org/x' }, { approved: false }), /request not sent/);
  assert.deepEqual(seen, []);
});

test('an approved call to a public host is sent', async () => {
  const { spec, seen } = tool();
  const result = await spec.execute({ url: 'https://example.org/x' }, { approved: true });
  assert.equal(result.status, 200);
  assert.equal(result.body, 'hello');
  assert.deepEqual(seen, ['https://example.org/x']);
});

test('approval never opens loopback or private addresses', async () => {
  const { spec, seen } = tool();
  for (const url of ['http://127.0.0.1:8080/', 'http://localhost/', 'http://10.0.0.2/', 'http://169.254.169.254/latest', 'http://[::1]/']) {
    await assert.rejects(spec.execute({ url }, { approved: true }), /request not sent/, url);
  }
  assert.deepEqual(seen, []);
});
