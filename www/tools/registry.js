// Owns the tool registry the runtime calls through: spec validation, lookup, the model-facing
// listing, and `callTool`, which enforces each tool's timeout via its AbortSignal and turns every
// outcome into `{ok: true, value}` or `{ok: false, error}` without ever throwing.

import { vfsTool } from './vfs.js';
import { evalTool } from './eval.js';
import { httpFetchTool } from './http_fetch.js';
import { timeCall, untimeCall } from './call_timer.js';

/** Timeout used when a spec does not give one. */
export const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_ERROR_CHARS = 4000;
const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const PERMISSIONS = ['allow', 'ask', 'deny'];

/**
 * Checks a tool spec and returns a normalised, frozen copy (defaults: permission 'ask',
 * idempotent false, parallelSafe false, timeoutMs 30 000).
 * @param {object} spec
 * @returns {Readonly<object>}
 * @throws {TypeError} naming the first problem
 */
export function validateSpec(spec) {
  if (spec === null || typeof spec !== 'object') throw new TypeError('tool spec must be an object');
  const { name, description, parameters, execute } = spec;
  if (typeof name !== 'string' || !NAME.test(name)) throw new TypeError(`tool name must match ${NAME}: ${JSON.stringify(name)}`);
  if (typeof description !== 'string' || description.trim() === '') throw new TypeError(`tool ${name}: description must be a non-empty string`);
  if (parameters === null || typeof parameters !== 'object' || Array.isArray(parameters) || parameters.type !== 'object') {
    throw new TypeError(`tool ${name}: parameters must be a JSON Schema object with type 'object'`);
  }
  try {
    JSON.stringify(parameters);
  } catch (error) {
    throw new TypeError(`tool ${name}: parameters must be JSON-serialisable (${error.message})`);
  }
  const localParameters = spec.localParameters ?? null;
  if (localParameters !== null) {
    if (typeof localParameters !== 'object' || Array.isArray(localParameters)) {
      throw new TypeError(`tool ${name}: localParameters must be a JSON Schema object`);
    }
    try {
      JSON.stringify(localParameters);
    } catch (error) {
      throw new TypeError(`tool ${name}: localParameters must be JSON-serialisable (${error.message})`);
    }
  }
  if (typeof execute !== 'function') throw new TypeError(`tool ${name}: execute must be a function`);
  const permission = spec.permission ?? 'ask';
  if (!PERMISSIONS.includes(permission)) throw new TypeError(`tool ${name}: permission must be one of ${PERMISSIONS.join(', ')}`);
  for (const flag of ['idempotent', 'parallelSafe']) {
    if (spec[flag] !== undefined && typeof spec[flag] !== 'boolean') throw new TypeError(`tool ${name}: ${flag} must be a boolean`);
  }
  const approvalScope = spec.approvalScope ?? null;
  if (approvalScope !== null && (typeof approvalScope !== 'object' || typeof approvalScope.urlHost !== 'string')) {
    throw new TypeError(`tool ${name}: approvalScope must be {urlHost: '<argument name>'}`);
  }
  const timeoutMs = spec.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > 2_147_483_647) throw new TypeError(`tool ${name}: timeoutMs must be a positive number of milliseconds`);
  return Object.freeze({
    name,
    description,
    parameters: structuredClone(parameters),
    localParameters: localParameters && structuredClone(localParameters),
    execute,
    permission,
    idempotent: spec.idempotent ?? false,
    parallelSafe: spec.parallelSafe ?? false,
    timeoutMs,
    approvalScope: approvalScope && Object.freeze({ urlHost: approvalScope.urlHost }),
  });
}

function describeSpec(spec) {
  const { name, description, parameters, localParameters, permission, idempotent, parallelSafe, timeoutMs, approvalScope } = spec;
  const described = { name, description, parameters: structuredClone(parameters), permission, idempotent, parallelSafe, timeoutMs, approvalScope };
  if (localParameters) described.localParameters = structuredClone(localParameters);
  return described;
}

