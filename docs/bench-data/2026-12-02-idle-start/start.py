#!/usr/bin/env python3
"""start.py RUNS [env K=V ...] -- COMMAND...: per run, ms from start to the listening line, /livez 200, /readyz 200; SIGTERM; exit status."""
import os, re, subprocess, sys, time, urllib.request, signal, statistics
runs = int(sys.argv[1]); args = sys.argv[2:]
env = dict(os.environ)
while args and args[0] != '--':
    k, v = args.pop(0).split('=', 1); env[k] = v
args.pop(0)
def get(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r: return r.status
    except urllib.error.HTTPError as e: return e.code
    except Exception: return None
rows = []
for i in range(runs):
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    port = None
    for line in p.stdout:
        m = re.search(r'listening on http://127.0.0.1:(\d+)', line)
        if m: port = m.group(1); break
    listen = (time.monotonic() - t0) * 1000
    live = ready = None; first503 = False
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if live is None and get('http://127.0.0.1:%s/livez' % port) == 200: live = (time.monotonic() - t0) * 1000
        s = get('http://127.0.0.1:%s/readyz' % port)
        if s == 503: first503 = True
        if s == 200: ready = (time.monotonic() - t0) * 1000; break
        time.sleep(0.02)
    p.send_signal(signal.SIGTERM)
    import threading; threading.Thread(target=lambda: [None for _ in p.stdout], daemon=True).start()
    rc = p.wait(timeout=60)
    rows.append((listen, live, ready))
    print('run %d: listening %.0f ms, livez %.0f ms, readyz %.0f ms (503 seen: %s), exit %d, load %s' % (i + 1, listen, live, ready, first503, rc, open('/proc/loadavg').read().split()[0]), flush=True)
for n, k in (('listening', 0), ('livez', 1), ('readyz', 2)):
    print('median %s: %.0f ms' % (n, statistics.median(r[k] for r in rows)))
