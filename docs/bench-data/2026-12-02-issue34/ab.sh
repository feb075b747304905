#!/usr/bin/env bash
# ab.sh PAIRS OUTDIR LABEL=JAR LABEL=JAR ...: PAIRS rounds; in each, every jar once (order rotated per round), each a
# fresh gateway (bin/mcp-supervisor, JDK 25, AOT cache, after /readyz 200) and one cold burst of 1000 sessions x 3
# calls, as bench/compare.sh -n 1000 -m 3 -r 1 --warmup 0 -t supervisor-stdio --launcher runs it. TARGETS overrides
# the targets (e.g. supervisor-stdio,mcp-proxy).
set -uo pipefail
PAIRS="$1"; OUT="$2"; shift 2
WT=/work/wt/cold34
mkdir -p "$OUT"
JARS=("$@")
for round in $(seq 1 "$PAIRS"); do
  n=${#JARS[@]}
  for k in $(seq 0 $((n - 1))); do
    entry="${JARS[$(( (k + round - 1) % n ))]}"
    label="${entry%%=*}"; jar="${entry#*=}"
    dir="$OUT/$label-$round"
    mkdir -p "$dir"
    echo "== round $round $label $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/ab.log"
    "$WT/bench/compare.sh" -n 1000 -m 3 -r 1 --warmup 0 -t "${TARGETS:-supervisor-stdio}" --launcher --jar "$jar" \
      --out "$dir" >"$dir/compare.out" 2>&1
    echo "   after $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/ab.log"
    grep -A1 '^era' "$dir/compare.out" | grep -v '^era\|^--' | tee -a "$OUT/ab.log"
  done
done
