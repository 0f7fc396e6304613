// The GGUF converter that stores the bundled model's Q4_1 layers as Q8_0 (scripts/gguf-requantize.mjs):
// a synthetic file with one Q4_1 and one F32 tensor goes through it, and the result is read back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requantize, halfToFloat, floatToHalf } from '../../scripts/gguf-requantize.mjs';

function str(s) {
  const b = Buffer.alloc(8 + Buffer.byteLength(s));
  b.writeBigUInt64LE(BigInt(Buffer.byteLength(s)));
  b.write(s, 8);
  return b;
}
const u32 = (v) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
};
const u64 = (v) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(v));
  return b;
};
const pad = (buf, a = 32) => Buffer.concat([buf, Buffer.alloc((a - (buf.length % a)) % a)]);

/** A GGUF v3 file: kv general.file_type=3 and general.name, tensors `w` (Q4_1, 64 values) and `n` (F32, 4). */
function syntheticGguf() {
  const blocks = [];
  const expected = [];
  for (let b = 0; b < 2; b++) {
    const d = 0.0625 * (b + 1);
    const m = -0.5 * (b + 1);
    const block = Buffer.alloc(20);
    block.writeUInt16LE(floatToHalf(d), 0);
    block.writeUInt16LE(floatToHalf(m), 2);
    const values = new Array(32);
    for (let j = 0; j < 16; j++) {
      const lo = (j * 3) % 16;
      const hi = (j * 7 + 1) % 16;
      block[4 + j] = lo | (hi << 4);
      values[j] = halfToFloat(floatToHalf(d)) * lo + halfToFloat(floatToHalf(m));
      values[j + 16] = halfToFloat(floatToHalf(d)) * hi + halfToFloat(floatToHalf(m));
    }
    blocks.push(block);
    expected.push(...values);
  }
  const f32 = Buffer.alloc(16);
  [1.5, -2, 3.25, 0].forEach((v, i) => f32.writeFloatLE(v, i * 4));
  const kv = Buffer.concat([
    str('general.name'), u32(8), str('synthetic'),
    str('general.file_type'), u32(4), u32(3),
  ]);
  const infos = Buffer.concat([
    str('w'), u32(2), u64(32), u64(2), u32(3), u64(0),
    str('n'), u32(1), u64(4), u32(0), u64(64),
  ]);
  const head = Buffer.concat([Buffer.from('GGUF', 'latin1'), u32(3), u64(2), u64(2), kv, infos]);
  const data = Buffer.concat([pad(Buffer.concat(blocks)), f32]);
  return { file: Buffer.concat([pad(head), data]), expected, f32 };
}

/** Reads back the converted file's tensor infos and data start (same layout rules). */
function readBack(buf) {
  let pos = 4 + 4;
  const nT = Number(buf.readBigUInt64LE(pos));
  const nKv = Number(buf.readBigUInt64LE(pos + 8));
  pos += 16;
  const rstr = () => {
    const n = Number(buf.readBigUInt64LE(pos));
    const s = buf.toString('utf8', pos + 8, pos + 8 + n);
    pos += 8 + n;
    return s;
  };
  const kv = {};
  for (let i = 0; i < nKv; i++) {
    const k = rstr();
    const t = buf.readUInt32LE(pos);
    pos += 4;
    if (t === 8) kv[k] = rstr();
    else {
      kv[k] = buf.readUInt32LE(pos);
      pos += 4;
    }
  }
  const tensors = [];
  for (let i = 0; i < nT; i++) {
    const name = rstr();
    const nd = buf.readUInt32LE(pos);
    pos += 4 + 8 * nd;
    const type = buf.readUInt32LE(pos);
    const offset = Number(buf.readBigUInt64LE(pos + 4));
    pos += 12;
    tensors.push({ name, type, offset });
  }
  return { kv, tensors, dataStart: Math.ceil(pos / 32) * 32 };
}

test('half-precision conversion round-trips and rounds to nearest even', () => {
  for (const v of [0, 1, -2, 0.5, 65504, 2 ** -14, 2 ** -24, 3 * 2 ** -20, -0.0625]) {
    assert.equal(halfToFloat(floatToHalf(v)), v);
  }
  assert.equal(floatToHalf(1 + 2 ** -11), floatToHalf(1), 'a tie rounds to the even neighbour');
  assert.equal(halfToFloat(floatToHalf(1e6)), Infinity);
});

test('Q4_1 tensors become Q8_0 with their values kept; other tensors and metadata are copied', () => {
  const { file, expected, f32 } = syntheticGguf();
  const { output, changed, tensors } = requantize(file);
  assert.deepEqual({ changed, tensors }, { changed: 1, tensors: 2 });
  const back = readBack(output);
  assert.deepEqual(back.kv, { 'general.name': 'synthetic', 'general.file_type': 7 });
  assert.deepEqual(back.tensors.map((t) => [t.name, t.type]), [['w', 8], ['n', 0]]);
  const w = back.dataStart + back.tensors[0].offset;
  for (let b = 0; b < 2; b++) {
    const block = w + b * 34;
    const d = halfToFloat(output.readUInt16LE(block));
    const amax = Math.max(...expected.slice(b * 32, b * 32 + 32).map(Math.abs));
    for (let j = 0; j < 32; j++) {
      const got = d * output.readInt8(block + 2 + j);
      assert.ok(Math.abs(got - expected[b * 32 + j]) <= amax / 254 + 1e-3, `block ${b} value ${j}: ${got} vs ${expected[b * 32 + j]}`);
    }
  }
  const n = back.dataStart + back.tensors[1].offset;
  assert.deepEqual(output.subarray(n, n + 16), f32);
});

test('a file that is not GGUF is refused', () => {
  assert.throws(() => requantize(Buffer.from('not a model at all, just some text')), /not a GGUF file/);
});
