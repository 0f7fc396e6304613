// One of the engine's threads: the threaded module instantiated again on the engine's shared
// memory, with a stack and thread-local storage of its own (allocated by the engine before it
// asked for the thread), running the engine's thread loop (tl_thread_main) until the model is
// unloaded. Started by engine_worker.js; it starts no threads of its own.

import { threadedImports } from './wasi_host.js';

self.onmessage = async (event) => {
  const { module, memory, index, stackTop, tls } = event.data;
  const { exports } = await WebAssembly.instantiate(module, threadedImports(memory, () => 0));
  exports.__stack_pointer.value = stackTop;
  exports.__wasm_init_tls(tls);
  exports.tl_thread_main(index);
  self.close();
};
