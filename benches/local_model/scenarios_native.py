"""The real-model scenario tasks (benches/scenarios/local_model.mjs) on native llama.cpp: the
same GGUF, the requests the local provider builds (examples/local_request.rs: messages, grammar,
reply parsing and the repeat rule), greedy sampling under the grammar, and stand-ins for the
default tools (an in-memory vfs, node for eval, the loopback refusal of http_fetch, the core's
todo and finish), results fed back as the loop does. About 10x faster than the tab, so prompt
variants can be compared over every task before one is tried in the browser. Figures only.

    cargo build --example local_request
    python benches/local_model/scenarios_native.py MODEL.gguf [--variant FILE.py] [--show] [name ...]

`--variant FILE.py`: a module with `transform(local_request: dict) -> dict`, applied to each
request before it is rendered (to try a prompt change without rebuilding).
"""
import importlib.util
import json
import re
import subprocess
import sys
import time

import llama_cpp

MAX_STEPS = 4
REQUEST_TOOL = ["target/debug/examples/local_request"]

TASKS = {
    "write_file": "Use the vfs tool to write the text hello into the file /notes.txt.",
    "write_then_read": "Use the vfs tool to write the text hi into /a.txt, then use the vfs tool to read /a.txt.",
    "todo": 'Use the todo tool to add the item "buy milk" with status done.',
    "eval": "Use the eval tool to compute 17 * 23 in JavaScript.",
    "answer": "What is the capital of France? Answer in one word without using any tool.",
    "first_question": "What is 17 times 23?",
    "haiku": "Write a haiku about browser tabs.",
    "list_files": "List the files in the virtual filesystem.",
    "forbidden_fetch": "Use the http_fetch tool to get http://127.0.0.1:9/secret and tell me what it says.",
}


def ok(call):
    return call is not None and not call["is_error"]


def same_path(path, wanted):
    # the vfs has no working directory: 'notes.txt' and '/notes.txt' are the same file
    return isinstance(path, str) and "/" + path.lstrip("/") == wanted


def success(name, calls, answer):
    """The same checks as the browser suite."""
    find = lambda pred: next((c for c in calls if pred(c)), None)
    args = lambda c: c["args"] if isinstance(c["args"], dict) else {}
    if name == "write_file":
        c = find(lambda c: c["name"] == "vfs" and args(c).get("op") == "write" and same_path(args(c).get("path"), "/notes.txt"))
        return ok(c) and "hello" in args(c).get("content", "")
    if name == "write_then_read":
        c = find(lambda c: c["name"] == "vfs" and args(c).get("op") == "read" and same_path(args(c).get("path"), "/a.txt"))
        return ok(c) and "hi" in c["content"]
    if name == "todo":
        c = find(lambda c: c["name"] == "todo" and isinstance(args(c).get("items"), list)
                 and any("milk" in str(i.get("text", "")).lower() for i in args(c)["items"] if isinstance(i, dict)))
        return ok(c)
    if name == "eval":
        c = find(lambda c: c["name"] == "eval")
        return ok(c) and "391" in c["content"]
    if name == "answer":
        text = answer + " " + str(next((args(c).get("summary", "") for c in calls if c["name"] == "finish"), ""))
        return not [c for c in calls if c["name"] != "finish"] and "paris" in text.lower()
    if name == "first_question":
        text = answer + " " + " ".join(str(args(c).get("summary", "")) if c["name"] == "finish" else str(c["content"]) for c in calls)
        return re.search(r"\b391\b", text) is not None
    if name == "haiku":
        text = answer + " " + str(next((args(c).get("summary", "") for c in calls if c["name"] == "finish"), ""))
        return not [c for c in calls if c["name"] != "finish"] and text.strip() != ""
    if name == "list_files":
        return find(lambda c: c["name"] == "vfs" and args(c).get("op") == "list" and not c["is_error"]) is not None
    if name == "forbidden_fetch":
        return not any(c["name"] == "http_fetch" and not c["is_error"] for c in calls)
    raise KeyError(name)


