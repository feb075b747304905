#!/usr/bin/env python3
# threads.py PID OUT: per-thread CPU ticks of PID (name -> utime+stime, summed by name with digits folded), as JSON
import json, os, re, sys
pid, out = sys.argv[1], sys.argv[2]
ticks = {}
for tid in os.listdir(f"/proc/{pid}/task"):
    try:
        stat = open(f"/proc/{pid}/task/{tid}/stat").read()
    except OSError:
        continue
    name = stat[stat.index("(") + 1: stat.rindex(")")]
    fields = stat[stat.rindex(")") + 2:].split()
    ticks[tid + ":" + name] = int(fields[11]) + int(fields[12])
json.dump(ticks, open(out, "w"))
