#!/usr/bin/env python3
# jfrunder.py FILE.jfr MARKER [DEPTH]: the samples whose stack has MARKER, by the DEPTH frames called under it
import collections, re, subprocess, sys
J = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr"
text = subprocess.run([J, "print", "--events", "jdk.ExecutionSample", "--stack-depth", "300", sys.argv[1]],
                      capture_output=True, text=True).stdout
marker = sys.argv[2]; depth = int(sys.argv[3]) if len(sys.argv) > 3 else 2
c = collections.Counter(); n = 0; total = 0
for block in text.split("jdk.ExecutionSample {")[1:]:
    total += 1
    st = block.split("stackTrace = [", 1)[1].split("]\n", 1)[0] if "stackTrace = [" in block else ""
    frames = [re.sub(r"\s+line:.*$", "", l.strip()) for l in st.strip().split("\n") if l.strip() and l.strip() != "..."]
    frames = [re.sub(r"\(.*\)", "", f) for f in frames]
    idx = [i for i, f in enumerate(frames) if marker in f]
    if not idx: continue
    i = idx[-1]  # outermost occurrence
    n += 1
    if depth < 0:
        c[" <- ".join(frames[:-depth])] += 1
    else:
        c[" <- ".join(reversed(frames[max(0, i - depth):i])) or "(self)"] += 1
print(f"{n} of {total} samples under {marker}")
for k, v in c.most_common(30):
    print(f"{v:5d}  {k}")
