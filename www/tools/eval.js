// Owns the `eval` tool on the app side: creates (lazily, once) the sandboxed iframe from
// www/sandbox/sandbox.html, hands it a MessagePort and the worker source, and runs JavaScript
// snippets through that port only. It never listens to window messages. If the sandbox stops
// answering (past the run's timeout plus a grace period) the iframe is thrown away and a new one
// is made on the next run.

/** Default time a snippet may run before its worker is terminated. */
export const DEFAULT_EVAL_TIMEOUT_MS = 5000;
/** Default cap on the characters of value plus console returned to the model. */
export const DEFAULT_MAX_OUTPUT_CHARS = 20000;
const GRACE_MS = 2000;
const HEARTBEAT_INTERVAL_MS = 500;
const HEARTBEAT_DEAD_MS = 2500;
const READY_TIMEOUT_MS = 10000;
const MAX_CODE_CHARS = 200_000;
const MAX_CONCURRENT_RUNS = 8;

const PARAMETERS = {
  type: 'object',
  properties: {
    code: {
      type: 'string',
      description: 'JavaScript to run. The value of the last expression (or a `return`ed value) is the result; top-level `await` works.',
    },
  },
  required: ['code'],
  additionalProperties: false,
};

function newId() {
  return globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

function sandboxError(message) {
  const error = new Error(message);
  error.name = 'SandboxError';
  return error;
}

/**
 * The error a failed run becomes at the tool boundary: a thrown exception, a timeout or a reset
 * sandbox is a failed call (so the loop's error breaker and repeated-error detector see it), with
 * the console output that came before it kept in the message.
 */
function evalFailure(result) {
  const error = new Error(result.error.message || 'the code failed without a message');
  error.name = result.error.name || 'Error';
  error.code = error.name === 'TimeoutError' ? 'timeout' : 'eval_error';
  const lines = result.console.map((entry) => `[${entry.level}] ${entry.text}`);
  if (lines.length) error.message += `\nconsole output before the failure:\n${lines.join('\n')}`;
  if (result.note) error.message += `\n(${result.note})`;
  return error;
}

/**
 * Creates a sandbox controller. Nothing is loaded until the first `run`.
 * @param {{
 *   sandboxUrl?: string|URL, workerUrl?: string|URL, document?: Document,
 *   readyTimeoutMs?: number,
 * }} [options]
 */
export function createSandbox(options = {}) {
  const sandboxUrl = String(options.sandboxUrl ?? new URL('../sandbox/sandbox.html', import.meta.url));
  const workerUrl = String(options.workerUrl ?? new URL('../sandbox/worker.js', import.meta.url));
  const doc = options.document ?? globalThis.document;
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  let workerSource = null;
  let current = null; // {frame, port, pending: Map<id, handler>, ready: Promise}
  let generation = 0;

  async function loadWorkerSource() {
    if (workerSource === null) {
      const response = await fetch(workerUrl, { credentials: 'same-origin', cache: 'no-cache' });
      if (!response.ok) throw sandboxError(`cannot load the sandbox worker script (${response.status})`);
      workerSource = await response.text();
    }
    return workerSource;
  }

  // While runs are pending, ping the sandbox page. Its main thread never runs user code, so a
  // ping unanswered for HEARTBEAT_DEAD_MS means its process is gone (typically a worker that ran
  // out of memory took the sandbox renderer down; the app's own process survives). The check
  // looks at the age of the outstanding ping, so a throttled background timer cannot fake a death.
  function heartbeat(instance) {
    if (instance.heartbeat) return;
    let n = 0;
    instance.heartbeat = setInterval(() => {
      if (instance.pending.size === 0) {
        clearInterval(instance.heartbeat);
        instance.heartbeat = 0;
        instance.ping = null;
        return;
      }
      if (instance.ping) {
        if (performance.now() - instance.ping.sentAt > HEARTBEAT_DEAD_MS) teardown(instance, 'the sandbox process stopped (crashed, probably out of memory)');
        return;
      }
      n += 1;
      instance.ping = { n, sentAt: performance.now() };
      instance.port.postMessage({ type: 'ping', n });
    }, HEARTBEAT_INTERVAL_MS);
  }

  function teardown(instance, reason) {
    if (!instance || instance.closed) return;
    instance.closed = true;
    clearInterval(instance.heartbeat);
    if (current === instance) current = null;
    try {
      instance.port?.close();
    } catch {
      /* already closed */
    }
    instance.frame.remove();
    for (const handler of instance.pending.values()) handler({ type: 'gone', reason });
    instance.pending.clear();
  }

  function create() {
    const frame = doc.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-scripts');
    // Lets the frame load under the app's COEP even if the server omits COEP on sandbox.html.
    frame.setAttribute('credentialless', '');
    frame.setAttribute('referrerpolicy', 'no-referrer');
    frame.setAttribute('allow', "camera 'none'; microphone 'none'; geolocation 'none'; clipboard-read 'none'; clipboard-write 'none'; usb 'none'; serial 'none'; hid 'none'; payment 'none'");
    frame.setAttribute('aria-hidden', 'true');
    frame.setAttribute('tabindex', '-1');
    frame.title = 'tabloop eval sandbox';
    frame.style.cssText = 'position:absolute;width:0;height:0;border:0;visibility:hidden;';
    const instance = { frame, port: null, pending: new Map(), closed: false, id: (generation += 1) };
    instance.ready = (async () => {
      const source = await loadWorkerSource();
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(sandboxError('the sandbox did not load in time')), readyTimeoutMs);
        let loaded = false;
        frame.addEventListener('load', () => {
          if (loaded) {
            // A second load means the frame navigated: its port is gone.
            teardown(instance, 'the sandbox frame navigated');
            return;
          }
          loaded = true;
          const channel = new MessageChannel();
          instance.port = channel.port1;
          channel.port1.onmessage = (event) => {
            const data = event.data;
            if (data?.type === 'ready' && !instance.isReady) {
              instance.isReady = true;
              instance.origin = data.origin;
              clearTimeout(timer);
              resolve();
              return;
            }
            if (data?.type === 'pong' && data.n === instance.ping?.n) instance.ping = null;
            if (data?.type === 'result' && typeof data.id === 'string') instance.pending.get(data.id)?.(data);
          };
          frame.contentWindow.postMessage({ type: 'tabloop-sandbox-init', workerSource: source }, '*', [channel.port2]);
        });
        frame.src = sandboxUrl;
        (doc.body ?? doc.documentElement).append(frame);
      });
    })();
    instance.ready.catch(() => teardown(instance, 'the sandbox failed to start'));
    return instance;
  }

  function shape(result, maxOutputChars, timedOut) {
    const out = { value: null, console: [] };
    const raw = result && typeof result === 'object' ? result : {};
    if (Array.isArray(raw.console)) {
      out.console = raw.console.slice(0, 500).map((entry) => ({
        level: ['log', 'info', 'warn', 'error', 'debug'].includes(entry?.level) ? entry.level : 'log',
        text: String(entry?.text ?? '').slice(0, maxOutputChars),
      }));
    }
    const notes = [];
    const dropped = Number.isSafeInteger(raw.consoleDropped) ? raw.consoleDropped : 0;
    if (dropped > 0) notes.push(`${dropped} more console messages were dropped (output limit ${maxOutputChars} characters)`);
    if (typeof raw.valueJson === 'string') {
      const total = Number.isSafeInteger(raw.valueChars) ? raw.valueChars : raw.valueJson.length;
      if (total > maxOutputChars || raw.valueJson.length > maxOutputChars) {
        out.value = raw.valueJson.slice(0, maxOutputChars);
        out.truncated = true;
        notes.push(`value truncated: showing the first ${maxOutputChars} of ${total} characters of its JSON text`);
      } else {
        try {
          out.value = JSON.parse(raw.valueJson);
        } catch {
          out.value = raw.valueJson;
        }
      }
    }
    if (raw.error && typeof raw.error === 'object') {
      out.error = { name: String(raw.error.name ?? 'Error').slice(0, 200), message: String(raw.error.message ?? '').slice(0, 4000) };
    } else if (timedOut) {
      out.error = timedOut;
    }
    if (notes.length) out.note = notes.join('; ');
    if (Number.isFinite(raw.durationMs)) out.duration_ms = raw.durationMs;
    return out;
  }

  return {
    /**
     * Runs `code` in a fresh worker inside the sandbox.
     * @param {string} code
     * @param {{timeoutMs?: number, maxOutputChars?: number, signal?: AbortSignal, harden?: boolean}} [runOptions]
     *   `harden: false` skips replacing network/storage globals in the worker (tests use it to
     *   prove the CSP and opaque origin block them on their own).
     * @returns {Promise<{value: any, console: Array<{level: string, text: string}>, error?: {name: string, message: string}, truncated?: boolean, note?: string, duration_ms?: number}>}
     */
    async run(code, runOptions = {}) {
      if (typeof code !== 'string') throw sandboxError('code must be a string');
      if (code.length > MAX_CODE_CHARS) throw sandboxError(`code is longer than ${MAX_CODE_CHARS} characters`);
      const timeoutMs = runOptions.timeoutMs ?? DEFAULT_EVAL_TIMEOUT_MS;
      const maxOutputChars = runOptions.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
      const signal = runOptions.signal;
      if (signal?.aborted) throw new DOMException('eval aborted', 'AbortError');
      const instance = current ?? (current = create());
      await instance.ready;
      if (instance.closed) throw sandboxError('the sandbox was closed while starting');
      if (instance.pending.size >= MAX_CONCURRENT_RUNS) throw sandboxError(`at most ${MAX_CONCURRENT_RUNS} evals may run at once`);
      const id = newId();
      return new Promise((resolve, reject) => {
        let backstop = 0;
        const done = () => {
          instance.pending.delete(id);
          clearTimeout(backstop);
          signal?.removeEventListener('abort', onAbort);
        };
        const onAbort = () => {
          done();
          instance.port.postMessage({ type: 'cancel', id });
          reject(new DOMException('eval aborted', 'AbortError'));
        };
        instance.pending.set(id, (message) => {
          done();
          if (message.type === 'gone') {
            resolve(shape(null, maxOutputChars, { name: 'SandboxError', message: `the sandbox was reset: ${message.reason}` }));
            return;
          }
          resolve(shape(message.result, maxOutputChars));
        });
        signal?.addEventListener('abort', onAbort, { once: true });
        // The sandbox kills the worker itself at `timeoutMs`; if it has not answered by then plus a
        // grace period, it is unresponsive, so throw the whole frame away.
        backstop = setTimeout(() => {
          done();
          teardown(instance, 'unresponsive');
          resolve(shape(null, maxOutputChars, { name: 'TimeoutError', message: `execution exceeded ${timeoutMs} ms and the sandbox did not answer; it was reset` }));
        }, timeoutMs + GRACE_MS);
        instance.port.postMessage({ type: 'run', id, code, timeoutMs, maxOutputChars, harden: runOptions.harden !== false });
        heartbeat(instance);
      });
    },

    /** The current iframe element, or null (for tests and diagnostics). */
    get frame() {
      return current?.frame ?? null;
    },

    /** The origin the sandbox reported at start ('null' when isolated), or null. */
    get origin() {
      return current?.origin ?? null;
    },

    /** Removes the iframe; the next run creates a new one. */
    dispose() {
      teardown(current, 'disposed');
    },
  };
}

