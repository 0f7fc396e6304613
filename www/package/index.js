// Entry of the `tabloop` package (built by scripts/build-package.sh) for bundlers such as Vite:
// `import init, { createAgent } from 'tabloop'`. It re-exports the wasm-bindgen module and tells
// the bridges where the tool registry and the MCP client are, as imports the bundler can see
// (a page serving the files itself gets them by URL instead, from `TABLOOP_BASE`).

globalThis.TABLOOP_MODULES = {
  ...globalThis.TABLOOP_MODULES,
  'www/tools/registry.js': () => import('./www/tools/registry.js'),
  'www/mcp/client.js': () => import('./www/mcp/client.js'),
  'www/tools/vfs.js': () => import('./www/tools/vfs.js'),
};

export * from './tabloop.js';
export { default } from './tabloop.js';
