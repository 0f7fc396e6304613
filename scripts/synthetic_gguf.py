"""Writes synthetic GGUF models of the families the engine runs: the real architectures' tensor
names, metadata and tokenizer formats, random weights. No published weights can be fetched
here, and the cost and the numbers' agreement with llama.cpp do not depend on the weights'
values, so these files check the engine against llama.cpp and measure its speed.

    python scripts/synthetic_gguf.py OUT_DIR [--shape tiny|small|full] [--family F ...] [--quant Q ...]

Writes OUT_DIR/<family>-<shape>-<quant>.gguf. Deterministic: the same arguments write the same
bytes (a fixed seed, numpy's legacy generator, gguf pinned by scripts/synthetic-models.sh), so
llama.cpp's figures for the tiny files can be kept as test fixtures with each file's SHA-256.

Families, with the shapes of Qwen2.5-0.5B, Qwen3-0.6B and Gemma 3 270M for --shape full (--shape
small: the same layers, only the first six of them, and the learned vocabulary unpadded, for
side-by-side speed runs that finish in minutes on two cores):
  qwen2   QKV biases, NEOX rotary positions, tied embeddings; Qwen's byte-level BPE vocabulary
          (tokenizer.ggml.pre = qwen2) and ChatML template
  qwen3   per-head RMS norms of queries and keys (QK-norm), head size 128 over a narrower
          residual stream, no biases; Qwen's vocabulary with <think> and <tool_call> tokens
  gemma3  sliding-window layers (five in six), norms after attention and the feed-forward layer,
          GELU, embeddings scaled by sqrt(width); a SentencePiece vocabulary
          (tokenizer.ggml.model = llama) with byte fallback and Gemma's turn template

The vocabularies are small (about 1,300 tokens, merges learned from the text below) but in each
family's real format, so tokenization is checked id for id against llama.cpp as for a real file.
"""
import argparse
import hashlib
import os
import re
import sys

import numpy as np
import gguf
from gguf import GGMLQuantizationType as T

QUANTS = {
    "f32": T.F32, "f16": T.F16, "q8_0": T.Q8_0, "q4_0": T.Q4_0, "q4_1": T.Q4_1,
    "q5_0": T.Q5_0, "q5_1": T.Q5_1, "q4_k": T.Q4_K, "q5_k": T.Q5_K, "q6_k": T.Q6_K,
}

SHAPES = {
    # width, layers, heads, kv heads, head size, feed-forward, context
    ("qwen2", "full"): dict(embd=896, layers=24, heads=14, kv=2, head=64, ff=4864, ctx=32768),
    ("qwen3", "full"): dict(embd=1024, layers=28, heads=16, kv=8, head=128, ff=3072, ctx=40960),
    ("gemma3", "full"): dict(embd=640, layers=18, heads=4, kv=1, head=256, ff=2048, ctx=32768),
    # small: the full shapes' layers (width, heads, feed-forward), six of them: Gemma 3's five
    # sliding-window layers and its first global one
    ("qwen2", "small"): dict(embd=896, layers=6, heads=14, kv=2, head=64, ff=4864, ctx=32768),
    ("qwen3", "small"): dict(embd=1024, layers=6, heads=16, kv=8, head=128, ff=3072, ctx=40960),
    ("gemma3", "small"): dict(embd=640, layers=6, heads=4, kv=1, head=256, ff=2048, ctx=32768),
    # tiny: rows of 256 (whole K-quant blocks), a few layers, for tests
    ("qwen2", "tiny"): dict(embd=256, layers=2, heads=4, kv=2, head=64, ff=512, ctx=4096),
    ("qwen3", "tiny"): dict(embd=256, layers=2, heads=4, kv=2, head=128, ff=512, ctx=4096),
    # seven layers: sliding-window layers on both sides of a global one (layer 5)
    ("gemma3", "tiny"): dict(embd=256, layers=7, heads=2, kv=1, head=128, ff=512, ctx=4096),
}
# Real vocabularies are 151,936 (Qwen) and 262,144 (Gemma 3) tokens: the full shapes pad the
# learned one with unused tokens so the embedding and output matrices cost what they really do.
FULL_VOCAB = {"qwen2": 151936, "qwen3": 151936, "gemma3": 262144}
# Gemma 3 attends within a window of 512 positions in five layers of six; the tiny file uses a
# window of 16 so the tests' prompts cross it.
SLIDING_WINDOW = {"full": 512, "small": 512, "tiny": 16}

