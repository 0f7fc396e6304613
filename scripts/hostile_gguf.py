"""Writes the hostile-GGUF corpus: files that attack the in-tab engine's reader, loader and
tokenizer, each a small model (a valid one first, then the same bytes broken one way each).

    python scripts/hostile_gguf.py OUT_DIR

Writes OUT_DIR/valid.gguf (a one-layer qwen2-shaped model with Qwen's byte-level vocabulary,
random Q8_0 weights: it loads and answers), OUT_DIR/hostile-NN-<name>.gguf, and
OUT_DIR/manifest.json listing each file with what it attacks and the words its error must
contain (alternatives split by "|": a wasm32 engine finds some counts too large where a 64-bit
one finds the header cut short; "does not run this model" marks a file the engine refuses and the
page may hand to another runtime). Deterministic: the same script writes the same bytes. tests/e2e/hostile_gguf.test.mjs
loads every file in the browser; tests (engine/tests/hostile_gguf.rs) load them natively.
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synthetic_gguf  # noqa: E402  (the repo's synthetic model writer)

MICRO = dict(embd=64, layers=1, heads=2, kv=1, head=32, ff=64, ctx=256)

# value type ids of GGUF metadata
U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 = range(13)
FIXED = {U8: 1, I8: 1, U16: 2, I16: 2, U32: 4, I32: 4, F32: 4, BOOL: 1, U64: 8, I64: 8, F64: 8}


class File:
    """A GGUF file taken apart: metadata (key, type, raw value bytes), tensor infos, data."""

    def __init__(self, data):
        self.version = struct.unpack_from("<I", data, 4)[0]
        n_tensors, n_kv = struct.unpack_from("<QQ", data, 8)
        at = 24
        self.kv = []
        for _ in range(n_kv):
            key, at = self._string(data, at)
            kind = struct.unpack_from("<I", data, at)[0]
            start = at + 4
            at = self._skip(data, start, kind)
            self.kv.append([key, kind, data[start:at]])
        self.tensors = []
        for _ in range(n_tensors):
            name, at = self._string(data, at)
            n_dims = struct.unpack_from("<I", data, at)[0]
            dims = list(struct.unpack_from(f"<{n_dims}Q", data, at + 4))
            at += 4 + 8 * n_dims
            kind, offset = struct.unpack_from("<IQ", data, at)
            at += 12
            self.tensors.append([name, dims, kind, offset])
        self.alignment = 32
        start = (at + 31) // 32 * 32
        self.data = data[start:]

    @staticmethod
    def _string(data, at):
        n = struct.unpack_from("<Q", data, at)[0]
        return data[at + 8:at + 8 + n].decode("utf-8", "replace"), at + 8 + n

    def _skip(self, data, at, kind):
        if kind in FIXED:
            return at + FIXED[kind]
        if kind == STR:
            return at + 8 + struct.unpack_from("<Q", data, at)[0]
        item, n = struct.unpack_from("<IQ", data, at)
        at += 12
        for _ in range(n):
            at = self._skip(data, at, item)
        return at

    def get(self, key):
        return next(e for e in self.kv if e[0] == key)

    def set(self, key, kind, raw):
        for e in self.kv:
            if e[0] == key:
                e[1], e[2] = kind, raw
                return
        self.kv.append([key, kind, raw])

    def emit(self, version=None, n_tensors=None, n_kv=None):
        out = bytearray(b"GGUF")
        out += struct.pack("<I", self.version if version is None else version)
        out += struct.pack("<QQ", len(self.tensors) if n_tensors is None else n_tensors,
                           len(self.kv) if n_kv is None else n_kv)
        for key, kind, raw in self.kv:
            out += s(key) + struct.pack("<I", kind) + raw
        for name, dims, kind, offset in self.tensors:
            out += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
            out += struct.pack("<IQ", kind, offset)
        out += b"\0" * ((-len(out)) % self.alignment)
        return bytes(out + self.data)


def s(text):
    raw = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(raw)) + raw


def u32(v):
    return struct.pack("<I", v)


def strings(items, count=None):
    return struct.pack("<IQ", STR, len(items) if count is None else count) + b"".join(s(i) for i in items)


def cases(valid):
    """(name, attack, expected words of the error, bytes) for every hostile file."""
    def f():
        return File(valid)

    out = []

    def add(name, attack, expect, data):
        out.append((name, attack, expect, data))

    add("empty", "a file of no bytes", "GGUF", b"")
    add("wrong-magic", "another format's magic", "not a GGUF file", b"GGML" + valid[4:])
    add("version-1", "GGUF version 1", "version", valid[:4] + u32(1) + valid[8:])
    add("version-99", "a future GGUF version", "version", valid[:4] + u32(99) + valid[8:])
    add("cut-after-magic", "truncated after the magic and version", "cut short", valid[:8])
    add("cut-in-metadata", "truncated in the metadata", "cut short", valid[:300])
    add("cut-in-tensor-table", "truncated in the tensor table", "cut short", valid[:len(valid) - len(File(valid).data) - 40])
    add("cut-in-tensor-data", "truncated inside the last tensor's data", "outside the file", valid[:-1000])
    x = f(); add("metadata-count-huge", "2^60 metadata entries claimed", "cut short|too large", x.emit(n_kv=1 << 60))
    x = f(); add("tensor-count-huge", "2^40 tensors claimed", "cut short|too large", x.emit(n_tensors=1 << 40))
    x = f(); x.kv[0][0] = "k" * 10; raw = x.emit(); i = raw.index(b"k" * 10) - 8
    add("key-length-huge", "a key 2^63 bytes long", "cut short|too large", raw[:i] + struct.pack("<Q", 1 << 63) + raw[i + 8:])
    x = f(); x.set("tokenizer.chat_template", STR, struct.pack("<Q", 1_000_000_000) + b"{{ messages }}")
    add("template-billion-chars", "a chat template claiming a billion characters", "cut short", x.emit())
    x = f(); x.set("tokenizer.chat_template", STR, s("<|im_start|><|im_end|>" + "{{ x }}" * 300_000))
    add("template-2mb", "a 2 MB chat template", "chat template", x.emit())
    x = f(); x.set("general.alignment", U32, u32(3))
    add("alignment-3", "an alignment that is not a power of two", "alignment", x.emit())
    x = f(); x.set("general.alignment", U32, u32(0))
    add("alignment-0", "an alignment of zero", "alignment", x.emit())
    x = f(); x.set("general.weird", 77, b"")
    add("unknown-value-type", "a metadata value of type 77", "type 77", x.emit())
    nested = struct.pack("<IQ", ARR, 1) * 6 + struct.pack("<IQ", U8, 0)
    x = f(); x.set("general.nested", ARR, nested)
    add("nested-arrays", "arrays nested six deep", "nest", x.emit())
    x = f(); x.set("tokenizer.ggml.tokens", ARR, strings(["a"], count=1 << 31))
    add("vocab-2-31", "a vocabulary claiming 2^31 tokens", "cut short|too large", x.emit())
    x = f(); toks = ["t%d" % i for i in range(3000)]; x.set("tokenizer.ggml.tokens", ARR, strings(toks))
    add("vocab-without-bytes", "a vocabulary of 3000 made-up tokens (no byte tokens; merges name none)", "token_embd", x.emit())
    x = f(); x.set("tokenizer.ggml.merges", ARR, strings(["zz%d qq%d" % (i, i) for i in range(900)]))
    add("merges-reference-nothing", "900 merges naming tokens that do not exist", "merges", x.emit())
    x = f(); x.set("tokenizer.ggml.token_type", ARR, struct.pack("<IQ", I32, 3) + struct.pack("<3i", 1, 1, 1))
    add("token-types-short", "3 token types for the whole vocabulary", "token_type", x.emit())
    x = f(); x.set("tokenizer.ggml.tokens", ARR, struct.pack("<IQ", U32, 2) + struct.pack("<2I", 1, 2))
    add("vocab-of-numbers", "a vocabulary of numbers", "token_embd", x.emit())
    x = f(); x.tensors[0][1] = [32, x.tensors[0][1][1] * 2]
    add("embedding-wrong-width", "a token embedding 32 wide in a 64-wide model", "token_embd", x.emit())
    x = f(); x.set("tokenizer.ggml.model", STR, s("bert"))
    add("tokenizer-bert", "a tokenizer the engine does not know", "does not run this model: its tokenizer", x.emit())
    x = f(); x.set("general.architecture", STR, s("mamba"))
    add("architecture-mamba", "an architecture the engine does not run", "does not run this model: its architecture", x.emit())
    x = f(); x.tensors[-1][3] = len(x.data) + 4096
    add("offset-past-end", "a tensor whose offset lies past the end", "outside the file", x.emit())
    x = f(); x.tensors[1][3] = x.tensors[2][3]
    add("overlapping-tensors", "two tensors at the same bytes", "overlap", x.emit())
    x = f(); x.tensors[1][3] += 1
    add("misaligned-offset", "a tensor offset off the alignment", "align", x.emit())
    x = f(); x.tensors[0][1] = [1 << 32, 1 << 32, 1 << 32]
    add("dims-overflow", "dimensions whose product overflows 64 bits", "too large", x.emit())
    x = f(); x.tensors[0][1] = [64, 1 << 27]; x.tensors[0][2] = 0
    add("tensor-10gb", "a token embedding claiming 32 GB (F32 64 x 2^27)", "outside the file|too large", x.emit())
    x = f(); x.tensors[0][2] = 99
    add("tensor-type-99", "a tensor of an unknown type", "does not run this model: its tensor type", x.emit())
    x = f(); t = x.tensors[0]; t[2] = 1  # F16 where Q8_0 bytes are
    add("tensor-type-changed", "a Q8_0 tensor declared F16", "overlap", x.emit())
    x = f(); x.tensors[0][1] = [63, x.tensors[0][1][1]]
    add("rows-not-blocks", "Q8_0 rows of 63 values", "blocks", x.emit())
    x = f(); x.tensors[0][1] = [1] * 9
    add("nine-dims", "a tensor with nine dimensions", "dimensions", x.emit())
    x = f(); x.tensors[2][0] = x.tensors[1][0]
    add("duplicate-tensor-names", "two tensors of the same name", "twice", x.emit())
    x = f(); x.tensors = [t for t in x.tensors if "ffn_down" not in t[0]]
    add("missing-tensor", "a layer without its ffn_down weight", "ffn_down", x.emit())
    x = f(); x.set("qwen2.block_count", U32, u32(1000))
    add("block-count-1000", "1000 layers claimed, one present", "blk.1|block_count", x.emit())
    x = f(); x.set("qwen2.block_count", U32, u32(0xFFFFFFFE))
    add("block-count-2-32", "2^32 - 2 layers claimed (found by fuzzing: it sized a table of 3.8 TB)", "tensors", x.emit())
    x = f(); x.set("qwen2.rope.dimension_count", U32, u32(162))
    add("rope-dims-162", "rotary dimensions beyond the head (found by fuzzing: a panic in the first forward pass)", "rope.dimension_count", x.emit())
    x = f(); x.set("qwen2.attention.head_count", U32, u32(0))
    add("zero-heads", "zero attention heads", "head", x.emit())
    x = f(); x.set("qwen2.attention.head_count_kv", U32, u32(1 << 20))
    add("kv-heads-huge", "2^20 key/value heads (a KV cache of terabytes)", "head", x.emit())
    x = f(); x.set("qwen2.embedding_length", U32, u32(0))
    add("zero-width", "an embedding length of zero", "embedding", x.emit())
    x = f(); x.set("tokenizer.ggml.merges", ARR, struct.pack("<IQ", STR, 0))
    x.set("tokenizer.ggml.pre", STR, s("no-such-pre-tokenizer"))
    add("unknown-pre-tokenizer", "a pre-tokenizer nobody knows", "does not run this model: its pre-tokenizer", x.emit())
    return out


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for old in os.listdir(out_dir):
        if old.startswith("hostile-"):
            os.remove(os.path.join(out_dir, old))
    synthetic_gguf.SHAPES[("qwen2", "micro")] = MICRO
    path = synthetic_gguf.write(out_dir, "qwen2", "micro", "q8_0")
    valid_path = os.path.join(out_dir, "valid.gguf")
    os.replace(path, valid_path)
    valid = open(valid_path, "rb").read()
    assert File(valid).emit() == valid, "the rewriter reproduces the valid file byte for byte"
    manifest = {"valid": "valid.gguf", "files": []}
    for n, (name, attack, expect, data) in enumerate(cases(valid), 1):
        file = f"hostile-{n:02d}-{name}.gguf"
        with open(os.path.join(out_dir, file), "wb") as fh:
            fh.write(data)
        manifest["files"].append({"file": file, "attack": attack, "expect": expect, "bytes": len(data)})
    with open(os.path.join(out_dir, "manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1)
    print(f"{len(manifest['files'])} hostile files and valid.gguf ({len(valid)} bytes) in {out_dir}")


if __name__ == "__main__":
    main()
