#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, server mode) with both requirement sets,
# 2025-11-25 (sessions) and 2026-07-28 (stateless), against three servers, each directly and through the gateway
# (started with its shipped defaults, each server at /servers/<name>/mcp):
#   fixture  this project's Java fixture: directly in its own Streamable HTTP mode, behind the gateway over stdio;
#   ts-dual  src/test/node/conformance-server.mjs on the TypeScript SDK v2, serving both eras (2025 sessions beside a
#            strict 2026-07-28 handler), behind the gateway as a remote Streamable HTTP upstream;
#   ts-2026  the same server serving 2026-07-28 only, likewise.
# .ci/conformance_gate.py then counts every required scenario's checks (a scenario passes with at least one successful
# check and no failed one) and fails when a scenario is worse through the gateway than directly (unless
# .ci/conformance-known-gaps.txt lists it, with the issue item it waits for; a listed gap that passes fails too), or a
# run falls below its floor in .ci/conformance-floors.txt. Needs the build outputs of `mvn -B verify` (or package):
# the gateway jar and the fixture jar.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=node-env.sh
source .ci/node-env.sh

START_TIMEOUT_SECONDS=90
GATEWAY_JAR="src/target/mcp-supervisor.jar"
FIXTURE_JAR="$(ls fixture-server/target/mcp-supervisor-fixture-server-*.jar 2>/dev/null | grep -v -e '-sources' -e '-tests' | head -n 1 || true)"
if [ ! -f "$GATEWAY_JAR" ] || [ -z "$FIXTURE_JAR" ]; then
  echo "error: $GATEWAY_JAR or the fixture-server jar is missing: run 'mvn -B verify' (or 'mvn -B -DskipTests package') first" >&2
  exit 1
fi

WORK="$CI_WORK/conformance"
rm -rf "$WORK"
mkdir -p "$WORK"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
JAVA="$(command -v "$JAVA")"

# --- processes we start, stopped by PID (and their children) on every exit path ---------------------------------------
STARTED_PIDS=()
stop_started() {
  local pid children
  for pid in "${STARTED_PIDS[@]}"; do
    kill -0 "$pid" 2>/dev/null || continue
    children="$(pgrep -P "$pid" || true)"
    # the gateway ends its own children on TERM; whatever is left after 10 s is killed
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    for child in $children $pid; do
      kill -KILL "$child" 2>/dev/null || true
    done
  done
}
trap stop_started EXIT

# start_process NAME PATTERN COMMAND...: runs COMMAND in the background (stdout to $WORK/NAME.out, stderr to
# $WORK/NAME.err) and waits until stdout has a line starting with PATTERN; sets LISTENING to that line. (Not called
# in a $(...) subshell, so the PID it records survives for the EXIT trap.)
start_process() {
  local name="$1" pattern="$2"
  shift 2
  "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null &
  local pid=$!
  STARTED_PIDS+=("$pid")
  local deadline=$((SECONDS + START_TIMEOUT_SECONDS))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if grep -q "^$pattern" "$WORK/$name.out" 2>/dev/null; then
      LISTENING="$(grep -m 1 "^$pattern" "$WORK/$name.out")"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      break
    fi
    sleep 0.2
  done
  echo "error: $name did not print '$pattern' within ${START_TIMEOUT_SECONDS}s; its stderr:" >&2
  tail -n 30 "$WORK/$name.err" >&2
  return 1
}

# --- the fixture server's command line: its jar plus its runtime dependencies ----------------------------------------
mvn -B -q -pl fixture-server org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
  -DincludeScope=runtime -Dmdep.outputFile="$WORK/fixture.classpath"
FIXTURE_CLASSPATH="$(pwd)/$FIXTURE_JAR:$(cat "$WORK/fixture.classpath")"
FIXTURE_MAIN="dev.mcpsupervisor.fixture.FixtureServer"

SERVERS=(fixture ts-dual ts-2026)
REQUIREMENT_SETS=(2025-11-25 2026-07-28)

