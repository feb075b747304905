#!/usr/bin/env bash
# profile.sh JAR OUT.jfr [JFR options]: a fresh gateway (bin/mcp-supervisor, JDK 25, AOT cache) in front of
# server-everything over stdio, as bench/compare.sh starts it; after /readyz 200 a JFR recording during one cold
# burst of 1000 sessions x 3 calls; then the gateway stops (by its pid).
set -euo pipefail
JAR="$1"; OUT="$2"; shift 2
WT=/work/wt/cold34
J25=/usr/lib/jvm/temurin-25-jdk-amd64/bin
source "$WT/.ci/node-env.sh" >/dev/null
WORK="$WT/bench/.work"
PRELOAD="$WORK/loopback.cjs"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
CFG="$(mktemp /tmp/cold34-XXXX.json)"
python3 -c 'import json, sys
print(json.dumps({"mcpServers": {"everything": {"command": sys.argv[1], "args": sys.argv[2:]}}}))' \
  "$NODE_BIN" --require "$PRELOAD" "$EVERYTHING_SERVER_JS" stdio > "$CFG"
LOG="${OUT%.jfr}.log"
setsid env MCP_SUPERVISOR_JAR="$JAR" MCP_SUPERVISOR_CDS_DIR="$WORK/launcher-cache" \
  "$WT/bin/mcp-supervisor" --config "$CFG" --host 127.0.0.1 --port "$PORT" >"$LOG" 2>&1 </dev/null &
PGID=$!
trap 'kill -TERM -- -$PGID 2>/dev/null || true; sleep 3; kill -KILL -- -$PGID 2>/dev/null || true; rm -f "$CFG"' EXIT
for i in $(seq 1 1800); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/readyz")" = 200 ] && break
  sleep 0.1
done
JPID="$(pgrep -P $PGID java || echo $PGID)"
uptime
if [ "${JFR:-1}" = 1 ]; then
  "$J25/jcmd" "$JPID" JFR.start name=burst settings=profile filename="$OUT" "$@" >/dev/null
fi
python3 /work/bench-cold34/threads.py "$JPID" "${OUT%.jfr}.t0"
java -jar "$JAR" bench "http://127.0.0.1:$PORT/servers/everything/mcp" -n 1000 -m 3 -k 1 --era session \
  --tool echo --argument message --pid "$JPID" --json "${OUT%.jfr}.json" || true
python3 /work/bench-cold34/threads.py "$JPID" "${OUT%.jfr}.t1"
python3 /work/bench-cold34/threaddiff.py "${OUT%.jfr}.t0" "${OUT%.jfr}.t1"
if [ "${JFR:-1}" = 1 ]; then
  "$J25/jcmd" "$JPID" JFR.stop name=burst >/dev/null
fi
uptime