CORPUS = """
The quick brown fox jumps over the lazy dog near the quiet river bank. Say ok.
What is the capital of France? The capital of France is Paris.
Reply with one JSON object only. To call a tool: {"tool":"<name>","arguments":{...}}
To answer the user: {"tool":"answer","arguments":{"text":"<answer>"}}
Use the vfs tool to write the text hello into the file /notes.txt.
{"name": "read_file", "arguments": {"path": "notes.txt"}}
{"name": "write_file", "arguments": {"path": "/todo.md", "content": "- buy milk\\n- call mom"}}
<tool_call>
{"name": "list_files", "arguments": {"path": "/"}}
</tool_call>
Tell me a short story about a cat who lives in a browser tab. Once upon a time, there was a
small cat named Pixel. She lived in a browser tab and loved to read the pages people opened.
What is 17 times 23? 17 * 23 = 391. Numbers like 2024, 3.14159 and 1,000,000 are common.
def add(a, b):
    return a + b
for (let i = 0; i < 10; i++) { console.log(i); }
Hello, who are you? I am a helpful assistant. I can read files, write files and answer questions.
Translate "Good morning" into French: "Bonjour". Ça va? Très bien, merci. Grüße aus München!
Create a file todo.md with three things to do today. List the files. Summarize the notes.
Tools: read, write, list, fetch, eval, search, finish. Result of vfs: {"bytes":5,"created":true}
"""

# GPT-2's byte alphabet: printable Latin-1 bytes stand for themselves, the rest map from U+0100.
def byte_alphabet():
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars = {}
    extra = 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(0x100 + extra)
            extra += 1
    return chars


def train_merges(words, merges_wanted):
    """Byte-pair merges, most frequent pair first (ties by the pair's text), over word counts."""
    vocab = {tuple(w): c for w, c in words.items()}
    merges = []
    for _ in range(merges_wanted):
        pairs = {}
        for word, count in vocab.items():
            for a, b in zip(word, word[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + count
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))[0]
        if pairs[best] < 2:
            break
        merges.append(best)
        merged = best[0] + best[1]
        new_vocab = {}
        for word, count in vocab.items():
            out = []
            i = 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(merged)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            new_vocab[tuple(out)] = new_vocab.get(tuple(out), 0) + count
        vocab = new_vocab
    return merges


def qwen_vocab(family):
    """Qwen's format: 256 byte tokens in GPT-2's alphabet, learned merges, then the added
    tokens (control: <|endoftext|>, <|im_start|>, <|im_end|>; text: <tool_call>, <think>, ...)."""
    alphabet = byte_alphabet()
    # a rough Qwen-like split for training only (llama.cpp's own pre-tokenizer splits at use)
    pieces = re.findall(r"'s|'t|'re|'ve|'m|'ll|'d|[^\r\n\w]?[^\W\d_]+|\d| ?[^\s\w]+[\r\n]*|\s*[\r\n]+|\s+", CORPUS)
    words = {}
    for p in pieces:
        key = "".join(alphabet[b] for b in p.encode())
        words[tuple(key)] = words.get(tuple(key), 0) + 1
    words = {"".join(k): v for k, v in words.items()}
    merges = train_merges(words, 1000)
    tokens = [alphabet[b] for b in range(256)]
    seen = set(tokens)
    for a, b in merges:
        if a + b not in seen:
            tokens.append(a + b)
            seen.add(a + b)
    types = [1] * len(tokens)
    control = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    text = ["<tool_call>", "</tool_call>"]
    if family == "qwen3":
        text += ["<think>", "</think>"]
    for t in control:
        tokens.append(t)
        types.append(3)
    for t in text:
        tokens.append(t)
        types.append(4)
    return tokens, types, [f"{a} {b}" for a, b in merges]


