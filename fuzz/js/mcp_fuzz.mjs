#!/usr/bin/env node
// A coverage-guided fuzzer for the MCP client's handling of what a server sends (www/mcp/, which
// is JavaScript and so outside cargo-fuzz): V8's own block coverage (node:inspector, precise
// coverage with counts) tells which inputs reach new blocks of www/mcp/; those join the corpus
// and are mutated further. Each input is a server's byte stream: read by the SSE reader, each
// event's JSON handed to the functions that take server data (responses, tool results and
// definitions, prompts, resources, elicitation schemas, header annotations). A check fails on a
// throw where a function promises a result, and on output that breaks a promise (a header value
// that is not visible ASCII, a registry name outside its alphabet).
//
//   node fuzz/js/mcp_fuzz.mjs SECONDS WORK_CORPUS_DIR ARTIFACT_DIR   (scripts/fuzz.sh runs it; the
//                                                                    seeds are fuzz/corpus/mcp_js)
//   node fuzz/js/mcp_fuzz.mjs --replay FILE...                       (tests replay found inputs)
import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { readSse } from '../../www/mcp/sse.js';
import { encodeHeaderValue, modernHeaders, toolHeaderParams } from '../../www/mcp/headers.js';
import { applyDefaults, contentProblems, formFields } from '../../www/mcp/elicitation.js';
import { canonicalJson, resultText } from '../../www/mcp/tool_result.js';
import { definitionDiff, prettyCanonical } from '../../www/mcp/diff.js';
import { registryName } from '../../www/mcp/tools.js';
import { isResponseTo } from '../../www/mcp/transport.js';
import { contentText } from '../../www/mcp/resources.js';
import { promptAsTask, promptContentText } from '../../www/mcp/prompts.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const VISIBLE = /^[\x20-\x7e]*$/;
const METHODS = ['tools/call', 'prompts/get', 'resources/read', 'tools/list', 'initialize'];

/** Thrown for a broken promise; any other throw from a checked function is a finding too. */
class Broken extends Error {}

function expect(ok, what) {
  if (!ok) throw new Broken(what);
}

function stream(bytes, cuts) {
  let at = 0;
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const n = Math.max(1, cuts[i++ % cuts.length] || 7);
      controller.enqueue(bytes.subarray(at, at + n));
      at += n;
    },
  });
}

/** One message a server sent, through every function that reads such data. */
function handle(msg, previous) {
  if (!msg || typeof msg !== 'object') return;
  isResponseTo(msg, 1);
  const result = msg.result && typeof msg.result === 'object' ? msg.result : {};
  const params = msg.params && typeof msg.params === 'object' ? msg.params : {};
  const text = resultText(result);
  expect(typeof text.text === 'string' && typeof text.isError === 'boolean', 'resultText shape');
  for (const item of Array.isArray(result.contents) ? result.contents : []) {
    expect(typeof contentText(item) === 'string', 'contentText is text');
  }
  if (Array.isArray(result.messages)) {
    for (const m of result.messages) promptContentText(m?.content);
    promptAsTask(result);
  }
  for (const tool of Array.isArray(result.tools) ? result.tools : []) {
    const name = registryName('srv', tool?.name);
    expect(/^mcp__srv__[A-Za-z0-9_-]*$/.test(name), `registry name ${JSON.stringify(name)}`);
    const found = toolHeaderParams(tool?.inputSchema);
    expect(Array.isArray(found.headers) || typeof found.error === 'string', 'toolHeaderParams shape');
    for (const method of METHODS) {
      const headers = modernHeaders({ method, params: { name: String(tool?.name ?? ''), uri: String(params.uri ?? ''), arguments: params.arguments } }, '2026-07-28', tool);
      for (const [k, v] of Object.entries(headers)) expect(VISIBLE.test(String(v)), `header ${k}: ${JSON.stringify(v)}`);
    }
    canonicalJson(tool);
    if (previous) definitionDiff(previous, tool);
  }
  if (params.requestedSchema !== undefined) {
    const form = formFields(params.requestedSchema);
    expect(Array.isArray(form.fields) || typeof form.error === 'string', 'formFields shape');
    if (form.fields) {
      const content = applyDefaults(params.requestedSchema, params.content ?? {});
      contentProblems(params.requestedSchema, content);
    }
  }
  for (const v of [params.name, params.uri, msg.method, msg.id]) {
    if (typeof v === 'string') expect(VISIBLE.test(encodeHeaderValue(v)), 'encoded header value');
  }
  prettyCanonical(msg);
}

/** Runs one input; resolves on success, rejects with the finding. */
export async function check(bytes) {
  const cuts = [...bytes.subarray(0, 3)];
  const cursor = {};
  let previous;
  for await (const event of readSse(stream(bytes.subarray(3), cuts), cursor)) {
    expect(typeof event.data === 'string' && event.data !== '', 'an event with data');
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch {
      continue;
    }
    for (const one of Array.isArray(msg) ? msg : [msg]) {
      handle(one, previous);
      previous = one?.result?.tools?.[0] ?? previous;
    }
  }
  expect(cursor.retryMs === undefined || Number.isFinite(cursor.retryMs), 'retry time');
}

