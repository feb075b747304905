#!/usr/bin/env bash
# docs/embedding.md's LangChain4j `Assistant`, run as a new user runs it: a fresh Maven project on mcp-supervisor-bom
# (imported) with mcp-supervisor-langchain4j, the docs' code as written, and a main that hands it a scripted ChatModel
# (no network: it asks for everything__echo, then answers with the tool's result). It runs against server-everything
# from the pinned .ci/.work, for each LangChain4j release of the matrix, and must print its answer and exit by itself
# within 10 s (EXIT_WITHIN_S), leaving no process (.ci/consumer-lib.sh).
#
# Assumes the artifacts are installed (.ci/consumer.sh runs `mvn -B -q -DskipTests install` first). MAVEN_REPO_LOCAL,
# when set, is the local repository they were installed into. LANGCHAIN4J_VERSIONS overrides the matrix.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/node-env.sh
source .ci/consumer-lib.sh

versions=(${LANGCHAIN4J_VERSIONS:-1.11.0 1.18.1})
repo=()
[ -n "${MAVEN_REPO_LOCAL:-}" ] && repo=("-Dmaven.repo.local=$MAVEN_REPO_LOCAL")

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for langchain4j in "${versions[@]}"; do
  project="$work/assistant-$langchain4j"
  mkdir -p "$project/src/main/java"
  example_from docs/embedding.md Assistant.java "$project/src/main/java/Assistant.java"
  cat >"$project/src/main/java/Main.java" <<'JAVA'
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;

/** The user's model, scripted: calls the echo tool with 'hello', then answers with what it returned. */
public class Main implements ChatModel {
  public static void main(String[] args) {
    Assistant.ask(new Main());
  }

  @Override
  public ChatResponse doChat(ChatRequest request) {
    ChatMessage last = request.messages().get(request.messages().size() - 1);
    AiMessage answer = last instanceof ToolExecutionResultMessage result
        ? AiMessage.from("The echo tool answers: " + result.text())
        : AiMessage.from(ToolExecutionRequest.builder().id("1").name("everything__echo")
            .arguments("{\"message\": \"hello\"}").build());
    return ChatResponse.builder().aiMessage(answer).build();
  }
}
JAVA
  cat >"$project/servers.json" <<JSON
{ "mcpServers": { "everything": { "command": "$NODE_BIN", "args": ["$EVERYTHING_SERVER_JS", "stdio"] } } }
JSON
  bom_project "$project" langchain4j-consumer "dev.langchain4j:langchain4j-bom:$langchain4j" \
    dev.mcpsupervisor:mcp-supervisor-langchain4j ch.qos.logback:logback-classic:1.5.38
  echo "== LangChain4j $langchain4j: a new project on the BOM runs the docs' Assistant"
  (cd "$project" && mvn -B -q "${repo[@]}" compile dependency:build-classpath -Dmdep.outputFile=classpath.txt >/dev/null)
  grep -o "langchain4j-mcp-[^/]*\.jar" "$project/classpath.txt" | head -1
  run_to_exit "the Assistant on LangChain4j $langchain4j" "$project/out.txt" "The echo tool answers: .*hello" -- \
    bash -c 'cd "$1" && exec java -cp "target/classes:$(cat classpath.txt)" Main' _ "$project"
done
