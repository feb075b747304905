#!/usr/bin/env python3
"""classes.py LABEL=JAR:CDSDIR ...: one start each of bin/mcp-supervisor --port 0 --warmup-calls 0 with -Xlog:class+load,
stopped (SIGTERM to its pid) at the listening line: the classes loaded by then, from the cache and from the jar."""
import os, signal, subprocess, sys, tempfile, re
for arg in sys.argv[1:]:
    label, spec = arg.split('=', 1); jar, cds = spec.split(':')
    log = tempfile.mktemp()
    env = dict(os.environ, MCP_SUPERVISOR_JAR=jar, MCP_SUPERVISOR_CDS_DIR=cds, JAVA_OPTS="-Xlog:class+load=info:file=" + log)
    p = subprocess.Popen(["/work/main/bin/mcp-supervisor", "--port", "0", "--warmup-calls", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    for line in p.stdout:
        if 'listening on' in line: break
    lines = open(log).read().splitlines()
    p.send_signal(signal.SIGTERM); p.stdout.read(); rc = p.wait(timeout=60)
    cached = sum(('shared objects file' in l) or ('AOT cache' in l) or ('shared file' in l) for l in lines)
    jarred = sum(bool(re.search(r'source: (jar|file):', l)) for l in lines)
    pico = sum(' picocli.' in l for l in lines)
    print("%s: %d classes to the listening line, %d from the cache, %d from the jar, picocli %d; exit %d" % (label, len(lines), cached, jarred, pico, rc))
    os.remove(log)
