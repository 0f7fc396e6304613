// Which build of the engine this browser can run: the relaxed-SIMD builds where the browser
// validates relaxed SIMD, else the SIMD128 builds (Safari has no relaxed SIMD and rejects any
// module that holds one such instruction). Decided by validating a module of a few bytes.

// (module (func (result v128) (i8x16.relaxed_swizzle (v128.const i64x2 0 0) (v128.const i64x2 0 0))))
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // types: () -> v128
  0x03, 0x02, 0x01, 0x00, // one function of type 0
  0x0a, 0x2b, 0x01, 0x29, 0x00, // code: one body of 41 bytes, no locals
  0xfd, 0x0c, ...new Array(16).fill(0), // v128.const
  0xfd, 0x0c, ...new Array(16).fill(0), // v128.const
  0xfd, 0x80, 0x02, // i8x16.relaxed_swizzle (0xfd 0x100)
  0x0b, // end
]);

// (module (func (result v128) (v128.const i64x2 0 0)))
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,
  0x03, 0x02, 0x01, 0x00,
  0x0a, 0x16, 0x01, 0x14, 0x00,
  0xfd, 0x0c, ...new Array(16).fill(0),
  0x0b,
]);

/** Whether this browser's WebAssembly has relaxed SIMD. */
export function hasRelaxedSimd() {
  return WebAssembly.validate(RELAXED_PROBE);
}

/** Whether this browser's WebAssembly has SIMD128. */
export function hasSimd128() {
  return WebAssembly.validate(SIMD_PROBE);
}

/**
 * The engine build for this browser: its file names and the kernels it computes with.
 * @param {'simd128'} [force] the SIMD128 build even where relaxed SIMD is there (tests)
 * @returns {{single: string, threads: string, kernels: 'relaxed-simd'|'simd128'}}
 */
export function engineBuild(force) {
  return force !== 'simd128' && hasRelaxedSimd()
    ? { single: 'engine.wasm', threads: 'engine-threads.wasm', kernels: 'relaxed-simd' }
    : { single: 'engine-simd128.wasm', threads: 'engine-threads-simd128.wasm', kernels: 'simd128' };
}
