#!/usr/bin/env python3
"""ab-stdio.py ROUNDS LABEL=JAR:CDSDIR ...: per round, each jar once (order rotated): bin/mcp-supervisor stdio, the first
initialize's answer (ms from start) and the front's own CPU at that moment, then stdin closed and exit awaited."""
import json, os, subprocess, sys, time, statistics
HZ = os.sysconf("SC_CLK_TCK")
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize","params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
def cpu(pid):
    with open("/proc/%d/stat" % pid) as f: x = f.read().rsplit(")", 1)[1].split(); return (int(x[11]) + int(x[12])) / HZ
rounds = int(sys.argv[1]); variants = [a.split('=', 1) for a in sys.argv[2:]]
res = {l: [] for l, _ in variants}
for r in range(rounds):
    for k in range(len(variants)):
        label, spec = variants[(k + r) % len(variants)]
        jar, cds = spec.split(':')
        env = dict(os.environ, MCP_SUPERVISOR_JAR=jar, MCP_SUPERVISOR_CDS_DIR=cds)
        t0 = time.monotonic()
        p = subprocess.Popen(["/work/main/bin/mcp-supervisor", "stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        p.stdin.write((json.dumps(INIT) + "\n").encode()); p.stdin.flush()
        p.stdout.readline(); ms = (time.monotonic() - t0) * 1000
        # the launcher execs java: the pid is the JVM's
        c = cpu(p.pid)
        p.stdin.close(); p.wait(timeout=60)
        res[label].append((ms, c))
        print("round %d %s: answer %.0f ms, front cpu %.2f s, load %s" % (r + 1, label, ms, c, open('/proc/loadavg').read().split()[0]), flush=True)
for label, rows in res.items():
    print("%s: answer median %.0f ms (%.0f-%.0f), front cpu median %.2f s (%.2f-%.2f)" % (label, statistics.median(x[0] for x in rows), min(x[0] for x in rows), max(x[0] for x in rows), statistics.median(x[1] for x in rows), min(x[1] for x in rows), max(x[1] for x in rows)))
