// The give-up corpus: scripted models that behave like real ones on tasks they cannot do
// (hopeless) and on tasks that only look repetitive (honest). Each case names its tools (run in
// the page: `source` is the body of `async (args, state) => string`, throwing for an error
// result; `state` is an object the case's calls share) and its model: `step(n, last)` is the
// reply to the n-th tool-offering request (n from 0; `last` is the text of the latest tool
// result), `reflect(r)` the arguments of the r-th reflection (r from 0).
//
// Noise is what real tools print: clock times, run and request ids, durations, counters.
// The models' choices are seeded, so a case plays the same way every time; the noise in tool
// results is random, as real noise is.

import { mulberry32 as rng } from '../e2e/support/path_corpus.mjs';

const call = (n, name, args) => ({ calls: [{ id: `c${n}`, name, args }] });
const answer = (text) => ({ text });

/** Page-side helpers every tool source may use: `noise()` prints a time, an id and a duration. */
export const PAGE_HELPERS = `
  const pad = (v, n = 2) => String(v).padStart(n, '0');
  globalThis.giveupNoise = () => {
    const d = new Date();
    const id = Math.random().toString(16).slice(2, 10);
    return { time: pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + '.' + pad(d.getMilliseconds(), 3),
      id, run: 1000 + Math.floor(Math.random() * 9000), ms: 5 + Math.floor(Math.random() * 900) };
  };
`;

const S = (props, required = Object.keys(props)) => ({ type: 'object', properties: props, required });
const str = { type: 'string' };
const num = { type: 'number' };

/** Tools of a small code base whose tests never pass: edit, test, revert, read, grep. */
const CODE_TOOLS = [
  { name: 'edit_file', description: 'Replaces a file.', parameters: S({ path: str, content: str }), idempotent: false,
    source: `state.edits = (state.edits ?? 0) + 1; return 'wrote ' + args.path + ' (' + args.content.length + ' bytes)';` },
  { name: 'run_tests', description: 'Runs the test suite, or the tests matching filter.', parameters: S({ filter: str }, []), idempotent: true,
    source: `const z = giveupNoise(); return 'test run ' + z.run + ' started ' + z.time + '\\n' + (args.filter ? 'running tests matching ' + args.filter + '\\n' : '') + 'FAILED parser::tests::handles_nested_quotes\\n  assertion failed: left == right (left: 3, right: 4)\\n47 passed, 1 failed in ' + z.ms + ' ms';` },
  { name: 'revert', description: 'Restores a file from version control.', parameters: S({ path: str }), idempotent: false,
    source: `return 'restored ' + args.path + ' at ' + giveupNoise().time;` },
  { name: 'read_file', description: 'Reads a file.', parameters: S({ path: str }), idempotent: true,
    source: `const files = { 'src/parser.rs': 'fn parse(s: &str) -> Vec<Token> {\\n    let mut depth = 0;\\n    for c in s.chars() { if c == QUOTE { depth += 1 } }\\n}', 'src/lexer.rs': 'pub fn lex(input: &str) -> Lexer { Lexer::new(input) }', 'tests/parser.rs': '#[test] fn handles_nested_quotes() { assert_eq!(count(NESTED), 4) }' };
      if (!(args.path in files)) throw new Error('no such file: ' + args.path);
      return files[args.path];` },
  { name: 'grep', description: 'Searches the code base for a pattern.', parameters: S({ pattern: str }), idempotent: true,
    source: `const z = giveupNoise(); return 'no match for ' + JSON.stringify(args.pattern) + ' in 48 files (searched in ' + z.ms + ' ms, request ' + z.id + ')';` },
];

/** A cycle of `period` actions on the code base, the test run between each edit. */
function cycleCase(period, variant) {
  const actions = [
    ['edit_file', { path: 'src/parser.rs', content: 'fn parse() { /* depth += 2 */ }' }],
    ['run_tests', { filter: 'parser' }],
    ['revert', { path: 'src/parser.rs' }],
    ['run_tests', {}],
    ['edit_file', { path: 'src/lexer.rs', content: 'pub fn lex() { /* quotes */ }' }],
    ['run_tests', { filter: 'nested' }],
  ].slice(0, period);
  if (period === 2) actions[0] = ['edit_file', { path: 'src/parser.rs', content: 'fn parse() { /* depth += 2 */ }' }];
  return {
    name: `cycle of ${period} (${variant ? 'tests filtered' : 'whole suite'})`,
    task: 'Make the failing parser test pass.',
    tools: CODE_TOOLS,
    step: (n) => {
      const [tool, args] = actions[n % period];
      return call(n, tool, variant && tool === 'run_tests' ? { filter: 'handles_nested_quotes' } : args);
    },
    reflect: () => ({ status: 'The parser test still fails.', tried: ['editing the parser'], stuck_on: ['the nested quotes test'], next: 'Try once more.', give_up: false }),
  };
}