# --- run_suite NAME URL SET: runs the suite into $WORK/NAME-SET-results, keeps its log, prints its summary ------------
run_suite() {
  local name="$1" url="$2" set="$3"
  echo "== conformance: $name ($url), requirements $set"
  # the suite exits non-zero when a scenario fails; conformance_gate.py decides
  "$NODE_BIN" "$CONFORMANCE_BIN" server --url "$url" --requirements "$set" -o "$WORK/$name-$set-results" \
    >"$WORK/$name-$set.log" 2>&1 || true
  if ! grep -q '=== SUMMARY ===' "$WORK/$name-$set.log"; then
    echo "error: the conformance run against $name produced no summary:" >&2
    tail -n 40 "$WORK/$name-$set.log" >&2
    exit 1
  fi
  # the suite's own total counts its unscored scenarios too (tasks extension, pending); the verdict below counts the
  # required ones
  grep -E '^Total: ' "$WORK/$name-$set.log" | sed 's/^/suite total (scored and unscored): /' || true
}

# --- 1. the servers, each run directly -----------------------------------------------------------------------------------
declare -A DIRECT_URL
start_process fixture-direct FIXTURE_LISTENING "$JAVA" -cp "$FIXTURE_CLASSPATH" "$FIXTURE_MAIN" --http 0
DIRECT_URL[fixture]="${LISTENING#FIXTURE_LISTENING }"
# the script beside .ci/.work/node_modules, so its imports resolve to the pinned packages
cp src/test/node/conformance-server.mjs "$WORK/"
start_process ts-dual "listening " "$NODE_BIN" "$WORK/conformance-server.mjs" both 0
DIRECT_URL[ts-dual]="${LISTENING#listening }"
start_process ts-2026 "listening " "$NODE_BIN" "$WORK/conformance-server.mjs" 2026 0
DIRECT_URL[ts-2026]="${LISTENING#listening }"
for server in "${SERVERS[@]}"; do
  for set in "${REQUIREMENT_SETS[@]}"; do
    run_suite "$server-direct" "${DIRECT_URL[$server]}" "$set"
  done
done

# --- 2. through the gateway, with the defaults a user gets ---------------------------------------------------------------
"$NODE_BIN" -e '
  const [java, classpath, main, dual, modern, file] = process.argv.slice(1);
  const config = {
    mcpServers: {
      fixture: { command: java, args: ["-cp", classpath, main, "--stdio"] },
      "ts-dual": { url: dual },
      "ts-2026": { url: modern },
    },
    gateway: { host: "127.0.0.1", port: 0 },
  };
  require("fs").writeFileSync(file, JSON.stringify(config, null, 2));
' "$JAVA" "$FIXTURE_CLASSPATH" "$FIXTURE_MAIN" "${DIRECT_URL[ts-dual]}" "${DIRECT_URL[ts-2026]}" \
  "$WORK/gateway-config.json"
start_process gateway "mcp-supervisor listening on " "$JAVA" -jar "$GATEWAY_JAR" --config "$WORK/gateway-config.json"
mcp_url="${LISTENING#mcp-supervisor listening on }"
for server in "${SERVERS[@]}"; do
  for set in "${REQUIREMENT_SETS[@]}"; do
    run_suite "$server-gateway" "${mcp_url%/mcp}/servers/$server/mcp" "$set"
  done
done

# --- 3. the verdict: scenario by scenario, checks counted, floors and known gaps ----------------------------------------
if ! python3 .ci/conformance_gate.py "$WORK" "$CI_WORK/node_modules/@modelcontextprotocol/conformance/requirements" \
  .ci/conformance-floors.txt .ci/conformance-known-gaps.txt "${SERVERS[@]}"; then
  echo "(logs: $WORK/*.log, $WORK/gateway.err; per scenario: $WORK/*-results/server-*/checks.json)" >&2
  exit 1
fi
