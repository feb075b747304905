#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, server mode) with both requirement sets,
# 2025-11-25 (sessions) and 2026-07-28 (stateless), against the fixture server twice: directly (its own Streamable HTTP
# mode) and through the gateway (the fixture as a stdio upstream, served at /servers/fixture/mcp). Prints passed/total
# for each and fails when a scenario that passes directly fails through the gateway, or when fewer 2026-07-28
# scenarios pass through the gateway than it is known to pass (the fixture serves 2026-07-28 itself over HTTP; over
# stdio it speaks the session era only, and the gateway bridges it). Needs the build outputs of `mvn -B verify` (or package): the gateway jar and the fixture jar.
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

REQUIREMENT_SETS=(2025-11-25 2026-07-28)
# scenarios of the 2026-07-28 set the gateway passed in front of the (session-era, stdio) fixture when this floor was set:
# all required ones
GATEWAY_2026_FLOOR=37

# --- run_suite NAME URL SET: runs the suite, keeps its output, prints a one-line result -------------------------------
run_suite() {
  local name="$1" url="$2" set="$3"
  echo "== conformance: $name ($url), requirements $set"
  # the suite exits non-zero when a scenario fails; the comparison below decides
  "$NODE_BIN" "$CONFORMANCE_BIN" server --url "$url" --requirements "$set" -o "$WORK/$name-results" \
    >"$WORK/$name.log" 2>&1 || true
  sed -n '/=== SUMMARY ===/,$p' "$WORK/$name.log"
  # the required scenarios only: those under "Not scored" do not count
  sed -n '/=== SUMMARY ===/,/^Total: /p' "$WORK/$name.log" | grep -E '^[✓✗] ' \
    | sed -E 's/^([✓✗]) ([^:]+):.*/\2 \1/' | sort >"$WORK/$name.all"
  sed -n '/^Not scored/,$p' "$WORK/$name.log" | grep -E '^ +[✓✗] ' | sed -E 's/^ +[✓✗] ([^ ]+).*/\1/' \
    | sort >"$WORK/$name.unscored" || true
  join -v 1 "$WORK/$name.all" "$WORK/$name.unscored" >"$WORK/$name.scenarios"
  if [ ! -s "$WORK/$name.scenarios" ]; then
    echo "error: the conformance run against $name produced no summary:" >&2
    tail -n 40 "$WORK/$name.log" >&2
    exit 1
  fi
}

passed_count() { grep -c ' ✓$' "$WORK/$1.scenarios" || true; }
total_count() { wc -l <"$WORK/$1.scenarios" | tr -d ' '; }
checks_line() { grep -E '^Total: ' "$WORK/$1.log" | tail -n 1 | sed 's/^Total: //'; }

# --- 1. directly --------------------------------------------------------------------------------------------------------
start_process fixture-direct FIXTURE_LISTENING "$JAVA" -cp "$FIXTURE_CLASSPATH" "$FIXTURE_MAIN" --http 0
for set in "${REQUIREMENT_SETS[@]}"; do
  run_suite "direct-$set" "${LISTENING#FIXTURE_LISTENING }" "$set"
done

# --- 2. through the gateway ----------------------------------------------------------------------------------------------
"$NODE_BIN" -e '
  const [java, classpath, main, file] = process.argv.slice(1);
  const config = {
    mcpServers: { fixture: { command: java, args: ["-cp", classpath, main, "--stdio"] } },
    gateway: { host: "127.0.0.1", port: 0 },
  };
  require("fs").writeFileSync(file, JSON.stringify(config, null, 2));
' "$JAVA" "$FIXTURE_CLASSPATH" "$FIXTURE_MAIN" "$WORK/gateway-config.json"
# resumable streams closed 300 ms after their priming event, so server-sse-polling sees the client resume with
# Last-Event-ID (the default keeps the connection open until the answer)
start_process gateway "mcp-supervisor listening on " "$JAVA" -Dmcp-supervisor.http.sseResume.closeConnectionAfter=300ms \
  -jar "$GATEWAY_JAR" --config "$WORK/gateway-config.json"
mcp_url="${LISTENING#mcp-supervisor listening on }"
for set in "${REQUIREMENT_SETS[@]}"; do
  run_suite "gateway-$set" "${mcp_url%/mcp}/servers/fixture/mcp" "$set"
done

# --- compare --------------------------------------------------------------------------------------------------------------
echo "== conformance result"
failed=0
for set in "${REQUIREMENT_SETS[@]}"; do
  direct="direct-$set" gateway="gateway-$set"
  echo "requirements $set: directly $(passed_count "$direct")/$(total_count "$direct") required scenarios" \
    "($(checks_line "$direct")), through the gateway $(passed_count "$gateway")/$(total_count "$gateway")" \
    "($(checks_line "$gateway"))"
  regressions="$(join <(grep ' ✓$' "$WORK/$direct.scenarios" | cut -d' ' -f1) \
                      <(grep -v ' ✓$' "$WORK/$gateway.scenarios" | cut -d' ' -f1 || true) || true)"
  missing="$(comm -23 <(cut -d' ' -f1 "$WORK/$direct.scenarios") <(cut -d' ' -f1 "$WORK/$gateway.scenarios") || true)"
  if [ -n "$regressions$missing" ]; then
    echo "FAILED ($set): scenarios that pass directly but not through the gateway:" $regressions $missing >&2
    failed=1
  fi
done
if [ "$(passed_count gateway-2026-07-28)" -lt "$GATEWAY_2026_FLOOR" ]; then
  echo "FAILED (2026-07-28): the gateway passes fewer than the $GATEWAY_2026_FLOOR scenarios it passed before" >&2
  failed=1
fi
if [ "$failed" -ne 0 ]; then
  echo "(logs: $WORK/gateway-*.log, $WORK/gateway.err)" >&2
  exit 1
fi
echo "OK: the gateway passes every scenario the fixture passes directly, in both requirement sets"
