#!/usr/bin/env node
// Rewrites a GGUF file with its Q4_1 tensors stored as Q8_0, everything else unchanged.
//
//   node scripts/gguf-requantize.mjs IN.gguf OUT.gguf
//
// Why: the wasm build of llama.cpp that wllama ships has WebAssembly SIMD kernels for Q8_0 (and
// the K-quants) but computes Q4_0/Q4_1 dot products in scalar code, which makes prompt reading
// in the tab many times slower than native. Q8_0 keeps 8 bits per weight against Q4_1's 4, so
// the dequantised Q4_1 values survive almost exactly (the added error is below 1/16 of a Q4_1
// step); the file grows by about half.
//
// The GGUF layout (header, metadata, tensor infos, aligned data) is read and written as the
// format specifies; only `general.file_type` and the Q4_1 tensors' type, offset and data change.

import fs from 'node:fs';

const GGML_TYPE_Q4_1 = 3;
const GGML_TYPE_Q8_0 = 8;
const FILE_TYPE_MOSTLY_Q8_0 = 7;
const QK = 32;
const Q4_1_BLOCK_BYTES = 20;
const Q8_0_BLOCK_BYTES = 34;
const DEFAULT_ALIGNMENT = 32;

// Byte sizes of the scalar metadata value types (GGUF value type id -> bytes).
const SCALAR_BYTES = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const TYPE_STRING = 8;
const TYPE_ARRAY = 9;
const TYPE_UINT32 = 4;

/** Bytes per block and elements per block of the tensor types this file can meet. */
const BLOCKS = {
  0: [4, 1], // F32
  1: [2, 1], // F16
  2: [18, 32], // Q4_0
  3: [20, 32], // Q4_1
  6: [22, 32], // Q5_0
  7: [24, 32], // Q5_1
  8: [34, 32], // Q8_0
  10: [84, 256], // Q2_K
  11: [110, 256], // Q3_K
  12: [144, 256], // Q4_K
  13: [176, 256], // Q5_K
  14: [210, 256], // Q6_K
  30: [2, 1], // BF16
};

class Reader {
  constructor(buf) {
    this.buf = buf;
    this.pos = 0;
  }
  u32() {
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  u64() {
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return Number(v);
  }
  str() {
    const n = this.u64();
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
  skipValue(type) {
    if (type === TYPE_STRING) {
      const n = this.u64();
      this.pos += n;
    } else if (type === TYPE_ARRAY) {
      const inner = this.u32();
      const n = this.u64();
      for (let i = 0; i < n; i++) this.skipValue(inner);
    } else if (SCALAR_BYTES[type] != null) {
      this.pos += SCALAR_BYTES[type];
    } else {
      throw new Error(`unknown GGUF metadata type ${type} at byte ${this.pos}`);
    }
  }
}

/** Half-precision bits -> number. */
export function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Number -> half-precision bits, rounding to nearest even (as the C conversion does). */
export function floatToHalf(value) {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && half & 1)) half += 1;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half += 1;
  return sign | half;
}

/** Converts `blocks` Q4_1 blocks from `src` at `from` into Q8_0 blocks in `dst` at `to`. */
export function q4_1ToQ8_0(src, from, dst, to, blocks) {
  const values = new Float32Array(QK);
  for (let b = 0; b < blocks; b++) {
    const s = from + b * Q4_1_BLOCK_BYTES;
    const d = halfToFloat(src.readUInt16LE(s));
    const m = halfToFloat(src.readUInt16LE(s + 2));
    let amax = 0;
    for (let j = 0; j < QK / 2; j++) {
      const byte = src[s + 4 + j];
      values[j] = d * (byte & 0x0f) + m;
      values[j + QK / 2] = d * (byte >> 4) + m;
    }
    for (let j = 0; j < QK; j++) amax = Math.max(amax, Math.abs(values[j]));
    const scale = amax / 127;
    const inv = scale ? 1 / scale : 0;
    const t = to + b * Q8_0_BLOCK_BYTES;
    dst.writeUInt16LE(floatToHalf(scale), t);
    for (let j = 0; j < QK; j++) {
      // roundf: halves away from zero
      const q = Math.sign(values[j] * inv) * Math.round(Math.abs(values[j] * inv));
      dst.writeInt8(Math.max(-127, Math.min(127, q)), t + 2 + j);
    }
  }
}

