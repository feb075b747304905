#!/usr/bin/env bash
# ab34.sh PAIRS OUTDIR LABEL=JAR ...: one unmeasured start per jar (the launcher records its cache), then PAIRS rounds,
# each jar once per round (order rotated), each a fresh gateway (bin/mcp-supervisor, after /readyz 200) and one cold
# burst of 1000 sessions x 3 calls beside mcp-proxy's, as bench/compare.sh -n 1000 -m 3 -r 1 --warmup 0 runs it.
set -uo pipefail
PAIRS="$1"; OUT="$2"; shift 2
ROOT=/work/main
mkdir -p "$OUT"
JARS=("$@")
for entry in "${JARS[@]}"; do
  label="${entry%%=*}"; jar="${entry#*=}"
  "$ROOT/bench/compare.sh" -n 10 -m 3 -r 1 --warmup 0 -t supervisor-stdio --launcher --jar "$jar" \
    --out "$OUT/prime-$label" >"$OUT/prime-$label.out" 2>&1
done
for round in $(seq 1 "$PAIRS"); do
  n=${#JARS[@]}
  for k in $(seq 0 $((n - 1))); do
    entry="${JARS[$(( (k + round - 1) % n ))]}"
    label="${entry%%=*}"; jar="${entry#*=}"
    dir="$OUT/$label-$round"
    mkdir -p "$dir"
    echo "== round $round $label $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/ab.log"
    "$ROOT/bench/compare.sh" -n 1000 -m 3 -r 1 --warmup 0 -t supervisor-stdio,mcp-proxy --launcher --jar "$jar" \
      --out "$dir" >"$dir/compare.out" 2>&1
    grep -- '-- ready' "$dir/compare.out" | tee -a "$OUT/ab.log"
    grep -h '^| 1000 |' "$dir"/*.md | tee -a "$OUT/ab.log"
  done
done