function errorText(error) {
  let text;
  if (error instanceof Error) text = error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message;
  else {
    try {
      text = typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
    } catch {
      text = String(error);
    }
  }
  text = text || 'tool failed without a message';
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}… [error truncated]` : text;
}

function failure(error, code) {
  const out = { ok: false, error: errorText(error) };
  const reason = code ?? (typeof error?.code === 'string' ? error.code : undefined);
  if (reason) out.code = reason;
  if (error?.needsApproval === true) out.needsApproval = true;
  const offline = offlineOf(error);
  if (offline) out.offline = offline;
  return out;
}

/**
 * Whether a tool failed because the network is gone, which pauses the run instead of showing
 * the model an error: 'not_sent' for an error marked `offline: true` (refused before sending,
 * as the MCP transport does while the browser is offline), 'maybe_sent' for a server that
 * became unreachable mid-call while the browser went offline. Any tool a page registers can
 * throw an error with `offline: true` to ask for the same.
 */
function offlineOf(error) {
  if (error?.offline === true) return 'not_sent';
  const cut = error?.unreachable === true || error?.streamLost === true || error?.timedOut === true;
  if (cut && globalThis.navigator?.onLine === false) return 'maybe_sent';
  return undefined;
}

function toJsonValue(value) {
  if (value === undefined) return null;
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}

function badResult(name, error) {
  return failure(new Error(`tool "${name}" returned a value that is not JSON-serialisable: ${error.message}`), 'bad_result');
}

/**
 * Creates an independent registry. The module-level functions below use a default one.
 */
export function createRegistry() {
  const tools = new Map();

  /**
   * Runs a tool (see `callTool`), resolving `{ok: true, value}` with the value as the tool gave
   * it, or `{ok: false, …}`. `args` is the tool's own copy when `ownArgs` (fresh from
   * JSON.parse), else cloned first.
   */
  async function run(name, args, ctx, ownArgs) {
    const spec = typeof name === 'string' ? tools.get(name) : undefined;
    if (!spec) return failure(new Error(`unknown tool: ${JSON.stringify(name)}`), 'unknown_tool');
    if (spec.permission === 'deny') return failure(new Error(`tool "${name}" is denied by configuration`), 'denied');
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return failure(new Error('tool arguments must be a JSON object'), 'bad_args');
    let safeArgs = args;
    if (!ownArgs) {
      try {
        safeArgs = structuredClone(args);
      } catch (error) {
        return failure(new Error(`tool arguments are not plain data: ${error.message}`), 'bad_args');
      }
    }
    const outer = ctx?.signal;
    if (outer?.aborted) return failure(new Error(`tool "${name}" was aborted before it started`), 'aborted');
    // The tool's own signal is made when it first asks for it (most tools never do), already
    // aborted if the call was stopped before that.
    let controller = null;
    let stoppedWith = null;
    const abortTool = (reason) => {
      if (controller !== null) controller.abort(reason);
      else stoppedWith ??= { reason };
    };
    const toolCtx = Object.freeze({
      get signal() {
        if (controller === null) {
          controller = new AbortController();
          if (stoppedWith !== null) controller.abort(stoppedWith.reason);
        }
        return controller.signal;
      },
      callId: typeof ctx?.callId === 'string' ? ctx.callId : '',
      session: typeof ctx?.session === 'string' ? ctx.session : '',
      // A human approved this call (or its scope, e.g. its host) through the runtime.
      approved: ctx?.approved === true,
      // The same for every attempt of this call (`session:run:call`), for services that
      // deduplicate requests after a crash re-ran the call.
      idempotencyKey: typeof ctx?.idempotencyKey === 'string' ? ctx.idempotencyKey : '',
      // Hosts the session lets http_fetch reach without approval (the `allowHosts` option).
      allowHosts: Object.freeze(Array.isArray(ctx?.allowHosts) ? ctx.allowHosts.filter((h) => typeof h === 'string') : []),
      // The session's model, for a tool (an MCP server) that needs a completion during the call.
      sample: typeof ctx?.sample === 'function' ? ctx.sample : undefined,
    });
    // The call's answer: the tool's, or a timeout's or an abort's, whichever comes first.
    let settle;
    const answer = new Promise((resolve) => {
      settle = resolve;
    });
    const onOuterAbort = () => {
      abortTool(outer.reason);
      settle(failure(new Error(`tool "${name}" was aborted`), 'aborted'));
    };
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    // Timed from now, before any wait for the commit, yet its time counts from when it starts
    // (`startedAt`, see call_timer.js).
    const timed = {
      startedAt: null,
      timeoutMs: spec.timeoutMs,
      expire() {
        const reason = new DOMException(`tool "${name}" timed out after ${spec.timeoutMs} ms`, 'TimeoutError');
        abortTool(reason);
        settle(failure(new Error(reason.message), 'timeout'));
      },
    };
    timeCall(timed);
    const done = () => {
      untimeCall(timed);
      outer?.removeEventListener('abort', onOuterAbort);
    };
    if (ctx?.stored != null) {
      // Awaited directly: the tool then runs in the first turn after the commit, before the
      // driver the commit also woke (a `.then` in between would put it behind).
      let refused = null;
      try {
        await ctx.stored;
        if (outer?.aborted) refused = failure(new Error(`tool "${name}" was aborted before it started`), 'aborted');
      } catch (error) {
        refused = failure(new Error(`tool "${name}" was not started: its start record was not stored (${error?.message ?? error})`), 'not_stored');
      }
      if (refused !== null) {
        done();
        return refused;
      }
    }
    timed.startedAt = performance.now();

    // After the commit the tool starts at once, ahead of what else the commit woke (the
    // driver), and its own promise is followed as it is (`Promise.resolve` hands a promise back
    // unwrapped; resolving another with it costs two more turns); otherwise it starts a turn
    // later, never inside its caller's call.
    let begun;
    if (ctx?.stored != null) {
      try {
        begun = Promise.resolve(spec.execute(safeArgs, toolCtx));
      } catch (error) {
        begun = Promise.reject(error);
      }
    } else {
      begun = Promise.resolve().then(() => spec.execute(safeArgs, toolCtx));
    }
    begun.then(
      (value) => settle({ ok: true, value }),
      (error) => settle(failure(error)),
    );
    try {
      return await answer;
    } finally {
      done();
    }
  }

  return {
    /**
     * Adds a tool. Throws on a malformed spec, or on a duplicate name unless `{replace: true}`.
     * @param {object} spec
     * @param {{replace?: boolean}} [options]
     */
    registerTool(spec, options = {}) {
      const checked = validateSpec(spec);
      if (tools.has(checked.name) && !options.replace) throw new Error(`tool "${checked.name}" is already registered (pass {replace: true} to replace it)`);
      tools.set(checked.name, checked);
      return describeSpec(checked);
    },

    /** Removes a tool; returns whether it existed. */
    unregisterTool(name) {
      return tools.delete(name);
    },

    /** The registered spec (with execute), or undefined. */
    getTool(name) {
      return tools.get(name);
    },

    /** All specs without `execute`, in registration order. */
    listTools() {
      return [...tools.values()].map(describeSpec);
    },

    /**
     * Runs a tool. Never throws: resolves `{ok: true, value}` with a JSON-clean value, or
     * `{ok: false, error, code?, needsApproval?}`. The tool gets its own AbortSignal, aborted when
     * `ctx.signal` aborts or when the tool's `timeoutMs` passes. With `ctx.stored` (a promise:
     * the runtime's commit of the call's start record) everything is made ready, then the tool
     * runs once it resolves (its timeout counted from then), and not at all if it rejects.
     * @param {string} name
     * @param {object} args
     * @param {{signal?: AbortSignal, callId?: string, session?: string, approved?: boolean, idempotencyKey?: string, allowHosts?: string[], stored?: Promise<unknown>}} [ctx]
     */
    async callTool(name, args, ctx = {}) {
      const result = await run(name, args, ctx, false);
      if (!result.ok) return result;
      try {
        return { ok: true, value: toJsonValue(result.value) };
      } catch (error) {
        return badResult(name, error);
      }
    },

    /**
     * `callTool` for the runtime, whose arguments are a fresh object made for this call
     * (serde-wasm-bindgen's), so the tool gets them as they are instead of a clone.
     * @param {string} name
     * @param {object} args the call's own arguments
     * @param {object} [ctx] as for callTool
     * @returns {Promise<object>} what callTool resolves
     */
    async callToolOwned(name, args, ctx = {}) {
      const result = await run(name, args, ctx, true);
      if (!result.ok) return result;
      try {
        return { ok: true, value: toJsonValue(result.value) };
      } catch (error) {
        return badResult(name, error);
      }
    },
  };
}

const defaultRegistry = createRegistry();

/** Registers a tool in the default registry. @see createRegistry */
export const registerTool = (spec, options) => defaultRegistry.registerTool(spec, options);
/** Removes a tool from the default registry. */
export const unregisterTool = (name) => defaultRegistry.unregisterTool(name);
/** Looks a tool up in the default registry. */
export const getTool = (name) => defaultRegistry.getTool(name);
/** Lists the default registry's tools without `execute`. */
export const listTools = () => defaultRegistry.listTools();
/** Calls a tool of the default registry; never throws. */
export const callTool = (name, args, ctx) => defaultRegistry.callTool(name, args, ctx);
/** Calls a tool of the default registry with arguments it may keep; never throws. */
export const callToolOwned = (name, args, ctx) => defaultRegistry.callToolOwned(name, args, ctx);

/**
 * The built-in tools the JavaScript side executes: `vfs`, `eval` and `http_fetch`.
 * @param {{vfs?: object, eval?: object, http?: object}} [options] passed to each tool's factory
 * @returns {object[]} specs ready for `registerTool`
 */
export function builtinTools(options = {}) {
  return [vfsTool(options.vfs), evalTool(options.eval), httpFetchTool(options.http)];
}
