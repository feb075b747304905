#!/usr/bin/env bash
# The docs' Spring AI Agent (docs/embedding.md) as a new user runs it: a new Maven project on mcp-supervisor-bom with
# mcp-supervisor-spring-ai and Spring Boot, the Agent exactly as written there, a scripted ChatModel bean (no network)
# that asks for server-everything's echo tool and answers with its result, server-everything from the pinned .ci/.work.
# The Agent must print its answer and exit by itself within 10 s of printing it, leaving no process; once per pair of
# the matrix (SPRING_AI_MATRIX, as in .ci/matrix-spring-ai.sh). EXIT_WITHIN_SECONDS overrides the 10 s.
# Needs our artifacts installed (.ci/consumer.sh runs `mvn -B -q -DskipTests install` first); MAVEN_REPO_LOCAL names
# another local repository for both (a private one, to leave ~/.m2's snapshots alone).
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=node-env.sh
source .ci/node-env.sh

SPRING_AI_MATRIX="${SPRING_AI_MATRIX:-4.0.7:2.0.1 4.0.9:2.0.1 4.1.2:2.0.1}"
EXIT_SECONDS="${EXIT_WITHIN_SECONDS:-10}"
repo=()
[ -n "${MAVEN_REPO_LOCAL:-}" ] && repo=("-Dmaven.repo.local=$MAVEN_REPO_LOCAL")
version="$(python3 -c 'import xml.etree.ElementTree as ET; ns={"m": "http://maven.apache.org/POM/4.0.0"}; print(ET.parse("pom.xml").getroot().find("m:version", ns).text)')"

project="$(mktemp -d)"
agent_pid=""
cleanup() {
  [ -n "$agent_pid" ] && kill -9 "$agent_pid" 2>/dev/null || true
  rm -rf "$project"
}
trap cleanup EXIT

mkdir -p "$project/src/main/java" "$project/src/main/resources"
awk '/<!-- compiled: Agent.java -->/ {found=1; next}
     found && /^```java/ {inside=1; next}
     inside && /^```/ {exit}
     inside {print}' docs/embedding.md >"$project/src/main/java/Agent.java"
[ -s "$project/src/main/java/Agent.java" ] || { echo "error: no Agent example found in docs/embedding.md" >&2; exit 1; }
# the scripted model in the Agent's package, which @SpringBootApplication scans
package="$(sed -n 's/^package \(.*\);$/\1/p' "$project/src/main/java/Agent.java")"
main_class="${package:+$package.}Agent"
{ [ -n "$package" ] && echo "package $package;" && echo; cat .ci/consumer-spring-ai/ScriptedModel.java; } \
  >"$project/src/main/java/ScriptedModel.java"
# the server's script under a path of this run only, so that its processes are told apart from any other's
ln -s "$EVERYTHING_SERVER_JS" "$project/everything.js"
cat >"$project/src/main/resources/mcp-servers.json" <<JSON
{"mcpServers": {"everything": {"command": "$NODE_BIN", "args": ["$project/everything.js", "stdio"]}}}
JSON
cat >"$project/src/main/resources/application.properties" <<'PROPS'
spring.ai.mcp.client.stdio.servers-configuration=classpath:mcp-servers.json
spring.main.banner-mode=off
PROPS

for pair in $SPRING_AI_MATRIX; do
  boot="${pair%%:*}"
  ai="${pair##*:}"
  cat >"$project/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>spring-ai-consumer</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>dev.mcpsupervisor</groupId><artifactId>mcp-supervisor-bom</artifactId><version>$version</version>
        <type>pom</type><scope>import</scope>
      </dependency>
      <dependency>
        <groupId>org.springframework.boot</groupId><artifactId>spring-boot-dependencies</artifactId><version>$boot</version>
        <type>pom</type><scope>import</scope>
      </dependency>
      <dependency>
        <groupId>org.springframework.ai</groupId><artifactId>spring-ai-bom</artifactId><version>$ai</version>
        <type>pom</type><scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency><groupId>dev.mcpsupervisor</groupId><artifactId>mcp-supervisor-spring-ai</artifactId></dependency>
    <dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter</artifactId></dependency>
    <!-- what a model starter brings besides the model: ChatClient, its auto-configured builder, tool calling -->
    <dependency><groupId>org.springframework.ai</groupId><artifactId>spring-ai-autoconfigure-model-chat-client</artifactId></dependency>
    <dependency><groupId>org.springframework.ai</groupId><artifactId>spring-ai-autoconfigure-model-tool</artifactId></dependency>
    <dependency><groupId>org.springframework.ai</groupId><artifactId>spring-ai-client-chat</artifactId></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version></plugin>
    </plugins>
  </build>
</project>
POM
  echo "== the docs' Spring AI Agent on Spring Boot $boot, Spring AI $ai, mcp-supervisor $version"
  (cd "$project" && mvn -B -q "${repo[@]}" compile dependency:build-classpath -Dmdep.outputFile=cp.txt)
  out="$project/agent-$boot-$ai.log"
  : >"$out"
  started=$(date +%s.%N)
  java -cp "$project/target/classes:$(cat "$project/cp.txt")" "$main_class" >"$out" 2>&1 &
  agent_pid=$!
  answered=""
  # bounded: the answer within 120 s (a cold npx start and Spring's on a loaded machine), the exit within 10 s of it
  for _ in $(seq 1 1200); do
    if [ -z "$answered" ] && grep -q "^ANSWER: " "$out"; then answered=$(date +%s.%N); fi
    kill -0 "$agent_pid" 2>/dev/null || break
    if [ -n "$answered" ] && awk -v now="$(date +%s.%N)" -v at="$answered" -v limit="$EXIT_SECONDS" \
      'BEGIN { exit !(now - at > limit) }'; then break; fi
    sleep 0.1
  done
  if kill -0 "$agent_pid" 2>/dev/null; then
    echo "error: the Agent is still running $EXIT_SECONDS s after its answer (or never answered); its threads:" >&2
    jstack "$agent_pid" 2>/dev/null | grep -E '^"' | grep -v ' daemon ' >&2 || true
    tail -n 20 "$out" >&2
    kill -9 "$agent_pid"; agent_pid=""
    sleep 1
    for pid in $(pgrep -f "$project/everything.js"); do kill -9 "$pid"; done
    exit 1
  fi
  wait "$agent_pid" || { echo "error: the Agent failed" >&2; cat "$out" >&2; agent_pid=""; exit 1; }
  agent_pid=""
  ended=$(date +%s.%N)
  [ -n "$answered" ] || { echo "error: the Agent exited without an answer" >&2; cat "$out" >&2; exit 1; }
  grep "^ANSWER: " "$out"
  if pgrep -f "$project/everything.js" >/dev/null; then
    echo "error: a server-everything process outlived the Agent: $(pgrep -f "$project/everything.js" | tr '\n' ' ')" >&2
    for pid in $(pgrep -f "$project/everything.js"); do kill -9 "$pid"; done
    exit 1
  fi
  printf 'Agent on Spring Boot %s, Spring AI %s: answered %.1f s after start, exited %.1f s after its answer, no process left\n' \
    "$boot" "$ai" "$(awk -v a="$answered" -v b="$started" 'BEGIN { print a - b }')" \
    "$(awk -v a="$ended" -v b="$answered" 'BEGIN { print a - b }')"
done
