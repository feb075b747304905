#!/usr/bin/env bash
# Nodes runner (docs/benchmarks.md, "One node against a cluster"): the same load against one gateway, and against
# NODES gateways forming one cluster (each in front of its own demo server over stdio) with every session's requests
# spread round-robin over all of them (bench --urls): initialize on one node, its calls on the next ones. Each
# configuration runs RUNS times; the bench's tables go to stdout, its JSON to OUT. Binds 127.0.0.1 only; every
# process it starts runs in its own process group and is stopped by that group's id (the gateways end their demo
# servers); every wait is bounded.
set -euo pipefail

JAR=src/target/mcp-supervisor.jar
NODES=3
SESSIONS=10
CALLS=200
RUNS=3
ERA=both
OUT="bench/results/nodes-$(date -u +%Y%m%dT%H%M%SZ)"

usage() {
  cat <<USAGE
usage: bench/nodes.sh [options]
  --nodes K        cluster size (default $NODES)
  -n, --sessions N sessions per run (default $SESSIONS)
  -m, --calls M    calls per session (default $CALLS)
  -r, --runs R     runs per configuration (default $RUNS)
  --era ERA        session | stateless | both (default $ERA)
  --jar FILE       the mcp-supervisor jar (default $JAR)
  --out DIR        where the JSON goes (default bench/results/nodes-<time>)
USAGE
}

while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) NODES="$2"; shift 2 ;;
    -n|--sessions) SESSIONS="$2"; shift 2 ;;
    -m|--calls) CALLS="$2"; shift 2 ;;
    -r|--runs) RUNS="$2"; shift 2 ;;
    --era) ERA="$2"; shift 2 ;;
    --jar) JAR="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
  esac
done

[ -f "$JAR" ] || { echo "no jar at $JAR: mvn -B package -DskipTests first" >&2; exit 2; }
JAR="$(cd "$(dirname "$JAR")" && pwd)/$(basename "$JAR")"
mkdir -p "$OUT"
RAW="$(mktemp -d)"
STARTED_PGIDS=()
SECRET="nodes-bench-secret-$(python3 -c 'import secrets; print(secrets.token_hex(16))')"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

stop_all() {
  local pgid i
  for pgid in "${STARTED_PGIDS[@]}"; do kill -TERM -- "-$pgid" 2>/dev/null || true; done
  for pgid in "${STARTED_PGIDS[@]}"; do
    for i in $(seq 1 200); do kill -0 -- "-$pgid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pgid" 2>/dev/null || true
  done
  STARTED_PGIDS=()
}
trap 'stop_all; rm -rf "$RAW"' EXIT
trap 'exit 130' INT TERM

# ready PORT PID: until http://127.0.0.1:PORT/readyz answers 200 (the node is Up), at most 180 s
ready() {
  local port="$1" pid="$2" i
  for i in $(seq 1 1800); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz" 2>/dev/null)" = 200 ]; then
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# node NAME HTTP-PORT [ARTERY-PORT SEED-PORT]: a gateway in front of its own demo server; in a cluster when given
# the Artery ports. Sets URL.
node() {
  local name="$1" port="$2" artery="${3:-}" seed="${4:-}" cluster=""
  if [ -n "$artery" ]; then
    cluster=", \"cluster\": { \"host\": \"127.0.0.1\", \"port\": $artery, \"seedNodes\": [\"127.0.0.1:$seed\"], \"secret\": \"$SECRET\" }"
  fi
  cat >"$RAW/$name.json" <<JSON
{
  "mcpServers": { "demo": { "command": "java", "args": ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
    "-cp", "$JAR", "dev.mcpsupervisor.app.demo.DemoServer"] } },
  "gateway": { "host": "127.0.0.1", "port": $port $cluster }
}
JSON
  setsid java -jar "$JAR" --config "$RAW/$name.json" >"$RAW/$name.log" 2>&1 </dev/null &
  STARTED_PGIDS+=("$!")
  ready "$port" "$!" || { echo "$name did not become ready; its log:" >&2; tail -20 "$RAW/$name.log" >&2; exit 1; }
  URL="http://127.0.0.1:$port/servers/demo/mcp"
}

# measure LABEL URL [MORE-URLS]: RUNS runs of the bench, after one unrecorded warm-up run
measure() {
  local label="$1" url="$2" more="${3:-}" run
  local -a urls=()
  [ -n "$more" ] && urls=(--urls "$more")
  java -jar "$JAR" bench "$url" "${urls[@]}" -n "$SESSIONS" -m "$CALLS" --era "$ERA" >/dev/null 2>&1 || true
  for run in $(seq 1 "$RUNS"); do
    echo "== $label, run $run" >&2
    java -jar "$JAR" bench "$url" "${urls[@]}" -n "$SESSIONS" -m "$CALLS" --era "$ERA" \
      --json "$OUT/$label-$run.json"
  done
}

echo "== one node" >&2
node single "$(free_port)"
measure single "$URL"
stop_all

echo "== $NODES nodes of one cluster" >&2
SEED="$(free_port)"
node node1 "$(free_port)" "$SEED" "$SEED"
FIRST="$URL"
MORE=""
for i in $(seq 2 "$NODES"); do
  node "node$i" "$(free_port)" "$(free_port)" "$SEED"
  MORE="${MORE:+$MORE,}$URL"
done
measure "cluster-$NODES" "$FIRST" "$MORE"
stop_all
echo "results: $OUT" >&2
