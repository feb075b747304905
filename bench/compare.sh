#!/usr/bin/env bash
# Comparison runner (docs/benchmarks.md, "Comparison runner"): one workload, measured in one run against
#   direct            the upstream (server-everything, or the fixture) serving Streamable HTTP itself
#   supervisor-stdio  mcp-supervisor in front of the upstream over stdio
#   supervisor-http   mcp-supervisor in front of the upstream over Streamable HTTP
#   mcp-proxy         mcp-proxy (npm, punkpeye) in front of the upstream over stdio
#   supergateway      supergateway --stateful (npm) in front of the upstream over stdio
#   floor             no upstream: a bare MCP echo on Pekko HTTP in the jar's own JVM (`bench-floor`), what a call
#                     costs on this stack before any supervision; the report gives CPU per call against it
# with the jar's bench subcommand, for each N sessions, RUNS times; writes bench/results/compare-<date>.json and .md
# (medians of the runs, ratios vs direct and vs the best peer). Everything binds 127.0.0.1; every process this script
# starts runs in its own process group and is stopped by that group's id; every wait is bounded.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: bench/compare.sh [options]
  -n, --sessions LIST     comma-separated session counts (default 10,100,1000)
  -m, --calls M           calls per session for every N (default: 300 for N<=10, 100 for N<=100, 20 above)
  -k, --in-flight K       calls in flight per session (default 1)
  -r, --runs R            runs per target and N; the tables show medians (default 3)
  --warmup M              before the measured runs, one unrecorded run of 10 sessions x M calls against each target
                          (JIT, connection pools; 0 = none; default 20)
  -t, --targets LIST      subset of direct,supervisor-stdio,supervisor-http,mcp-proxy,supergateway,floor
                          (default all)
  -u, --upstream NAME     everything (@modelcontextprotocol/server-everything, default) or fixture (this project's
                          fixture server; needs its jar: mvn -B -DskipTests package)
  --era ERA               session | stateless | both (default session: server-everything and the peers speak the
                          session era only)
  --supergateway-max N    skip supergateway above N sessions (default 100): --stateful spawns one upstream process
                          per session, 1,000 Node processes do not fit the machine
  --jar FILE              the mcp-supervisor jar (default src/target/mcp-supervisor.jar)
  --launcher              start mcp-supervisor with bin/mcp-supervisor, as the README does (its JDK 25+ and its
                          start-up cache, kept in bench/.work/launcher-cache/<jar>; recorded first by a run of its own
                          with 3,000 calls when there is none) instead of `java -jar` on the PATH's java
  --out DIR               results directory (default bench/results)
USAGE
}

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SESSIONS_LIST="10,100,1000"
CALLS=""
IN_FLIGHT=1
RUNS=3
WARMUP_CALLS=20
TARGETS="direct,supervisor-stdio,supervisor-http,mcp-proxy,supergateway,floor"
ERA="session"
UPSTREAM="everything"
SUPERGATEWAY_MAX=100
JAR="$ROOT/src/target/mcp-supervisor.jar"
OUT="$ROOT/bench/results"
LAUNCHER=false
while [ $# -gt 0 ]; do
  case "$1" in
    -n|--sessions) SESSIONS_LIST="$2"; shift 2 ;;
    -m|--calls) CALLS="$2"; shift 2 ;;
    -k|--in-flight) IN_FLIGHT="$2"; shift 2 ;;
    -r|--runs) RUNS="$2"; shift 2 ;;
    --warmup) WARMUP_CALLS="$2"; shift 2 ;;
    -t|--targets) TARGETS="$2"; shift 2 ;;
    --era) ERA="$2"; shift 2 ;;
    -u|--upstream) UPSTREAM="$2"; shift 2 ;;
    --supergateway-max) SUPERGATEWAY_MAX="$2"; shift 2 ;;
    --jar) JAR="$2"; shift 2 ;;
    --launcher) LAUNCHER=true; shift ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ -f "$JAR" ] || { echo "error: $JAR not found; build it with: mvn -B -DskipTests package" >&2; exit 2; }

