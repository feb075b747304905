# syntax=docker/dockerfile:1
# The gateway's image: docker build -t mcp-supervisor:0.1.0-SNAPSHOT . (deploy/kubernetes runs it; see
# docs/operations.md, "Kubernetes"). The jar is built on JDK 17 (its release); it runs on JDK 25 with an AOT cache
# (JEP 483/514/515) recorded here, at build time, and compact object headers, so every container starts with it.

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /build
COPY . .
RUN --mount=type=cache,target=/root/.m2 mvn -B -DskipTests -pl src -am package

FROM eclipse-temurin:25-jre
# tini as PID 1: it passes SIGTERM on and reaps what stdio servers' children leave behind
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/* \
    && groupadd --gid 10001 mcp && useradd --uid 10001 --gid mcp --no-create-home --shell /usr/sbin/nologin mcp \
    && mkdir -p /app/cache && chown mcp:mcp /app/cache
# the launcher, as outside a container: it finds the cache by the jar (path, size, modification time) and the JDK
ENV MCP_SUPERVISOR_JAR=/app/mcp-supervisor.jar \
    MCP_SUPERVISOR_CDS_DIR=/app/cache
COPY --from=build /build/src/target/mcp-supervisor.jar /app/mcp-supervisor.jar
COPY --from=build /build/bin/mcp-supervisor /app/bin/mcp-supervisor
USER 10001:10001
# The training run: the launcher's first run records (the built-in demo server, 127.0.0.1:8080, its 5,000-call
# warm-up, then 3,000 calls of each era from the jar's bench client); at SIGTERM the launcher
# assembles the cache. The build fails without one.
RUN <<'TRAIN' bash
set -euo pipefail
trap 'cat /tmp/training.err >&2' ERR # the gateway's log, when a step fails
ready() { # /readyz answers 200 (bash's /dev/tcp: the JRE image has no HTTP client)
  exec 3<>/dev/tcp/127.0.0.1/8080 || return 1
  printf 'GET /readyz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3
  local status; status="$(head -c 12 <&3)"; exec 3<&-
  [[ "$status" == *" 200" ]]
}
/app/bin/mcp-supervisor >/tmp/training.out 2>/tmp/training.err &
launcher=$!
for _ in $(seq 1 300); do ready 2>/dev/null && break; kill -0 "$launcher"; sleep 1; done
ready
java -jar /app/mcp-supervisor.jar bench http://127.0.0.1:8080/servers/demo/mcp -n 10 -m 300 >/dev/null
kill -TERM "$launcher"
wait "$launcher"
ls /app/cache/mcp-supervisor-*.aot >/dev/null
rm -f /tmp/training.*
TRAIN
# MCP (gateway.port), Artery (gateway.cluster.port), Pekko Management (gateway.cluster.discovery.managementPort)
EXPOSE 8080 25520 7626
ENTRYPOINT ["/usr/bin/tini", "--", "/app/bin/mcp-supervisor"]