const align = (n, a) => Math.ceil(n / a) * a;

/** Reads IN, returns the converted file and how many tensors changed. */
export function requantize(input) {
  const r = new Reader(input);
  if (input.toString('latin1', 0, 4) !== 'GGUF') throw new Error('not a GGUF file');
  r.pos = 4;
  const version = r.u32();
  if (version < 2) throw new Error(`GGUF version ${version} is not supported`);
  const nTensors = r.u64();
  const nKv = r.u64();
  let alignment = DEFAULT_ALIGNMENT;
  let fileTypeAt = null;
  for (let i = 0; i < nKv; i++) {
    const key = r.str();
    const type = r.u32();
    if (key === 'general.alignment' && type === TYPE_UINT32) alignment = input.readUInt32LE(r.pos);
    if (key === 'general.file_type' && type === TYPE_UINT32) fileTypeAt = r.pos;
    r.skipValue(type);
  }
  const kvEnd = r.pos;
  const tensors = [];
  for (let i = 0; i < nTensors; i++) {
    const name = r.str();
    const nDims = r.u32();
    const dims = [];
    for (let d = 0; d < nDims; d++) dims.push(r.u64());
    const type = r.u32();
    const offset = r.u64();
    const block = BLOCKS[type];
    if (!block) throw new Error(`tensor ${name}: unsupported type ${type}`);
    const elements = dims.reduce((a, b) => a * b, 1);
    tensors.push({ name, dims, type, offset, bytes: (elements / block[1]) * block[0], elements });
  }
  const dataStart = align(r.pos, alignment);

  // New tensor infos and data layout.
  let changed = 0;
  let cursor = 0;
  for (const t of tensors) {
    t.newType = t.type === GGML_TYPE_Q4_1 ? GGML_TYPE_Q8_0 : t.type;
    if (t.newType !== t.type) changed += 1;
    t.newBytes = t.newType === t.type ? t.bytes : (t.elements / QK) * Q8_0_BLOCK_BYTES;
    t.newOffset = cursor;
    cursor = align(cursor + t.newBytes, alignment);
  }
  const infoBytes = tensors.reduce((n, t) => n + 8 + Buffer.byteLength(t.name) + 4 + 8 * t.dims.length + 4 + 8, 0);
  const newDataStart = align(kvEnd + infoBytes, alignment);
  const out = Buffer.alloc(newDataStart + cursor);
  input.copy(out, 0, 0, kvEnd);
  if (fileTypeAt != null && changed > 0) out.writeUInt32LE(FILE_TYPE_MOSTLY_Q8_0, fileTypeAt);
  let w = kvEnd;
  for (const t of tensors) {
    w = out.writeBigUInt64LE(BigInt(Buffer.byteLength(t.name)), w);
    w += out.write(t.name, w, 'utf8');
    w = out.writeUInt32LE(t.dims.length, w);
    for (const d of t.dims) w = out.writeBigUInt64LE(BigInt(d), w);
    w = out.writeUInt32LE(t.newType, w);
    w = out.writeBigUInt64LE(BigInt(t.newOffset), w);
  }
  for (const t of tensors) {
    const from = dataStart + t.offset;
    const to = newDataStart + t.newOffset;
    if (from + t.bytes > input.length) throw new Error(`tensor ${t.name} runs past the end of the file`);
    if (t.newType === t.type) input.copy(out, to, from, from + t.bytes);
    else q4_1ToQ8_0(input, from, out, to, t.elements / QK);
  }
  return { output: out, changed, tensors: tensors.length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [inPath, outPath] = process.argv.slice(2);
  if (!inPath || !outPath) {
    console.error('usage: node scripts/gguf-requantize.mjs IN.gguf OUT.gguf');
    process.exit(2);
  }
  const { output, changed, tensors } = requantize(fs.readFileSync(inPath));
  fs.writeFileSync(`${outPath}.part`, output);
  fs.renameSync(`${outPath}.part`, outPath);
  console.log(`${outPath}: ${changed} of ${tensors} tensors Q4_1 -> Q8_0, ${output.length} bytes`);
}