# Node 22 and server-everything from .ci/node-env.sh; the peers, pinned, next to them in bench/.work
# shellcheck source=../.ci/node-env.sh
source "$ROOT/.ci/node-env.sh"
PEER_PACKAGES=("mcp-proxy@6.7.19" "supergateway@4.0.0")
WORK="$ROOT/bench/.work"
mkdir -p "$WORK" "$OUT"
for package in "${PEER_PACKAGES[@]}"; do
  installed="$("$NODE_BIN" -p 'require(process.argv[1]).version' "$WORK/node_modules/${package%@*}/package.json" 2>/dev/null || true)"
  if [ "$installed" != "${package##*@}" ]; then
    echo "installing ${PEER_PACKAGES[*]} into $WORK" >&2
    npm install --prefix "$WORK" --save-exact --no-audit --no-fund --loglevel=error "${PEER_PACKAGES[@]}" >&2
    break
  fi
done
MCP_PROXY_JS="$WORK/node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs"
SUPERGATEWAY_JS="$WORK/node_modules/supergateway/dist/index.js"

# server-everything (app.listen(PORT)) and supergateway listen on all interfaces: this preload makes every listen()
# in those Node processes bind 127.0.0.1, whatever host they ask for
PRELOAD="$WORK/loopback.cjs"
cat >"$PRELOAD" <<'JS'
const net = require('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (first !== null && typeof first === 'object' && first.path === undefined) {
    args[0] = { ...first, host: '127.0.0.1' };
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (typeof args[1] === 'string') args[1] = '127.0.0.1'; else args.splice(1, 0, '127.0.0.1');
  }
  return listen.apply(this, args);
};
JS
NODE_LOOPBACK=("$NODE_BIN" --require "$PRELOAD")

# the upstream: UPSTREAM_STDIO is its stdio command line; start_upstream_http NAME PORT starts it serving Streamable
# HTTP at http://127.0.0.1:PORT/mcp
case "$UPSTREAM" in
  everything)
    UPSTREAM_STDIO=("${NODE_LOOPBACK[@]}" "$EVERYTHING_SERVER_JS" stdio)
    start_upstream_http() { PORT="$2" start "$1" "${NODE_LOOPBACK[@]}" "$EVERYTHING_SERVER_JS" streamableHttp; } ;;
  fixture)
    FIXTURE_JAR="$(ls "$ROOT"/fixture-server/target/mcp-supervisor-fixture-server-*.jar 2>/dev/null \
      | grep -v -e '-sources' -e '-tests' | head -n 1 || true)"
    [ -n "$FIXTURE_JAR" ] || { echo "error: the fixture-server jar is missing: mvn -B -DskipTests package" >&2; exit 2; }
    # its jar plus its runtime dependencies, as .ci/conformance.sh builds it
    mvn -B -q -f "$ROOT/pom.xml" -pl fixture-server org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
      -DincludeScope=runtime -Dmdep.outputFile="$WORK/fixture.classpath" >&2
    UPSTREAM_STDIO=(java -cp "$FIXTURE_JAR:$(cat "$WORK/fixture.classpath")" dev.mcpsupervisor.fixture.FixtureServer)
    UPSTREAM_STDIO+=(--stdio)
    # the fixture binds 127.0.0.1 itself; without --exit-on-stdin-eof, since its stdin is /dev/null
    start_upstream_http() { start "$1" "${UPSTREAM_STDIO[@]:0:4}" --http "$2"; } ;;
  *) echo "unknown upstream: $UPSTREAM (everything or fixture)" >&2; exit 2 ;;
esac
UPSTREAM_STDIO_LINE="$(printf '%q ' "${UPSTREAM_STDIO[@]}")"

STAMP="$(date -u +%Y-%m-%dT%H%M%SZ)"
RAW="$(mktemp -d "${TMPDIR:-/tmp}/mcp-compare.XXXXXX")"
STARTED_PGIDS=()

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# start NAME CMD...: runs CMD in a new session (its own process group: pid == pgid), logs to $RAW/NAME.log; sets
# STARTED_PID (not echoed: a command substitution's subshell would own the process and lose STARTED_PGIDS)
start() {
  local name="$1"; shift
  setsid "$@" >"$RAW/$name.log" 2>&1 </dev/null &
  STARTED_PID=$!
  STARTED_PGIDS+=("$STARTED_PID")
}

# descendants PID: the PIDs of PID's children, their children, and so on (supergateway starts its upstreams in
# process groups of their own, so a group signal alone would miss them)
descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}

# stop PGID: TERM to the group and to every descendant (listed before the signal), at most 10 s for all of them to
# go, then KILL to what is left
stop() {
  local pgid="$1" i pid alive
  local -a pids
  read -r -a pids <<<"$(descendants "$pgid" | tr '\n' ' ')"
  kill -TERM -- "-$pgid" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for i in $(seq 1 100); do
    alive=0
    kill -0 -- "-$pgid" 2>/dev/null && alive=1
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  kill -KILL -- "-$pgid" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  wait "$pgid" 2>/dev/null || true
}

