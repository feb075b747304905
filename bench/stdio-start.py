#!/usr/bin/env python3
"""Start-up and per-call cost of the stdio front (docs/benchmarks.md, "Start-up of the stdio front" and "The stdio
front's cost per call"): the time from starting COMMAND to the answer of a client's first initialize on its stdout,
the way a desktop client starts it; then stdin is closed and the process must exit.

Usage: bench/stdio-start.py [-r RUNS] [-n CALLS] [-w WARMUP] [--threads] COMMAND...  (e.g. bin/mcp-supervisor stdio)

With -n, each run then sends notifications/initialized and WARMUP + CALLS tools/call of demo__echo one after the other
(the demo server behind the front; with --server demo the tool is echo), and reports, over the CALLS after the warm-up,
the CPU time of COMMAND's own process per call (user + system from /proc, its child servers not counted) and the wall
time per call. With --threads it also reads every thread's CPU time (jcmd Thread.print of the JDK COMMAND runs on) before
and after the CALLS and prints the per-call CPU of the ten costliest threads (names with their numbers folded)."""
import json, os, re, statistics, subprocess, sys, time

from stdio_process import INIT, cpu_seconds


def thread_cpu(pid):
    """Per thread name (digits folded into #), milliseconds of CPU so far, from jcmd Thread.print."""
    jcmd = os.path.join(os.path.dirname(os.path.realpath("/proc/%d/exe" % pid)), "jcmd")
    printed = subprocess.run([jcmd, str(pid), "Thread.print"], capture_output=True, text=True, timeout=60).stdout
    threads = {}
    for name, cpu in re.findall(r'^"(.*?)".*? cpu=([0-9.]+)ms', printed, re.M):
        folded = re.sub(r"\d+", "#", name)
        threads[folded] = threads.get(folded, 0.0) + float(cpu)
    return threads


def once(command, calls, warmup, threads):
    started = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(message):
        process.stdin.write((json.dumps(message) + "\n").encode())
        process.stdin.flush()

    def answer(request_id):
        while True:
            line = process.stdout.readline()
            if not line:
                sys.exit("stdout closed before the answer to %r" % request_id)
            message = json.loads(line)
            if message.get("id") == request_id and "method" not in message:
                return message

    send(INIT)
    line = process.stdout.readline()
    elapsed = (time.monotonic() - started) * 1000
    if b'"result"' not in line:
        sys.exit("no initialize result: %r" % line[:200])
    per_call = None
    if calls:
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tool = "echo" if "--server" in command else "demo__echo"

        def call(request_id):
            send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                  "params": {"name": tool, "arguments": {"message": "hello %d" % request_id}}})
            got = answer(request_id)
            if got.get("result", {}).get("content", [{}])[0].get("text") != "hello %d" % request_id:
                sys.exit("a wrong answer: %r" % got)

        for i in range(warmup):
            call(i + 1)
        before_threads = thread_cpu(process.pid) if threads else None
        before_cpu, before_wall = cpu_seconds(process.pid), time.monotonic()
        for i in range(calls):
            call(warmup + i + 1)
        cpu, wall = cpu_seconds(process.pid) - before_cpu, time.monotonic() - before_wall
        per_call = (cpu * 1e6 / calls, wall * 1e6 / calls)
        if threads:
            after = thread_cpu(process.pid)
            spent = {name: after[name] - before_threads.get(name, 0.0) for name in after}
            top = sorted(spent.items(), key=lambda item: -item[1])[:10]
            print("  threads, CPU us/call: " + "; ".join("%s %.0f" % (name, ms * 1000 / calls) for name, ms in top))
    process.stdin.close()
    process.wait(timeout=120)
    return elapsed, per_call


args = sys.argv[1:]
runs, calls, warmup, threads = 5, 0, 1000, False
while args[:1] in (["-r"], ["-n"], ["-w"], ["--threads"]):
    if args[0] == "--threads":
        threads, args = True, args[1:]
        continue
    value = int(args[1])
    if args[0] == "-r":
        runs = value
    elif args[0] == "-n":
        calls = value
    else:
        warmup = value
    args = args[2:]
results = [once(args, calls, warmup, threads) for _ in range(runs)]
times = [first for first, _ in results]
print("runs %d  first answer: min %.0f ms  median %.0f ms  max %.0f ms"
      % (runs, min(times), statistics.median(times), max(times)))
if calls:
    cpus = [cost[0] for _, cost in results]
    walls = [cost[1] for _, cost in results]
    print("%d calls after %d: CPU us/call min %.0f median %.0f max %.0f; wall us/call min %.0f median %.0f max %.0f"
          % (calls, warmup, min(cpus), statistics.median(cpus), max(cpus),
             min(walls), statistics.median(walls), max(walls)))
