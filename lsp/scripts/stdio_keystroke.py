#!/usr/bin/env python3
"""A keystroke in a 10 MB file, timed over stdio against the release server.

Usage: python3 lsp/scripts/stdio_keystroke.py target/release/nilang-lsp [MiB]

Generates the file `lsp/tests/support` generates for the latency bench
(functions `f{i}` and `g{i}` calling them), opens it, then replaces one
digit in the middle of the file 20 times (2 -> 3 -> 2 ...), each a
`didChange` with one incremental edit, and times each from the write of the
change to the `publishDiagnostics` for its version. Prints the fastest,
median and slowest, and the server's peak memory (VmHWM).
"""
import json
import subprocess
import sys
import time

server = sys.argv[1]
mib = int(sys.argv[2]) if len(sys.argv) > 2 else 10


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


text = generate(mib << 20)
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
target = [i for i, l in enumerate(lines) if l.endswith("2.0")][len(lines) // 40]
column = lines[target].index("2.0")
times = []
for version in range(1, 21):
    digit = "3" if version % 2 else "2"
    change = {"range": {"start": {"line": target, "character": column},
                        "end": {"line": target, "character": column + 1}},
              "text": digit}
    t0 = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
    assert wait_diagnostics(version) == []
    times.append(time.perf_counter() - t0)

hwm = next(l for l in open(f"/proc/{proc.pid}/status") if l.startswith("VmHWM"))
send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
while receive().get("id") != 2:
    pass
send({"jsonrpc": "2.0", "method": "exit"})
proc.wait()
times.sort()
functions = text.count("function ")
print(f"{len(text.encode()) / 1e6:.1f} MB, {functions} functions: open {opened:.2f} s; "
      f"keystroke fastest {times[0] * 1e3:.0f} ms, median {times[10] * 1e3:.0f} ms, "
      f"slowest {times[-1] * 1e3:.0f} ms; server {hwm.split(':')[1].strip()} peak")