const TOKENS = ['data: ', 'event: message\n', 'id: 7\n', 'retry: 1000\n', '\n\n', '\r\n', '\r', ':\n',
  '{"jsonrpc":"2.0","id":1,"result":', '"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}}}}]',
  '"content":[{"type":"text","text":"x"}]', '"requestedSchema":{"type":"object","properties":{"p":{"type":"string","enum":["a"]}}}',
  '"x-mcp-header":', '"properties":', '"type":"array"', '"items":', '"anyOf":[', '"oneOf":[', '"default":', 'null', '[]', '{}',
  '"\\u0000"', '"\\ud800"', '"é\\r\\n"', '1e309', '-0', '"__proto__"', '"constructor"'];

function mutate(input, corpus, rng) {
  let out = Buffer.from(input);
  const rounds = 1 + Math.floor(rng() * 4);
  for (let r = 0; r < rounds; r++) {
    const at = Math.floor(rng() * (out.length + 1));
    switch (Math.floor(rng() * 6)) {
      case 0: if (out.length) out[Math.min(at, out.length - 1)] ^= 1 << Math.floor(rng() * 8); break;
      case 1: out = Buffer.concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + 1 + Math.floor(rng() * 8)))]); break;
      case 2: out = Buffer.concat([out.subarray(0, at), Buffer.from(TOKENS[Math.floor(rng() * TOKENS.length)]), out.subarray(at)]); break;
      case 3: { const other = corpus[Math.floor(rng() * corpus.length)]; const from = Math.floor(rng() * other.length); out = Buffer.concat([out.subarray(0, at), other.subarray(from, from + 1 + Math.floor(rng() * 64))]); break; }
      case 4: out = Buffer.concat([out.subarray(0, at), Buffer.from([Math.floor(rng() * 256)]), out.subarray(at)]); break;
      default: { const n = Math.floor(rng() * 16); out = Buffer.concat([out.subarray(0, at), out.subarray(at, at + n), out.subarray(at)]); }
    }
  }
  return out.subarray(0, 8192);
}

async function fuzz(seconds, corpusDir, artifactDir) {
  const seedDir = path.join(HERE, '../corpus/mcp_js');
  fs.mkdirSync(corpusDir, { recursive: true });
  const read = (dir) => fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f)));
  const seeds = [...read(seedDir), ...read(corpusDir)];
  const corpus = seeds.length ? [...seeds] : [Buffer.from('\0\0\0data: {}\n\n')];
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  const seen = new Set();
  const blocks = async () => {
    const { result } = await session.post('Profiler.takePreciseCoverage');
    let fresh = 0;
    for (const script of result) {
      if (!script.url.includes('/www/mcp/')) continue;
      for (const fn of script.functions) {
        for (const r of fn.ranges) {
          if (r.count === 0) continue;
          const key = `${script.url}:${r.startOffset}:${r.endOffset}`;
          if (!seen.has(key)) { seen.add(key); fresh++; }
        }
      }
    }
    return fresh;
  };
  let seed = 0x2545f491;
  const rng = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) / 2 ** 32; };
  for (const s of corpus) await check(s).catch(() => {});
  await blocks();
  const started = Date.now();
  let executions = 0;
  let crashes = 0;
  while (Date.now() - started < seconds * 1000) {
    const input = mutate(corpus[Math.floor(rng() * corpus.length)], corpus, rng);
    executions++;
    try {
      await check(input);
    } catch (error) {
      crashes++;
      fs.mkdirSync(artifactDir, { recursive: true });
      const file = path.join(artifactDir, `crash-${executions}`);
      fs.writeFileSync(file, input);
      console.log(`finding: ${error?.constructor?.name}: ${String(error?.message ?? error).slice(0, 200)} (${file})`);
      if (crashes >= 5) break;
    }
    if ((await blocks()) > 0) {
      corpus.push(input);
      fs.writeFileSync(path.join(corpusDir, `input-${corpus.length}-${executions}`), input);
    }
  }
  const wall = (Date.now() - started) / 1000;
  console.log(`stat::number_of_executed_units: ${executions}`);
  console.log(`#${executions} DONE cov: ${seen.size} corp: ${corpus.length} crashes: ${crashes} wall: ${wall.toFixed(1)}s`);
  return crashes;
}

const args = process.argv.slice(2);
if (args[0] === '--replay') {
  let bad = 0;
  for (const f of args.slice(1)) {
    try { await check(fs.readFileSync(f)); } catch (e) { bad++; console.log(`${f}: ${e.message}`); }
  }
  process.exitCode = bad ? 1 : 0;
} else if (args.length) {
  const crashes = await fuzz(Number(args[0]), args[1] ?? 'target/fuzz/corpus/mcp_js', args[2] ?? 'target/fuzz/artifacts/mcp_js');
  process.exitCode = crashes ? 77 : 0;
}