stop_all() {
  local pgid
  for pgid in "${STARTED_PGIDS[@]}"; do stop "$pgid"; done
  STARTED_PGIDS=()
}
trap 'stop_all; rm -rf "$RAW"' EXIT
trap 'exit 130' INT TERM

# wait_port PORT PID: until 127.0.0.1:PORT accepts connections, at most 180 s, failing early if PID died (a start on
# a busy machine)
wait_port() {
  local port="$1" pid="$2" i
  for i in $(seq 1 1800); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

calls_for() {
  if [ -n "$CALLS" ]; then echo "$CALLS"
  elif [ "$1" -le 10 ]; then echo 300
  elif [ "$1" -le 100 ]; then echo 100
  else echo 20
  fi
}

# wait_ready PORT PID: until mcp-supervisor's /readyz answers 200, at most 180 s (after its post-bind warm-up, when a
# load balancer would send it traffic); prints how long after the port it took
wait_ready() {
  local port="$1" pid="$2" i start
  start="$(date +%s%N)"
  for i in $(seq 1 1800); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ]; then
      echo "-- ready $((($(date +%s%N) - start) / 1000000)) ms after the port" >&2
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# the gateway's command: `java -jar`, or the launcher with its cache beside the peers, a directory per jar build (the
# launcher prunes the caches of other jars in its directory, so two jars compared in turn would each record anew)
LAUNCHER_CACHE="$WORK/launcher-cache/$(stat -c '%s %Y' "$JAR" | cat - <(readlink -f "$JAR") | cksum | cut -d' ' -f1)"
gateway_command() {
  if [ "$LAUNCHER" = true ]; then
    echo env MCP_SUPERVISOR_JAR="$JAR" MCP_SUPERVISOR_CDS_DIR="$LAUNCHER_CACHE" "$ROOT/bin/mcp-supervisor"
  else
    echo java -jar "$JAR"
  fi
}

gateway_config() { # FILE SERVER-JSON
  printf '{ "mcpServers": { "everything": %s } }\n' "$2" >"$1"
}

# launch TARGET: starts the target (and, for supervisor-http, its upstream); sets URL and FRONT_PID
launch() {
  local port upstream_port upstream_pid
  port="$(free_port)"
  case "$1" in
    direct)
      start_upstream_http direct "$port"
      FRONT_PID="$STARTED_PID"
      URL="http://127.0.0.1:$port/mcp" ;;
    supervisor-stdio)
      gateway_config "$RAW/stdio.json" "$(python3 -c 'import json, sys
print(json.dumps({"command": sys.argv[1], "args": sys.argv[2:]}))' "${UPSTREAM_STDIO[@]}")"
      # shellcheck disable=SC2046
      start supervisor-stdio $(gateway_command) --config "$RAW/stdio.json" --host 127.0.0.1 --port "$port"
      FRONT_PID="$STARTED_PID"
      URL="http://127.0.0.1:$port/servers/everything/mcp" ;;
    supervisor-http)
      upstream_port="$(free_port)"
      start_upstream_http upstream "$upstream_port"
      upstream_pid="$STARTED_PID"
      wait_port "$upstream_port" "$upstream_pid" || { echo "upstream did not start" >&2; return 1; }
      gateway_config "$RAW/http.json" "{ \"url\": \"http://127.0.0.1:$upstream_port/mcp\" }"
      # shellcheck disable=SC2046
      start supervisor-http $(gateway_command) --config "$RAW/http.json" --host 127.0.0.1 --port "$port"
      FRONT_PID="$STARTED_PID"
      URL="http://127.0.0.1:$port/servers/everything/mcp" ;;
    mcp-proxy)
      start mcp-proxy "${NODE_LOOPBACK[@]}" "$MCP_PROXY_JS" --host 127.0.0.1 --port "$port" \
        --server stream -- "${UPSTREAM_STDIO[@]}"
      FRONT_PID="$STARTED_PID"
      URL="http://127.0.0.1:$port/mcp" ;;
    supergateway)
      start supergateway "${NODE_LOOPBACK[@]}" "$SUPERGATEWAY_JS" --logLevel none \
        --stdio "$UPSTREAM_STDIO_LINE" \
        --outputTransport streamableHttp --stateful --port "$port"
      FRONT_PID="$STARTED_PID"
      URL="http://127.0.0.1:$port/mcp" ;;
    floor)
      # shellcheck disable=SC2046
      start floor $(gateway_command) bench-floor --host 127.0.0.1 --port "$port"
      FRONT_PID="$STARTED_PID"
      URL="http://127.0.0.1:$port/mcp" ;;
    *) echo "unknown target: $1" >&2; return 1 ;;
  esac
  wait_port "$port" "$FRONT_PID" || { echo "$1 did not start; its log:" >&2; tail -20 "$RAW/$1.log" >&2; return 1; }
  case "$1" in
    supervisor-*) wait_ready "$port" "$FRONT_PID" || { echo "$1 never ready" >&2; tail -20 "$RAW/$1.log" >&2; return 1; } ;;
  esac
}