def gemma_vocab():
    """SentencePiece's format as Gemma's GGUF has it: <pad> <eos> <bos> <unk>, the turn tokens,
    byte fallback tokens <0x00>..<0xFF>, then pieces (▁ for a space) scored by merge order."""
    pieces = re.findall(r" ?[^\s]+|\n+| +", CORPUS)
    words = {}
    for p in pieces:
        key = p.replace(" ", "\u2581")
        words[key] = words.get(key, 0) + 1
    chars = sorted({c for w in words for c in w})
    merges = train_merges(words, 1000)
    tokens = ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>", "<start_of_turn>", "<end_of_turn>"]
    types = [3, 3, 3, 2, 4, 3, 3]
    scores = [0.0] * len(tokens)
    for b in range(256):
        tokens.append(f"<0x{b:02X}>")
        types.append(6)
        scores.append(0.0)
    seen = set(tokens)
    # whitespace runs and newlines are whole tokens in Gemma's vocabulary
    for piece in ["\n", "\n\n", "\u2581\u2581", "\u2581\u2581\u2581\u2581", "\t"]:
        tokens.append(piece)
        types.append(1)
        scores.append(0.0)
        seen.add(piece)
    rank = 0
    for a, b in merges:
        if a + b not in seen:
            rank += 1
            tokens.append(a + b)
            types.append(1)
            scores.append(-float(rank))
            seen.add(a + b)
    for c in chars:
        if c not in seen:
            tokens.append(c)
            types.append(1)
            scores.append(-float(rank + 1000))
            seen.add(c)
    return tokens, types, scores


QWEN_TEMPLATE = (
    "{%- if tools %}{{- '<|im_start|>system\\n' }}{%- if messages[0].role == 'system' %}"
    "{{- messages[0].content + '\\n\\n' }}{%- endif %}"
    "{{- \"# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\n"
    "You are provided with function signatures within <tools></tools> XML tags:\\n<tools>\" }}"
    "{%- for tool in tools %}{{- \"\\n\" }}{{- tool | tojson }}{%- endfor %}"
    "{{- \"\\n</tools>\\n\\nFor each function call, return a json object with function name and "
    "arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\\"name\\\": "
    "<function-name>, \\\"arguments\\\": <args-json-object>}\\n</tool_call><|im_end|>\\n\" }}"
    "{%- else %}{%- if messages[0].role == 'system' %}{{- '<|im_start|>system\\n' + "
    "messages[0].content + '<|im_end|>\\n' }}{%- endif %}{%- endif %}"
    "{%- for message in messages %}{%- if message.role == 'user' or (message.role == 'system' "
    "and not loop.first) %}{{- '<|im_start|>' + message.role + '\\n' + message.content + "
    "'<|im_end|>' + '\\n' }}{%- elif message.role == 'assistant' %}{{- '<|im_start|>' + "
    "message.role + '\\n' + message.content }}{%- if message.tool_calls %}{%- for tool_call in "
    "message.tool_calls %}{{- '\\n<tool_call>\\n{\"name\": \"' }}{{- tool_call.function.name }}"
    "{{- '\", \"arguments\": ' }}{{- tool_call.function.arguments | tojson }}{{- '}\\n</tool_call>' }}"
    "{%- endfor %}{%- endif %}{{- '<|im_end|>\\n' }}{%- elif message.role == 'tool' %}"
    "{{- '<|im_start|>user\\n<tool_response>\\n' }}{{- message.content }}"
    "{{- '\\n</tool_response><|im_end|>\\n' }}{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and enable_thinking is false %}"
    "{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}{%- endif %}"
)
GEMMA_TEMPLATE = (
    "{{ bos_token }}{%- if messages[0]['role'] == 'system' -%}{%- set first_user_prefix = "
    "messages[0]['content'] + '\\n\\n' -%}{%- set loop_messages = messages[1:] -%}{%- else -%}"
    "{%- set first_user_prefix = \"\" -%}{%- set loop_messages = messages -%}{%- endif -%}"
    "{%- for message in loop_messages -%}{%- if (message['role'] == 'assistant') -%}"
    "{%- set role = \"model\" -%}{%- else -%}{%- set role = message['role'] -%}{%- endif -%}"
    "{{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else \"\") }}"
    "{{ message['content'] | trim }}{{ '<end_of_turn>\\n' }}{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{'<start_of_turn>model\\n'}}{%- endif -%}"
)