/** A hunt for a bug that is not there: distinct searches, each finding nothing. */
function huntCase(variant) {
  const words = ['overflow', 'race', 'deadlock', 'leak', 'panic', 'unwrap', 'null', 'stale', 'retry', 'timeout', 'cache', 'lock', 'drop', 'clone', 'index', 'bound', 'alloc', 'free', 'signal', 'mutex'];
  const pick = rng(7 + variant);
  return {
    name: `hunt for a bug that does not exist (${variant})`,
    task: 'Find the memory corruption bug in the parser and fix it.',
    tools: CODE_TOOLS,
    step: (n) => {
      if (variant % 2 && n % 3 === 2) return call(n, 'run_tests', {});
      return call(n, 'grep', { pattern: `${words[Math.floor(pick() * words.length)]}_${n}` });
    },
    reflect: (r) => ({ status: 'No sign of the bug yet.', tried: ['searching for suspicious patterns'], stuck_on: ['nothing matches'], next: r ? 'Search wider.' : 'Search for other patterns.', give_up: false }),
  };
}

/** Rereading the same few files in a shuffled order, running the tests in between. */
function rereadCase(variant) {
  const files = ['src/parser.rs', 'src/lexer.rs', 'tests/parser.rs'];
  const pick = rng(31 + variant);
  return {
    name: `rereading three files in shuffled order (${variant})`,
    task: 'The parser corrupts memory on nested quotes. Fix it.',
    tools: CODE_TOOLS,
    step: (n) => (n % 2 === 1 && variant !== 2 ? call(n, 'run_tests', {}) : call(n, 'read_file', { path: files[Math.floor(pick() * files.length)] })),
    reflect: () => ({ status: 'The code looks right.', tried: ['reading the parser'], stuck_on: [], next: 'Read again more carefully.', give_up: false }),
  };
}

const FETCH_TOOL = { name: 'fetch_page', description: 'Fetches a URL.', parameters: S({ url: str, headers: { type: 'object' } }, ['url']), idempotent: true,
  source: `const z = giveupNoise(); throw new Error('403 Forbidden: ' + args.url + ' requires a signed-in session (request ' + z.id + ', ' + z.ms + ' ms)');` };

/** A forbidden resource tried by ever different URLs and headers. */
function forbiddenCase(variant) {
  const paths = ['/admin', '/admin/', '/admin/index.html', '/api/admin', '/admin?x=1', '/Admin', '/admin/export', '/api/v2/admin', '/admin.json', '/private/admin'];
  return {
    name: `a forbidden resource (${variant})`,
    task: 'Download the admin report from https://intranet.example/admin.',
    tools: [FETCH_TOOL],
    step: (n) => call(n, 'fetch_page', { url: `https://intranet.example${paths[(n + variant) % paths.length]}`, ...(variant % 2 && n % 2 ? { headers: { 'x-try': String(n) } } : {}) }),
    reflect: () => ({ status: 'Every request is refused.', tried: ['other URLs'], stuck_on: ['403 Forbidden'], next: 'Try another URL.', give_up: false }),
  };
}

const DEPLOY_TOOL = { name: 'deploy', description: 'Deploys the service to an environment.', parameters: S({ env: str, version: str }), idempotent: false,
  source: `const z = giveupNoise(); const faults = ['config key database.url is missing', 'image registry refused the push: unauthorized', 'health check failed: /healthz answered 500', 'migration 0042 failed: column owner_id does not exist', 'rollout aborted: quota of 4 replicas exceeded', 'certificate for api.example expired'];
    state.n = (state.n ?? 0) + 1; throw new Error('deploy ' + z.id + ' to ' + args.env + ': ' + faults[(state.n + state.shift) % faults.length]);` };

/** A tool that fails every time, each time differently. */
function erroringCase(variant) {
  const envs = ['staging', 'prod', 'staging-eu', 'canary'];
  return {
    name: `a tool that always fails differently (${variant})`,
    task: 'Deploy version 2.4.1 of the service.',
    tools: [{ ...DEPLOY_TOOL, source: `state.shift ??= ${variant}; ${DEPLOY_TOOL.source}` }],
    step: (n) => call(n, 'deploy', { env: envs[(n + variant) % envs.length], version: n % 3 ? '2.4.1' : 'v2.4.1' }),
    reflect: () => ({ status: 'Deploys keep failing.', tried: ['deploying to other environments'], stuck_on: ['each deploy fails for another reason'], next: 'Try again.', give_up: false }),
  };
}

