#!/usr/bin/env bash
# The docs' Spring AI Agent (docs/embedding.md) as a new user runs it: a new Maven project on mcp-supervisor-bom with
# mcp-supervisor-spring-ai and Spring Boot, the Agent exactly as written there, a scripted ChatModel bean (no network)
# that asks for server-everything's echo tool and answers with its result, server-everything from the pinned .ci/.work.
# The Agent must print its answer and exit by itself within 10 s of printing it, leaving no process; once per pair of
# the matrix (SPRING_AI_MATRIX, as in .ci/matrix-spring-ai.sh); .ci/consumer-lib.sh runs it (EXIT_WITHIN_S: 10 s).
# Needs our artifacts installed (.ci/consumer.sh runs `mvn -B -q -DskipTests install` first); MAVEN_REPO_LOCAL names
# another local repository for both (a private one, to leave ~/.m2's snapshots alone).
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=node-env.sh
source .ci/node-env.sh
# shellcheck source=consumer-lib.sh
source .ci/consumer-lib.sh

SPRING_AI_MATRIX="${SPRING_AI_MATRIX:-4.0.7:2.0.1 4.0.9:2.0.1 4.1.2:2.0.1}"
repo=()
[ -n "${MAVEN_REPO_LOCAL:-}" ] && repo=("-Dmaven.repo.local=$MAVEN_REPO_LOCAL")
version="$(project_version)"

project="$(mktemp -d)"
trap 'rm -rf "$project"' EXIT

mkdir -p "$project/src/main/java" "$project/src/main/resources"
example_from docs/embedding.md Agent.java "$project/src/main/java/Agent.java"
# the scripted model in the Agent's package, which @SpringBootApplication scans
package="$(sed -n 's/^package \(.*\);$/\1/p' "$project/src/main/java/Agent.java")"
main_class="${package:+$package.}Agent"
{ [ -n "$package" ] && echo "package $package;" && echo; cat .ci/consumer-spring-ai/ScriptedModel.java; } \
  >"$project/src/main/java/ScriptedModel.java"
cat >"$project/src/main/resources/mcp-servers.json" <<JSON
{"mcpServers": {"everything": {"command": "$NODE_BIN", "args": ["$EVERYTHING_SERVER_JS", "stdio"]}}}
JSON
cat >"$project/src/main/resources/application.properties" <<'PROPS'
spring.ai.mcp.client.stdio.servers-configuration=classpath:mcp-servers.json
spring.main.banner-mode=off
PROPS

for pair in $SPRING_AI_MATRIX; do
  boot="${pair%%:*}"
  ai="${pair##*:}"
  # the three spring-ai artifacts: what a model starter brings besides the model (ChatClient, its auto-configured
  # builder, tool calling)
  bom_project "$project" spring-ai-consumer \
    "org.springframework.boot:spring-boot-dependencies:$boot org.springframework.ai:spring-ai-bom:$ai" \
    dev.mcpsupervisor:mcp-supervisor-spring-ai org.springframework.boot:spring-boot-starter \
    org.springframework.ai:spring-ai-autoconfigure-model-chat-client \
    org.springframework.ai:spring-ai-autoconfigure-model-tool org.springframework.ai:spring-ai-client-chat
  echo "== the docs' Spring AI Agent on Spring Boot $boot, Spring AI $ai, mcp-supervisor $version"
  (cd "$project" && mvn -B -q "${repo[@]}" compile dependency:build-classpath -Dmdep.outputFile=cp.txt)
  run_to_exit "the Agent on Spring Boot $boot, Spring AI $ai" "$project/agent-$boot-$ai.log" "^ANSWER: " -- \
    java -cp "$project/target/classes:$(cat "$project/cp.txt")" "$main_class"
done
