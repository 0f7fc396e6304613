// Entry point of the in-tab local model. Import it as a module, or load it with
// <script type="module" src="local/index.js"> and use the same API from `globalThis.tabloopLocal`
// (handy for wasm-bindgen `js_namespace = tabloopLocal` bindings, which cannot follow this
// module's relative imports if the file is copied elsewhere as a snippet).
import * as localModel from './local_model.js';
import * as modelStore from './model_store.js';
import * as modelFiles from './model_files.js';

export * from './model_store.js';
export * from './local_model.js';
export * from './model_files.js';

globalThis.tabloopLocal = Object.freeze({ ...modelStore, ...localModel, ...modelFiles });