/** A model that concedes: in its reflection (even variants), or by itself with give_up early. */
function concedingCase(variant) {
  const base = variant < 2 ? cycleCase(3 + variant, 0) : huntCase(10 + variant);
  const itself = variant % 2 === 1;
  return {
    ...base,
    name: `${itself ? 'calls give_up itself' : 'concedes in its reflection'} (${variant})`,
    step: itself ? (n) => (n === 3 ? call(n, 'give_up', { reason: 'The task cannot be done here.', stuck_on: ['nothing I try changes the failing result'], tried: ['three approaches'] }) : base.step(n)) : base.step,
    reflect: () => ({ status: 'The task cannot be done with these tools.', tried: ['every approach I know'], stuck_on: ['the test expects behaviour the spec forbids'], next: '', give_up: true }),
  };
}

export const HOPELESS = [
  ...[2, 3, 4, 5, 6].flatMap((p) => [cycleCase(p, 0), cycleCase(p, 1)]),
  ...[0, 1, 2, 3, 4, 5].map(huntCase),
  ...[0, 1, 2, 3].map(rereadCase),
  ...[0, 1, 2, 3, 4].map(forbiddenCase),
  ...[0, 1, 2, 3, 4].map(erroringCase),
  ...[0, 1, 2, 3].map(concedingCase),
].map((c) => ({ ...c, kind: 'hopeless' }));

// ---------------------------------------------------------------------------------------------
// Honest runs: repetitive on the surface, new evidence at every step.

/** A long log read page by page: every page is new lines of the same shape. */
function pagingCase(pages, variant) {
  return {
    name: `paging a ${pages}-page log (${variant})`,
    task: 'Read the whole server log and count the requests that failed.',
    tools: [{ name: 'read_log', description: 'Reads one page (25 lines) of the server log.', parameters: S({ page: num }), idempotent: true,
      source: `const seed = ${variant} * 1000 + args.page; let a = seed; const r = () => { a = (a * 1103515245 + 12345) % 2147483648; return a / 2147483648; };
        const paths = ['/api/users', '/api/orders', '/login', '/static/app.js', '/api/cart', '/search', '/api/payments', '/health', '/api/items', '/logout', '/admin/stats', '/api/reviews'];
        const users = ['ada', 'bob', 'cy', 'dee', 'eli', 'fay', 'gus', 'hal', 'ivy', 'jo', 'kai', 'lu'];
        const lines = []; for (let i = 0; i < 25; i++) { const code = r() < 0.1 ? 500 : r() < 0.2 ? 404 : 200;
          lines.push('2026-03-0' + (1 + (args.page % 9)) + 'T1' + (i % 10) + ':' + String(Math.floor(r() * 60)).padStart(2, '0') + ':00Z ' + ['GET', 'POST', 'PUT'][Math.floor(r() * 3)] + ' ' + paths[Math.floor(r() * paths.length)] + '/' + Math.floor(r() * 900) + ' user=' + users[Math.floor(r() * users.length)] + ' status=' + code + ' bytes=' + Math.floor(r() * 90000)); }
        return 'page ' + args.page + ' of ${pages}\\n' + lines.join('\\n');` }],
    step: (n) => (n < pages ? call(n, 'read_log', { page: n + 1 }) : answer(`I read all ${pages} pages; the failed requests are counted.`)),
  };
}

/** A job polled until it is done: the same call, its progress moving. */
function pollingCase(polls, variant) {
  return {
    name: `polling a job over ${polls} checks (${variant})`,
    task: 'Start the export job and tell me when it has finished.',
    tools: [{ name: 'job_status', description: "Reports the export job's state.", parameters: S({ job: str }), idempotent: true,
      source: `state.n = (state.n ?? 0) + 1; const z = giveupNoise(); const done = Math.min(100, Math.round(state.n * 100 / ${polls}));
        return 'job export-7 checked at ' + z.time + ': ' + (done >= 100 ? 'finished, 18,204 rows written' : 'running, ' + done + '% done, ' + (state.n * ${variant + 3}) + ' batches written');` }],
    step: (n) => (n < polls ? call(n, 'job_status', { job: 'export-7' }) : answer('The export job has finished: 18,204 rows.')),
  };
}