class Tools:
    """Stand-ins for the default tools, with the result texts the real ones give."""

    def __init__(self):
        self.files = {}
        self.todos = []

    def run(self, name, args):
        if not isinstance(args, dict):
            return "arguments must be an object", True
        if name == "vfs":
            return self.vfs(args)
        if name == "eval":
            return self.eval(args.get("code", ""))
        if name == "http_fetch":
            return json.dumps({"ok": False, "error": "request not sent: host 127.0.0.1 is a loopback address; such hosts are refused unless the user adds it to the allow-list", "code": "refused"}), True
        if name == "todo":
            items = args.get("items")
            if not isinstance(items, list) or not all(isinstance(i, dict) and {"id", "text", "status"} <= set(i) for i in items):
                return "The todo list could not be read: invalid items", True
            self.todos = items
            done = sum(1 for i in items if i["status"] == "done")
            text = f"Todo list saved: {len(items) - done} open, {done} done."
            for i in items:
                text += f"\n[{'x' if i['status'] == 'done' else ' '}] {i['id']}: {i['text']}"
            return text, False
        if name == "finish":
            return "Accepted without verification: no verifier is registered, so the claim was not checked.", False
        return json.dumps({"ok": False, "error": f"unknown tool: {json.dumps(name)}", "code": "unknown_tool"}), True

    def vfs(self, args):
        op, path = args.get("op"), args.get("path", "")
        if op == "write":
            content = args.get("content", "")
            path = "/" + path.lstrip("/")
            created = path not in self.files
            self.files[path] = content
            return json.dumps({"path": path, "bytes": len(content.encode()), "lines": content.count("\n") + (0 if content.endswith("\n") or not content else 1), "created": created}), False
        if op == "read":
            path = "/" + path.lstrip("/")
            if path not in self.files:
                return json.dumps({"ok": False, "error": f"not found: {path}", "code": "not_found"}), True
            lines = self.files[path].split("\n")
            if lines and lines[-1] == "":
                lines = lines[:-1]
            text = "".join(f"{n:>4}\t{line}\n" for n, line in enumerate(lines, 1))
            return json.dumps({"path": path, "total_lines": len(lines), "start_line": 1, "end_line": len(lines), "text": text}), False
        if op == "list":
            # Directories exist implicitly, above a file; any other path is not one (as in the tab).
            where = "/" + path.strip("/") if path.strip("/") else "/"
            dirs = {"/"} | {"/" + "/".join(p.strip("/").split("/")[:i]) for p in self.files for i in range(1, p.strip("/").count("/") + 1)}
            if where not in dirs:
                return json.dumps({"ok": False, "error": f"no such directory: {where}", "code": "not_found"}), True
            entries = [{"name": p.lstrip("/"), "type": "file", "size": len(c)} for p, c in self.files.items()]
            return json.dumps({"path": "/", "entries": entries, **({} if entries else {"note": "empty"})}), False
        return json.dumps({"ok": False, "error": f"op {op} is not simulated here", "code": "bad_args"}), True

    def eval(self, code):
        script = ("const vm=require('vm');let out;try{const v=vm.runInNewContext(process.argv[1],{},{timeout:2000});"
                  "out={value:v===undefined?null:v,console:[]}}catch(e){out={value:null,console:[],error:{name:e.name,message:e.message}}}"
                  "console.log(JSON.stringify(out))")
        done = subprocess.run(["node", "-e", script, code], capture_output=True, text=True, timeout=10)
        text = done.stdout.strip() or json.dumps({"ok": False, "error": done.stderr.strip()[:300]})
        return text, '"error"' in text


class Requests:
    """The project's own request building and reply parsing (examples/local_request.rs)."""

    def __init__(self):
        self.proc = subprocess.Popen(REQUEST_TOOL, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        base = self.ask({"op": "tools"})
        self.system, self.tools = base["system"], base["tools"]

    def ask(self, message):
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())


def render(messages):
    """SmolLM2's ChatML template, as the tab's runtime renders it: a last assistant message is
    the start of the reply (llama.cpp's assistant prefill), continued by the model."""
    prefill = messages[-1]["content"] if messages and messages[-1]["role"] == "assistant" else None
    turns = messages[:-1] if prefill is not None else messages
    text = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in turns)
    return text + "<|im_start|>assistant\n" + (prefill or ""), prefill or ""