/**
 * The `eval` tool spec.
 * @param {{timeoutMs?: number, maxOutputChars?: number, sandbox?: ReturnType<typeof createSandbox>, permission?: 'allow'|'ask'|'deny'}} [options]
 */
export function evalTool(options = {}) {
  const timeoutMs = options.timeoutMs ?? DEFAULT_EVAL_TIMEOUT_MS;
  const maxOutputChars = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  let sandbox = options.sandbox ?? null;
  return {
    name: 'eval',
    description: `Run JavaScript in an isolated sandbox (a Web Worker with no network, no storage and no access to this page) and get the result: the value of the last expression or a returned value (top-level await works), console output, and any error. Each call starts fresh; nothing persists between calls. Time limit ${timeoutMs} ms; output is truncated to ${maxOutputChars} characters.`,
    parameters: PARAMETERS,
    permission: options.permission ?? 'allow',
    idempotent: true,
    parallelSafe: true,
    timeoutMs: timeoutMs + GRACE_MS + READY_TIMEOUT_MS,
    async execute(args, ctx) {
      if (args === null || typeof args !== 'object' || typeof args.code !== 'string') throw new TypeError("'code' must be a string");
      sandbox ??= createSandbox();
      const result = await sandbox.run(args.code, { timeoutMs, maxOutputChars, signal: ctx?.signal });
      if (result.error) throw evalFailure(result);
      return result;
    },
    get sandbox() {
      return sandbox;
    },
  };
}