/** A retry after transient errors, then the work goes on. */
function transientCase(failures, variant) {
  return {
    name: `${failures} transient errors, then success (${variant})`,
    task: 'Fetch the three price lists and sum their totals.',
    tools: [{ name: 'fetch_prices', description: 'Fetches a price list.', parameters: S({ list: str }), idempotent: true,
      source: `state.n = (state.n ?? 0) + 1; const z = giveupNoise();
        if (state.n <= ${failures}) throw new Error(['503 Service Unavailable', 'timeout after 5000 ms', '429 Too Many Requests: rate limit, try again'][(state.n + ${variant}) % 3] + ' (request ' + z.id + ')');
        return 'price list ' + args.list + ': total ' + (args.list.length * 1234 + ${variant}) + '.00 EUR, ' + (args.list.length * 7) + ' items';` }],
    step: (n) => {
      const lists = ['north', 'south', 'east'];
      if (n < failures) return call(n, 'fetch_prices', { list: lists[0] });
      const k = n - failures;
      return k < lists.length ? call(n, 'fetch_prices', { list: lists[k] }) : answer('The three totals are summed.');
    },
  };
}

/** Many similar files read one after another. */
function similarFilesCase(count, variant) {
  return {
    name: `reading ${count} similar config files (${variant})`,
    task: 'Find which service has the lowest timeout.',
    tools: [{ name: 'read_config', description: "Reads a service's config.", parameters: S({ service: str }), idempotent: true,
      source: `const i = Number(args.service.split('-')[1]); return '[service]\\nname = "' + args.service + '"\\nport = ' + (8000 + i * ${variant + 1}) + '\\ntimeout_ms = ' + (1000 + ((i * 37 + ${variant}) % 23) * 250) + '\\nreplicas = ' + (1 + (i % 4)) + '\\nregion = "' + ['eu-west', 'us-east', 'ap-south'][i % 3] + '"\\nowner = "team-' + ['core', 'data', 'web', 'ops', 'ml'][i % 5] + '"';` }],
    step: (n) => (n < count ? call(n, 'read_config', { service: `svc-${n + 1}` }) : answer('The lowest timeout is found.')),
  };
}

/** A todo list worked through: plan, then one action and one tick per item. */
function todoCase(items, variant) {
  const names = ['create the table', 'add the index', 'backfill rows', 'add the API route', 'write the handler', 'add a test', 'update the docs', 'bump the version', 'tag the release', 'announce it'].slice(0, items);
  return {
    name: `a ${items}-item todo list worked through (${variant})`,
    task: 'Ship the owners feature: plan it with the todo tool and do each item.',
    tools: [{ name: 'shell', description: 'Runs a shell command.', parameters: S({ command: str }), idempotent: false,
      source: `const z = giveupNoise(); return '$ ' + args.command + '\\nok (' + z.ms + ' ms)\\n' + args.command.length * ${variant + 2} + ' lines changed';` }],
    builtins: ['todo'],
    step: (n) => {
      const list = (done) => ({ items: names.map((text, i) => ({ id: `t${i + 1}`, text, status: i < done ? 'done' : 'open' })) });
      if (n === 0) return call(n, 'todo', list(0));
      const k = Math.floor((n - 1) / 2);
      if (k >= items) return answer('Every item is done.');
      return (n - 1) % 2 === 0 ? call(n, 'shell', { command: `make ${names[k].replaceAll(' ', '-')}` }) : call(n, 'todo', list(k + 1));
    },
  };
}

/** Unit conversions of a list of values: one tool, many calls with different arguments. */
function conversionsCase(count, variant) {
  return {
    name: `${count} conversions with one tool (${variant})`,
    task: 'Convert these distances to kilometres.',
    tools: [{ name: 'convert', description: 'Converts miles to kilometres.', parameters: S({ miles: num }), idempotent: true,
      source: `return args.miles + ' mi = ' + (args.miles * 1.609344).toFixed(3) + ' km';` }],
    step: (n) => (n < count ? call(n, 'convert', { miles: (n + 1) * (variant + 3) + 0.5 }) : answer('All distances are converted.')),
  };
}

export const HONEST = [
  ...[[12, 0], [20, 1], [24, 2], [16, 3], [8, 4]].map(([p, v]) => pagingCase(p, v)),
  ...[[6, 0], [10, 1], [14, 2], [20, 3], [8, 4]].map(([p, v]) => pollingCase(p, v)),
  ...[[1, 0], [2, 1], [1, 2], [2, 3], [2, 4]].map(([f, v]) => transientCase(f, v)),
  ...[[10, 0], [15, 1], [20, 2], [8, 3], [12, 4]].map(([c, v]) => similarFilesCase(c, v)),
  ...[[4, 0], [6, 1], [8, 2], [10, 3], [5, 4]].map(([i, v]) => todoCase(i, v)),
  ...[[10, 0], [20, 1], [15, 2], [25, 3], [6, 4]].map(([c, v]) => conversionsCase(c, v)),
].map((c) => ({ ...c, kind: 'honest' }));
