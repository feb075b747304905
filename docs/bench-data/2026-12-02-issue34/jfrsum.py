#!/usr/bin/env python3
# jfrsum.py FILE.jfr [marker ...]: execution samples of a JFR recording: by thread, top self frames, top inclusive
# frames of this project's and Pekko's code, and the share of each marker (a substring of a frame) inclusive
import collections, re, subprocess, sys
J = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr"
text = subprocess.run([J, "print", "--events", "jdk.ExecutionSample", "--stack-depth", "300", sys.argv[1]],
                      capture_output=True, text=True).stdout
samples = []
for block in text.split("jdk.ExecutionSample {")[1:]:
    m = re.search(r'sampledThread = "([^"]*)"', block)
    thread = m.group(1) if m else "?"
    st = block.split("stackTrace = [", 1)[1].split("]\n", 1)[0] if "stackTrace = [" in block else ""
    frames = [re.sub(r"\s+line:.*$", "", l.strip()) for l in st.strip().split("\n") if l.strip() and l.strip() != "..."]
    samples.append((thread, frames))
n = len(samples)
print(f"{n} samples")
def top(counter, k, title):
    print(f"\n== {title}")
    for name, c in counter.most_common(k):
        print(f"{c:6d} {100*c/n:5.1f}%  {name}")
threads = collections.Counter(re.sub(r"\d+", "#", t) for t, _ in samples)
top(threads, 12, "threads")
selfc = collections.Counter(f[0] if f else "?" for _, f in samples)
top(selfc, 40, "self")
incl = collections.Counter()
for _, f in samples:
    for name in set(f):
        if "mcpsupervisor" in name:
            incl[name] += 1
top(incl, 60, "inclusive, dev.mcpsupervisor")
pk = collections.Counter()
for _, f in samples:
    for name in set(re.sub(r"\(.*", "", x) for x in f):
        if "pekko" in name or "jackson" in name or "logback" in name or "slf4j" in name or "java.security" in name or "sun.security" in name or "javax.crypto" in name:
            pk[name] += 1
top(pk, 60, "inclusive, pekko/jackson/logging/security")
pkg = collections.Counter()
for _, f in samples:
    if not f: continue
    frame = f[0]
    parts = frame.split("(")[0].split(".")
    pkg[".".join(parts[:4])] += 1
top(pkg, 25, "self by package")
for marker in sys.argv[2:]:
    c = sum(1 for _, f in samples if any(marker in x for x in f))
    print(f"marker {marker}: {c} {100*c/max(n,1):.1f}%")
