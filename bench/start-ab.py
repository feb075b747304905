#!/usr/bin/env python3
"""Interleaved A/B of the start (docs/benchmarks.md, "Start"): per round each variant once, the order rotated, each a
fresh process of its launcher as the README starts it.

Usage: bench/start-ab.py [-r ROUNDS] [--stdio] LABEL=LAUNCHER[,JAR[,CACHE_DIR]] ... [-- ARGS]

Without --stdio: LAUNCHER ARGS (e.g. bin/mcp-supervisor), ms from the start to the listening line, to /livez 200 and
to /readyz 200, then SIGTERM to its pid and the exit status. With --stdio: LAUNCHER stdio ARGS, ms from the start to
the answer of a client's first initialize and the process's own CPU then, then stdin closed and the exit awaited.
JAR and CACHE_DIR set MCP_SUPERVISOR_JAR and MCP_SUPERVISOR_CDS_DIR. A launcher without its cache records it on its
first run: run one round before the measured ones. Prints each run, each variant's medians, and with two variants the
second's ratio to the first per round (median, range, how many rounds it was sooner)."""
import argparse, json, os, re, signal, statistics, subprocess, sys, threading, time, urllib.error, urllib.request

from stdio_process import INIT, cpu_seconds


def status(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return None


def gateway(command, env):
    """listening, livez, readyz in ms from the start; the exit status after SIGTERM."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    port = None
    for line in process.stdout:
        found = re.search(r'listening on http://[^:]+:(\d+)', line)
        if found:
            port = found.group(1)
            break
    listening = (time.monotonic() - start) * 1000
    live = ready = None
    deadline = time.monotonic() + 300
    while port and time.monotonic() < deadline:
        if live is None and status('http://127.0.0.1:%s/livez' % port) == 200:
            live = (time.monotonic() - start) * 1000
        if status('http://127.0.0.1:%s/readyz' % port) == 200:
            ready = (time.monotonic() - start) * 1000
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGTERM)
    threading.Thread(target=process.stdout.read, daemon=True).start()
    return {"listening ms": listening, "livez ms": live, "readyz ms": ready}, process.wait(timeout=120)


def stdio(command, env):
    """The first initialize's answer in ms from the start and the process's CPU seconds then; the exit status."""
    start = time.monotonic()
    process = subprocess.Popen(command + ["stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=env, text=True)
    process.stdin.write(json.dumps(INIT) + "\n")
    process.stdin.flush()
    answer = process.stdout.readline()
    answered = (time.monotonic() - start) * 1000
    cpu = cpu_seconds(process.pid)
    if json.loads(answer).get("id") != 0:
        raise SystemExit("not the initialize's answer: " + answer)
    process.stdin.close()
    threading.Thread(target=process.stdout.read, daemon=True).start()
    return {"answer ms": answered, "cpu s": cpu}, process.wait(timeout=120)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-r", "--rounds", type=int, default=8)
    parser.add_argument("--stdio", action="store_true")
    parser.add_argument("variants", nargs="+")
    argv = sys.argv[1:]
    # split at "--" first: argparse would take the launcher's arguments after it for variants
    cut = argv.index("--") if "--" in argv else len(argv)
    known, extra = parser.parse_args(argv[:cut]), argv[cut + 1:]
    variants = []
    for spec in known.variants:
        label, rest = spec.split("=", 1)
        parts = rest.split(",")
        env = dict(os.environ)
        if len(parts) > 1:
            env["MCP_SUPERVISOR_JAR"] = parts[1]
        if len(parts) > 2:
            env["MCP_SUPERVISOR_CDS_DIR"] = parts[2]
        variants.append((label, [parts[0]] + extra, env))
    results = {label: [] for label, _, _ in variants}
    for r in range(known.rounds):
        for k in range(len(variants)):
            label, command, env = variants[(k + r) % len(variants)]
            figures, exit_status = (stdio if known.stdio else gateway)(command, env)
            results[label].append(figures)
            print("round %d %s: %s, exit %d, load %s" % (r + 1, label, ", ".join(
                "%s %s" % (name, "-" if value is None else "%.2f" % value) for name, value in figures.items()),
                exit_status, open("/proc/loadavg").read().split()[0]), flush=True)
    for label, rows in results.items():
        print("%s: %s" % (label, ", ".join("%s median %.2f (%.2f-%.2f)" % (
            name, statistics.median(v), min(v), max(v)) for name in rows[0]
            for v in [[row[name] for row in rows if row[name] is not None]] if v)))
    if len(variants) == 2:
        first, second = (results[label] for label, _, _ in variants)
        for name in first[0]:
            ratios = sorted(b[name] / a[name] for a, b in zip(first, second) if a[name] and b[name])
            if ratios:
                print("%s %s/%s per round: median %.2f (%.2f-%.2f), sooner in %d of %d" % (
                    name, variants[1][0], variants[0][0], statistics.median(ratios), ratios[0], ratios[-1],
                    sum(x < 1 for x in ratios), len(ratios)))


main()
