// What the engine's threaded build (wasm32-wasip1-threads) imports from its host: the few
// WASI calls Rust's standard library makes (random bytes for hash maps, the clock, stderr for
// a panic message, exit), and `tl_spawn_thread`, which starts a Web Worker (engine_thread.js)
// on the same module and shared memory. The one-thread build imports only `env.tl_now`.

const ERRNO_SUCCESS = 0;
const ERRNO_NOSYS = 52;
const decoder = new TextDecoder();

/**
 * The import object for one instance of the threaded engine.
 * @param {WebAssembly.Memory} memory the shared memory every instance uses
 * @param {(index: number) => number} spawn starts the pool's thread `index`; 1 when started
 * @param {(offset: number, len: number, dst: number) => number} [read] copies bytes of the
 *   model file into memory (the thread that loads the model only)
 * @returns {object}
 */
export function threadedImports(memory, spawn, read = () => 0) {
  const view = () => new DataView(memory.buffer);
  const bytes = (ptr, len) => new Uint8Array(memory.buffer, ptr, len);
  let stderr = '';
  return {
    env: { memory, tl_now: () => performance.now(), tl_spawn_thread: (index) => spawn(index), tl_read: read },
    wasi_snapshot_preview1: {
      random_get(ptr, len) {
        // getRandomValues refuses views of shared memory: fill a copy, then copy it in
        const copy = new Uint8Array(len);
        for (let at = 0; at < len; at += 65536) crypto.getRandomValues(copy.subarray(at, Math.min(len, at + 65536)));
        bytes(ptr, len).set(copy);
        return ERRNO_SUCCESS;
      },
      environ_sizes_get(countPtr, sizePtr) {
        view().setUint32(countPtr, 0, true);
        view().setUint32(sizePtr, 0, true);
        return ERRNO_SUCCESS;
      },
      environ_get() {
        return ERRNO_SUCCESS;
      },
      clock_time_get(_id, _precision, outPtr) {
        const ns = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
        view().setBigUint64(outPtr, ns, true);
        return ERRNO_SUCCESS;
      },
      fd_write(fd, iovs, count, writtenPtr) {
        let written = 0;
        for (let i = 0; i < count; i++) {
          const ptr = view().getUint32(iovs + 8 * i, true);
          const len = view().getUint32(iovs + 8 * i + 4, true);
          if (fd === 1 || fd === 2) stderr += decoder.decode(bytes(ptr, len).slice());
          written += len;
        }
        view().setUint32(writtenPtr, written, true);
        const lines = stderr.split('\n');
        stderr = lines.pop();
        for (const line of lines) console.error('[engine]', line);
        return fd === 1 || fd === 2 ? ERRNO_SUCCESS : ERRNO_NOSYS;
      },
      proc_exit(code) {
        throw new Error(`the engine exited with code ${code}`);
      },
      sched_yield() {
        return ERRNO_SUCCESS;
      },
    },
  };
}

/** Pages of 64 KiB the threaded build's memory starts with and may grow to (its link flags). */
export const THREAD_MEMORY = { initial: 512, maximum: 65536 };
