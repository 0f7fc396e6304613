"""Writes the fuzz targets' seed corpora into fuzz/corpus/<target>/ (run once; the files are kept
in the repository). The GGUF seed is scripts/hostile_gguf.py's valid one-layer model; the others
are small hand-written inputs in each target's input format (see fuzz/src/checks.rs)."""
import json
import os
import re
import shutil
import sys

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(here)


def put(target, name, data):
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


os.makedirs(os.path.join(here, "corpus/gguf"), exist_ok=True)
shutil.copy(os.path.join(repo, "target/hostile-gguf/valid.gguf"), os.path.join(here, "corpus/gguf/valid.gguf"))

FF = b"\xff"
# tokenizer: flags, pre-tokenizer, token count, text, then (kind, token) pairs, then merges
def tok(flags, pre, text, tokens, merges):
    out = bytes([flags, pre, len(tokens)]) + text.encode() + FF
    for kind, t in tokens:
        out += bytes([kind]) + t.encode() + FF
    return out + FF.join(m.encode() for m in merges)

put("tokenizer", "bpe-hello", tok(0, 0, "Hello world, hello!", [(1, "he"), (1, "ll"), (1, "hell"), (1, "Ġw"), (3, "<|im_end|>")], ["h e", "l l", "he ll", "Ġ w"]))
put("tokenizer", "bpe-special", tok(2, 1, "<|im_start|>user\nhi<|im_end|>", [(3, "<|im_start|>"), (3, "<|im_end|>"), (1, "us"), (1, "er")], ["u s", "e r"]))
put("tokenizer", "spm", tok(1 | 8, 4, "The quick brown fox", [(1, "▁The"), (1, "▁qu"), (1, "ick"), (6, "<0x41>"), (3, "</s>")], []))
put("tokenizer", "digits", tok(0, 2, "17 * 23 = 391, ça va? 🙂", [(1, "17"), (1, "39"), (1, "Ġ="), (1, "Ã§")], ["1 7", "3 9", "Ġ ="]))

app = open(os.path.join(repo, "engine/tests/grammar.rs")).read()
grammar = re.search(r'const APP: &str = r#"(.*?)"#;', app, re.S).group(1)
put("grammar", "app", grammar.encode() + b"\0" + b'vfs","arguments":{"op":"write","path":"/notes.txt","content":"hi"}}')
put("grammar", "json", grammar.replace("root ::= call0 | call1 | final", "root ::= value").encode() + b"\0" + b'{"a":[1,2.5e3,true,null,"x"]}')
put("grammar", "classes", b'root ::= [a-z]{2,5} ("-" [0-9]+)* [^\\n]? "!"\n' + b"\0" + b"abc-12-3x!")
put("grammar", "utf8", 'root ::= ("é" | [α-ω] | [^\\x00-\\x7F])+ "."\n'.encode() + b"\0" + "αβé😀.".encode())

openai = "".join(
    f"data: {json.dumps(c)}\n\n" for c in [
        {"id": "1", "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "vfs", "arguments": "{\"op\":"}}]}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"read\"}"}}]}, "finish_reason": "tool_calls"}]},
        {"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}},
    ]) + "data: [DONE]\n\n"
put("sse_providers", "openai", b"\x05\x11\x03\x40" + openai.encode())
anthropic = "".join(
    f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in [
        ("message_start", {"type": "message_start", "message": {"id": "m", "model": "claude", "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}),
        ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t", "name": "vfs", "input": {}}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"op\":\"list\"}"}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 7}}),
        ("ping", {"type": "ping"}),
        ("message_stop", {"type": "message_stop"}),
    ])
put("sse_providers", "anthropic", b"\x07\x02\x13\x01" + anthropic.encode())
put("sse_providers", "error", b"\x03\x03\x03\x03" + b'retry: 1500\nid: 7\ndata: {"error":{"message":"rate limited","type":"rate_limit_error"}}\n\n: comment\r\ndata: x\r\r')

put("mcp_sampling", "text", json.dumps({"messages": [{"role": "user", "content": {"type": "text", "text": "Summarise"}}], "systemPrompt": "Be brief", "maxTokens": 100000}))
put("mcp_sampling", "mixed", json.dumps({"messages": [{"role": "assistant", "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}, {"type": "audio", "data": "", "mimeType": "audio/wav"}, {"type": "text", "text": "x"}]}, {"role": "user", "content": {"type": "resource", "resource": {"uri": "file:///a", "text": "hi"}}}]}))

md = json.load(open(os.path.join(repo, "tests/fixtures/hostile_markdown.json")))
for i, text in enumerate(md[:24]):
    put("markdown", f"hostile-{i:02d}", text)
put("markdown", "rich", "# T\n\n| a | b |\n|:-|-:|\n| `x` | [l](https://e.org \"t\") |\n\n- [ ] task\n1. **b** _i_ ~~d~~\n\n```js\nalert(1)\n```\n\n![img](https://e.org/x.png)\n> q\n")
print("seeds written")
