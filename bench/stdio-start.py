#!/usr/bin/env python3
"""Start-up of the stdio front (docs/benchmarks.md, "Start-up of the stdio front"): the time from starting COMMAND
to the answer of a client's first initialize on its stdout, the way a desktop client starts it; then stdin is closed
and the process must exit. Usage: bench/stdio-start.py [-r RUNS] COMMAND... (e.g. bin/mcp-supervisor stdio)."""
import json, statistics, subprocess, sys, time

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}

def once(command):
    started = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    process.stdin.write((json.dumps(INIT) + "\n").encode())
    process.stdin.flush()
    line = process.stdout.readline()
    elapsed = (time.monotonic() - started) * 1000
    process.stdin.close()
    process.wait(timeout=30)
    if b'"result"' not in line:
        sys.exit("no initialize result: %r" % line[:200])
    return elapsed

args = sys.argv[1:]
runs = 5
if args[:1] == ["-r"]:
    runs, args = int(args[1]), args[2:]
times = [once(args) for _ in range(runs)]
print("runs %d  min %.0f ms  median %.0f ms  max %.0f ms" % (runs, min(times), statistics.median(times), max(times)))
