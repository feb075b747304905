#!/usr/bin/env python3
"""ab-start.py ROUNDS LABEL=JAR:CDSDIR ... [-- ARGS]: per round, each jar once (order rotated), started as the README does
(bin/mcp-supervisor ARGS): ms from start to the listening line, to /livez 200, to /readyz 200 (503 before it); then
SIGTERM and the exit status. The first run of a jar without a cache records it: run one round before measuring."""
import os, re, signal, statistics, subprocess, sys, threading, time, urllib.error, urllib.request
argv = sys.argv[1:]
extra = argv[argv.index('--') + 1:] if '--' in argv else []
argv = argv[:argv.index('--')] if '--' in argv else argv
rounds = int(argv[0]); variants = [a.split('=', 1) for a in argv[1:]]
def status(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r: return r.status
    except urllib.error.HTTPError as e: return e.code
    except Exception: return None
res = {label: [] for label, _ in variants}
for r in range(rounds):
    for k in range(len(variants)):
        label, spec = variants[(k + r) % len(variants)]
        jar, cds = spec.split(':')
        env = dict(os.environ, MCP_SUPERVISOR_JAR=jar, MCP_SUPERVISOR_CDS_DIR=cds)
        t0 = time.monotonic()
        p = subprocess.Popen(["/work/main/bin/mcp-supervisor"] + extra, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
        port = None
        for line in p.stdout:
            m = re.search(r'listening on http://127.0.0.1:(\d+)', line)
            if m: port = m.group(1); break
        listening = (time.monotonic() - t0) * 1000
        live = ready = None; saw503 = False
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if live is None and status('http://127.0.0.1:%s/livez' % port) == 200: live = (time.monotonic() - t0) * 1000
            s = status('http://127.0.0.1:%s/readyz' % port)
            saw503 = saw503 or s == 503
            if s == 200: ready = (time.monotonic() - t0) * 1000; break
            time.sleep(0.02)
        p.send_signal(signal.SIGTERM)
        threading.Thread(target=lambda: [None for _ in p.stdout], daemon=True).start()
        rc = p.wait(timeout=60)
        res[label].append((listening, live, ready))
        print("round %d %s: listening %.0f ms, livez %.0f ms, readyz %.0f ms (503 before: %s), exit %d, load %s" % (r + 1, label, listening, live, ready, saw503, rc, open('/proc/loadavg').read().split()[0]), flush=True)
for label, rows in res.items():
    print("%s: " % label + ", ".join("%s median %.0f ms (%.0f-%.0f)" % (n, statistics.median(x[i] for x in rows), min(x[i] for x in rows), max(x[i] for x in rows)) for i, n in enumerate(("listening", "livez", "readyz"))))
labels = [l for l, _ in variants]
if len(labels) == 2:
    a, b = res[labels[0]], res[labels[1]]
    for i, n in enumerate(("listening", "readyz")):
        j = (0, 2)[i]
        ratios = sorted(y[j] / x[j] for x, y in zip(a, b))
        print("%s %s/%s per round: median %.2f (%.2f-%.2f)" % (n, labels[1], labels[0], statistics.median(ratios), ratios[0], ratios[-1]))
