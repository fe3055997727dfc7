#!/usr/bin/env python3
"""A keystroke in a 10 MB file, timed over stdio against the release server.

Usage: python3 lsp/scripts/stdio_keystroke.py target/release/nilang-lsp [MiB] [--examples [--at=F]]

Without `--examples`: generates the file `lsp/tests/support` generates for
the latency bench (functions `f{i}` and `g{i}` calling them), opens it, then
replaces one digit in the middle of the file 40 times (2 -> 3 -> 2 ...).

With `--examples`: real code. The repository's `examples/*.nil` are tiled
to the size, each copy's functions and structs renamed (`dot` -> `dot_t7`)
so that the file checks clean, and a statement in the middle of the file is
turned into a comment and back 40 times (`# ` typed at the start of its
line, then deleted): an edit that changes what the function means, so the
function's analysis and the project's facts that depend on it run again.

Each change is a `didChange` with one incremental edit, timed from the write
of the change to the `publishDiagnostics` for its version. Prints the
fastest, median and slowest, and the server's peak memory (VmHWM).
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import time

args = [a for a in sys.argv[1:] if not a.startswith("--")]
# Edits timed (the median of 40 is steadier than of 20 on a shared machine).
EDITS = 40
examples = "--examples" in sys.argv
# `--at=0.25`: where in the file the edited statement is (a fraction of its
# lines; the middle by default).
at = next((float(a[5:]) for a in sys.argv if a.startswith("--at=")), 0.5)
server = args[0]
mib = int(args[1]) if len(args) > 1 else 10


def generate(size):
    parts, total, i = [], 0, 0
    while total < size:
        s = (
            f'"""Function number {i}."""\n'
            f"function f{i}(y::f64, x::f64, v::[f64], n::i64)\n"
            "    a ← zero(f64)\n    @routine begin\n        a += sin(x)\n"
            "        a += exp(x) / 2.0\n    end\n    for k = 1:n\n"
            "        v[k] += a * x\n        if (v[k] > 0.0, ~)\n"
            "            y += v[k]\n        end\n    end\n"
            "    while (y > 100.0, y < 1.0)\n        y -= 1.0\n    end\n"
            "    ROT(y, x, 0.5)\n    ~@routine\nend\n\n"
        )
        if i > 0:
            s += f"function g{i}(y::f64, x::f64, v::[f64], n::i64)\n    f{i}(y, x, v, n)\n    ~f{i - 1}(y, x, v, n)\nend\n\n"
        parts.append(s)
        total += len(s.encode())
        i += 1
    return "".join(parts)


def tile_examples(size):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
    base = "\n".join(open(f).read() for f in sorted(glob.glob(os.path.join(root, "*.nil"))))
    names = set(re.findall(r"^\s*(?:@\w+\s+)*(?:function|struct)\s+([^\W\d]\w*!?)", base, re.M))
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    pattern = re.compile(r"(?<![\w!])(" + alternatives + r")(?![\w!])")

    def rename(k):
        def one(m):
            n = m.group(1)
            return n[:-1] + f"_t{k}!" if n.endswith("!") else n + f"_t{k}"
        return pattern.sub(one, base)

    parts, total, k = [], 0, 0
    while total < size:
        parts.append(rename(k))
        total += len(parts[-1].encode()) + 1
        k += 1
    return "\n".join(parts)


text = tile_examples(mib << 20) if examples else generate(mib << 20)
proc = subprocess.Popen([server], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def send(msg):
    body = json.dumps(msg).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def receive():
    length = None
    while True:
        line = proc.stdout.readline()
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(proc.stdout.read(length))


def wait_diagnostics(version):
    while True:
        msg = receive()
        if msg.get("method") == "textDocument/publishDiagnostics":
            p = msg["params"]
            if p.get("version") == version:
                return p["diagnostics"]
        elif "id" in msg and "method" in msg:  # a request from the server
            send({"jsonrpc": "2.0", "id": msg["id"], "result": None})


uri = "file:///tmp/nilang-stdio-bench/large.nil"
send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"processId": None, "rootUri": None, "capabilities": {}}})
while "id" not in receive():
    pass
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
started = time.perf_counter()
send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
    "textDocument": {"uri": uri, "languageId": "nilang", "version": 0, "text": text}}})
assert wait_diagnostics(0) == []
opened = time.perf_counter() - started

lines = text.split("\n")
if examples:
    # A statement line (an instruction, a call) in the middle of the file.
    statement = re.compile(r"^\s+[\w!]+(\[.*\])?\s*(\+=|-=|\*=|/=)|^\s+[A-Z]+\(")
    target = next(i for i in range(int(len(lines) * at), len(lines)) if statement.match(lines[i]))
    column = len(lines[target]) - len(lines[target].lstrip())
else:
    target = [i for i, l in enumerate(lines) if l.endswith("2.0")][len(lines) // 40]
    column = lines[target].index("2.0")
times = []
for version in range(1, EDITS + 1):
    if examples:
        # Odd versions type `# `, even ones delete it again.
        if version % 2:
            change = {"range": {"start": {"line": target, "character": column},
                                "end": {"line": target, "character": column}},
                      "text": "# "}
        else:
            change = {"range": {"start": {"line": target, "character": column},
                                "end": {"line": target, "character": column + 2}},
                      "text": ""}
    else:
        digit = "3" if version % 2 else "2"
        change = {"range": {"start": {"line": target, "character": column},
                            "end": {"line": target, "character": column + 1}},
                  "text": digit}
    t0 = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
    diagnostics = wait_diagnostics(version)
    times.append(time.perf_counter() - t0)
    assert examples or diagnostics == []

hwm = next(l for l in open(f"/proc/{proc.pid}/status") if l.startswith("VmHWM"))
send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
while receive().get("id") != 2:
    pass
send({"jsonrpc": "2.0", "method": "exit"})
proc.wait()
times.sort()
functions = text.count("function ")
edit = f"`# ` typed and deleted at line {target + 1}: `{lines[target].strip()}`" if examples else "a digit changed"
print(f"{len(text.encode()) / 1e6:.1f} MB, {functions} functions, {edit}: open {opened:.2f} s; "
      f"keystroke fastest {times[0] * 1e3:.0f} ms, median {statistics.median(times) * 1e3:.0f} ms, "
      f"slowest {times[-1] * 1e3:.0f} ms; server {hwm.split(':')[1].strip()} peak")
