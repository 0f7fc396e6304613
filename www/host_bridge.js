// The bridge between the Rust runtime and the JavaScript tool registry. wasm-bindgen copies this
// file alone into its snippets folder, so it loads the registry by URL: from
// `globalThis.TABLOOP_BASE` when an embedding page sets it, else relative to the page.

let registryPromise;

function base() {
  return globalThis.TABLOOP_BASE ?? document.baseURI;
}

/** The registry module, with the built-in tools registered once. A failed load is not kept:
 * the next use tries again. */
function registry() {
  if (registryPromise === undefined) {
    const loading = (async () => {
      // A bundled package provides the module itself (see www/package/index.js).
      const provided = globalThis.TABLOOP_MODULES?.['www/tools/registry.js'];
      const module = await (provided ? provided() : import(new URL('www/tools/registry.js', base()).href));
      for (const spec of module.builtinTools()) {
        if (!module.getTool(spec.name)) module.registerTool(spec);
      }
      return module;
    })();
    registryPromise = loading;
    loading.catch(() => {
      if (registryPromise === loading) registryPromise = undefined;
    });
  }
  return registryPromise;
}

/**
 * The registry's whole module graph. Imported one by one it is a waterfall three fetches deep;
 * the preload asks for every module at once. tests/e2e/preload_list.test.mjs checks that this
 * list is the graph.
 */
export const REGISTRY_MODULES = [
  'www/tools/registry.js',
  'www/tools/vfs.js',
  'www/tools/eval.js',
  'www/tools/http_fetch.js',
  'www/tools/vfs_path.js',
  'www/tools/vfs_store.js',
  'www/tools/url_policy.js',
  'www/tools/call_timer.js',
];

/**
 * Starts loading the registry (tens of milliseconds of module fetches) when the wasm module
 * starts, so the first `createAgent` does not wait for it. Never rejects; a failure is met
 * again, and reported, on first use.
 */
export function hostPreloadTools() {
  if (!globalThis.TABLOOP_MODULES?.['www/tools/registry.js']) {
    for (const path of REGISTRY_MODULES.slice(1)) {
      import(new URL(path, base()).href).catch(() => {});
    }
  }
  registry().catch(() => {});
}

/** Registers a page's tool; resolves to its description (without `execute`). */
export async function hostRegisterTool(spec, replace) {
  const module = await registry();
  return module.registerTool(spec, { replace: Boolean(replace) });
}

/** Every registered tool's spec (without `execute`), fields left unset absent rather than undefined. */
export async function hostListTools() {
  const module = await registry();
  return module.listTools().map((spec) => Object.fromEntries(Object.entries(spec).filter(([, value]) => value !== undefined)));
}

/**
 * Runs a tool with `args` (an object made for this call); never rejects. Resolves `{ok, value}`
 * (a JSON-clean value) or `{ok: false, error, needsApproval?}`. `idempotencyKey` (`session:run:call`) stays the same when a call is re-run
 * after a crash, so a tool that calls a remote service can have it deduplicate. `allowHosts`
 * is the session's fetch allow-list (an array of hosts), handed to tools as `ctx.allowHosts`. The core runs
 * `finish` here only when a verifier was registered; without one it is refused, never accepted.
 * `sample`, if given, is the session's model as a function of the request's params (www/../src/web/sampler.rs),
 * handed to the tool as `ctx.sample(params)` for an MCP server's sampling request.
 * `stored`, if given, is the promise of the commit of the call's start record, still under way:
 * the tool runs once it resolves, and not at all if it rejects.
 */
export async function hostCallTool(name, args, callId, session, approved, idempotencyKey, allowHosts, signal, stored, sample) {
  try {
    const module = await registry();
    if (name === 'finish' && !module.getTool('finish')) {
      return { ok: false, error: 'no finish verifier is registered, so the claim cannot be checked' };
    }
    // The session's model for an MCP server's sampling request during this call.
    const sampleWith = typeof sample === 'function' ? sample : undefined;
    const ctx = { signal, callId, session, approved, idempotencyKey, allowHosts, stored, sample: sampleWith };
    return await module.callToolOwned(name, args, ctx);
  } catch (error) {
    return { ok: false, error: `${error?.name ?? 'Error'}: ${error?.message ?? error}` };
  }
}

/**
 * Puts a completion proposal (an object made for the hook) to the page's stop hook and resolves the
 * verdict: `{kind: 'allow'}`, `{kind: 'block', reason}` or `{kind: 'failed', message}`. Never
 * rejects: a hook that throws, times out or answers something else is a failure, never a pass.
 */
export async function hostRunStopHook(hook, proposal, timeoutMs) {
  let timer = 0;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'failed', message: `the stop hook did not answer within ${timeoutMs} ms` }), timeoutMs);
  });
  const asked = (async () => {
    try {
      const answer = await hook(proposal);
      if (answer?.block === true) {
        const reason = typeof answer.reason === 'string' ? answer.reason.trim() : '';
        return reason ? { kind: 'block', reason } : { kind: 'failed', message: 'the stop hook blocked without a reason' };
      }
      if (answer?.ok === true) return { kind: 'allow' };
      let shown;
      try {
        shown = JSON.stringify(answer) ?? String(answer);
      } catch {
        shown = String(answer);
      }
      return { kind: 'failed', message: `the stop hook answered ${shown.slice(0, 200)}, neither {ok: true} nor {block: true, reason}` };
    } catch (error) {
      return { kind: 'failed', message: `the stop hook threw ${error?.name ?? 'Error'}: ${error?.message ?? error}` };
    }
  })();
  try {
    return await Promise.race([asked, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