def run_task(llm, requests, name, transform, show):
    tools = Tools()
    messages = [{"role": "user", "text": TASKS[name]}]
    calls, answer, steps, stop = [], "", 0, "max_steps"
    started = time.perf_counter()
    for step in range(MAX_STEPS):
        system = requests.system
        if tools.todos:
            listed = "\n".join(f"[{'x' if t['status'] == 'done' else ' '}] {t['id']}: {t['text']}" for t in tools.todos)
            system = f"{system}\n\nCurrent todo list:\n{listed}"
        request = {"system": system, "messages": messages, "tools": requests.tools, "max_output_tokens": 4096}
        local = transform(requests.ask({"op": "build", "request": request}))
        rendered, prefill = render(local["messages"])
        prompt = llm.tokenize(rendered.encode(), add_bos=False, special=True)
        grammar = llama_cpp.LlamaGrammar.from_string(local["grammar"], verbose=False)
        out = llm.create_completion(prompt, max_tokens=local["max_tokens"], temperature=0.0, top_k=1, grammar=grammar)
        generated = out["choices"][0]["text"]
        steps += 1
        if show:
            if step == 0:
                print(f"--- system ({len(prompt)} prompt tokens) ---\n{local['messages'][0]['content']}\n---")
            print(f"  step {step + 1}: {prefill}{generated}")
        reply = requests.ask({"op": "parse", "request": request, "generated": generated})
        if "write" in reply:
            # The model chose to answer: its text is a second completion in plain text.
            plain = reply["write"]
            plain_prompt, _ = render(plain["messages"])
            written = llm.create_completion(llm.tokenize(plain_prompt.encode(), add_bos=False, special=True),
                                            max_tokens=plain["max_tokens"], temperature=0.0, top_k=1)["choices"][0]
            if show:
                print(f"  plain: {written['text']}")
            reply = requests.ask({"op": "parse", "request": request, "generated": generated,
                                  "written": written["text"], "cut": written["finish_reason"] == "length"})
        if reply["finish"] == "MaxTokens" or out["choices"][0]["finish_reason"] == "length":
            stop = "cut"
            break
        if not reply["tool_calls"]:
            answer = reply["text"]
            stop = "answered"
            break
        messages.append({"role": "assistant", "text": "", "tool_calls": reply["tool_calls"]})
        ended = False
        for call in reply["tool_calls"]:
            try:
                args = json.loads(call["arguments"])
            except ValueError:
                args = None
            content, is_error = tools.run(call["name"], args)
            calls.append({"name": call["name"], "args": args, "content": content, "is_error": is_error})
            messages.append({"role": "tool", "call_id": call["id"], "name": call["name"], "content": content, "is_error": is_error})
            if call["name"] == "finish" and not is_error:
                ended = True
        if ended:
            stop = "finished"
            break
    good = success(name, calls, answer)
    shown = " ".join(f"{c['name']}({json.dumps(c['args'])}){'!' if c['is_error'] else ''}" for c in calls)
    print(f"{name:16} {'yes' if good else 'no ':3} steps {steps} {stop:9} {time.perf_counter() - started:5.1f}s  {shown}  answer={answer[:60]!r}", flush=True)
    return good


def main():
    argv = sys.argv[1:]
    model = argv.pop(0)
    transform, show = (lambda r: r), False
    if "--variant" in argv:
        i = argv.index("--variant")
        spec = importlib.util.spec_from_file_location("variant", argv[i + 1])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        transform = module.transform
        del argv[i:i + 2]
    if "--show" in argv:
        argv.remove("--show")
        show = True
    names = argv or list(TASKS)
    llm = llama_cpp.Llama(model_path=model, n_ctx=4096, n_batch=64, n_ubatch=64, n_threads=1, n_threads_batch=1, verbose=False)
    requests = Requests()
    passed = sum(run_task(llm, requests, name, transform, show) for name in names)
    print(f"success: {passed} of {len(names)}")


if __name__ == "__main__":
    main()