class Weights:
    """Random weights, written in the file's quantization (1-D tensors always F32)."""

    def __init__(self, writer, quant, seed):
        self.writer = writer
        self.quant = quant
        self.rng = np.random.RandomState(seed)

    def vector(self, name, n, around=1.0, spread=0.1):
        values = (around + spread * self.rng.standard_normal(n)).astype(np.float32)
        self.writer.add_tensor(name, values)

    def matrix(self, name, rows, cols, std):
        quant = self.quant
        if quant in (T.Q4_K, T.Q5_K, T.Q6_K):
            self.writer.add_tensor(name, self.k_blocks(quant, rows, cols, std), raw_dtype=quant)
            return
        values = (std * self.rng.standard_normal((rows, cols))).astype(np.float32)
        if quant == T.F32:
            self.writer.add_tensor(name, values)
        elif quant == T.F16:
            self.writer.add_tensor(name, values.astype(np.float16))
        else:
            self.writer.add_tensor(name, gguf.quants.quantize(values, quant), raw_dtype=quant)

    def k_blocks(self, quant, rows, cols, std):
        """Random float weights quantized to K-quant super-blocks (256 values) as llama.cpp's
        quantizer lays them out: per sub-block a scale (and, for Q4_K/Q5_K, a minimum) from its
        range, 6-bit (or signed 8-bit, Q6_K) multiples of the super-block's f16 scales. The
        rounding search llama.cpp adds on top is left out: it changes values, not the format."""
        x = (std * self.rng.standard_normal((rows * cols // 256, 256))).astype(np.float32)
        return k_quantize(quant, x).reshape(rows, -1)


def f16_bytes(values):
    return np.asarray(values, dtype=np.float16).reshape(-1, 1).view(np.uint8)


def k_quantize(quant, x):
    """Super-blocks of 256 floats (one per row of `x`) as Q4_K, Q5_K or Q6_K bytes."""
    n = x.shape[0]
    if quant == T.Q6_K:
        sub = x.reshape(n, 16, 16)
        amax_at = np.argmax(np.abs(sub), axis=-1)
        signed_max = np.take_along_axis(sub, amax_at[..., None], axis=-1)[..., 0]
        scale = signed_max / -32.0
        d = np.abs(scale).max(axis=-1) / 127.0
        d = d.astype(np.float16).astype(np.float32)
        sc = np.clip(np.round(scale / np.where(d == 0, 1, d)[:, None]), -128, 127).astype(np.int8)
        step = d[:, None, None] * sc.astype(np.float32)[..., None]
        q = np.clip(np.round(sub / np.where(step == 0, 1, step)), -32, 31).astype(np.int32) + 32
        q = q.reshape(n, 2, 4, 32)  # per 128: four runs of 32 values
        ql = np.zeros((n, 2, 64), dtype=np.uint8)
        qh = np.zeros((n, 2, 32), dtype=np.uint8)
        ql[:, :, :32] = (q[:, :, 0] & 0xF) | ((q[:, :, 2] & 0xF) << 4)
        ql[:, :, 32:] = (q[:, :, 1] & 0xF) | ((q[:, :, 3] & 0xF) << 4)
        qh[:] = (q[:, :, 0] >> 4) | ((q[:, :, 1] >> 4) << 2) | ((q[:, :, 2] >> 4) << 4) | ((q[:, :, 3] >> 4) << 6)
        return np.concatenate([ql.reshape(n, 128), qh.reshape(n, 64), sc.view(np.uint8), f16_bytes(d)], axis=1)
    levels = 16 if quant == T.Q4_K else 32
    sub = x.reshape(n, 8, 32)
    low = np.minimum(sub.min(axis=-1), 0.0)
    high = sub.max(axis=-1)
    scale = (high - low) / (levels - 1)
    d = (scale.max(axis=-1) / 63.0).astype(np.float16).astype(np.float32)
    dmin = ((-low).max(axis=-1) / 63.0).astype(np.float16).astype(np.float32)
    sc = np.clip(np.round(scale / np.where(d == 0, 1, d)[:, None]), 0, 63).astype(np.int32)
    m = np.clip(np.round(-low / np.where(dmin == 0, 1, dmin)[:, None]), 0, 63).astype(np.int32)
    step = (d[:, None] * sc)[..., None]
    q = np.round((sub + (dmin[:, None] * m)[..., None]) / np.where(step == 0, 1, step))
    q = np.clip(q, 0, levels - 1).astype(np.uint8)
    packed = np.zeros((n, 12), dtype=np.uint8)
    packed[:, 0:4] = (sc[:, 0:4] & 63) | ((sc[:, 4:8] >> 4) << 6)
    packed[:, 4:8] = (m[:, 0:4] & 63) | ((m[:, 4:8] >> 4) << 6)
    packed[:, 8:12] = (sc[:, 4:8] & 0xF) | ((m[:, 4:8] & 0xF) << 4)
    pairs = q.reshape(n, 4, 2, 32)  # per 64: the low and the high nibbles' values
    qs = ((pairs[:, :, 0] & 0xF) | ((pairs[:, :, 1] & 0xF) << 4)).reshape(n, 128)
    parts = [f16_bytes(d), f16_bytes(dmin), packed]
    if quant == T.Q5_K:
        bits = (q.reshape(n, 8, 32) >> 4).astype(np.uint8)
        qh = np.zeros((n, 32), dtype=np.uint8)
        for j in range(8):
            qh |= bits[:, j] << j
        parts.append(qh)
    parts.append(qs.astype(np.uint8))
    return np.concatenate(parts, axis=1)


def write(out_dir, family, shape, quant_name):
    s = SHAPES[(family, shape)]
    quant = QUANTS[quant_name]
    path = os.path.join(out_dir, f"{family}-{shape}-{quant_name}.gguf")
    writer = gguf.GGUFWriter(path + ".part", family)
    writer.add_name(f"synthetic {family} {shape} {quant_name}")
    writer.add_context_length(s["ctx"])
    writer.add_embedding_length(s["embd"])
    writer.add_block_count(s["layers"])
    writer.add_feed_forward_length(s["ff"])
    writer.add_head_count(s["heads"])
    writer.add_head_count_kv(s["kv"])
    writer.add_key_length(s["head"])
    writer.add_value_length(s["head"])
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_file_type(
        {T.F32: 0, T.F16: 1, T.Q4_0: 2, T.Q4_1: 3, T.Q8_0: 7, T.Q5_0: 8, T.Q5_1: 9,
         T.Q4_K: 15, T.Q5_K: 17, T.Q6_K: 18}[quant])
    if family == "gemma3":
        tokens, types, scores = gemma_vocab()
        writer.add_rope_freq_base(1_000_000.0)
        writer.add_rope_freq_base_swa(10_000.0)
        writer.add_sliding_window(SLIDING_WINDOW[shape])
        writer.add_tokenizer_model("llama")
        writer.add_tokenizer_pre("default")
        writer.add_bos_token_id(2)
        writer.add_eos_token_id(1)
        writer.add_unk_token_id(3)
        writer.add_pad_token_id(0)
        writer.add_add_bos_token(True)
        writer.add_add_eos_token(False)
        writer.add_add_space_prefix(False)
        writer.add_chat_template(GEMMA_TEMPLATE)
    else:
        tokens, types, merges = qwen_vocab(family)
        writer.add_rope_freq_base(1_000_000.0)
        writer.add_tokenizer_model("gpt2")
        writer.add_tokenizer_pre("qwen2")
        writer.add_token_merges(merges)
        endoftext = tokens.index("<|endoftext|>")
        writer.add_bos_token_id(endoftext)
        writer.add_eos_token_id(tokens.index("<|im_end|>"))
        writer.add_pad_token_id(endoftext)
        writer.add_add_bos_token(False)
        writer.add_chat_template(QWEN_TEMPLATE)
        scores = None
    if shape == "full":
        while len(tokens) < FULL_VOCAB[family]:
            tokens.append(f"[PAD{len(tokens)}]")
            types.append(5)
            if scores is not None:
                scores.append(-1e9)
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    if scores is not None:
        writer.add_token_scores(scores)
    vocab = len(tokens)

    seed = int.from_bytes(hashlib.sha256(f"{family}/{shape}".encode()).digest()[:4], "little")
    w = Weights(writer, quant, seed)
    e, h, kv, d, ff = s["embd"], s["heads"], s["kv"], s["head"], s["ff"]
    # tied embeddings: logits spread about 4 (a real model's scale), so the gaps to llama.cpp
    # read as they do on real files (Gemma multiplies its inputs by sqrt(width) itself)
    w.matrix("token_embd.weight", vocab, e, 4.0 / np.sqrt(e))
    for i in range(s["layers"]):
        b = f"blk.{i}"
        w.vector(f"{b}.attn_norm.weight", e)
        w.matrix(f"{b}.attn_q.weight", h * d, e, 1.0 / np.sqrt(e))
        w.matrix(f"{b}.attn_k.weight", kv * d, e, 1.0 / np.sqrt(e))
        w.matrix(f"{b}.attn_v.weight", kv * d, e, 1.0 / np.sqrt(e))
        if family == "qwen2":
            w.vector(f"{b}.attn_q.bias", h * d, 0.0, 0.5)
            w.vector(f"{b}.attn_k.bias", kv * d, 0.0, 0.5)
            w.vector(f"{b}.attn_v.bias", kv * d, 0.0, 0.5)
        if family in ("qwen3", "gemma3"):
            w.vector(f"{b}.attn_q_norm.weight", d)
            w.vector(f"{b}.attn_k_norm.weight", d)
        w.matrix(f"{b}.attn_output.weight", e, h * d, 1.0 / np.sqrt(h * d))
        if family == "gemma3":
            w.vector(f"{b}.post_attention_norm.weight", e, 0.5, 0.05)
        w.vector(f"{b}.ffn_norm.weight", e)
        w.matrix(f"{b}.ffn_gate.weight", ff, e, 1.0 / np.sqrt(e))
        w.matrix(f"{b}.ffn_up.weight", ff, e, 1.0 / np.sqrt(e))
        w.matrix(f"{b}.ffn_down.weight", e, ff, 1.0 / np.sqrt(ff))
        if family == "gemma3":
            w.vector(f"{b}.post_ffw_norm.weight", e, 0.5, 0.05)
    w.vector("output_norm.weight", e)
    # tied embeddings: no output.weight (all three families' small models tie them)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(path + ".part", path)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--shape", default="tiny", choices=["tiny", "small", "full"])
    parser.add_argument("--family", action="append", choices=["qwen2", "qwen3", "gemma3"])
    parser.add_argument("--quant", action="append", choices=list(QUANTS))
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for family in args.family or ["qwen2", "qwen3", "gemma3"]:
        for quant in args.quant or list(QUANTS):
            path = write(args.out_dir, family, args.shape, quant)
            digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
            print(f"{path} {os.path.getsize(path)} {digest}")


if __name__ == "__main__":
    main()
