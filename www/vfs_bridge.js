// The bridge between the Rust file-volume adapter and the virtual filesystem of the tools
// (www/tools/vfs.js). It loads that module the way host_bridge.js loads the registry (by URL
// from `globalThis.TABLOOP_BASE` or the page, or from `TABLOOP_MODULES` in a bundle) and uses
// the same database, volume names and path checks as the `vfs` tool. Every function resolves
// `{ok: true, value}` or `{ok: false, code, error}` (read by serde-wasm-bindgen) and never rejects.

let vfsPromise;

function vfs() {
  vfsPromise ??= (async () => {
    const provided = globalThis.TABLOOP_MODULES?.['www/tools/vfs.js'];
    const base = globalThis.TABLOOP_BASE ?? document.baseURI;
    const module = await (provided ? provided() : import(new URL('www/tools/vfs.js', base).href));
    return module.createVfs();
  })();
  vfsPromise.catch(() => {
    vfsPromise = undefined;
  });
  return vfsPromise;
}

async function answer(body) {
  try {
    return { ok: true, value: await body(await vfs()) };
  } catch (error) {
    return { ok: false, code: error?.code ?? 'vfs_error', error: `${error?.message ?? error}` };
  }
}

/** Every file of the volume (`shared`, or `session` with `session`): [{path, size, mtime}]. */
export function vfsFiles(volume, session) {
  return answer((fs) => fs.files({ volume }, { session }));
}

/** The text of one file. */
export function vfsContent(volume, session, path) {
  return answer((fs) => fs.content({ volume, path }, { session }));
}

/** Creates or replaces one file. */
export function vfsWrite(volume, session, path, content) {
  return answer((fs) => fs.run({ op: 'write', volume, path, content }, { session }));
}

/** Deletes a file, or a directory with everything below it: {deleted, files}. */
export function vfsDelete(volume, session, path) {
  return answer((fs) => fs.run({ op: 'delete', volume, path, recursive: true }, { session }));
}
