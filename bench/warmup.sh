#!/usr/bin/env bash
# Warm-up cost of the gateway: for each JVM variant, starts mcp-supervisor in front of server-everything over stdio,
# and measures its startup (wall and CPU to the "listening" line) and the CPU per call over the first 3,000 calls after
# the "listening" line; then starts it again, waits for /readyz 200 (when a load balancer would send it traffic: after
# its post-bind warm-up), measures the first 3,000 calls from there, and (after a long warm run, -w rounds of 10,000)
# 3,000 warm calls. One run, variants one after another; repeat with -r.
# Variants: JVM options (plain, cds, c1, ...), and the gateway's own warm-up: nowarm (warmup.calls=0), warmup-N
# (warmup.calls=N, no max duration to speak of), cds-nowarm; plain and the JVM variants run the default warm-up. On a JDK 25+
# (JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java), aot and aot-nowarm run with an AOT cache and compact headers,
# recorded by a run that made calls (the post-bind warm-up's and 3,000 more); aotidle-nowarm with one recorded by a
# run that made none (started, stopped), as the launcher records it when its first run serves no call; aot-settled
# runs the warm-up in rounds until the JIT settles (warmup.settledShare=0.05).
# Usage: [JAVA=...] bench/warmup.sh [-r RUNS] [-w WARM_RUNS] [VARIANT...]   (see docs/benchmarks.md, "Warm-up")
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
RUNS=2
WARM_RUNS=3
while [ $# -gt 0 ]; do
  case "$1" in
    -r) RUNS="$2"; shift 2 ;;
    -w) WARM_RUNS="$2"; shift 2 ;;
    -h|--help) sed -n 2,5p "$0"; exit 0 ;;
    *) break ;;
  esac
done
VARIANTS=("$@")
[ ${#VARIANTS[@]} -gt 0 ] || VARIANTS=(nowarm plain cds c1 cds-c1 serial cds-serial)

[ -f "$ROOT/src/target/mcp-supervisor.jar" ] || { echo "build the jar first: mvn -B -DskipTests package" >&2; exit 2; }
# shellcheck source=/dev/null
source "$ROOT/.ci/node-env.sh" >/dev/null
RAW="$(mktemp -d)"
# a copy: a rebuild during the run would otherwise change the jar under the gateway and void the CDS archive
JAR="$RAW/mcp-supervisor.jar"
cp "$ROOT/src/target/mcp-supervisor.jar" "$JAR"
ARCHIVE="$RAW/warmup.jsa"
AOT="$RAW/warmup.aot"
AOT_IDLE="$RAW/idle.aot"
JAVA="${JAVA:-java}"
HZ="$(getconf CLK_TCK)"
GATEWAY_PID=""
trap '[ -z "$GATEWAY_PID" ] || kill -KILL "$GATEWAY_PID" 2>/dev/null || true; rm -rf "$RAW"' EXIT

printf '{ "mcpServers": { "everything": { "command": "%s", "args": ["%s", "stdio"] } } }\n' \
  "$(command -v node)" "$EVERYTHING_SERVER_JS" >"$RAW/config.json"

# C2's thresholds ten (C2_LATE) and three (C2_LATE3) times the JVM's defaults: fewer C2 compilations before the
# port is bound, C2 kept (docs/benchmarks.md, eleventh round)
C2_LATE="-XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=6000 -XX:Tier4CompileThreshold=150000 -XX:Tier4BackEdgeThreshold=400000"
C2_LATE3="-XX:Tier4InvocationThreshold=15000 -XX:Tier4MinInvocationThreshold=1800 -XX:Tier4CompileThreshold=45000 -XX:Tier4BackEdgeThreshold=120000"

jvm_options() { # VARIANT -> the JVM options it adds
  case "$1" in
    plain) ;;
    cds) echo "-XX:SharedArchiveFile=$ARCHIVE" ;;
    cds-nowarm) echo "-XX:SharedArchiveFile=$ARCHIVE -Dmcp-supervisor.application.warmup.calls=0" ;;
    c1) echo "-XX:TieredStopAtLevel=1" ;;
    cds-c1) echo "-XX:SharedArchiveFile=$ARCHIVE -XX:TieredStopAtLevel=1" ;;
    serial) echo "-XX:+UseSerialGC" ;;
    cds-serial) echo "-XX:SharedArchiveFile=$ARCHIVE -XX:+UseSerialGC" ;;
    aot) echo "-XX:+UseCompactObjectHeaders -XX:AOTCache=$AOT" ;;
    aot-settled) echo "-XX:+UseCompactObjectHeaders -XX:AOTCache=$AOT -Dmcp-supervisor.application.warmup.settledShare=0.05" ;;
    aot-c2late) echo "-XX:+UseCompactObjectHeaders -XX:AOTCache=$AOT $C2_LATE" ;;
    aot-c2late3) echo "-XX:+UseCompactObjectHeaders -XX:AOTCache=$AOT $C2_LATE3" ;;
    aot-nowarm) echo "-XX:+UseCompactObjectHeaders -XX:AOTCache=$AOT -Dmcp-supervisor.application.warmup.calls=0" ;;
    aotidle-nowarm) echo "-XX:+UseCompactObjectHeaders -XX:AOTCache=$AOT_IDLE -Dmcp-supervisor.application.warmup.calls=0" ;;
    cc1) echo "-XX:CICompilerCount=1 -XX:-TieredCompilation" ;;
    nowarm) echo "-Dmcp-supervisor.application.warmup.calls=0" ;;
    warmup-*) echo "-Dmcp-supervisor.application.warmup.calls=${1#warmup-} -Dmcp-supervisor.application.warmup.maxDuration=300s" ;;
    *) echo "unknown variant: $1" >&2; exit 2 ;;
  esac
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# start_gateway OPTIONS...: starts the gateway, waits for its listening line; sets GATEWAY_PID, URL, READY_MS, READY_CPU_MS
start_gateway() {
  local port log start i
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
  log="$RAW/gateway.log"
  start="$(date +%s%N)"
  # shellcheck disable=SC2068
  "$JAVA" $@ -jar "$JAR" --config "$RAW/config.json" --host 127.0.0.1 --port "$port" >"$log" 2>&1 </dev/null &
  GATEWAY_PID=$!
  for i in $(seq 1 3600); do # up to 180 s
    grep -q "mcp-supervisor listening on" "$log" && break
    kill -0 "$GATEWAY_PID" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.05
  done
  READY_MS=$((($(date +%s%N) - start) / 1000000))
  READY_CPU_MS=$(($(cpu_ticks "$GATEWAY_PID") * 1000 / HZ))
  URL="http://127.0.0.1:$port/servers/everything/mcp"
  READYZ="http://127.0.0.1:$port/readyz"
  STARTED_AT="$start"
}