# the launcher's first run records its cache when it stops: one run of its own, before any measured one
if [ "$LAUNCHER" = true ] && ! ls "$LAUNCHER_CACHE"/mcp-supervisor-*.{aot,jsa} >/dev/null 2>&1; then
  echo "== recording the launcher's start-up cache (3,000 calls, then a clean stop)" >&2
  launch supervisor-stdio
  java -jar "$JAR" bench "$URL" -n 10 -m 300 --era "$ERA" --tool echo --argument message >/dev/null 2>&1 || true
  kill -TERM "$FRONT_PID" 2>/dev/null || true
  for i in $(seq 1 1200); do kill -0 "$FRONT_PID" 2>/dev/null || break; sleep 0.1; done # it writes the cache
  stop_all
  ls "$LAUNCHER_CACHE"/mcp-supervisor-*.{aot,jsa} >/dev/null 2>&1 || echo "warning: no launcher cache recorded" >&2
fi

IFS=',' read -r -a SESSION_COUNTS <<<"$SESSIONS_LIST"
IFS=',' read -r -a TARGET_NAMES <<<"$TARGETS"
: >"$RAW/index.tsv"
for target in "${TARGET_NAMES[@]}"; do
  echo "== $target" >&2
  if ! launch "$target"; then
    printf '%s\t-\t-\t-\tdid not start\n' "$target" >>"$RAW/index.tsv"
    stop_all
    continue
  fi
  if [ "$WARMUP_CALLS" -gt 0 ]; then
    echo "-- $target warm-up: 10 sessions x $WARMUP_CALLS calls (not recorded)" >&2
    java -jar "$JAR" bench "$URL" -n 10 -m "$WARMUP_CALLS" -k "$IN_FLIGHT" --era "$ERA" --tool echo \
      --argument message >/dev/null 2>&1 || true
  fi
  for n in "${SESSION_COUNTS[@]}"; do
    if [ "$target" = supergateway ] && [ "$n" -gt "$SUPERGATEWAY_MAX" ]; then
      printf '%s\t%s\t-\t-\tskipped: one upstream process per session above --supergateway-max %s\n' \
        "$target" "$n" "$SUPERGATEWAY_MAX" >>"$RAW/index.tsv"
      continue
    fi
    m="$(calls_for "$n")"
    for run in $(seq 1 "$RUNS"); do
      json="$RAW/$target-$n-$run.json"
      echo "-- $target N=$n M=$m K=$IN_FLIGHT run $run/$RUNS" >&2
      # exit status 1 = some call not ok: recorded in the JSON, not fatal here
      java -jar "$JAR" bench "$URL" -n "$n" -m "$m" -k "$IN_FLIGHT" --era "$ERA" --tool echo --argument message \
        --pid "$FRONT_PID" --json "$json" >&2 || true
      printf '%s\t%s\t%s\t%s\t%s\n' "$target" "$n" "$m" "$run" "$json" >>"$RAW/index.tsv"
    done
  done
  stop_all
done

python3 "$ROOT/bench/compare_report.py" "$RAW/index.tsv" "$OUT/compare-$STAMP.json" "$OUT/compare-$STAMP.md" \
  --in-flight "$IN_FLIGHT" --era "$ERA" --peers mcp-proxy,supergateway \
  --versions "upstream $UPSTREAM, node $("$NODE_BIN" --version), server-everything $(installed_version @modelcontextprotocol/server-everything), ${PEER_PACKAGES[*]}, mcp-supervisor $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
cat "$OUT/compare-$STAMP.md"
