#!/usr/bin/env python3
# threaddiff.py BEFORE AFTER: CPU ms per thread group between two threads.py snapshots (threads gone in between
# count from 0 in AFTER only if present; threads that died are lost)
import json, re, sys, collections
b, a = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
hz = 100
groups = collections.Counter()
for k, v in a.items():
    d = v - b.get(k, 0)
    name = k.split(":", 1)[1]
    name = re.sub(r"\d+", "#", name)
    groups[name] += d * 1000 // hz
total = sum(groups.values())
print(f"total {total} ms")
for name, ms in groups.most_common(25):
    print(f"{ms:8d} ms {100*ms/max(total,1):5.1f}%  {name}")
