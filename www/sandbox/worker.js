// Owns the code that runs inside the eval sandbox's dedicated Worker: it takes one snippet,
// evaluates it (last expression value, `return`, top-level await), captures console output and
// posts back one JSON-safe result. It is a classic script that the app fetches as text and the
// sandbox page starts from a blob: URL, so it inherits the page's opaque origin and CSP. Each
// run gets a fresh worker, which the sandbox page terminates on timeout.
'use strict';

(() => {
  const post = self.postMessage.bind(self);
  const AsyncFunction = (async () => {}).constructor;
  const MAX_DEPTH = 20;
  const MAX_NODES = 20000;
  const MAX_ENTRY_CHARS = 2000;
  const MAX_ENTRIES = 500;
  let started = false;

  // Names the worker scope offers for network, storage or new contexts. The opaque origin and the
  // CSP inherited from the sandbox page already block them; replacing them gives the model a
  // clear message and a second layer if a browser ever failed to apply the inherited CSP.
  const HARDENED = ['fetch', 'XMLHttpRequest', 'WebSocket', 'WebSocketStream', 'EventSource', 'WebTransport', 'importScripts',
    'indexedDB', 'caches', 'BroadcastChannel', 'Worker', 'SharedWorker', 'cookieStore', 'FileSystemHandle', 'RTCPeerConnection',
    'Notification', 'fetchLater'];

  function harden() {
    for (const name of HARDENED) {
      const blocked = () => {
        throw new Error(`${name} is not available in the sandbox (no network, storage or sub-workers)`);
      };
      for (let target = self; target; target = Object.getPrototypeOf(target)) {
        const desc = Object.getOwnPropertyDescriptor(target, name);
        if (desc && desc.configurable) delete target[name];
      }
      Object.defineProperty(self, name, { get: blocked, set: blocked, configurable: false, enumerable: false });
    }
    const nav = Object.getPrototypeOf(self.navigator);
    for (const name of ['storage', 'locks', 'serviceWorker', 'sendBeacon', 'usb', 'hid', 'serial', 'bluetooth']) {
      try {
        Object.defineProperty(nav, name, { get() { throw new Error(`navigator.${name} is not available in the sandbox`); }, configurable: false });
      } catch {
        /* not present */
      }
    }
  }

  // Converts any value to JSON-compatible data without running into cycles, BigInt or huge
  // graphs; getters are read (they run in this worker, under the sandbox's timeout).
  function toData(value) {
    let nodes = 0;
    const seen = new WeakSet();
    const walk = (v, depth) => {
      nodes += 1;
      if (nodes > MAX_NODES) return '[… too many values]';
      switch (typeof v) {
        case 'string':
        case 'boolean':
          return v;
        case 'number':
          return Number.isFinite(v) ? v : String(v);
        case 'bigint':
          return `${v}n`;
        case 'undefined':
          return null;
        case 'symbol':
          return v.toString();
        case 'function':
          return `[Function${v.name ? `: ${v.name}` : ''}]`;
        default:
          break;
      }
      if (v === null) return null;
      if (seen.has(v)) return '[Circular]';
      if (depth >= MAX_DEPTH) return '[… nested too deep]';
      seen.add(v);
      try {
        if (v instanceof Error) return { name: v.name, message: String(v.message) };
        if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
        if (v instanceof RegExp) return v.toString();
        if (v instanceof Map) return { '[Map]': Array.from(v, ([k, x]) => [walk(k, depth + 1), walk(x, depth + 1)]) };
        if (v instanceof Set) return { '[Set]': Array.from(v, (x) => walk(x, depth + 1)) };
        if (ArrayBuffer.isView(v)) return Array.from(v.length > 1000 ? v.subarray(0, 1000) : v, (x) => walk(x, depth + 1));
        if (typeof v.then === 'function') return '[Promise]';
        if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
        if (typeof v.toJSON === 'function') return walk(v.toJSON(), depth + 1);
        const out = {};
        for (const key of Object.keys(v)) out[key] = walk(v[key], depth + 1);
        return out;
      } finally {
        seen.delete(v);
      }
    };
    return walk(value, 0);
  }

  function format(args) {
    return args.map((a) => {
      if (typeof a === 'string') return a;
      try {
        const data = toData(a);
        return typeof data === 'string' && typeof a !== 'object' ? data : JSON.stringify(data);
      } catch (error) {
        return `[unprintable: ${error && error.message}]`;
      }
    }).join(' ');
  }

  function captureConsole(budgetChars) {
    let entries = 0;
    let chars = 0;
    let dropped = 0;
    const emit = (level, args) => {
      if (entries >= MAX_ENTRIES || chars >= budgetChars) {
        dropped += 1;
        return;
      }
      let text = format(args);
      if (text.length > MAX_ENTRY_CHARS) text = `${text.slice(0, MAX_ENTRY_CHARS)}… [${text.length - MAX_ENTRY_CHARS} more characters]`;
      entries += 1;
      chars += text.length;
      post({ type: 'console', level, text });
    };
    const levels = { log: 'log', info: 'info', warn: 'warn', error: 'error', debug: 'debug', trace: 'debug', dir: 'log', table: 'log' };
    for (const [method, level] of Object.entries(levels)) {
      console[method] = (...args) => emit(level, args);
    }
    console.assert = (ok, ...args) => {
      if (!ok) emit('error', ['Assertion failed:', ...args]);
    };
    self.addEventListener('error', (event) => {
      emit('error', [`Uncaught ${event.message}`]);
      event.preventDefault();
    });
    self.addEventListener('unhandledrejection', (event) => {
      const reason = event.reason;
      emit('error', [`Unhandled rejection: ${reason instanceof Error ? `${reason.name}: ${reason.message}` : format([reason])}`]);
      event.preventDefault();
    });
    return () => dropped;
  }

  function compiles(factory) {
    try {
      return factory();
    } catch {
      return null;
    }
  }

  const ILLEGAL_RETURN = /Illegal return|return not in function|Return statements are only valid/i;

  const DECLARATION = /^(async\s+function|function|class|let|const|var|import|export)\b/;

  // For statements with top-level await (no eval completion value there), finds the last
  // statement that is an expression by trying split points from the end: a ';' or a line break
  // after ';' / '}'. A split is used only if the code before it and `return (tail)` compile;
  // splits inside comments, and declarations (which hoist), are never used.
  function lastExpressionBody(code) {
    let tried = 0;
    for (let i = code.length - 1; i >= 0 && tried < 64; i -= 1) {
      const ch = code[i];
      if (ch !== ';' && ch !== '\n') continue;
      const tail = code.slice(i + 1).trim().replace(/;+$/, '').trim();
      if (tail === '') continue;
      tried += 1;
      const head = code.slice(0, i + 1);
      const lineStart = head.lastIndexOf('\n', i - 1) + 1;
      if (tail.includes('//') || tail.includes('/*') || head.slice(lineStart).includes('//')) continue;
      if (ch === '\n' && head.trim() !== '' && !/[;}]\s*$/.test(head)) continue;
      if (DECLARATION.test(tail)) continue;
      const fn = compiles(() => new AsyncFunction(`${head}\nreturn (\n${tail}\n);`));
      if (fn) return fn;
    }
    return null;
  }

  // Returns a thunk that evaluates `code` and resolves with its value:
  // 1. a single expression (await allowed): its value;
  // 2. a script: the completion value of the last statement (indirect eval, global scope);
  // 3. a function body (top-level `return` or `await` in statements): the returned value, or the
  //    value of the last statement when that statement is an expression.
  function compile(code) {
    const expression = compiles(() => new AsyncFunction(`return (\n${code}\n);`));
    if (expression) return () => expression();
    if (compiles(() => new Function(code))) {
      return () => {
        try {
          return (0, eval)(code);
        } catch (error) {
          if (error instanceof SyntaxError && ILLEGAL_RETURN.test(error.message)) return new AsyncFunction(code)();
          throw error;
        }
      };
    }
    const body = new AsyncFunction(code); // throws the SyntaxError the model should see
    const withValue = lastExpressionBody(code);
    return () => (withValue ?? body)();
  }

  async function run(message) {
    const budget = Number.isSafeInteger(message.maxOutputChars) ? message.maxOutputChars : 20000;
    const droppedCount = captureConsole(budget);
    if (message.harden !== false) harden();
    const reply = { type: 'done' };
    try {
      const value = await compile(String(message.code))();
      const json = JSON.stringify(toData(value));
      reply.valueJson = json === undefined ? 'null' : json;
    } catch (error) {
      const isError = error !== null && typeof error === 'object' && 'message' in error;
      reply.error = {
        name: isError ? String(error.name || 'Error') : 'Thrown',
        message: isError ? String(error.message) : format([error]),
      };
    }
    reply.consoleDropped = droppedCount();
    post(reply);
  }

  self.onmessage = (event) => {
    if (started) return;
    started = true;
    self.onmessage = null;
    const message = event.data;
    if (!message || message.type !== 'run' || typeof message.code !== 'string') {
      post({ type: 'done', error: { name: 'SandboxError', message: 'malformed run request' }, consoleDropped: 0 });
      return;
    }
    run(message);
  };
})();