# await_ready: until /readyz answers 200 (at most 180 s); sets TO_READY_MS (from the start)
await_ready() {
  local i
  for i in $(seq 1 1800); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$READYZ")" = 200 ] && break
    sleep 0.1
  done
  TO_READY_MS=$((($(date +%s%N) - STARTED_AT) / 1000000))
}

stop_gateway() {
  kill -TERM "$GATEWAY_PID" 2>/dev/null || true
  wait "$GATEWAY_PID" 2>/dev/null || true
  GATEWAY_PID=""
}

bench() { # CALLS JSON
  java -XX:TieredStopAtLevel=1 -jar "$JAR" bench "$URL" -n 10 -m "$1" --era session --pid "$GATEWAY_PID" \
    --json "$2" >/dev/null 2>&1 || echo "bench reported failures ($2)" >&2
}

field() { # JSON EXPRESSION
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["runs"][0]; print(eval(sys.argv[2]))' "$1" "$2"
}

if printf '%s\n' "${VARIANTS[@]}" | grep -q '^cds'; then
  echo "creating the CDS archive: a training run of 3,000 calls with -XX:ArchiveClassesAtExit" >&2
  start_gateway "-XX:ArchiveClassesAtExit=$ARCHIVE"
  bench 300 "$RAW/train.json"
  stop_gateway
  [ -s "$ARCHIVE" ] || { echo "no CDS archive written" >&2; exit 1; }
fi

if printf '%s\n' "${VARIANTS[@]}" | grep -q '^aot'; then
  echo "creating the AOT cache: a training run of 3,000 calls with -XX:AOTCacheOutput" >&2
  start_gateway "-XX:+UseCompactObjectHeaders -XX:AOTCacheOutput=$AOT"
  bench 300 "$RAW/train.json"
  stop_gateway
  [ -s "$AOT" ] || { echo "no AOT cache written" >&2; exit 1; }
fi

if printf '%s\n' "${VARIANTS[@]}" | grep -q '^aotidle'; then
  echo "creating the idle AOT cache: a training run that makes no call (no warm-up, stopped once listening)" >&2
  start_gateway "-XX:+UseCompactObjectHeaders -XX:AOTCacheOutput=$AOT_IDLE -Dmcp-supervisor.application.warmup.calls=0"
  stop_gateway
  [ -s "$AOT_IDLE" ] || { echo "no AOT cache written" >&2; exit 1; }
fi

printf 'variant\trun\tlistening ms\tlistening cpu ms\tfirst 3k cpu us/call\tfirst 3k calls/s\twarm cpu us/call\twarm calls/s\tready ms\tfirst 3k after ready cpu us/call\tfirst 3k after ready calls/s\n'
for run in $(seq 1 "$RUNS"); do
  for variant in "${VARIANTS[@]}"; do
    # shellcheck disable=SC2046
    start_gateway $(jvm_options "$variant")
    LISTENING_MS="$READY_MS" LISTENING_CPU_MS="$READY_CPU_MS"
    bench 300 "$RAW/first.json"
    stop_gateway
    # shellcheck disable=SC2046
    start_gateway $(jvm_options "$variant")
    await_ready
    bench 300 "$RAW/ready.json"
    # warm: after the warm-up is over, so its calls never share the measured ones' CPU
    for i in $(seq 1 "$WARM_RUNS"); do bench 1000 "$RAW/long.json"; done
    bench 300 "$RAW/warm.json"
    stop_gateway
    printf '%s\t%s\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t%.0f\t%.0f\n' "$variant" "$run" "$LISTENING_MS" "$LISTENING_CPU_MS" \
      "$(field "$RAW/first.json" 'r["cpuMicrosPerCall"]')" "$(field "$RAW/first.json" 'r["callsPerSecond"]')" \
      "$(field "$RAW/warm.json" 'r["cpuMicrosPerCall"]')" "$(field "$RAW/warm.json" 'r["callsPerSecond"]')" \
      "$TO_READY_MS" "$(field "$RAW/ready.json" 'r["cpuMicrosPerCall"]')" "$(field "$RAW/ready.json" 'r["callsPerSecond"]')"
  done
done
